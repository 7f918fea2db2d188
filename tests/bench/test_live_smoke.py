"""The Live Combat benchmark runs end to end on the smallest case and prints its figures."""

from __future__ import annotations

import pytest

from bench import live
from server.engine import Encounter, execute
from server.engine.core import Event, replay
from server.engine.rulesets.verse.turns import StartCombat


def test_live_benchmark_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    live.main(["--runs", "1", "--rounds", "2"])
    out = capsys.readouterr().out
    figures = ("engine alone", "through the room", "replay (apply alone", "floor (", "processor:")
    for line in figures:
        assert line in out


def played(seed: int, rounds: int) -> tuple[Encounter, Encounter, list[Event]]:
    """The benchmark's fight as its bots play it with the engine: the state combat
    started in, the state `rounds` rounds later, and every event in between."""
    start, _ = execute(live.live_encounter(seed), StartCombat())
    state, bots, events = start, live.Bots(), []
    while state.round < start.round + rounds:
        _, command = bots.next(state)
        state, made = execute(state, command)
        events.extend(made)
    return start, state, events


def test_a_replay_reaches_the_state_that_was_played() -> None:
    """`apply` folded over the events (what the benchmark times as the replay) gives the
    state the engine reached, field for field: the same state hash, not merely the
    same version, which any replay of as many events has."""
    tally = live.replay_rounds(seed=3, rounds=2)
    start, reached, events = played(seed=3, rounds=2)

    replayed = replay(start, events)

    assert replayed.state_hash() == reached.state_hash()
    assert reached.state_hash() != start.state_hash()  # two rounds of a fight changed it
    assert (tally.rounds, tally.events) == (2, len(events))  # the events the bench replays
    assert tally.events > 2 * 8  # every one of the 8 fighters acts in every round


def test_the_floor_builds_as_many_events_as_were_played() -> None:
    floor = live.floor_rounds(seed=3, rounds=2)
    replay = live.replay_rounds(seed=3, rounds=2)
    assert floor.events == replay.events
    assert floor.seconds > 0
