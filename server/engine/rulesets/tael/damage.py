"""Damage, Brace and fainting at zero hit points (T5, T8, T9).

The attack roll (T5) is rolled once (`DamageRolled`) and dealt to each target hit
(`DamageTaken`): a spell's one roll goes to every target it hit (TR5). Brace halves
what a braced target takes, rounded down, after every other reduction (T9); a prepared
move that prevents the damage leaves nothing to halve. Hit points stop at 0, and at 0
the character faints (T8, `Fainted`); no damage kills outright (TR11). A fainted
character hit by an attack again has its Willpower DC raised by 5 (T8,
`WillpowerDcRaised`); a status effect's damage is not an attack, and the fainted take
none from their statuses (TR12).
"""

from __future__ import annotations

from server.engine.core import Event
from server.engine.dice import Roll
from server.engine.records import evolve, record
from server.engine.rulesets.tael.combatant import (
    FIRST_WILLPOWER_DC,
    Preparation,
    TaelCombatant,
)
from server.engine.rulesets.tael.ruleset import TAEL
from server.engine.state import Encounter

HIT_WHILE_DOWN = 5  # T8: "Everytime the character is hit by an attack again while down"


@record
class DamageRolled(Event):
    """The attack roll (T5): damage dice and what is added, rolled once for all its targets."""

    attacker: str
    source: str  # the weapon, spell or status effect
    roll: Roll

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)


@record
class DamageTaken(Event):
    target: str
    by: str  # the attacker, or the status effect's name
    damage: int  # the attack roll's total (never below 0)
    taken: int  # after Brace
    braced: bool
    hit_points: int  # left after it


@record
class DamagePrevented(Event):
    """A prepared move (T2) kept the hit's damage off `target`."""

    target: str
    attacker: str
    preparer: str
    move: str


@record
class Fainted(Event):
    """T8: hit points reached 0; the character faints and loses its turns."""

    combatant: str


@record
class WillpowerDcRaised(Event):
    combatant: str
    by: int
    dc: int


def damage_events(target: TaelCombatant, by: str, damage: int) -> list[Event]:
    """`damage` dealt to `target`: Brace halves it (rounded down); 0 hit points faints."""
    damage = max(0, damage)
    taken = damage // 2 if target.braced else damage
    left = max(0, target.hit_points - taken)
    events: list[Event] = [DamageTaken(target.id, by, damage, taken, target.braced, left)]
    if left == 0 and not target.fainted and not target.dead:
        events.append(Fainted(target.id))
    return events


def hit_while_down(target: TaelCombatant) -> list[Event]:
    """T8: an attack that hits a fainted character raises its Willpower DC by 5."""
    if not target.fainted:
        return []
    return [WillpowerDcRaised(target.id, HIT_WHILE_DOWN, target.willpower_dc + HIT_WHILE_DOWN)]


@TAEL.applies(DamageRolled)
def apply_damage_rolled(state: Encounter, event: DamageRolled) -> Encounter:
    return state


@TAEL.applies(DamageTaken)
def apply_damage_taken(state: Encounter, event: DamageTaken) -> Encounter:
    c: TaelCombatant = state.combatants[event.target]
    return state.with_combatant(evolve(c, hit_points=event.hit_points))


@TAEL.applies(DamagePrevented)
def apply_damage_prevented(state: Encounter, event: DamagePrevented) -> Encounter:
    return state


@TAEL.applies(Fainted)
def apply_fainted(state: Encounter, event: Fainted) -> Encounter:
    """A fresh Willpower track at DC 5 (TR13); its preparation is lost, its Brace ends."""
    c: TaelCombatant = state.combatants[event.combatant]
    return state.with_combatant(
        evolve(
            c,
            hit_points=0,
            fainted=True,
            willpower_dc=FIRST_WILLPOWER_DC,
            willpower_failures=0,
            preparation=Preparation.NONE,
            prepared="",
            braced=False,
            hidden=False,
        )
    )


@TAEL.applies(WillpowerDcRaised)
def apply_willpower_dc_raised(state: Encounter, event: WillpowerDcRaised) -> Encounter:
    c: TaelCombatant = state.combatants[event.combatant]
    return state.with_combatant(evolve(c, willpower_dc=event.dc))
