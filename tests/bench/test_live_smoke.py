"""The Live Combat benchmark runs end to end on the smallest case and prints its figures."""

from __future__ import annotations

import pytest

from bench import live


def test_live_benchmark_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    live.main(["--runs", "1", "--rounds", "2"])
    out = capsys.readouterr().out
    figures = ("engine alone", "through the room", "replay (apply alone", "floor (", "processor:")
    for line in figures:
        assert line in out


def test_a_replay_reaches_the_state_that_was_played() -> None:
    tally = live.replay_rounds(seed=3, rounds=2)
    assert tally.rounds == 2
    assert tally.events > 2 * 8  # every one of the 8 fighters acts in every round


def test_the_floor_builds_as_many_events_as_were_played() -> None:
    floor = live.floor_rounds(seed=3, rounds=2)
    replay = live.replay_rounds(seed=3, rounds=2)
    assert floor.events == replay.events
    assert floor.seconds > 0
