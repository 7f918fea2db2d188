"""Window countdowns on a fake clock: expiry, same id, new id, Pause (V24), stop."""

from __future__ import annotations

import asyncio

import pytest

from server.bus.memory import MemoryBus
from server.engine.commands import CloseWindow, Pause, Paused, RefusePause, Resume, Resumed
from server.eventlog import Entry
from server.eventlog.memory import MemoryEventLog
from server.room import Countdown, FakeClock, Room
from tests.room.conftest import MakeRoom
from tests.room.probe import AnswerProbe, OpenProbeWindow, ProbeTally, ProbeWindowClosed
from tests.room.support import AYLA, GM, GatedLog
from tests.support.waiting import until, within


async def events_of(log: MemoryEventLog) -> list[object]:
    return [entry.event for entry in await log.read("room-1")]


async def test_a_window_expires_when_its_seconds_run_out(
    room: Room, clock: FakeClock, log: MemoryEventLog, bus: MemoryBus[Entry]
) -> None:
    await room.submit(GM, OpenProbeWindow(8.0))
    listener = await bus.subscribe("room-1")
    assert room.countdown == Countdown(1, 8.0, 8.0)

    await clock.advance(7.9)
    assert room.state.window is not None and room.version == 1

    await clock.advance(0.1)
    assert room.state.window is None
    assert (await events_of(log))[-1] == ProbeWindowClosed(1, expired=True)
    assert await within(listener.get()) == Entry(2, ProbeWindowClosed(1, expired=True))
    assert room.countdown is None and clock.pending() == []


async def test_a_window_that_keeps_its_id_keeps_its_deadline(room: Room, clock: FakeClock) -> None:
    await room.submit(GM, OpenProbeWindow(8.0))
    await clock.advance(5.0)
    await room.submit(AYLA, AnswerProbe("ayla"))  # the window changes, its id does not

    assert room.state.window is not None and room.state.window.answered == ("ayla",)
    assert room.countdown == Countdown(1, 3.0, 8.0)
    await clock.advance(3.0)
    assert room.state.window is None


async def test_a_window_replaced_by_a_new_id_gets_a_fresh_countdown(
    room: Room, clock: FakeClock, log: MemoryEventLog
) -> None:
    await room.submit(GM, OpenProbeWindow(8.0))
    await clock.advance(3.0)
    await room.submit(GM, OpenProbeWindow(8.0))  # window 2 replaces window 1

    assert clock.pending() == [11.0]  # window 1's timer is gone
    await clock.advance(5.0)  # t = 8: window 1 would have expired here
    assert room.state.window is not None and room.state.window.id == 2
    await clock.advance(3.0)  # t = 11
    assert (await events_of(log))[-1] == ProbeWindowClosed(2, expired=True)


async def test_a_window_closed_early_cancels_its_countdown(
    room: Room, clock: FakeClock, log: MemoryEventLog
) -> None:
    await room.submit(GM, OpenProbeWindow(8.0))
    await room.submit(GM, CloseWindow(1))

    assert clock.pending() == [] and room.countdown is None
    await clock.advance(10.0)
    assert await log.version("room-1") == 2


async def test_pause_freezes_the_countdown_and_resume_restores_exactly_what_was_left(
    room: Room, clock: FakeClock, log: MemoryEventLog
) -> None:
    """LIVE_COMBAT, Pause: with 6.4 s left in Bram's window Corvin pauses; two minutes
    later the GM resumes and the window has 6.4 s left, exactly as it had (V24)."""
    await room.submit(GM, OpenProbeWindow(8.0))
    await clock.advance(1.6)
    await room.submit(AYLA, Pause("ayla"))

    frozen = room.countdown
    assert frozen is not None and frozen.deadline is None
    assert frozen.remaining == pytest.approx(6.4)
    assert clock.pending() == []
    await clock.advance(120.0)
    assert room.countdown == frozen and room.state.window is not None

    await room.submit(GM, Resume("gm"))
    restored = room.countdown
    assert restored is not None and restored.deadline == clock.now() + frozen.remaining
    await clock.advance(6.39)
    assert room.state.window is not None
    await clock.advance(0.01)
    assert room.state.window is None
    assert (await events_of(log))[-1] == ProbeWindowClosed(1, expired=True)


async def test_a_pause_the_gm_refuses_is_as_if_it_never_happened(
    room: Room, clock: FakeClock, log: MemoryEventLog
) -> None:
    """V24: Ayla pauses with 10 s left; 4 s later the GM refuses her pause. The timers
    ran all along: the window has 6 s left, not 10."""
    await room.submit(GM, OpenProbeWindow(12.0))
    await clock.advance(2.0)
    await room.submit(AYLA, Pause("ayla"))
    frozen = room.countdown
    assert frozen is not None and frozen.remaining == pytest.approx(10.0)
    await clock.advance(4.0)

    ack = await room.submit(GM, RefusePause())

    assert ack.events == (Resumed("gm", refused=True),)
    countdown = room.countdown
    assert countdown is not None and countdown.remaining == pytest.approx(6.0)
    assert countdown.deadline == pytest.approx(12.0)  # where it always was
    await clock.advance(5.99)
    assert room.state.window is not None
    await clock.advance(0.01)
    assert room.state.window is None
    assert (await events_of(log))[-1] == ProbeWindowClosed(1, expired=True)


async def test_a_window_whose_time_ran_out_during_a_refused_pause_closes_at_once(
    room: Room, clock: FakeClock, log: MemoryEventLog
) -> None:
    """V24: paused with 3 s left, refused 5 s later: the window's time ran out during
    the pause, so it closes at once, as a timeout (the room's `WindowExpired`)."""
    await room.submit(GM, OpenProbeWindow(8.0))
    await clock.advance(5.0)
    await room.submit(AYLA, Pause("ayla"))
    await clock.advance(5.0)

    await room.submit(GM, RefusePause())

    assert room.countdown == Countdown(1, 0.0, 10.0)  # due now
    await clock.advance(0.0)
    assert room.state.window is None
    assert (await events_of(log))[-2:] == [
        Resumed("gm", refused=True),
        ProbeWindowClosed(1, expired=True),
    ]


