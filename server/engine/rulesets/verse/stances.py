"""Defensive and Aggressive Stance (Verse V18, "Combat Styles", Turn Based Combat).

"A character alternatively could take a Defensive Stance on their turn ... +2 defensive
bonus to their Physical Dodge ... Taking a Defensive Stance takes a Swift Action.
Characters can move while in a Defensive Stance but only at half their Run Speed."
"If a character takes an Aggressive Stance as a Swift Action then they take a -2
penalty to their Physical Dodge ... but are capable of making Attacks of Opportunity
against any enemy they are engaged in combat with when they attack on their turn."

The PD modifiers are read by `attacks.physical_dodge` (STANCE_PD); the half speed by
`movement.movement_limit_ft`. Readings (docs/rules.md):

- `SetStance` is a Swift action for every change, dropping a stance ("none") too;
  a stance lasts until changed (V18).
- "When they attack on their turn": when an Aggressive combatant's weapon `Attack`
  is rolled, every able enemy it is then engaged with (`positions.engaged_foes`) is
  recorded as an attack of opportunity it may make (`AggressiveOpportunitiesOpened`),
  with the same lifetime as the ones a move opens (movement.py): until used or until
  its own next turn starts. Spell attacks and Full Round attacks (which end the turn)
  open none. That part is an attack rule and lives in attacks.py
  (`aggressive_opportunities`, `AggressiveOpportunitiesOpened`).
"""

from __future__ import annotations

from server.engine.core import Command, Event
from server.engine.dice import DiceCup
from server.engine.errors import INVALID_COMMAND, CommandRefused
from server.engine.records import evolve, record
from server.engine.rulesets.verse.combatant import Stance, VerseCombatant
from server.engine.rulesets.verse.ruleset import VERSE, acting
from server.engine.rulesets.verse.sheet import ActionType
from server.engine.rulesets.verse.turns import check_action, spend
from server.engine.state import Encounter


@record
class SetStance(Command):
    """Take a Defensive or Aggressive Stance, or drop it ("none"): a Swift action."""

    actor: str
    stance: str


@record
class StanceSet(Event):
    combatant: str
    stance: str
    previous: str
    action: str


@VERSE.decides(SetStance)
def decide_set_stance(state: Encounter, command: SetStance, cup: DiceCup) -> list[Event]:
    actor = acting(state, command.actor)
    if command.stance not in Stance.ALL:
        raise CommandRefused(
            INVALID_COMMAND,
            f"stance must be one of {', '.join(Stance.ALL)}, not {command.stance!r}",
        )
    check_action(actor, ActionType.SWIFT, state.condition_rules)
    return [StanceSet(actor.id, command.stance, actor.stance, ActionType.SWIFT)]


@VERSE.applies(StanceSet)
def apply_stance_set(state: Encounter, event: StanceSet) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    return state.with_combatant(
        evolve(c, stance=event.stance, actions=spend(c.actions, event.action))
    )
