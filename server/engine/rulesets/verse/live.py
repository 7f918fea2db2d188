"""The flow of a round: Live Combat (V20–V23) and Turn Based Combat (V25), as data.

Live Combat. A round opens with a planning window in which every able combatant
declares its Turn Events for each of its turns (`Declare`, replaceable and withdrawable
until the window closes; V20). The window closes when all have declared, when its
timer runs out (`WindowExpired`, from the room) or when the GM closes it; undeclared
combatants pass, or hold (room setting `undeclared`). The declarations are revealed,
then resolve in initiative order, action by action.

Every action goes on a stack (`Encounter.pending`). Before it resolves, a reaction
window opens to exactly those allowed to answer it (`reactions.reaction_asks`; no window
when nobody is, V21). Answers that are actions are pushed above it and resolve first,
the latest first; defences wait on it. A weapon attack that missed or was defended may
open a counter window (V22). An action whose target is gone gives its owner one adapt
window to choose another action (V23); otherwise it is lost. A holder's answer ("held")
adapts like a declared action, within the hold's limits: a Standard or a Swift (V19).
The stack has a depth limit (`reactions.MAX_STACK_DEPTH`), every combatant answers a
window once, a Defensive Action is once a round, so no chain of answers can loop; and
every window ends (all answered, timer, or GM).

Turn Based Combat runs on the same machinery: the combatant whose turn it is sends its
actions directly; they still wait for holders and attacks of opportunity (V25). A turn
cannot end (`EndTurn`) while a window waits for answers.

Time is never read here: windows carry their length in seconds for the room's timers.
Whether an action would be refused (so no window opens for it) is asked by a dry run on
dice of its own (`DryRunDice`), never on the encounter's dice.
"""

from __future__ import annotations

from typing import Any

from server.engine.core import Command, Decider, Event
from server.engine.dice import DiceCup
from server.engine.errors import (
    INCAPACITATED,
    INVALID_COMMAND,
    NOT_ADJACENT,
    NOT_ASKED,
    OTHER_ASCENSION,
    OUT_OF_RANGE,
    OUT_OF_REACH,
    TARGET_DOWN,
    UNKNOWN_COMBATANT,
    WINDOW_OPEN,
    WRONG_PHASE,
    CommandRefused,
)
from server.engine.flow import Ask, Declaration, Defence, Mode, Pending, Window, WindowKind
from server.engine.grid import Cell
from server.engine.records import evolve, record
from server.engine.rulesets.verse import reactions as r
from server.engine.rulesets.verse.ascension import AscendAttack, ChangeAscension
from server.engine.rulesets.verse.attacks import Attack, weapon_of
from server.engine.rulesets.verse.awareness import SetAwareness, StealthCheck
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.condition_rules import reacts
from server.engine.rulesets.verse.condition_upkeep import round_upkeep
from server.engine.rulesets.verse.declarations import check_declared
from server.engine.rulesets.verse.defences import blocking_item
from server.engine.rulesets.verse.interruptions import break_charge_events, lapsed_charges
from server.engine.rulesets.verse.live_actions import (
    Counter,
    HoldAction,
    HoldEnded,
    KnockAway,
    UseItem,
    action_type_of,
)
from server.engine.rulesets.verse.movement import (
    Face,
    Move,
    OpportunityAttack,
    OpportunityOpened,
)
from server.engine.rulesets.verse.rides import Dismount, Mount
from server.engine.rulesets.verse.ruleset import VERSE, combatant
from server.engine.rulesets.verse.sheet import ActionType
from server.engine.rulesets.verse.spell_charges import ChargeSpell
from server.engine.rulesets.verse.spells import CastSpell
from server.engine.rulesets.verse.stances import SetStance
from server.engine.rulesets.verse.turns import (
    MAX_IDLE_ROUNDS,
    EndTurn,
    RoundEnded,
    RoundStarted,
    TurnEnded,
    TurnStarted,
    next_turn_events,
)
from server.engine.rulesets.verse.turns import decide_end_turn as turns_end_turn
from server.engine.rulesets.verse.windows import WindowClosed, WindowOpened, planning_window
from server.engine.stack import DRY_RUN_DICE as DRY_RUN_DICE
from server.engine.stack import ActionFinished as ActionFinished
from server.engine.stack import ActionLost as ActionLost
from server.engine.stack import ActionPushed as ActionPushed
from server.engine.stack import ActionStarted as ActionStarted
from server.engine.stack import Answer as Answer
from server.engine.stack import Answered as Answered
from server.engine.stack import ChecksPassed as ChecksPassed
from server.engine.stack import DryRunDice as DryRunDice
from server.engine.stack import Passed as Passed
from server.engine.stack import PassWindow as PassWindow
from server.engine.stack import Run as Run
from server.engine.stack import WindowFlow, start_action
from server.engine.stack import asked_in as asked_in
from server.engine.stack import dry_run as dry_run
from server.engine.stack import open_window as open_window
from server.engine.stack import window_for as window_for
from server.engine.state import Encounter, Phase

