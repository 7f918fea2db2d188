"""The window countdown a client shows, counted on a fake clock."""

from __future__ import annotations

from clients.countdown import WindowClock
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
