"""The Preparation Phase and its one prepared move (T2).

"The Preparation Phase lasts until it is the Character's turn again and allows him to
use a Move that requires Preparation. Per default, a Character can use one such
Preparation per Preparation Phase, and once he announces the type of Preparation he
will take, he cannot change it anymore; however, unless stated otherwise in the Move,
he does not need to announce it right away."

So a character in its Preparation Phase may announce its move early (`Prepare`, kept
from every other side until it triggers), or not at all and choose when it triggers.
Either way the move is used by answering a reaction window on the stack (T2: "a
prepared move is a reaction in the same stack as Verse's"; `reactions.py` says who is
asked). Answered, it is used: the answer is what reveals it. A move that prevents
damage or raises the Defensive Value waits on the action it answers as a
`flow.Defence` (kind "preparation", item: the move's name), and works when that action
resolves (`protections`).
"""

from __future__ import annotations

from server.engine.core import Command, Event
from server.engine.dice import DiceCup
from server.engine.errors import CONDITION_FORBIDS, INVALID_COMMAND, WRONG_PHASE, CommandRefused
from server.engine.records import evolve, record
from server.engine.rulesets.tael.combatant import Preparation, TaelCombatant
from server.engine.rulesets.tael.condition_rules import PREPARATION as NO_PREPARATION_PHASE
from server.engine.rulesets.tael.condition_rules import lost
from server.engine.rulesets.tael.errors import NO_PREPARATION
from server.engine.rulesets.tael.positions import MELEE_RANGE
from server.engine.rulesets.tael.ruleset import TAEL, combatant
from server.engine.rulesets.tael.sheet import PreparationMove, Trigger
from server.engine.state import Encounter, Phase

PREPARATION = "preparation"  # the `Pending.source` of a prepared strike, the `Defence.kind`


@record
class Prepare(Command):
    """T2: announce the prepared move `move` for this Preparation Phase (hidden from
    every other side until it triggers; it cannot be changed once announced)."""

    actor: str
    move: str


@record
class PreparationAnnounced(Event):
    combatant: str
    move: str


def preparation_open(c: TaelCombatant) -> bool:
    """In its Preparation Phase with its one preparation unused, and able to act."""
    return c.preparation == Preparation.OPEN and c.active


def usable_moves(c: TaelCombatant) -> tuple[PreparationMove, ...]:
    """The moves it may still use this Preparation Phase: the announced one, or (none
    announced) every move on its sheet."""
    if not preparation_open(c):
        return ()
    if c.prepared:
        move = c.sheet.preparation(c.prepared)
        return (move,) if move is not None else ()
    return c.sheet.preparations


def protections(state: Encounter, target_id: str) -> list[tuple[str, PreparationMove]]:
    """The prepared moves waiting on the action resolving now that protect `target_id`:
    the preparer's own move when it is the target, an `ally_attacked` move when the
    target is an ally within one tile of the preparer."""
    if not state.resolving or not state.pending:
        return []
    target: TaelCombatant | None = state.combatants.get(target_id)
    if target is None:
        return []
    found = []
    for defence in state.pending[-1].defences:
        if defence.kind != PREPARATION:
            continue
        preparer: TaelCombatant | None = state.combatants.get(defence.defender)
        if preparer is None:
            continue
        move = preparer.sheet.preparation(defence.item)
        if move is None:
            continue
        if move.trigger == Trigger.ALLY_ATTACKED:
            near = state.grid.cells_between(preparer.position, target.position) <= MELEE_RANGE
            if preparer.side == target.side and preparer.id != target.id and near:
                found.append((preparer.id, move))
        elif preparer.id == target_id:
            found.append((preparer.id, move))
    return found


@TAEL.decides(Prepare)
def decide_prepare(state: Encounter, command: Prepare, cup: DiceCup) -> list[Event]:
    if state.phase != Phase.COMBAT:
        raise CommandRefused(WRONG_PHASE, "combat is not running")
    actor = combatant(state, command.actor)
    taking = lost(state.condition_rules, actor, NO_PREPARATION_PHASE)
    if taking:
        raise CommandRefused(
            CONDITION_FORBIDS,
            f"{actor.id} cannot prepare a move while {taking} (the conditions table)",
        )
    if not preparation_open(actor):
        raise CommandRefused(
            NO_PREPARATION, f"{actor.id} has no preparation to announce in this phase"
        )
    if actor.prepared:
        raise CommandRefused(
            NO_PREPARATION, f"{actor.id} has already announced its preparation (T2)"
        )
    if actor.sheet.preparation(command.move) is None:
        raise CommandRefused(INVALID_COMMAND, f"{actor.id} knows no prepared move {command.move!r}")
    return [PreparationAnnounced(actor.id, command.move)]


@TAEL.applies(PreparationAnnounced)
def apply_preparation_announced(state: Encounter, event: PreparationAnnounced) -> Encounter:
    c: TaelCombatant = state.combatants[event.combatant]
    return state.with_combatant(evolve(c, prepared=event.move))
