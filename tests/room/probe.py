"""A tiny ruleset for the room's tests: windows that open, get answers, expire and close.

It keeps the room tests independent of Verse's Live Combat flow: the room only reads
`state.window` and `state.paused_by`, so any ruleset that opens windows will do.
"""

from __future__ import annotations

from typing import ClassVar

from server.engine.commands import CloseWindow, WindowExpired
from server.engine.core import COMMON, Command, Event, Ruleset, register_ruleset
from server.engine.dice import DiceCup
from server.engine.errors import NO_WINDOW, CommandRefused
from server.engine.flow import Ask, Window, WindowKind
from server.engine.records import evolve, record
from server.engine.state import Encounter

PROBE = register_ruleset(Ruleset("test-windows", COMMON))


def probe_encounter(version: int = 0) -> Encounter:
    return Encounter(id="probe", ruleset="test-windows", combatants={}, version=version)


@record
class OpenProbeWindow(Command):
    """The GM opens a window of `seconds` (replacing any open one with a new id); like a
    GM override it is accepted while paused."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})
    while_paused: ClassVar[bool] = True
    seconds: float


@record
class AnswerProbe(Command):
    """`actor` answers the open window: it changes, its id stays."""

    actor: str


@record
class ProbeTally(Command):
    """Anyone counts one up: an event that touches no window."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm", "player"})
    by: str


@record
class ProbeNudge(Command):
    """Only the controller of `actor` (or the GM) may send it."""

    actor: str


@record
class ProbePonder(Command):
    """Accepted, with no event at all."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})


@record
class ProbeWindowOpened(Event):
    window: int
    seconds: float


@record
class ProbeAnswered(Event):
    window: int
    actor: str


@record
class ProbeWindowClosed(Event):
    window: int
    expired: bool


@record
class ProbeTallied(Event):
    by: str


def _open_window(state: Encounter, window: int) -> Window:
    if state.window is None or state.window.id != window:
        raise CommandRefused(NO_WINDOW, f"window {window} is not open")
    return state.window


@PROBE.decides(OpenProbeWindow)
def decide_open(state: Encounter, command: OpenProbeWindow, cup: DiceCup) -> list[Event]:
    return [ProbeWindowOpened(state.windows_opened + 1, command.seconds)]


@PROBE.decides(AnswerProbe)
def decide_answer(state: Encounter, command: AnswerProbe, cup: DiceCup) -> list[Event]:
    if state.window is None:
        raise CommandRefused(NO_WINDOW, "no window is open")
    return [ProbeAnswered(state.window.id, command.actor)]


@PROBE.decides(WindowExpired)
def decide_expired(state: Encounter, command: WindowExpired, cup: DiceCup) -> list[Event]:
    return [ProbeWindowClosed(_open_window(state, command.window).id, expired=True)]


@PROBE.decides(CloseWindow)
def decide_close(state: Encounter, command: CloseWindow, cup: DiceCup) -> list[Event]:
    return [ProbeWindowClosed(_open_window(state, command.window).id, expired=False)]


@PROBE.decides(ProbeTally)
def decide_tally(state: Encounter, command: ProbeTally, cup: DiceCup) -> list[Event]:
    return [ProbeTallied(command.by)]


@PROBE.decides(ProbeNudge)
def decide_nudge(state: Encounter, command: ProbeNudge, cup: DiceCup) -> list[Event]:
    return [ProbeTallied(command.actor)]


@PROBE.decides(ProbePonder)
def decide_ponder(state: Encounter, command: ProbePonder, cup: DiceCup) -> list[Event]:
    return []


@PROBE.applies(ProbeWindowOpened)
def apply_opened(state: Encounter, event: ProbeWindowOpened) -> Encounter:
    asked = (Ask("ayla", ("pass",)), Ask("bram", ("pass",)))
    window = Window(event.window, WindowKind.REACTION, asked, event.seconds)
    return evolve(state, window=window, windows_opened=event.window)


@PROBE.applies(ProbeAnswered)
def apply_answered(state: Encounter, event: ProbeAnswered) -> Encounter:
    window = _open_window(state, event.window)
    return evolve(state, window=evolve(window, answered=(*window.answered, event.actor)))


@PROBE.applies(ProbeWindowClosed)
def apply_closed(state: Encounter, event: ProbeWindowClosed) -> Encounter:
    return evolve(state, window=None)


@PROBE.applies(ProbeTallied)
def apply_tallied(state: Encounter, event: ProbeTallied) -> Encounter:
    return evolve(state, round=state.round + 1)