GATED: tuple[type, ...] = (
    Attack,
    CastSpell,
    ChargeSpell,
    Move,
    ChangeAscension,
    AscendAttack,
    SetStance,
    Face,
    UseItem,
    HoldAction,
    Mount,
    Dismount,
    SetAwareness,
    StealthCheck,
)
ANSWER_ACTIONS = {
    r.HOLD: GATED,
    r.QUICK_RESPONSE: (KnockAway,),
    r.OPPORTUNITY: (OpportunityAttack,),
    r.COUNTER: (Counter,),
    r.ADAPT: GATED,
}
GONE = (TARGET_DOWN, UNKNOWN_COMBATANT, OUT_OF_REACH, OUT_OF_RANGE, OTHER_ASCENSION)
TURN_EVENTS = (TurnEnded, TurnStarted, RoundEnded, RoundStarted)
MAX_DECLARED = 8
MAX_STEPS = 1000  # a loop guard: one command never resolves more than this


# --- commands -------------------------------------------------------------------


@record
class Declare(Command):
    """V20: the Turn Events for one of `actor`'s turns this round (`turn` 0 = its first)."""

    actor: str
    actions: tuple[Command, ...]
    turn: int = 0

    @property
    def commits(self) -> tuple[str, ...]:
        """What its actions commit (a declared group cast's helpers): the sender answers
        for them when it declares, not when they resolve."""
        if not isinstance(self.actions, tuple):
            return ()
        return tuple(c for a in self.actions if isinstance(a, Command) for c in a.commits)


@record
class Withdraw(Command):
    actor: str
    turn: int = 0


# --- events ---------------------------------------------------------------------


@record
class DeclarationMade(Event):
    """Secret from other sides until the planning window closes (V20)."""

    combatant: str
    slot: int  # index into the turn order
    actions: tuple[Command, ...]


@record
class DeclarationWithdrawn(Event):
    combatant: str
    slot: int


@record
class DeclarationsRevealed(Event):
    declarations: tuple[Declaration, ...]
    passed: tuple[str, ...]  # able combatants that declared nothing


ADAPTABLE = ("declared", "direct", "held")  # V23: a holder's action adapts like a declared one


def slots_of(state: Encounter, combatant_id: str) -> list[int]:
    return [i for i, slot in enumerate(state.turn_order) if slot.combatant == combatant_id]


def declaration_at(state: Encounter, slot: int) -> Declaration | None:
    for declaration in state.declarations:
        if declaration.turn == slot:
            return declaration
    return None


def fully_declared(state: Encounter, combatant_id: str) -> bool:
    return all(declaration_at(state, s) is not None for s in slots_of(state, combatant_id))


def resolver(action: Command) -> Decider:
    found = VERSE.decider(type(action))
    assert found is not None, type(action)
    return found


