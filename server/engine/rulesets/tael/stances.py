"""Defensive Stances (T7).

"The stance can be changed at any point outside of combat or at the beginning of your
turn during combat. The change does not require an Action." Before combat any
combatant may change it; in combat only the combatant whose turn it is, before it has
used an Action, a Bonus Action or a tile of movement (TR6).
"""

from __future__ import annotations

from server.engine.core import Command, Event
from server.engine.dice import DiceCup
from server.engine.errors import INVALID_COMMAND, WRONG_PHASE, CommandRefused
from server.engine.records import evolve, record
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.ruleset import TAEL, combatant, on_turn
from server.engine.rulesets.tael.sheet import Stance
from server.engine.state import Encounter, Phase


@record
class ChooseStance(Command):
    """T7: take the Tanking or the Dodging Stance."""

    actor: str
    stance: str


@record
class StanceChosen(Event):
    combatant: str
    stance: str


@TAEL.decides(ChooseStance)
def decide_choose_stance(state: Encounter, command: ChooseStance, cup: DiceCup) -> list[Event]:
    if command.stance not in tuple(Stance):
        raise CommandRefused(
            INVALID_COMMAND, f"a stance is one of {', '.join(Stance)}, not {command.stance!r}"
        )
    if state.phase == Phase.COMBAT:
        actor = on_turn(state, command.actor)
        if not actor.turn.fresh:
            raise CommandRefused(
                WRONG_PHASE, "the stance changes only at the beginning of the turn (T7)"
            )
    elif state.phase == Phase.SETUP:
        actor = combatant(state, command.actor)
    else:
        raise CommandRefused(WRONG_PHASE, "the fight is over")
    return [StanceChosen(actor.id, command.stance)]


@TAEL.applies(StanceChosen)
def apply_stance_chosen(state: Encounter, event: StanceChosen) -> Encounter:
    c: TaelCombatant = state.combatants[event.combatant]
    return state.with_combatant(evolve(c, stance=event.stance))
