"""A countdown published by a room's runner reads the same on the receiver's clock."""

from __future__ import annotations

import pytest

from server.cluster.timing import Timing, timing_of
from server.room import Countdown


def test_a_running_countdown_counts_from_when_it_was_received() -> None:
    timing = timing_of(Countdown(4, 6.4, deadline=1000.0), seq=12)
    assert timing == Timing(12, 4, 6400, True)
    # received at 50.0 on another clock: 6.4 s from then
    counted = timing.countdown(received_at=50.0, now=52.0)
    assert counted is not None and counted.deadline == 56.4
    assert counted.remaining == pytest.approx(4.4)
    assert timing.countdown(received_at=50.0, now=60.0) == Countdown(4, 0.0, 56.4)


def test_a_frozen_countdown_keeps_its_time_left() -> None:
    timing = timing_of(Countdown(4, 6.4, deadline=None), seq=12)  # paused (V24)
    assert timing == Timing(12, 4, 6400, False)
    assert timing.countdown(received_at=50.0, now=99.0) == Countdown(4, 6.4, None)


def test_a_countdown_that_ran_out_is_not_running() -> None:
    assert timing_of(Countdown(4, 0.0, deadline=1000.0), seq=3).running is False


def test_no_window_no_countdown() -> None:
    timing = timing_of(None, seq=5)
    assert timing == Timing(5, None, 0, False)
    assert timing.countdown(received_at=0.0, now=1.0) is None