async def test_a_pause_the_gm_lets_stand_keeps_its_time_on_resume(
    room: Room, clock: FakeClock
) -> None:
    """V24: a pause the GM does not refuse is a real one: resumed (by the GM here) a
    minute later, the window has what it had left when the pause began."""
    await room.submit(GM, OpenProbeWindow(12.0))
    await clock.advance(2.0)
    await room.submit(AYLA, Pause("ayla"))
    await clock.advance(60.0)

    await room.submit(GM, Resume("gm"))

    countdown = room.countdown
    assert countdown is not None and countdown.remaining == pytest.approx(10.0)
    await clock.advance(9.99)
    assert room.state.window is not None
    await clock.advance(0.01)
    assert room.state.window is None


async def test_a_window_opened_during_a_refused_pause_is_charged_from_its_opening(
    room: Room, clock: FakeClock
) -> None:
    """The GM opens a window while Ayla's pause stands (an override, accepted while
    paused), then refuses the pause: the window ran from the moment it opened."""
    await room.submit(AYLA, Pause("ayla"))
    await clock.advance(30.0)
    await room.submit(GM, OpenProbeWindow(8.0))
    await clock.advance(3.0)

    await room.submit(GM, RefusePause())

    countdown = room.countdown
    assert countdown is not None and countdown.remaining == pytest.approx(5.0)


async def test_time_nobody_was_at_the_table_is_not_charged_by_a_refused_pause(
    room: Room, clock: FakeClock
) -> None:
    """The countdown also stands still while nobody is connected (the host's freeze):
    that time would not have run without the pause either, so a refusal charges only
    the time the pause froze with someone there."""
    await room.submit(GM, OpenProbeWindow(12.0))
    await room.submit(AYLA, Pause("ayla"))
    await clock.advance(2.0)  # charged
    room.set_attended(False)
    await clock.advance(100.0)  # nobody there: not charged
    room.set_attended(True)
    await clock.advance(1.0)  # charged

    await room.submit(GM, RefusePause())

    countdown = room.countdown
    assert countdown is not None and countdown.remaining == pytest.approx(9.0)


async def test_a_window_opened_while_paused_waits_for_resume_with_its_full_time(
    room: Room, clock: FakeClock
) -> None:
    await room.submit(GM, Pause("gm"))
    await room.submit(GM, OpenProbeWindow(5.0))  # a GM override, accepted while paused
    await clock.advance(100.0)

    assert room.countdown == Countdown(1, 5.0, None)
    await room.submit(GM, Resume("gm"))
    await clock.advance(5.0)
    assert room.state.window is None


async def test_an_expiry_overtaken_by_a_pause_fires_again_on_resume(
    make_room: MakeRoom, clock: FakeClock
) -> None:
    """The deadline passes while a Pause waits in the queue: the pause wins (its expiry
    is refused as paused) and the window closes the moment the fight resumes."""
    log = GatedLog()
    room = await make_room(log_=log)
    await room.submit(GM, OpenProbeWindow(8.0))
    log.close_gate()
    busy = asyncio.create_task(room.submit(GM, ProbeTally("gm")))
    await within(log.entered.wait(), what="the tally logged")
    pause = asyncio.create_task(room.submit(AYLA, Pause("ayla")))
    await until(lambda: room.queued == 1, what="the pause queued before the deadline passes")
    advancing = asyncio.create_task(clock.advance(8.0))
    await until(lambda: room.queued == 2, what="the expiry queued behind the pause")
    log.gate.set()
    await within(asyncio.gather(busy, pause, advancing))

    assert room.state.paused_by == "ayla" and room.state.window is not None
    assert room.countdown == Countdown(1, 0.0, None)
    await room.submit(AYLA, Resume("ayla"))
    await clock.advance(0.0)
    assert room.state.window is None
    assert [entry.event for entry in await log.read("room-1")][-2:] == [
        Resumed("ayla"),
        ProbeWindowClosed(1, expired=True),
    ]
    assert Paused("ayla") in [entry.event for entry in await log.read("room-1")]


async def test_stopping_the_room_cancels_its_countdown(
    make_room: MakeRoom, clock: FakeClock, log: MemoryEventLog
) -> None:
    room = await make_room()
    await room.submit(GM, OpenProbeWindow(8.0))

    await within(room.stop(), what="stopping the room")

    assert clock.pending() == []
    await clock.advance(10.0)
    assert await log.version("room-1") == 1


async def test_a_full_queue_still_takes_the_rooms_own_expiry(
    make_room: MakeRoom, clock: FakeClock
) -> None:
    log = GatedLog()
    room = await make_room(log_=log, queue_limit=1)
    await room.submit(GM, OpenProbeWindow(8.0))
    log.close_gate()
    busy = asyncio.create_task(room.submit(GM, ProbeTally("busy")))
    await within(log.entered.wait(), what="the first command logged")
    queued = asyncio.create_task(room.submit(GM, ProbeTally("queued")))
    await until(lambda: room.queued == 1, what="the queue full for players and the GM")

    advancing = asyncio.create_task(clock.advance(8.0))
    await until(lambda: room.queued == 2, what="the expiry queued past the limit")
    log.gate.set()
    await within(asyncio.gather(busy, queued, advancing))

    assert room.state.window is None
    assert [entry.event for entry in await log.read("room-1")][-1] == ProbeWindowClosed(
        1, expired=True
    )
