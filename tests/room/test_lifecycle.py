"""Starting a room on an existing log, and stopping it cleanly."""

from __future__ import annotations

import asyncio

import pytest

from server.bus.memory import MemoryBus
from server.engine.errors import ROOM_CLOSED, CommandRefused
from server.eventlog import Entry
from server.eventlog.memory import MemoryEventLog
from server.room import Countdown, FakeClock, Room
from tests.room.conftest import MakeRoom
from tests.room.probe import OpenProbeWindow, ProbeTallied, ProbeTally, probe_encounter
from tests.room.support import AYLA, BRAM, GM, GatedLog
from tests.support.waiting import until, within


async def test_a_command_before_start_is_refused(
    clock: FakeClock, bus: MemoryBus[Entry], log: MemoryEventLog
) -> None:
    room = Room("room-1", probe_encounter(), log=log, bus=bus, clock=clock)

    with pytest.raises(CommandRefused) as refused:
        await room.submit(GM, ProbeTally("gm"))

    assert refused.value.code == ROOM_CLOSED


async def test_a_restarted_room_catches_up_with_its_log(
    make_room: MakeRoom, clock: FakeClock
) -> None:
    first = await make_room()
    await first.submit(GM, ProbeTally("a"))
    await first.submit(GM, OpenProbeWindow(8.0))
    await clock.advance(6.0)
    await within(first.stop(), what="stopping the first room")

    second = await make_room()

    assert second.state.state_hash() == first.state.state_hash()
    assert second.version == 2
    assert second.countdown == Countdown(1, 8.0, 14.0)  # a full countdown from the restart
    assert (await second.submit(GM, ProbeTally("b"))).first_seq == 3


async def test_stop_drains_the_queued_commands_then_refuses_new_ones(
    make_room: MakeRoom,
) -> None:
    log = GatedLog()
    room = await make_room(log_=log)
    await room.submit(GM, OpenProbeWindow(8.0))  # a countdown, to see the stop begin
    log.close_gate()
    queued = [asyncio.create_task(room.submit(GM, ProbeTally(f"t{i}"))) for i in range(3)]
    await within(log.entered.wait(), what="the first command logged")

    stopping = asyncio.create_task(room.stop())
    await until(lambda: room.countdown is None, what="the stop began (its countdown ended)")
    with pytest.raises(CommandRefused) as refused:
        await room.submit(GM, ProbeTally("late"))
    log.gate.set()
    await within(stopping)

    assert refused.value.code == ROOM_CLOSED
    assert [ack.events for ack in await within(asyncio.gather(*queued))] == [
        (ProbeTallied("t0"),),
        (ProbeTallied("t1"),),
        (ProbeTallied("t2"),),
    ]


async def test_stop_without_draining_refuses_the_queued_commands_unhandled(
    make_room: MakeRoom,
) -> None:
    log = GatedLog()
    room = await make_room(log_=log)
    log.close_gate()
    handled = asyncio.create_task(room.submit(GM, ProbeTally("handled")))
    await within(log.entered.wait(), what="the first command logged")
    queued = [asyncio.create_task(room.submit(GM, ProbeTally(f"t{i}"))) for i in range(2)]
    await until(lambda: room.queued == 2, what="two commands queued")

    stopping = asyncio.create_task(room.stop(drain=False))
    await until(lambda: all(q.done() for q in queued), what="the queued commands refused")
    log.gate.set()
    await within(stopping)

    assert (await within(handled)).last_seq == 1  # already being handled: it finishes
    outcomes = await asyncio.gather(*queued, return_exceptions=True)  # all done (above)
    assert [getattr(o, "code", None) for o in outcomes] == [ROOM_CLOSED, ROOM_CLOSED]
    assert await log.version("room-1") == 1 and room.state.round == 1


async def test_a_restarted_room_answers_a_retry_with_the_original_ack(
    make_room: MakeRoom,
) -> None:
    """A client whose ack was lost in a crash retries with the same client id: the
    restarted room knows the command from the log and does not apply it again."""
    first = await make_room()
    original = await first.submit(AYLA, ProbeTally("ayla"), client_id="c-1")
    await within(first.stop(), what="stopping the first room")

    second = await make_room()
    retry = await second.submit(AYLA, ProbeTally("ayla"), client_id="c-1")

    assert (retry.first_seq, retry.last_seq) == (original.first_seq, original.last_seq)
    assert second.version == original.last_seq  # applied once
    other = await second.submit(BRAM, ProbeTally("bram"), client_id="c-1")  # another sender
    assert other.first_seq == original.last_seq + 1


async def test_a_restarted_room_starts_from_its_latest_snapshot(
    make_room: MakeRoom, log: MemoryEventLog
) -> None:
    first = await make_room(snapshot_every=2)
    for name in ("a", "b", "c"):
        await first.submit(GM, ProbeTally(name))
    await within(first.stop(), what="stopping the first room")
    snapshot = await log.latest_snapshot("room-1")

    second = await make_room()

    assert snapshot is not None and snapshot.seq == 2
    assert second.state.state_hash() == first.state.state_hash()
    assert second.version == 3
