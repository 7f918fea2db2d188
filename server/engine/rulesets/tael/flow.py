"""The Tael round flow: actions on the shared action/reaction stack, answered by prepared
moves (T2: "A prepared move is a reaction in the same stack as Verse's (V21)").

Tael is played turn by turn (TR1). The combatant whose turn it is sends its actions;
each goes through `flow_gate`. When nobody could answer it, it resolves at once. When
someone's prepared move is set off by it (`reactions.reaction_asks`), it is pushed on
the stack and a reaction window opens for exactly them, with the moves each may use.
An answer uses the move (`Answer` with the move's name as its option): one that
strikes back pushes a `PreparedStrike` above the action, which resolves first (latest
first); one that prevents damage or adds to the Defensive Value waits on the action as
a defence. A window closes when all asked have answered or passed, when its timer
runs out (`WindowExpired`, from the room) or when the GM closes it; then the stack
resolves. A strike that makes the acting combatant faint loses its action (it is not
spent) and ends its turn.

Time is never read here: windows carry their length for the room's timers. Whether an
action would be refused before a window opens for it is a dry run on dice of its own
(`stack.dry_run`), never on the encounter's dice.
"""

from __future__ import annotations

from server.engine.core import Command, Decider, Event
from server.engine.dice import DiceCup
from server.engine.errors import (
    INCAPACITATED,
    INVALID_COMMAND,
    WINDOW_OPEN,
    CommandRefused,
)
from server.engine.flow import Defence, Pending, WindowKind
from server.engine.records import evolve
from server.engine.rulesets.tael.attacks import AttackAction, PreparedStrike
from server.engine.rulesets.tael.bonus import EquipWeapon, PickUp, Punch, SkillCheck, Surrender
from server.engine.rulesets.tael.combatant import Preparation, TaelCombatant
from server.engine.rulesets.tael.errors import NO_PREPARATION
from server.engine.rulesets.tael.fainting import Help
from server.engine.rulesets.tael.generic import Brace, Dash, Hide, Sprint
from server.engine.rulesets.tael.movement import MoveTiles
from server.engine.rulesets.tael.preparations import PREPARATION, usable_moves
from server.engine.rulesets.tael.reactions import reaction_asks
from server.engine.rulesets.tael.ruleset import TAEL, combatant
from server.engine.rulesets.tael.spells import SpellAction
from server.engine.rulesets.tael.stances import ChooseStance
from server.engine.rulesets.tael.turns import end_turn, play_on
from server.engine.stack import (
    ActionFinished,
    ActionLost,
    ActionPushed,
    Answer,
    Answered,
    Passed,
    Run,
    WindowClosed,
    WindowFlow,
    WindowOpened,
    asked_in,
    dry_run,
    open_window,
    start_action,
    window_for,
)
from server.engine.state import Encounter, Phase

GATED: tuple[type, ...] = (
    AttackAction,
    SpellAction,
    Punch,
    MoveTiles,
    Dash,
    Sprint,
    Brace,
    Hide,
    Help,
    SkillCheck,
    Surrender,
    PickUp,
    EquipWeapon,
    ChooseStance,
)
MAX_STEPS = 1000  # a loop guard: one command never resolves more than this


def resolver(action: Command) -> Decider:
    found = TAEL.decider(type(action))
    assert found is not None, type(action)
    return found


def advance(run: Run) -> None:
    """Resolve the stack until someone must answer, then let play go on if the acting
    combatant can no longer act."""
    for _ in range(MAX_STEPS):
        state = run.state
        if state.window is not None or state.paused_by or state.phase != Phase.COMBAT:
            return
        if state.pending:
            top = state.pending[-1]
            if not top.reacted:
                asks = reaction_asks(state, top)
                if asks:
                    if refused_now(run, top):
                        continue
                    window = window_for(
                        state,
                        WindowKind.REACTION,
                        asks,
                        subject=len(state.pending) - 1,
                        depth=top.depth + 1,
                        about=top.actor,
                    )
                    run.emit(WindowOpened(window))
                    return
            resolve_top(run)
            continue
        current = state.current
        if current is not None and not state.combatants[current].active:
            end_turn(run, current)  # it fainted to a prepared strike on its own turn
            play_on(run)
            continue
        return
    raise AssertionError("the stack did not settle: a loop in the answers")


def refused_now(run: Run, top: Pending) -> bool:
    """Would `top` be refused now? Then it is lost and no window opens for it."""
    probe = evolve(run.state, resolving=top.actor)
    try:
        dry_run(resolver(top.action), probe, top.action)
    except CommandRefused as refusal:
        run.emit(ActionLost(top.actor, top.action, f"{refusal.code}: {refusal.message}"))
        return True
    return False


def resolve_top(run: Run) -> None:
    top = run.state.pending[-1]
    try:
        produced = start_action(run, top, resolver(top.action))
    except CommandRefused as refusal:
        run.emit(ActionLost(top.actor, top.action, f"{refusal.code}: {refusal.message}"))
        return
    if produced is None:
        return
    run.emit(*produced)
    run.emit(ActionFinished(top.actor))


def close_window(run: Run, reason: str) -> None:
    window = run.state.window
    assert window is not None
    run.emit(WindowClosed(window.id, reason))
    advance(run)


