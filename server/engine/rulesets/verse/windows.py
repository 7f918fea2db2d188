"""Opening and closing windows: the events every part of the round flow shares."""

from __future__ import annotations

from server.engine.flow import Ask, Window, WindowKind
from server.engine.records import evolve
from server.engine.rulesets.verse.ruleset import VERSE
from server.engine.stack import WindowClosed as WindowClosed
from server.engine.stack import WindowOpened as WindowOpened
from server.engine.state import Encounter

DECLARE = "declare"


def planning_window(state: Encounter) -> WindowOpened:
    """V20: every able combatant is asked to declare its Turn Events at once."""
    asked = tuple(
        Ask(cid, (DECLARE,)) for cid in sorted(state.combatants) if state.combatants[cid].active
    )
    return WindowOpened(
        Window(
            id=state.windows_opened + 1,
            kind=WindowKind.PLANNING,
            asked=asked,
            seconds=state.settings.planning_seconds,
        )
    )


@VERSE.applies(WindowOpened)
def apply_window_opened(state: Encounter, event: WindowOpened) -> Encounter:
    window = event.window
    pending = state.pending
    if 0 <= window.subject < len(pending):
        marked = evolve(pending[window.subject], reacted=True)
        pending = (*pending[: window.subject], marked, *pending[window.subject + 1 :])
    return evolve(state, window=window, windows_opened=window.id, pending=pending)


@VERSE.applies(WindowClosed)
def apply_window_closed(state: Encounter, event: WindowClosed) -> Encounter:
    return evolve(state, window=None)