def advance(run: Run) -> None:
    """Resolve until someone must answer: a window opens, or (Turn Based) a turn waits."""
    for _ in range(MAX_STEPS):
        state = run.state
        if state.window is not None or state.paused_by or state.phase != Phase.COMBAT:
            return
        if state.pending:
            top = state.pending[-1]
            if not top.reacted:
                asks = r.reaction_asks(state, top)
                if asks:
                    actor = state.combatants[top.actor]
                    if refused_now(run, top) is not None:
                        continue
                    run.emit(
                        WindowOpened(
                            window_for(
                                state,
                                WindowKind.REACTION,
                                asks,
                                subject=len(state.pending) - 1,
                                depth=top.depth + 1,
                                about=actor.id,
                            )
                        )
                    )
                    return
            resolve_top(run)
            continue
        if state.turn_over:
            # R63: the combatant whose turn it was left the fight; the answers others
            # gave have resolved, so the next turn starts now.
            if state.mode == Mode.LIVE:
                next_live_turn(run)
            else:
                run.emit(*next_turn_events(state, state.turn, run.cup))
            continue
        if state.turn < 0:
            carry_on(run)
            return
        if state.mode != Mode.LIVE:
            return
        slot = state.turn
        current = state.combatants[state.turn_order[slot].combatant]
        declared = declaration_at(state, slot)
        if declared is not None and declared.actions:
            if current.active:
                run.emit(ActionPushed(Pending(declared.actions[0], current.id, "declared"), slot))
                continue
            drop_rest_of_turn(run, f"{current.id} can no longer act")
        end_live_turn(run)
    raise AssertionError("the round flow did not settle: a loop in the stack")


def refused_now(run: Run, top: Pending) -> str | None:
    """Would `top` be refused if it resolved now? Then adapt or lose it, open no window.

    A dry run on dice of its own (`DryRunDice`): nothing it rolls is kept.
    """
    state = run.state
    probe = evolve(state, resolving=top.actor)
    try:
        dry_run(resolver(top.action), probe, top.action)
    except CommandRefused as refusal:
        handle_refusal(run, top, refusal)
        return refusal.code
    return None


def handle_refusal(run: Run, top: Pending, refusal: CommandRefused) -> None:
    """V23: a target gone gives the owner an adapt window; anything else loses the action."""
    if refusal.code in GONE and not top.adapted and top.source in ADAPTABLE:
        run.emit(
            WindowOpened(
                window_for(
                    run.state,
                    WindowKind.ADAPT,
                    (Ask(top.actor, (r.ADAPT,)),),
                    subject=len(run.state.pending) - 1,
                    depth=top.depth,
                    about=top.actor,
                )
            )
        )
        return
    run.emit(ActionLost(top.actor, top.action, f"{refusal.code}: {refusal.message}"))


