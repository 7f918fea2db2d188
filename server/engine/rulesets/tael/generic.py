"""Generic Actions: Dash, Sprint, Brace and Hide (T9; Help is in `fainting.py`).

"Generic Actions are Actions that can always be used by the default Action available
each Turn": each spends the universal Action.

- Dash: "Doubles the movement for this Turn."
- Sprint: "Quadruples the movement for this Turn. Movement will be 0 for the next turn."
  Tiles already walked this turn count against the new allowance (TR18).
- Brace: "Reduces all incoming damage by 50% (rounded down, applied after other damage
  reducing effect ...). Cannot attack anymore for this turn after usage and also removes
  the Preparation available during the next Preparation Phase." It lasts until the
  bracer's next turn (TR19); `damage.py` halves, `actions.attack_slot` refuses attacks,
  `turns.apply_turn_ended` gives no Preparation.
- Hide: "Attempts to hide and dissappear from the vision of your enemies. Must be at
  least slightly obscured to work." The map knows no cover, so the GM judges that; the
  engine rolls a Stealth skill check (`d20` + the sheet's `stealth` skill) for the GM to
  read and marks the character hidden until it attacks or casts (TR20).
"""

from __future__ import annotations

from server.engine.core import Command, Event
from server.engine.dice import DiceCup, Roll
from server.engine.records import evolve, record
from server.engine.rulesets.tael.actions import action_slot, spent
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.ruleset import TAEL, on_turn
from server.engine.rulesets.tael.sheet import ActionKind
from server.engine.state import Encounter

DASH = 2
SPRINT = 4


@record
class Dash(Command):
    actor: str


@record
class Sprint(Command):
    actor: str


@record
class Brace(Command):
    actor: str


@record
class Hide(Command):
    actor: str


@record
class Dashed(Event):
    """Dash (x2) or Sprint (x4): the movement of this turn is multiplied."""

    combatant: str
    factor: int
    slot: str


@record
class Braced(Event):
    combatant: str
    slot: str


@record
class HideAttempted(Event):
    combatant: str
    roll: Roll
    slot: str

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)


@TAEL.decides(Dash)
def decide_dash(state: Encounter, command: Dash, cup: DiceCup) -> list[Event]:
    actor = on_turn(state, command.actor)
    return [Dashed(actor.id, DASH, action_slot(actor, ActionKind.UNIVERSAL, state.condition_rules))]


@TAEL.decides(Sprint)
def decide_sprint(state: Encounter, command: Sprint, cup: DiceCup) -> list[Event]:
    actor = on_turn(state, command.actor)
    return [
        Dashed(actor.id, SPRINT, action_slot(actor, ActionKind.UNIVERSAL, state.condition_rules))
    ]


@TAEL.decides(Brace)
def decide_brace(state: Encounter, command: Brace, cup: DiceCup) -> list[Event]:
    actor = on_turn(state, command.actor)
    return [Braced(actor.id, action_slot(actor, ActionKind.UNIVERSAL, state.condition_rules))]


@TAEL.decides(Hide)
def decide_hide(state: Encounter, command: Hide, cup: DiceCup) -> list[Event]:
    actor = on_turn(state, command.actor)
    slot = action_slot(actor, ActionKind.UNIVERSAL, state.condition_rules)
    roll = cup.d20((("Stealth", actor.sheet.skill("stealth")),))
    return [HideAttempted(actor.id, roll, slot)]


@TAEL.applies(Dashed)
def apply_dashed(state: Encounter, event: Dashed) -> Encounter:
    """The factor multiplies this turn's movement (0 after last turn's Sprint stays 0);
    a Sprint leaves the next turn without movement."""
    c: TaelCombatant = spent(state.combatants[event.combatant], event.slot)
    c = c.with_turn(movement_factor=c.turn.movement_factor * event.factor)
    if event.factor == SPRINT:
        c = evolve(c, winded=True)
    return state.with_combatant(c)


@TAEL.applies(Braced)
def apply_braced(state: Encounter, event: Braced) -> Encounter:
    c: TaelCombatant = spent(state.combatants[event.combatant], event.slot)
    return state.with_combatant(evolve(c, braced=True))


@TAEL.applies(HideAttempted)
def apply_hide_attempted(state: Encounter, event: HideAttempted) -> Encounter:
    c: TaelCombatant = spent(state.combatants[event.combatant], event.slot)
    return state.with_combatant(evolve(c, hidden=True))
