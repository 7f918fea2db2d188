"""The GM's rewind: the room rebuilds an earlier state from the log and logs `Rewound`."""

from __future__ import annotations

import pytest

from server.engine.commands import Rewind, Rewound
from server.engine.core import replay
from server.engine.errors import FORBIDDEN, INVALID_COMMAND, CommandRefused
from server.engine.records import evolve
from server.eventlog.memory import MemoryEventLog
from server.room import Countdown, FakeClock, Room
from server.room.rewind import state_at
from tests.room.conftest import MakeRoom
from tests.room.probe import OpenProbeWindow, ProbeTallied, ProbeTally, probe_encounter
from tests.room.support import AYLA, GM


async def replayed(room: Room, log: MemoryEventLog) -> str:
    events = [entry.event for entry in await log.read(room.room_id)]
    return replay(room.initial, events).state_hash()


async def test_rewind_keeps_the_abandoned_branch_and_replay_follows_it(
    room: Room, log: MemoryEventLog
) -> None:
    for name in ("a", "b", "c"):
        await room.submit(GM, ProbeTally(name))
    after_a = replay(room.initial, [ProbeTallied("a")])

    ack = await room.submit(GM, Rewind(1))

    assert ack.first_seq == ack.last_seq == 4
    assert ack.events == (Rewound(1, after_a),)
    assert room.state.round == 1 and room.state.version == 4
    await room.submit(GM, ProbeTally("d"))  # the new branch
    events = [entry.event for entry in await log.read("room-1")]
    assert events[:3] == [
        ProbeTallied("a"),
        ProbeTallied("b"),
        ProbeTallied("c"),
    ]  # abandoned, still there
    assert events[4] == ProbeTallied("d")
    assert room.state.round == 2
    assert await replayed(room, log) == room.state.state_hash()


async def test_a_rewind_into_an_earlier_rewind_replays_through_both(
    room: Room, log: MemoryEventLog
) -> None:
    for name in ("a", "b"):
        await room.submit(GM, ProbeTally(name))
    await room.submit(GM, Rewind(0))  # version 3: back to the start
    await room.submit(GM, ProbeTally("c"))  # version 4: round 1
    await room.submit(GM, ProbeTally("d"))  # version 5: round 2

    await room.submit(GM, Rewind(4))  # after "c", on the second branch

    assert room.state.round == 1
    assert await replayed(room, log) == room.state.state_hash()


async def test_rewind_counts_versions_from_the_rooms_initial_state(
    make_room: MakeRoom, log: MemoryEventLog
) -> None:
    room = await make_room(evolve(probe_encounter(), version=10))
    await room.submit(GM, ProbeTally("a"))  # version 11, log seq 1
    await room.submit(GM, ProbeTally("b"))  # version 12

    ack = await room.submit(GM, Rewind(11))

    assert ack.first_seq == 3 and room.state.version == 13 and room.state.round == 1
    assert await replayed(room, log) == room.state.state_hash()


@pytest.mark.parametrize("to_version", [-1, 3])
async def test_a_rewind_outside_the_log_is_refused(room: Room, to_version: int) -> None:
    for name in ("a", "b"):
        await room.submit(GM, ProbeTally(name))
    before = room.state.state_hash()

    with pytest.raises(CommandRefused) as refused:
        await room.submit(GM, Rewind(to_version))

    assert refused.value.code == INVALID_COMMAND
    assert room.state.state_hash() == before and room.version == 2


async def test_only_the_gm_may_rewind(room: Room) -> None:
    await room.submit(GM, ProbeTally("a"))

    with pytest.raises(CommandRefused) as refused:
        await room.submit(AYLA, Rewind(0))

    assert refused.value.code == FORBIDDEN and room.version == 1


async def test_a_rewind_restores_an_open_window_with_a_fresh_countdown(
    room: Room, clock: FakeClock
) -> None:
    await room.submit(GM, OpenProbeWindow(8.0))  # version 1: window 1 open at t = 0
    await clock.advance(5.0)
    await room.submit(GM, Rewind(0))  # no window any more

    assert room.countdown is None and clock.pending() == []
    await room.submit(GM, Rewind(1))  # window 1 again, at t = 5, under a new id

    # Window ids never go back: a timer meant for the abandoned window finds no window.
    assert room.countdown == Countdown(2, 8.0, 13.0)
    await clock.advance(8.0)
    assert room.state.window is None


async def test_a_rewind_to_the_same_window_restarts_its_countdown(
    room: Room, clock: FakeClock
) -> None:
    """Window ids repeat after a rewind; the old deadline belongs to the abandoned branch."""
    await room.submit(GM, OpenProbeWindow(8.0))  # version 1: window 1, deadline 8
    await room.submit(GM, ProbeTally("a"))  # version 2: window 1 still open
    await clock.advance(5.0)

    await room.submit(GM, Rewind(1))

    # Window ids never go back: a timer meant for the abandoned window finds no window.
    assert room.countdown == Countdown(2, 8.0, 13.0)


async def test_the_state_rebuilt_from_a_snapshot_is_the_state_replayed_from_the_start(
    make_room: MakeRoom, log: MemoryEventLog
) -> None:
    """A rewind (or a peek) starts from the latest snapshot when it is not after the
    point asked for, and from the start otherwise: either way the state of the whole
    log's replay up to there."""
    room = await make_room(snapshot_every=3)
    for name in "abcdefgh":
        await room.submit(GM, ProbeTally(name))
    snapshot = await log.latest_snapshot("room-1")
    assert snapshot is not None and 0 < snapshot.seq < room.version
    events = [entry.event for entry in await log.read("room-1")]

    for point in (0, 1, snapshot.seq - 1, snapshot.seq, snapshot.seq + 1, room.version):
        rebuilt = await state_at(log, "room-1", room.initial, room.version, point)
        assert rebuilt.state_hash() == replay(room.initial, events[:point]).state_hash(), point
