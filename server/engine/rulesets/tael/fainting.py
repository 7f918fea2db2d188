"""Fainting, the Willpower track and Help (T8, T9).

"If a character's hit points drop to zero, he will temporarily faint and be unable to
use his turn until a teammate helps him up or heals him. At the beginning of every
turn, the character must make an increasingly difficult Willpower check ... If the
Willpower check is successfull, the DC will increase by 1. Everytime the character is
hit by an attack again while down, the DC will increase by 5. If a character fails two
Willpower checks in a row without the character recieving help, he will die. The
initial Willpower DC is 5. A critical success of the Willpower check will instantly get
you up with 1 hitpoint, allowing you to take your turn as usual. A critical failure
will have no additional effects and be considered a normal fail."

The check is `d20 + Willpower` and succeeds when it meets or beats the DC (TR15, as the
resist checks of T6); a natural 20 always succeeds and stands the character up, a
natural 1 always fails. A success breaks a row of failures. Help: "Helps a fainted Ally.
He will return to the turn order where he originally was and will have one hit point
until further healed." It is a generic action (the default Action) on an ally within
one tile (TR16).
"""

from __future__ import annotations

from server.engine.core import Command, Event
from server.engine.dice import DiceCup, Roll
from server.engine.effects import Rules
from server.engine.errors import INVALID_COMMAND, OUT_OF_REACH, CommandRefused
from server.engine.records import evolve, record
from server.engine.rulesets.tael.actions import action_slot, spent
from server.engine.rulesets.tael.combatant import FIRST_WILLPOWER_DC, TaelCombatant
from server.engine.rulesets.tael.condition_rules import WILLPOWER, bonuses
from server.engine.rulesets.tael.errors import NOT_FAINTED
from server.engine.rulesets.tael.ruleset import TAEL, living_target, on_turn
from server.engine.rulesets.tael.sheet import ActionKind
from server.engine.state import Encounter

DEADLY_FAILURES = 2  # "fails two Willpower checks in a row"
HELP_REACH = 1  # tiles (TR16)


@record
class Help(Command):
    """T9 Help: stand up `target`, a fainted ally next to `actor`, with 1 hit point."""

    actor: str
    target: str


@record
class WillpowerChecked(Event):
    """T8: the check a fainted character makes at the start of its turn."""

    combatant: str
    roll: Roll
    dc: int
    success: bool
    stood_up: bool  # a natural 20: up with 1 hit point, and it takes this turn
    failures: int  # failed checks in a row after this one

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)


@record
class Died(Event):
    combatant: str
    reason: str


@record
class HelpedUp(Event):
    helper: str
    target: str
    slot: str  # the Action spent


def willpower_events(cup: DiceCup, c: TaelCombatant, rules: Rules = ()) -> list[Event]:
    """T8: the Willpower check of a fainted character whose turn begins; its statuses
    add what the conditions table says (`save`, `save.willpower`, TR40)."""
    statuses = bonuses(rules, c, "save", f"save.{WILLPOWER}")
    roll = cup.d20((("Willpower", c.sheet.willpower), *statuses))
    natural = roll.natural
    stood_up = natural == 20
    success = stood_up or (natural != 1 and roll.total >= c.willpower_dc)
    failures = 0 if success else c.willpower_failures + 1
    events: list[Event] = [
        WillpowerChecked(c.id, roll, c.willpower_dc, success, stood_up, failures)
    ]
    if failures >= DEADLY_FAILURES:
        events.append(Died(c.id, "failed two Willpower checks in a row"))
    return events


@TAEL.decides(Help)
def decide_help(state: Encounter, command: Help, cup: DiceCup) -> list[Event]:
    actor = on_turn(state, command.actor)
    target = living_target(state, command.target)
    if target.id == actor.id:
        raise CommandRefused(INVALID_COMMAND, f"{actor.id} cannot help itself up")
    if target.side != actor.side:
        raise CommandRefused(INVALID_COMMAND, f"{target.id} is not an ally of {actor.id}")
    if not target.fainted:
        raise CommandRefused(NOT_FAINTED, f"{target.id} has not fainted")
    if state.grid.cells_between(actor.position, target.position) > HELP_REACH:
        raise CommandRefused(OUT_OF_REACH, f"{target.id} is not next to {actor.id}")
    slot = action_slot(actor, ActionKind.UNIVERSAL, state.condition_rules)
    return [HelpedUp(actor.id, target.id, slot)]


@TAEL.applies(WillpowerChecked)
def apply_willpower_checked(state: Encounter, event: WillpowerChecked) -> Encounter:
    c: TaelCombatant = state.combatants[event.combatant]
    if event.stood_up:
        return state.with_combatant(stood_up(c))
    dc = c.willpower_dc + 1 if event.success else c.willpower_dc
    return state.with_combatant(evolve(c, willpower_dc=dc, willpower_failures=event.failures))


@TAEL.applies(Died)
def apply_died(state: Encounter, event: Died) -> Encounter:
    c: TaelCombatant = state.combatants[event.combatant]
    return state.with_combatant(evolve(c, dead=True, fainted=False, hit_points=0))


@TAEL.applies(HelpedUp)
def apply_helped_up(state: Encounter, event: HelpedUp) -> Encounter:
    helper: TaelCombatant = state.combatants[event.helper]
    state = state.with_combatant(spent(helper, event.slot))
    return state.with_combatant(stood_up(state.combatants[event.target]))


def stood_up(c: TaelCombatant) -> TaelCombatant:
    """Up again with one hit point, its Willpower track cleared."""
    return evolve(
        c, fainted=False, hit_points=1, willpower_dc=FIRST_WILLPOWER_DC, willpower_failures=0
    )