def resolve_top(run: Run) -> None:
    top = run.state.pending[-1]
    try:
        produced = start_action(run, top, resolver(top.action))
    except CommandRefused as refusal:
        if refusal.code in GONE and not top.adapted and top.source in ADAPTABLE:
            # The ActionStarted stays in the log; the adapt window decides what follows.
            handle_refusal(run, top, refusal)
        else:
            run.emit(ActionLost(top.actor, top.action, f"{refusal.code}: {refusal.message}"))
        return
    if produced is None:
        return
    actor: VerseCombatant = run.state.combatants[top.actor]
    live = run.state.mode == Mode.LIVE
    ended_turn = any(isinstance(e, TurnEnded) for e in produced)
    kept = [
        e
        for e in produced
        # The window already offered the attacks of opportunity of a move; in Live Combat
        # the flow, not the action, ends the turn.
        if not isinstance(e, OpportunityOpened) and not (live and isinstance(e, TURN_EVENTS))
    ]
    turn_events = [e for e in kept if isinstance(e, TURN_EVENTS)]
    run.emit(*[e for e in kept if not isinstance(e, TURN_EVENTS)])
    run.emit(ActionFinished(top.actor))
    if live and ended_turn and top.source == "declared":
        drop_rest_of_turn(run, "a Full Round Action ended the turn")
    if turn_events:
        run.emit(*turn_events)
    # After the action: Counters (V22), and an Aggressive attacker's own attacks of
    # opportunity (V18), one at a time while any is left, asked in one window.
    asks: list[Ask] = []
    targets = r.attack_targets(actor, top.action)
    if targets:
        asks += r.counter_asks(run.state, top.actor, targets, produced, top.depth + 1)
    attacker: VerseCombatant = run.state.combatants[top.actor]
    if (
        live
        and attacker.active
        and reacts(run.state.condition_rules, attacker)  # V27
        and attacker.opportunities
        and top.source != "counter"
        and top.depth + 1 < r.MAX_STACK_DEPTH
    ):
        asks.append(Ask(attacker.id, (r.OPPORTUNITY,)))
    if asks:
        kind = (
            WindowKind.COUNTER
            if targets and asks[0].combatant != attacker.id
            else WindowKind.REACTION
        )
        after = window_for(run.state, kind, tuple(asks), depth=top.depth + 1, about=top.actor)
        run.emit(WindowOpened(after))


def carry_on(run: Run) -> None:
    """A round in which nobody could act waits on nothing: no window, no turn. Once
    someone can act again (a GM override: a condition removed, a combatant added), the
    round goes on: its planning window opens in Live Combat (V20), its first able turn
    starts in Turn Based Combat (V25). Otherwise the fight would wait for ever."""
    state = run.state
    if state.window is not None or state.pending:
        return
    if not any(c.active for c in state.combatants.values()):
        return
    if state.mode == Mode.LIVE:
        run.emit(planning_window(state))
    else:
        start_able_turn(run, 0)


def drop_rest_of_turn(run: Run, reason: str, slot: int | None = None) -> None:
    """The declared actions still left for a turn (the current one by default) are lost,
    each said in the log (`ActionLost`) so its player learns why nothing happened."""
    declared = declaration_at(run.state, run.state.turn if slot is None else slot)
    if declared is None:
        return
    for action in declared.actions:
        run.emit(ActionPushed(Pending(action, declared.combatant, "declared"), declared.turn))
        run.emit(ActionLost(declared.combatant, action, reason))


def start_able_turn(run: Run, first: int) -> bool:
    """Start the first turn from index `first` whose combatant can act. The turns of
    those who cannot (down, Stunned...) are passed over, and what they declared is lost
    in the log (V20). False when no such turn is left this round."""
    order = run.state.turn_order
    for index in range(first, len(order)):
        combatant_id = order[index].combatant
        if run.state.combatants[combatant_id].active:
            run.emit(TurnStarted(combatant_id, index))
            return True
        drop_rest_of_turn(run, f"{combatant_id} can no longer act", index)
    return False


def end_live_turn(run: Run) -> None:
    """The current turn's actions are done: next turn, or the round ends and planning opens."""
    current = run.state.current
    if current is not None:
        run.emit(TurnEnded(current))
    next_live_turn(run)


def next_live_turn(run: Run, first: int | None = None) -> None:
    """The next able turn from index `first` (after the current one by default), else the
    round ends and the next one's planning opens.

    A round in which nobody can act passes at once, its conditions ticking at its end
    (LIVE_COMBAT step 8), as long as someone will be able to act once they run out; if
    nobody ever will by the clock alone (the dead, conditions without a duration), the
    fight waits on nothing until a GM override brings someone back (`carry_on`)."""
    if start_able_turn(run, run.state.turn + 1 if first is None else first):
        return
    for _ in range(MAX_IDLE_ROUNDS):
        state = run.state
        run.emit(*lapsed_charges(state))
        run.emit(*round_upkeep(run.state, run.cup))  # V27: the conditions table's upkeep
        run.emit(RoundEnded(state.round), RoundStarted(state.round + 1))
        if any(c.active for c in run.state.combatants.values()):
            run.emit(planning_window(run.state))
            return
        if not any(c.recovers for c in run.state.combatants.values()):
            return


