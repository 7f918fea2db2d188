"""The view a client holds, and the window countdown it shows (with a fake clock)."""

from __future__ import annotations

import io

from clients.screen import CLEAR, Screen
from clients.view import View, WindowClock
from protocol.messages import Asked, Window


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def window(remaining_ms: int, running: bool = True, answered: list[str] | None = None) -> Window:
    return Window(
        seq=12,
        window=4,
        kind="reaction",
        about="g1",
        asked=[
            Asked(combatant="ayla", options=["dodge", "block"]),
            Asked(combatant="bram", options=[]),  # another side's options are hidden
        ],
        answered=answered or [],
        total_ms=8000,
        remaining_ms=remaining_ms,
        running=running,
    )


def test_the_countdown_runs_from_the_moment_the_message_arrived() -> None:
    clock = FakeClock()
    countdown = WindowClock.start(window(7500), clock)
    assert countdown.remaining() == 7.5
    clock.now += 2.0
    assert countdown.remaining() == 5.5
    assert countdown.running
    clock.now += 10.0
    assert countdown.remaining() == 0.0  # never below zero
    assert not countdown.running  # run out: the window closes with the next events


def test_a_paused_window_stays_frozen() -> None:
    clock = FakeClock()
    frozen = WindowClock.start(window(6200, running=False), clock)
    clock.now += 30.0
    assert frozen.remaining() == 6.2
    assert not frozen.running


def test_who_is_asked_and_who_the_window_still_waits_for() -> None:
    countdown = WindowClock.start(window(8000, answered=["bram"]), FakeClock())
    assert (countdown.id, countdown.kind, countdown.about, countdown.total) == (
        4,
        "reaction",
        "g1",
        8.0,
    )
    assert countdown.asked == {"ayla": ["dodge", "block"], "bram": []}
    assert countdown.waiting_for == ["ayla"]


COMBATANTS = {
    "ayla": {"id": "ayla", "side": "pc", "sheet": {"name": "Ayla"}},
    "g1": {"id": "g1", "side": "goblins", "sheet": {"name": "Goblin"}},
    "g2": {"id": "g2", "side": "goblins", "sheet": {"name": "Goblin"}},
}


def test_names_are_the_sheets_with_the_id_when_shared() -> None:
    view = View()
    view.reset(0, {"combatants": COMBATANTS})
    assert [view.name_of(c) for c in ("ayla", "g1", "g2", "nobody")] == [
        "Ayla",
        "Goblin (g1)",
        "Goblin (g2)",
        "nobody",
    ]
    assert view.side_of("g1") == "goblins"


def test_events_extend_the_view_and_fold_in_what_they_state() -> None:
    view = View()
    view.reset(3, {"combatants": COMBATANTS, "window": None, "paused_by": "", "round": 0})
    opened = {"$type": "Window", "id": 2, "kind": "reaction"}
    view.add(4, {"$type": "RoundStarted", "round": 1})
    view.add(5, {"$type": "WindowOpened", "window": opened})
    view.add(6, {"$type": "Paused", "by": "ayla"})
    state = view.state
    assert (state["round"], state["window"], state["paused_by"]) == (1, opened, "ayla")
    view.add(7, {"$type": "Resumed", "by": "gm", "refused": False})
    view.add(8, {"$type": "WindowClosed", "window": 2, "reason": "answered"})
    assert (view.state["window"], view.state["paused_by"]) == (None, "")
    assert [seq for seq, _ in view.events] == [4, 5, 6, 7, 8]
    assert (view.snapshot_seq, view.seq) == (3, 8)


def test_a_rewind_replaces_the_view_with_the_restored_one() -> None:
    view = View()
    view.reset(0, {"combatants": COMBATANTS, "round": 2})
    restored = {"combatants": {"ayla": COMBATANTS["ayla"]}, "round": 1}
    view.add(1, {"$type": "Rewound", "to_version": 0, "state": restored})
    assert view.state == restored
    assert view.seq == 1


def test_a_snapshot_replaces_everything_held() -> None:
    view = View()
    view.reset(0, {"round": 0})
    view.add(1, {"$type": "RoundStarted", "round": 1})
    view.reset(40, {"round": 3})
    assert (view.state, view.events, view.seq) == ({"round": 3}, [], 40)


# --- the screen's status line -----------------------------------------------------------


def test_a_terminal_redraws_the_status_line_in_place() -> None:
    out = io.StringIO()
    screen = Screen(out, live=True)
    screen.status("7s left")
    screen.line("[5] Ayla answers with dodge")
    screen.status("6s left")
    assert out.getvalue() == (
        f"{CLEAR}7s left{CLEAR}[5] Ayla answers with dodge\n7s left{CLEAR}6s left"
    )


def test_a_pipe_gets_each_new_status_once_as_a_line() -> None:
    out = io.StringIO()
    screen = Screen(out, live=False)
    screen.status("7s left")
    screen.status("7s left")
    screen.line("[5] Ayla answers with dodge")
    screen.status("6s left")
    screen.status(None)
    assert out.getvalue() == "7s left\n[5] Ayla answers with dodge\n6s left\n"