# Passing, expiry, the GM's close, resume and a refused pause (T2 on the V21 stack).
WINDOWS = WindowFlow(TAEL, close_window, advance)
close_if_all_answered = WINDOWS.close_if_all_answered
closed_now = WINDOWS.closed_now


def strike_of(
    state: Encounter, actor: TaelCombatant, attacker: str, action: Command | None
) -> PreparedStrike:
    """The strike a striking-back move makes: the one given, or with the main hand."""
    strike = action if action is not None else PreparedStrike(actor.id, attacker)
    if (
        not isinstance(strike, PreparedStrike)
        or strike.actor != actor.id
        or strike.target != attacker
    ):
        raise CommandRefused(
            INVALID_COMMAND, f"{actor.id} strikes back with a PreparedStrike at {attacker}"
        )
    pushed = Pending(strike, actor.id, PREPARATION)
    probe = evolve(state, resolving=actor.id, window=None, pending=(*state.pending, pushed))
    dry_run(resolver(strike), probe, strike)  # refused now (out of reach...), not later
    return strike


# --- deciders ------------------------------------------------------------------------


def flow_gate(state: Encounter, command: Command, cup: DiceCup, resolve: Decider) -> list[Event]:
    """Every game action passes here (core: `Ruleset.gates`)."""
    if state.window is not None:
        raise CommandRefused(WINDOW_OPEN, f"window {state.window.id} is waiting for answers")
    pending = Pending(command, command.acting_for, "direct")
    if not reaction_asks(state, pending):
        return resolve(state, command, cup)  # the common case: nobody can answer
    dry_run(resolve, state, command)  # refused now, before any window opens
    run = Run(state, cup)
    run.emit(ActionPushed(pending))
    advance(run)
    return run.decided()


TAEL.gates(flow_gate, *GATED)


@TAEL.decides(Answer)
def decide_answer(state: Encounter, command: Answer, cup: DiceCup) -> list[Event]:
    """T2: use a prepared move offered in the window (its name is the option)."""
    window = open_window(state, command.window)
    ask = asked_in(window, command.actor)
    if command.option not in ask.options:
        raise CommandRefused(
            INVALID_COMMAND, f"{command.actor} may answer {', '.join(ask.options)} here"
        )
    actor = combatant(state, command.actor)
    if not actor.active:
        raise CommandRefused(INCAPACITATED, f"{actor.id} cannot act")
    move = next((m for m in usable_moves(actor) if m.name == command.option), None)
    if move is None:
        raise CommandRefused(NO_PREPARATION, f"{actor.id} can no longer use {command.option}")
    strike: PreparedStrike | None = None
    if move.strikes_back:
        strike = strike_of(state, actor, window.about, command.action)
    elif command.action is not None:
        raise CommandRefused(INVALID_COMMAND, f"{move.name} takes no action")
    run = Run(state, cup)
    run.emit(Answered(window.id, actor.id, move.name, strike))
    return close_if_all_answered(run)


# --- appliers ------------------------------------------------------------------------


def _replace_pending(state: Encounter, index: int, pending: Pending) -> tuple[Pending, ...]:
    stack = state.pending
    return (*stack[:index], pending, *stack[index + 1 :])


@TAEL.applies(WindowOpened)
def apply_window_opened(state: Encounter, event: WindowOpened) -> Encounter:
    window = event.window
    pending = state.pending
    if 0 <= window.subject < len(pending):
        pending = _replace_pending(
            state, window.subject, evolve(pending[window.subject], reacted=True)
        )
    return evolve(state, window=window, windows_opened=window.id, pending=pending)


@TAEL.applies(WindowClosed)
def apply_window_closed(state: Encounter, event: WindowClosed) -> Encounter:
    return evolve(state, window=None)


@TAEL.applies(Answered)
def apply_answered(state: Encounter, event: Answered) -> Encounter:
    """The move is used (and so revealed); a guarding move waits on the action it
    answers, a strike goes on the stack above it."""
    window = state.window
    assert window is not None
    state = evolve(state, window=evolve(window, answered=(*window.answered, event.combatant)))
    c: TaelCombatant = state.combatants[event.combatant]
    state = state.with_combatant(evolve(c, preparation=Preparation.USED, prepared=event.option))
    move = c.sheet.preparation(event.option)
    if move is not None and (move.prevents_damage or move.defensive_bonus):
        subject = state.pending[window.subject]
        guard = Defence(event.combatant, PREPARATION, move.name)
        guarded = evolve(subject, defences=(*subject.defences, guard))
        state = evolve(state, pending=_replace_pending(state, window.subject, guarded))
    if event.action is not None:
        pushed = Pending(event.action, event.combatant, PREPARATION, depth=window.depth)
        state = evolve(state, pending=(*state.pending, pushed))
    return state


@TAEL.applies(Passed)
def apply_passed(state: Encounter, event: Passed) -> Encounter:
    window = state.window
    assert window is not None
    return evolve(state, window=evolve(window, answered=(*window.answered, event.combatant)))


@TAEL.applies(ActionPushed)
def apply_action_pushed(state: Encounter, event: ActionPushed) -> Encounter:
    return evolve(state, pending=(*state.pending, event.pending))
