"""Status effects and their resist checks (T6).

"For status effect spells, the target must roll a resist check. The spell describes
the required number to overcome the status effect (... the Difficulty Check or DC).
The spellcaster can add his Magic-Sub-Attribute Modifier to the DC. The target can add
his Attribute-Modifier in the spell-described Attribute to his roll. If the target
meets or beats the DC, he will not be affected by the status effect."

The text leaves what a status does to the spell; a sheet's `StatusEffect` says it
(TR14): how many of the target's own turns it lasts, damage at the start of each, and
whether the target loses those turns. A status laid again replaces the old one (its
duration starts over). Durations count down when the target's turn ends; a status laid
during the target's own turn (only the GM can, `SetStatus`) counts from its next turn,
so a one-turn stun the GM lays then takes the next turn (TR38).
"""

from __future__ import annotations

from server.engine.condition_table import ConditionWarded
from server.engine.core import Event
from server.engine.dice import DiceCup, Roll
from server.engine.effects import Rules, immune
from server.engine.records import evolve, record
from server.engine.rulesets.tael.combatant import TaelCombatant, TaelStatus
from server.engine.rulesets.tael.condition_rules import bonuses
from server.engine.rulesets.tael.damage import DamageRolled, damage_events
from server.engine.rulesets.tael.ruleset import TAEL
from server.engine.rulesets.tael.sheet import StatusEffect
from server.engine.stack import Run
from server.engine.state import Encounter


@record
class ResistChecked(Event):
    """T6: `d20 + the target's attribute modifier` against `dc` (the spell's DC plus the
    caster's Magic modifier); meeting or beating it resists. `caster` cast the spell."""

    target: str
    status: str
    roll: Roll
    base_dc: int
    caster_magic: int
    dc: int
    resisted: bool
    caster: str = ""

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)


@record
class StatusGained(Event):
    target: str
    status: TaelStatus


@record
class StatusEnded(Event):
    target: str
    status: str


def resist_events(
    cup: DiceCup,
    caster: TaelCombatant,
    target: TaelCombatant,
    effect: StatusEffect,
    rules: Rules = (),
) -> list[Event]:
    """T6: the target's resist check, and the status if it fails. The target's statuses
    add what the conditions table `rules` says (`save`, `save.<attribute>`, TR40)."""
    if target.sheet.immunities and immune(target.sheet.immunities, effect.name):
        return [ConditionWarded(target.id, effect.name, "immune")]  # TR41: no check at all
    attribute = effect.attribute
    statuses = bonuses(rules, target, "save", f"save.{attribute}")
    roll = cup.d20(((attribute.capitalize(), target.sheet.modifier(attribute)), *statuses))
    magic = caster.sheet.magic
    dc = effect.dc + magic
    resisted = roll.total >= dc
    events: list[Event] = [
        ResistChecked(target.id, effect.name, roll, effect.dc, magic, dc, resisted, caster.id)
    ]
    if not resisted:
        status = TaelStatus(effect.name, effect.turns, effect.damage, effect.skips_turn, caster.id)
        events.append(StatusGained(target.id, status))
    return events


def status_damage(run: Run, combatant_id: str) -> None:
    """Damage of the statuses on `combatant_id`, dealt at the start of its turn."""
    for status in run.state.combatants[combatant_id].statuses:
        if not status.damage:
            continue
        c: TaelCombatant = run.state.combatants[combatant_id]
        if c.fainted or c.dead:
            return
        roll = run.cup.roll(status.damage)
        run.emit(DamageRolled(status.source, status.name, roll))
        run.emit(*damage_events(run.state.combatants[combatant_id], status.name, roll.total))


def expiring(c: TaelCombatant) -> list[Event]:
    """The statuses that run out as this turn ends (their last turn); one laid during
    this very turn has not begun to count (TR38)."""
    return [StatusEnded(c.id, s.name) for s in c.statuses if s.turns <= 1 and not s.from_next_turn]


def counted_down(c: TaelCombatant) -> tuple[TaelStatus, ...]:
    """The statuses left after one more of the combatant's turns; one laid during that
    turn counts from the next (TR38)."""
    return tuple(
        evolve(s, from_next_turn=False) if s.from_next_turn else evolve(s, turns=s.turns - 1)
        for s in c.statuses
        if s.turns > 1 or s.from_next_turn
    )


@TAEL.applies(ResistChecked)
def apply_resist_checked(state: Encounter, event: ResistChecked) -> Encounter:
    return state


@TAEL.applies(StatusGained)
def apply_status_gained(state: Encounter, event: StatusGained) -> Encounter:
    c: TaelCombatant = state.combatants[event.target]
    kept = tuple(s for s in c.statuses if s.name != event.status.name)
    return state.with_combatant(evolve(c, statuses=(*kept, event.status)))


@TAEL.applies(StatusEnded)
def apply_status_ended(state: Encounter, event: StatusEnded) -> Encounter:
    c: TaelCombatant = state.combatants[event.target]
    kept = tuple(s for s in c.statuses if s.name != event.status)
    return state.with_combatant(evolve(c, statuses=kept))
