"""The room's command path: authorize, queue, decide, log, then acknowledge and publish."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from server.bus.memory import MemoryBus
from server.engine.authority import ROOM, Principal
from server.engine.commands import WindowExpired
from server.engine.core import Command
from server.engine.errors import FORBIDDEN, NO_WINDOW, ROOM_BUSY, CommandRefused
from server.eventlog import Entry, VersionConflict
from server.eventlog.memory import MemoryEventLog
from server.room import Ack, FakeClock, Room
from server.room.room import HELD_BACK
from tests.room.conftest import MakeRoom
from tests.room.probe import (
    AnswerProbe,
    ProbeNudge,
    ProbePonder,
    ProbeTallied,
    ProbeTally,
    probe_encounter,
)
from tests.room.support import AYLA, BRAM, GM, WATCHER, FailingLog, GatedLog
from tests.support.waiting import take, until, within


async def test_ack_names_the_sequence_numbers_of_the_logged_events(
    room: Room, log: MemoryEventLog
) -> None:
    first = await room.submit(GM, ProbeTally("gm"))
    second = await room.submit(AYLA, ProbeTally("ayla"))

    assert first == Ack(1, 1, (ProbeTallied("gm"),))
    assert second == Ack(2, 2, (ProbeTallied("ayla"),))
    assert await log.read("room-1") == [
        Entry(1, ProbeTallied("gm")),
        Entry(2, ProbeTallied("ayla")),
    ]
    assert room.state.round == 2 and room.state.version == 2 and room.version == 2


async def test_a_command_without_events_is_acknowledged_at_the_current_version(
    room: Room, log: MemoryEventLog
) -> None:
    await room.submit(GM, ProbeTally("gm"))

    assert await room.submit(GM, ProbePonder()) == Ack(1, 1, ())
    assert await log.version("room-1") == 1


async def test_the_ack_waits_until_the_events_are_in_the_log(make_room: MakeRoom) -> None:
    log = GatedLog()
    room = await make_room(log_=log)
    log.close_gate()

    submitted = asyncio.create_task(room.submit(GM, ProbeTally("gm")))
    await within(log.entered.wait(), what="the room appending")

    assert not submitted.done()
    assert await log.version("room-1") == 0
    log.gate.set()
    assert (await within(submitted)).last_seq == 1
    assert await log.version("room-1") == 1


async def test_a_failing_append_raises_publishes_nothing_and_changes_nothing(
    make_room: MakeRoom, bus: MemoryBus[Entry]
) -> None:
    log = FailingLog()
    room = await make_room(log_=log)
    listener = await bus.subscribe("room-1")
    before = room.state.state_hash()

    with pytest.raises(OSError, match="disk full"):
        await room.submit(GM, ProbeTally("lost"))

    assert room.state.state_hash() == before and room.version == 0
    log.failing = False
    await room.submit(GM, ProbeTally("kept"))
    assert await within(listener.get()) == Entry(1, ProbeTallied("kept"))  # nothing before


async def test_events_are_published_with_their_sequence_numbers(
    room: Room, bus: MemoryBus[Entry]
) -> None:
    listener = await bus.subscribe("room-1")

    await room.submit(GM, ProbeTally("gm"))
    await room.submit(AYLA, ProbeTally("ayla"))

    assert await take(listener, 2) == [
        Entry(1, ProbeTallied("gm")),
        Entry(2, ProbeTallied("ayla")),
    ]


async def queued_behind_a_slow_append(room: Room, log: GatedLog, names: Sequence[str]) -> list[Ack]:
    """Submit a command per name while the first one's append waits at the log's gate,
    so the others queue up behind it; then open the gate and return their acks."""
    log.close_gate()
    submits = [asyncio.create_task(room.submit(GM, ProbeTally(name))) for name in names]
    await within(log.entered.wait(), what="the first command logged")
    log.gate.set()
    return await within(asyncio.gather(*submits))


async def test_concurrent_submits_are_handled_one_at_a_time_in_queue_order(
    make_room: MakeRoom,
) -> None:
    log = GatedLog()
    room = await make_room(log_=log)
    names = [f"p{i}" for i in range(6)]
    acks = await queued_behind_a_slow_append(room, log, names)

    assert [ack.events for ack in acks] == [(ProbeTallied(name),) for name in names]
    assert [ack.first_seq for ack in acks] == [1, 2, 3, 4, 5, 6]
    assert log.expected_versions == [0, 1, 2, 3, 4, 5]  # each built on the one before
    assert log.most_at_once == 1


async def test_a_full_queue_refuses_at_once_with_room_busy(make_room: MakeRoom) -> None:
    log = GatedLog()
    room = await make_room(log_=log, queue_limit=2)
    log.close_gate()
    handled = asyncio.create_task(room.submit(GM, ProbeTally("handled")))
    # the first command left the queue and is being logged
    await within(log.entered.wait(), what="the first command logged")
    waiting = [asyncio.create_task(room.submit(GM, ProbeTally(f"queued{i}"))) for i in range(2)]
    await until(lambda: room.queued == 2, what="two commands queued")  # no time passes
    before = room.state.state_hash()

    with pytest.raises(CommandRefused) as refused:
        await room.submit(GM, ProbeTally("one too many"))

    assert refused.value.code == ROOM_BUSY
    assert room.state.state_hash() == before
    log.gate.set()
    await within(asyncio.gather(handled, *waiting))
    assert room.state.round == 3
    assert (await room.submit(GM, ProbeTally("later"))).last_seq == 4  # room takes work again


async def test_a_retried_client_id_returns_the_original_ack_without_applying_twice(
    room: Room, log: MemoryEventLog
) -> None:
    first = await room.submit(AYLA, ProbeTally("ayla"), client_id="c-1")
    retry = await room.submit(AYLA, ProbeTally("ayla"), client_id="c-1")

    assert retry == first
    assert await log.version("room-1") == 1 and room.state.round == 1


async def test_a_retry_queued_behind_its_original_is_not_applied_twice(
    make_room: MakeRoom,
) -> None:
    log = GatedLog()
    room = await make_room(log_=log)
    log.close_gate()
    original = asyncio.create_task(room.submit(AYLA, ProbeTally("ayla"), client_id="c-1"))
    await within(log.entered.wait(), what="the original logged")
    retry = asyncio.create_task(room.submit(AYLA, ProbeTally("ayla"), client_id="c-1"))
    await until(lambda: room.queued == 1, what="the retry queued behind it")
    log.gate.set()

    assert await within(original) == await within(retry)
    assert await log.version("room-1") == 1


async def test_client_ids_belong_to_their_principal(room: Room) -> None:
    await room.submit(AYLA, ProbeTally("ayla"), client_id="c-1")
    bram = await room.submit(BRAM, ProbeTally("bram"), client_id="c-1")

    assert bram.events == (ProbeTallied("bram"),)
    assert room.state.round == 2


async def test_the_room_remembers_only_its_recent_client_ids(make_room: MakeRoom) -> None:
    room = await make_room(recent_client_ids=2)
    for client_id in ("c-1", "c-2", "c-3"):
        await room.submit(AYLA, ProbeTally(client_id), client_id=client_id)

    assert (await room.submit(AYLA, ProbeTally("c-3"), client_id="c-3")).last_seq == 3  # known
    again = await room.submit(AYLA, ProbeTally("c-1"), client_id="c-1")  # forgotten: applied again
    assert again.last_seq == 4 and room.state.round == 4


@pytest.mark.parametrize(
    ("principal", "command"),
    [
        (AYLA, ProbeNudge("bram")),  # a player acting for a combatant it does not control
        (WATCHER, ProbeTally("watcher")),  # spectators may send nothing
        (AYLA, WindowExpired(1)),  # only the room's timers expire windows
        (GM, WindowExpired(1)),
    ],
)
async def test_a_forbidden_command_is_refused_and_changes_nothing(
    room: Room, log: MemoryEventLog, principal: Principal, command: Command
) -> None:
    before = room.state.state_hash()

    with pytest.raises(CommandRefused) as refused:
        await room.submit(principal, command)

    assert refused.value.code == FORBIDDEN
    assert room.state.state_hash() == before and await log.version("room-1") == 0


async def test_the_controller_may_act_for_its_combatant(room: Room) -> None:
    assert (await room.submit(AYLA, ProbeNudge("ayla"))).events == (ProbeTallied("ayla"),)


async def test_an_illegal_command_raises_its_code_and_changes_nothing(
    room: Room, bus: MemoryBus[Entry], log: MemoryEventLog
) -> None:
    listener = await bus.subscribe("room-1")
    before = room.state.state_hash()

    with pytest.raises(CommandRefused) as refused:
        await room.submit(AYLA, AnswerProbe("ayla"))  # no window is open

    assert refused.value.code == NO_WINDOW
    assert room.state.state_hash() == before and await log.version("room-1") == 0
    await room.submit(GM, ProbeTally("gm"))
    assert (await within(listener.get())).seq == 1


async def test_the_room_itself_may_send_window_expired(room: Room) -> None:
    with pytest.raises(CommandRefused) as refused:
        await room.submit(ROOM, WindowExpired(7))

    assert refused.value.code == NO_WINDOW  # allowed, but no such window


class BrokenBus(MemoryBus[Entry]):
    async def publish(self, topic: str, messages: Sequence[Entry]) -> None:
        raise ConnectionError("bus down")


async def test_a_failing_publish_leaves_the_logged_events_acknowledged(
    make_room: MakeRoom, log: MemoryEventLog, caplog: pytest.LogCaptureFixture
) -> None:
    room = Room("room-1", probe_encounter(), log=log, bus=BrokenBus(), clock=FakeClock())
    async with room:
        ack = await room.submit(GM, ProbeTally("gm"))

    assert ack.last_seq == 1 and room.state.round == 1
    assert await log.version("room-1") == 1
    assert "publishing 1..1 failed" in caplog.text


async def test_a_caller_that_gives_up_before_its_turn_withdraws_its_command(
    make_room: MakeRoom,
) -> None:
    log = GatedLog()
    room = await make_room(log_=log)
    log.close_gate()
    first = asyncio.create_task(room.submit(GM, ProbeTally("first")))
    await within(log.entered.wait(), what="the first command logged")
    withdrawn = asyncio.create_task(room.submit(GM, ProbeTally("withdrawn")))
    await until(lambda: room.queued == 1, what="the second command queued")
    withdrawn.cancel()
    log.gate.set()
    await within(first)

    assert (await room.submit(GM, ProbeTally("next"))).events == (ProbeTallied("next"),)
    assert [entry.event for entry in await log.read("room-1")] == [
        ProbeTallied("first"),
        ProbeTallied("next"),
    ]


async def test_a_log_moved_on_by_another_writer_refuses_the_batch(
    room: Room, log: MemoryEventLog, bus: MemoryBus[Entry]
) -> None:
    """Optimistic concurrency (ARCHITECTURE 5): the room names the version it built on."""
    listener = await bus.subscribe("room-1")
    await log.append("room-1", [ProbeTallied("elsewhere")], expected_version=0)
    before = room.state.state_hash()

    with pytest.raises(VersionConflict) as conflict:
        await room.submit(GM, ProbeTally("here"))

    assert (conflict.value.expected, conflict.value.actual) == (0, 1)
    assert room.state.state_hash() == before and room.version == 0
    marker = Entry(99, ProbeTallied("published after"))
    await bus.publish("room-1", [marker])
    assert await within(listener.get()) == marker  # nothing was published before it


async def test_a_busy_room_publishes_its_queued_commands_events_together(
    make_room: MakeRoom, bus: MemoryBus[Entry]
) -> None:
    """Six commands queued behind a slow append: each is acknowledged once logged, and
    their events reach subscribers in order, in fewer publishes than commands (at most
    `HELD_BACK` commands a publish), the last one ending each publish's batch."""
    log = GatedLog()
    room = await make_room(log_=log)
    listener = await bus.subscribe("room-1")
    names = [f"p{i}" for i in range(6)]
    acks = await queued_behind_a_slow_append(room, log, names)
    entries = await take(listener, 6)

    assert [entry.event for entry in entries] == [ProbeTallied(name) for name in names]
    assert [entry.seq for entry in entries] == [ack.first_seq for ack in acks]
    ends = [entry.seq for entry in entries if entry.ends_batch]
    assert len(ends) < len(names) and ends[-1] == 6
    assert all(b - a <= HELD_BACK for a, b in zip([0, *ends], ends, strict=False))


async def test_a_quiet_room_publishes_a_commands_events_before_its_ack(
    room: Room, bus: MemoryBus[Entry]
) -> None:
    published: list[list[int]] = []
    publish = bus.publish

    async def recorded(topic: str, messages: Sequence[Entry]) -> None:
        published.append([entry.seq for entry in messages])
        await publish(topic, messages)

    bus.publish = recorded  # type: ignore[method-assign]
    for name in ("gm", "ayla", "bram"):
        ack = await room.submit(GM, ProbeTally(name))
        assert published[-1] == [ack.first_seq]  # out before the ack came back
    assert published == [[1], [2], [3]]