def start_resolution(run: Run) -> None:
    """V20: the planning window closed: reveal, then play the first able turn."""
    state = run.state
    passed = []
    for c in sorted(state.combatants.values(), key=lambda c: c.id):
        if not c.active:
            continue
        for slot in slots_of(state, c.id):
            if declaration_at(run.state, slot) is None:
                if state.settings.undeclared == "hold" and slot == slots_of(state, c.id)[0]:
                    run.emit(DeclarationMade(c.id, slot, (HoldAction(c.id),)))
                elif c.id not in passed:
                    passed.append(c.id)
    run.emit(DeclarationsRevealed(run.state.declarations, tuple(passed)))
    next_live_turn(run, first=0)  # nobody able: the round ends at once


def close_window(run: Run, reason: str) -> None:
    window = run.state.window
    assert window is not None
    run.emit(WindowClosed(window.id, reason))
    if window.kind == WindowKind.PLANNING:
        start_resolution(run)
    elif window.kind == WindowKind.ADAPT:
        subject = run.state.pending[window.subject]
        if not subject.adapted:
            run.emit(ActionLost(subject.actor, subject.action, "no new action chosen in time"))
    advance(run)


def check_answer_action(
    state: Encounter, window: Window, actor: VerseCombatant, option: str, action: Command | None
) -> None:
    allowed = ANSWER_ACTIONS.get(option)
    if allowed is None:
        if action is not None:
            raise CommandRefused(INVALID_COMMAND, f"a {option} answer takes no action")
        return
    if action is None:
        if option == r.ADAPT:
            return  # giving the action up
        raise CommandRefused(INVALID_COMMAND, f"a {option} answer needs the action it takes")
    if not isinstance(action, allowed) or action.acting_for != actor.id:
        names = ", ".join(t.__name__ for t in allowed)
        raise CommandRefused(
            INVALID_COMMAND, f"a {option} answer is one of {names}, taken by {actor.id}"
        )
    target = getattr(action, "target", "")
    if option == r.OPPORTUNITY and window.about == actor.id:
        if target not in actor.opportunities:  # its own Aggressive Stance window (V18)
            raise CommandRefused(INVALID_COMMAND, f"{actor.id} has no opportunity on {target}")
    elif option in (r.COUNTER, r.OPPORTUNITY) and target != window.about:
        raise CommandRefused(INVALID_COMMAND, f"a {option} is aimed at {window.about}")
    held = option == r.ADAPT and state.pending[window.subject].source == "held"
    if option == r.HOLD or held:  # V19: what a holder may take, also when it adapts
        kind = action_type_of(action, actor)
        used = actor.actions
        if kind == ActionType.STANDARD and not used.standard:
            return
        if kind == ActionType.SWIFT and not used.swift:
            return
        left = [k for k, spent in (("Standard", used.standard), ("Swift", used.swift)) if not spent]
        remains = f"only a {' or a '.join(left)} action remains" if left else "both are spent"
        raise CommandRefused(
            INVALID_COMMAND,
            f"a holder may take its one Standard and one Swift action (V19): {remains}",
        )


def check_answer_now(
    state: Encounter, window: Window, actor: VerseCombatant, option: str, action: Command
) -> None:
    """Refuse an answer that would be refused if it resolved now (unknown weapon, out of
    reach...), so a player learns it at once and nothing changes. It is checked again
    when it resolves, since the answers above it may change the fight first."""
    probe = evolve(state, resolving=actor.id, window=None)
    if option == r.OPPORTUNITY and window.about != actor.id:
        probe = probe.with_combatant(
            evolve(actor, opportunities=(*actor.opportunities, window.about))
        )
    elif option == r.ADAPT:
        probe = evolve(probe, pending=probe.pending[: window.subject])
    dry_run(resolver(action), probe, action)


