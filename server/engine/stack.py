"""The action/reaction stack in motion: the records and helpers every ruleset's flow shares.

`flow.py` holds the stack's state (windows, pending actions); this module holds what
happens to it: the commands that answer a window, the events that open and close
windows and push, start, finish or lose a stacked action, and the small tools a flow is
built from (`Run`, the dry run, window look-ups). Verse's reactions (V21) and Tael's
prepared moves (RULINGS T2: "a prepared move is a reaction in the same stack as
Verse's") both go through them, so clients answer a Tael preparation and a Verse Dodge
with the same `Answer` command and see the same `WindowOpened` event. Each ruleset
registers its own deciders and appliers for these records (Verse: `live.py`,
`windows.py`; Tael: `tael/flow.py`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from server.engine.commands import CloseWindow, RefusePause, Resume, WindowExpired
from server.engine.commands import decide_refuse_pause as common_refuse_pause
from server.engine.commands import decide_resume as common_resume
from server.engine.core import COMMON, Command, Decided, Decider, Event, Ruleset, apply
from server.engine.dice import DiceCup
from server.engine.errors import ALREADY_ANSWERED, NO_WINDOW, NOT_ASKED, CommandRefused
from server.engine.flow import Ask, Pending, Window, WindowKind
from server.engine.records import evolve, record
from server.engine.state import Encounter

# --- commands -------------------------------------------------------------------


@record
class Answer(Command):
    """Answer window `window` with one of the options offered (`Ask.options`).

    `action` is the command the answer takes, for "hold", "quick_response",
    "opportunity", "counter" and "adapt" (an adapt with no action gives the action up).
    """

    actor: str
    window: int
    option: str
    action: Command | None = None

    @property
    def commits(self) -> tuple[str, ...]:
        """What the action it takes commits (a held or adapted group cast's helpers)."""
        return self.action.commits if isinstance(self.action, Command) else ()


@record
class PassWindow(Command):
    actor: str
    window: int


# --- events ---------------------------------------------------------------------


@record
class WindowOpened(Event):
    """A window opens: who is asked, what each may answer, and for how long (V20, V21)."""

    window: Window


@record
class WindowClosed(Event):
    window: int
    reason: str  # "answered", "expired", "closed by the GM"


@record
class Answered(Event):
    window: int
    combatant: str
    option: str
    action: Command | None = None
    item: str = ""  # the blocking item, for a Block


@record
class Passed(Event):
    window: int
    combatant: str


@record
class ActionPushed(Event):
    pending: Pending
    slot: int = -1  # the declaration it came from, if any


@record
class ActionStarted(Event):
    actor: str
    action: Command
    source: str


@record
class ActionFinished(Event):
    actor: str


@record
class ActionLost(Event):
    actor: str
    action: Command
    reason: str


# Resolving the top of the stack is the same in every ruleset: the actor resolves out of
# turn while its action runs (`resolving`), and a finished or lost action leaves the top.


@COMMON.applies(ActionStarted)
def apply_action_started(state: Encounter, event: ActionStarted) -> Encounter:
    return evolve(state, resolving=event.actor)


@COMMON.applies(ActionFinished)
def apply_action_finished(state: Encounter, event: ActionFinished) -> Encounter:
    return evolve(state, pending=state.pending[:-1], resolving="")


@COMMON.applies(ActionLost)
def apply_action_lost(state: Encounter, event: ActionLost) -> Encounter:
    return evolve(state, pending=state.pending[:-1], resolving="")


# --- the run: events applied as they are decided -----------------------------------


class Run:
    """The events of one command, applied as they are made so each step sees the last."""

    __slots__ = ("cup", "events", "state")

    def __init__(self, state: Encounter, cup: DiceCup) -> None:
        self.state = state
        self.cup = cup
        self.events: list[Event] = []

    def emit(self, *events: Event) -> None:
        for event in events:
            self.state = apply(self.state, event)
            self.events.append(event)

    def decided(self) -> Decided:
        """The events, with the state they lead to (so `execute` does not apply twice)."""
        return Decided(self.events, self.state)


# --- windows ----------------------------------------------------------------------


def window_for(
    state: Encounter,
    kind: str,
    asked: tuple[Ask, ...],
    subject: int = -1,
    depth: int = 0,
    about: str = "",
) -> Window:
    settings = state.settings
    seconds = settings.adapt_seconds if kind == WindowKind.ADAPT else settings.reaction_seconds
    return Window(
        state.windows_opened + 1, kind, asked, seconds, subject=subject, depth=depth, about=about
    )


def open_window(state: Encounter, window_id: int) -> Window:
    window = state.window
    if window is None or window.id != window_id:
        open_id = f"window {window.id} is open" if window else "no window is open"
        raise CommandRefused(NO_WINDOW, f"window {window_id} is not open ({open_id})")
    return window


def asked_in(window: Window, actor: str) -> Ask:
    ask = window.ask_of(actor)
    if ask is None:
        raise CommandRefused(NOT_ASKED, f"{actor} is not asked in window {window.id}")
    if actor in window.answered:
        raise CommandRefused(ALREADY_ANSWERED, f"{actor} has already answered window {window.id}")
    return ask


# --- dry runs ---------------------------------------------------------------------


class ChecksPassed(Exception):
    """A dry run reached its first roll: every check before it passed."""


class DryRunDice:
    """The dice of a dry run: the first roll ends it, and nothing is drawn for real.

    A dry run only asks whether an action would be refused, and resolvers check
    everything before they roll (`resolve_top` asserts it): reaching a roll means the
    action is legal now, and rolling on would only waste work. Reading the encounter's
    own source instead would read faces that belong to the rolls made before the action
    really resolves (a Dodge, a Counter).
    """

    def faces(self, sides: int, count: int, skip: int = 0) -> tuple[int, ...]:
        raise ChecksPassed

    def face(self, sides: int, skip: int = 0) -> int:
        raise ChecksPassed

    def advanced(self, count: int) -> DryRunDice:
        return self


def dry_run(resolve: Decider, state: Encounter, action: Command) -> None:
    """Raise `CommandRefused` if `action` would be refused in `state`; roll nothing."""
    with contextlib.suppress(ChecksPassed):
        resolve(state, action, DiceCup(DRY_RUN_DICE))


DRY_RUN_DICE = DryRunDice()


# --- the window commands every ruleset takes ----------------------------------------


class WindowFlow:
    """Passing, a timer running out, the GM closing a window, and resuming after a
    Pause are decided alike in every ruleset, around the ruleset's own two steps:
    `close_window(run, reason)` (what closing a window of each kind leads to) and
    `advance(run)` (resolving the stack until someone must answer). Creating one
    registers those deciders on `ruleset`."""

    def __init__(
        self,
        ruleset: Ruleset,
        close_window: Callable[[Run, str], None],
        advance: Callable[[Run], None],
        pass_planning: Callable[[Run, str], None] | None = None,
    ) -> None:
        self.close_window = close_window
        self.advance = advance
        # What passing a planning window means, for a ruleset that has one (Verse V20:
        # a declaration of nothing); without it, passing is `Passed` in every window.
        self.pass_planning = pass_planning
        ruleset.decides(PassWindow)(self.decide_pass)
        ruleset.decides(WindowExpired)(self.decide_window_expired)
        ruleset.decides(CloseWindow)(self.decide_close_window)
        ruleset.decides(Resume)(self.decide_resume)
        ruleset.decides(RefusePause)(self.decide_refuse_pause)

    def close_if_all_answered(self, run: Run) -> Decided:
        """V21: a window closes when every character asked has answered or passed."""
        if run.state.window is not None and not run.state.window.waiting_for:
            self.close_window(run, "answered")
        return run.decided()

    def pass_for_the_unable(self, run: Run) -> Decided:
        """After a GM override: whoever the open window still waits on but can no longer
        act (a condition set, fainted) passes, so the window does not wait out its time
        for an answer that cannot come (R69, TR36); it closes if nobody else is left."""
        window = run.state.window
        if window is not None:
            for combatant_id in window.waiting_for:
                c = run.state.combatants.get(combatant_id)
                if c is not None and not c.active:
                    run.emit(Passed(window.id, combatant_id))
        return self.close_if_all_answered(run)

    def closed_now(self, state: Encounter, window_id: int, cup: DiceCup, reason: str) -> Decided:
        open_window(state, window_id)
        run = Run(state, cup)
        self.close_window(run, reason)
        return run.decided()

    def decide_pass(self, state: Encounter, command: PassWindow, cup: DiceCup) -> list[Event]:
        window = open_window(state, command.window)
        asked_in(window, command.actor)
        run = Run(state, cup)
        if window.kind == WindowKind.PLANNING and self.pass_planning is not None:
            self.pass_planning(run, command.actor)
        if not run.events:
            run.emit(Passed(window.id, command.actor))
        return self.close_if_all_answered(run)

    def decide_window_expired(
        self, state: Encounter, command: WindowExpired, cup: DiceCup
    ) -> list[Event]:
        """A window whose timer ran out closes as if every asked character had passed."""
        return self.closed_now(state, command.window, cup, "expired")

    def decide_close_window(
        self, state: Encounter, command: CloseWindow, cup: DiceCup
    ) -> list[Event]:
        return self.closed_now(state, command.window, cup, "closed by the GM")

    def decide_resume(self, state: Encounter, command: Resume, cup: DiceCup) -> list[Event]:
        """V24: lift the pause, then carry on wherever the round was."""
        run = Run(state, cup)
        run.emit(*common_resume(state, command, cup))
        self.advance(run)
        return run.decided()

    def decide_refuse_pause(
        self, state: Encounter, command: RefusePause, cup: DiceCup
    ) -> list[Event]:
        run = Run(state, cup)
        run.emit(*common_refuse_pause(state, command, cup))
        self.advance(run)
        return run.decided()


def start_action(run: Run, top: Pending, resolve: Decider) -> list[Event] | None:
    """Begin resolving the action on top of the stack: lost (None) if its actor can no
    longer act, else `ActionStarted` and what its resolver produces. A refusal raises
    `CommandRefused` for the ruleset to handle (lost, or an adapt window); resolvers
    check everything before they roll, so a refusal after a roll is a bug."""
    actor = run.state.combatants.get(top.actor)
    if actor is None or not actor.active:
        run.emit(ActionLost(top.actor, top.action, f"{top.actor} can no longer act"))
        return None
    run.emit(ActionStarted(top.actor, top.action, top.source))
    before = run.cup.used
    try:
        return resolve(run.state, top.action, run.cup)
    except CommandRefused:
        assert run.cup.used == before, f"{type(top.action).__name__} refused after rolling"
        raise