# --- deciders -------------------------------------------------------------------


def flow_gate(state: Encounter, command: Command, cup: DiceCup, resolve: Decider) -> list[Event]:
    """Every game action passes here (core: `Ruleset.gates`)."""
    if state.mode == Mode.LIVE and state.resolving != command.acting_for:
        raise CommandRefused(
            WRONG_PHASE, "in Live Combat actions are declared during planning (Declare)"
        )
    if state.window is not None:
        raise CommandRefused(WINDOW_OPEN, f"window {state.window.id} is waiting for answers")
    if not r.anyone_could_answer(state, command.acting_for, command):
        return resolve(state, command, cup)  # the common case: nobody can answer
    pending = Pending(command, command.acting_for, "direct")
    asks = r.reaction_asks(state, pending)
    if not asks:
        return resolve(state, command, cup)
    dry_run(resolve, state, command)  # refused now, before any window opens
    run = Run(state, cup)
    run.emit(ActionPushed(pending))
    advance(run)
    return run.decided()


VERSE.gates(flow_gate, *GATED)


@VERSE.decides(Declare)
def decide_declare(state: Encounter, command: Declare, cup: DiceCup) -> list[Event]:
    window = state.window
    if state.mode != Mode.LIVE or window is None or window.kind != WindowKind.PLANNING:
        raise CommandRefused(WRONG_PHASE, "declarations are made in a planning window (V20)")
    actor = combatant(state, command.actor)
    if window.ask_of(actor.id) is None:
        raise CommandRefused(NOT_ASKED, f"{actor.id} is not asked to declare this round")
    slots = slots_of(state, actor.id)
    if not 0 <= command.turn < len(slots):
        raise CommandRefused(
            INVALID_COMMAND,
            f"{actor.id} has {len(slots)} turn(s) this round, not {command.turn + 1}",
        )
    if len(command.actions) > MAX_DECLARED:
        raise CommandRefused(INVALID_COMMAND, f"at most {MAX_DECLARED} actions a turn")
    for action in command.actions:
        if not isinstance(action, GATED) or action.acting_for != actor.id:
            raise CommandRefused(
                INVALID_COMMAND, f"{type(action).__name__} is not an action {actor.id} can declare"
            )
    if any(isinstance(a, HoldAction) for a in command.actions) and len(command.actions) > 1:
        raise CommandRefused(INVALID_COMMAND, "Hold Action is the whole turn (V19)")
    check_declared_paths(state, actor, command.actions, first_turn=command.turn == 0)
    for action in command.actions:
        weapon = getattr(action, "weapon", "")
        if isinstance(weapon, str) and weapon:
            # R72: a weapon it does not have, or has not in hand now, would only lose
            # the action on its turn (nothing picks an item up but the GM): say so now.
            weapon_of(actor, weapon)
    # R78: nor anything else that only the GM could make legal before it resolves.
    check_declared(state, actor, command.actions)
    run = Run(state, cup)
    run.emit(DeclarationMade(actor.id, slots[command.turn], command.actions))
    return close_if_all_answered(run)  # V20: it closes early when all have declared


def check_declared_paths(
    state: Encounter, actor: VerseCombatant, actions: tuple[Any, ...], first_turn: bool
) -> None:
    """R71: a declared move whose path skips a cell could never resolve; refuse it now
    rather than lose it on its turn. Every step must be next to the one before it, and
    the first step of the first action of the mover's first turn must be next to where
    it stands (a later turn starts wherever the earlier ones leave it, V16). What else
    the move needs (speed, free cells, the mover's place after other actions) is
    checked when it resolves, since the fight changes before then (V20)."""
    grid = state.grid
    for index, action in enumerate(actions):
        if not isinstance(action, Move):
            continue
        if not isinstance(action.path, tuple) or not all(isinstance(c, Cell) for c in action.path):
            raise CommandRefused(INVALID_COMMAND, "a path is a list of cells")
        here: Cell | None = actor.position if first_turn and index == 0 else None
        for step, cell in enumerate(action.path, start=1):
            if here is not None and cell not in grid.neighbours(here):
                raise CommandRefused(
                    NOT_ADJACENT,
                    f"step {step} to ({cell.x}, {cell.y}) is not next to ({here.x}, {here.y}):"
                    " a move lists every cell it passes through",
                )
            here = cell


@VERSE.decides(Withdraw)
def decide_withdraw(state: Encounter, command: Withdraw, cup: DiceCup) -> list[Event]:
    window = state.window
    if window is None or window.kind != WindowKind.PLANNING:
        raise CommandRefused(WRONG_PHASE, "declarations are withdrawn in a planning window")
    slots = slots_of(state, command.actor)
    if not 0 <= command.turn < len(slots) or declaration_at(state, slots[command.turn]) is None:
        raise CommandRefused(INVALID_COMMAND, f"{command.actor} has no declaration to withdraw")
    return [DeclarationWithdrawn(command.actor, slots[command.turn])]


@VERSE.decides(Answer)
def decide_answer(state: Encounter, command: Answer, cup: DiceCup) -> list[Event]:
    window = open_window(state, command.window)
    if window.kind == WindowKind.PLANNING:
        raise CommandRefused(WRONG_PHASE, "a planning window is answered with Declare (V20)")
    ask = asked_in(window, command.actor)
    if command.option not in ask.options:
        raise CommandRefused(
            INVALID_COMMAND, f"{command.actor} may answer {', '.join(ask.options)} here"
        )
    actor = combatant(state, command.actor)
    if not actor.active:
        raise CommandRefused(INCAPACITATED, f"{actor.id} cannot act")
    check_answer_action(state, window, actor, command.option, command.action)
    if command.action is not None:
        check_answer_now(state, window, actor, command.option, command.action)
    item = blocking_item(actor) if command.option == r.BLOCK else ""
    if command.option == r.BLOCK and not item:  # the window was opened with it in hand
        raise CommandRefused(
            INVALID_COMMAND, f"{actor.id} has no shield or melee weapon in hand to block with (V22)"
        )
    run = Run(state, cup)
    run.emit(Answered(window.id, actor.id, command.option, command.action, item))
    if command.option == r.HOLDER_DODGE:
        run.emit(HoldEnded(actor.id, "dodged while holding (V19)"))
    if command.option in r.DEFENCES:
        # V12: a charge is lost when its caster takes a Defensive action.
        run.emit(*break_charge_events(run.state, actor.id, "took a Defensive action"))
    return close_if_all_answered(run)


# Passing, expiry, the GM's close, resume and a refused pause (V21, V24): shared.
def pass_planning(run: Run, actor: str) -> None:
    """V20: passing a planning window declares nothing for each turn not yet declared.
    It is a declaration like any other, hidden from the other sides until they are all
    revealed: a `Passed` would tell them at once that this combatant will not act (and
    the room's "hold" setting, meant for the undeclared, does not apply to it). With no
    turn left to declare it is a plain `Passed` (`WindowFlow.decide_pass`)."""
    for slot in slots_of(run.state, actor):
        if declaration_at(run.state, slot) is None:
            run.emit(DeclarationMade(actor, slot, ()))


WINDOWS = WindowFlow(VERSE, close_window, advance, pass_planning)
close_if_all_answered = WINDOWS.close_if_all_answered
closed_now = WINDOWS.closed_now


@VERSE.decides(EndTurn)
def decide_end_turn(state: Encounter, command: EndTurn, cup: DiceCup) -> list[Event]:
    """A turn does not end while a window waits for answers (V21, V25).

    Otherwise the action on the stack would resolve in someone else's turn (or round),
    after a holder asked about it had lost its hold. This replaces the registration of
    `turns.decide_end_turn` (imported above, so always registered first) and calls it.
    """
    if state.mode != Mode.LIVE and state.window is not None:
        raise CommandRefused(WINDOW_OPEN, f"window {state.window.id} is waiting for answers")
    events: list[Event] = turns_end_turn(state, command, cup)  # Live Combat: wrong_phase
    return events


# --- appliers -------------------------------------------------------------------


def _replace_pending(state: Encounter, index: int, pending: Pending) -> tuple[Pending, ...]:
    stack = state.pending
    return (*stack[:index], pending, *stack[index + 1 :])


@VERSE.applies(DeclarationMade)
def apply_declaration_made(state: Encounter, event: DeclarationMade) -> Encounter:
    kept = tuple(d for d in state.declarations if d.turn != event.slot)
    state = evolve(
        state, declarations=(*kept, Declaration(event.combatant, event.slot, event.actions))
    )
    window = state.window
    if (
        window is not None
        and event.combatant not in window.answered  # a declaration made again: answered
        and fully_declared(state, event.combatant)
    ):
        window = evolve(window, answered=(*window.answered, event.combatant))
        state = evolve(state, window=window)
    return state


@VERSE.applies(DeclarationWithdrawn)
def apply_declaration_withdrawn(state: Encounter, event: DeclarationWithdrawn) -> Encounter:
    kept = tuple(d for d in state.declarations if d.turn != event.slot)
    window = state.window
    if window is not None:
        window = evolve(window, answered=tuple(a for a in window.answered if a != event.combatant))
    return evolve(state, declarations=kept, window=window)


@VERSE.applies(DeclarationsRevealed)
def apply_declarations_revealed(state: Encounter, event: DeclarationsRevealed) -> Encounter:
    return state


@VERSE.applies(Answered)
def apply_answered(state: Encounter, event: Answered) -> Encounter:
    window = state.window
    assert window is not None
    state = evolve(state, window=evolve(window, answered=(*window.answered, event.combatant)))
    option = event.option
    if option in r.DEFENCES:
        subject = state.pending[window.subject]
        kind = r.BLOCK if option == r.BLOCK else r.DODGE
        defended = evolve(
            subject, defences=(*subject.defences, Defence(event.combatant, kind, event.item))
        )
        state = evolve(state, pending=_replace_pending(state, window.subject, defended))
        if option != r.HOLDER_DODGE:
            c = state.combatants[event.combatant]
            state = state.with_combatant(evolve(c, defensive_used=True))
        return state
    if option == r.ADAPT:
        if event.action is None:
            return state
        subject = state.pending[window.subject]
        adapted = evolve(subject, action=event.action, reacted=False, adapted=True, defences=())
        return evolve(state, pending=_replace_pending(state, window.subject, adapted))
    assert event.action is not None
    if option == r.OPPORTUNITY and window.about != event.combatant:
        c = state.combatants[event.combatant]
        state = state.with_combatant(evolve(c, opportunities=(*c.opportunities, window.about)))
    # A holder's action is "held" (flow.Pending): like a declared one it may adapt (V23).
    source = "held" if option == r.HOLD else option
    pushed = Pending(event.action, event.combatant, source, depth=window.depth)
    return evolve(state, pending=(*state.pending, pushed))


@VERSE.applies(Passed)
def apply_passed(state: Encounter, event: Passed) -> Encounter:
    window = state.window
    assert window is not None
    return evolve(state, window=evolve(window, answered=(*window.answered, event.combatant)))


@VERSE.applies(ActionPushed)
def apply_action_pushed(state: Encounter, event: ActionPushed) -> Encounter:
    declarations = state.declarations
    if event.slot >= 0:
        declarations = tuple(
            evolve(d, actions=d.actions[1:]) if d.turn == event.slot else d for d in declarations
        )
    return evolve(state, pending=(*state.pending, event.pending), declarations=declarations)
