"""The clocks: a fake one that moves only when told, and the event loop's own."""

from __future__ import annotations

import asyncio

import pytest

from server.room import FakeClock, SystemClock
from tests.support.waiting import BOUND, until, within


async def test_fake_time_stands_still_until_advanced() -> None:
    clock = FakeClock(start=100.0)
    fired: list[float] = []
    clock.call_at(105.0, lambda: fired.append(clock.now()))

    assert clock.now() == 100.0 and fired == []
    await clock.advance(4.0)
    assert clock.now() == 104.0 and fired == []
    await clock.advance(1.0)
    assert fired == [105.0]


async def test_due_timers_fire_in_deadline_order_each_at_its_own_time() -> None:
    clock = FakeClock()
    fired: list[tuple[str, float]] = []
    clock.call_at(3.0, lambda: fired.append(("late", clock.now())))
    clock.call_at(1.0, lambda: fired.append(("early", clock.now())))
    clock.call_at(1.0, lambda: fired.append(("early, set second", clock.now())))

    await clock.advance(10.0)

    assert fired == [("early", 1.0), ("early, set second", 1.0), ("late", 3.0)]
    assert clock.now() == 10.0


async def test_a_timer_set_by_a_firing_timer_fires_in_the_same_advance() -> None:
    clock = FakeClock()
    fired: list[float] = []

    def first() -> None:
        clock.call_at(clock.now() + 2.0, lambda: fired.append(clock.now()))

    clock.call_at(1.0, first)
    await clock.advance(5.0)

    assert fired == [3.0]


async def test_a_cancelled_timer_never_fires() -> None:
    clock = FakeClock()
    fired: list[str] = []
    timer = clock.call_at(1.0, lambda: fired.append("x"))

    timer.cancel()
    await clock.advance(2.0)

    assert fired == [] and clock.pending() == []


async def test_advance_awaits_what_a_callback_returns() -> None:
    clock = FakeClock()
    release = asyncio.Event()
    done: list[str] = []

    async def consequence() -> None:
        await release.wait()  # bounded: `advancing` below is awaited within a deadline
        done.append("handled")

    clock.call_at(1.0, lambda: asyncio.ensure_future(consequence()))
    advancing = asyncio.create_task(clock.advance(1.0))
    await until(lambda: clock.now() == 1.0, what="the timer fired")

    assert not advancing.done() and done == []  # it waits for the consequence
    release.set()
    await within(advancing)
    assert done == ["handled"]


async def test_sleep_until_wakes_when_fake_time_gets_there() -> None:
    clock = FakeClock()
    sleeper = asyncio.create_task(clock.sleep_until(2.0))
    await until(lambda: clock.pending() == [2.0], what="the sleeper's timer set")

    await clock.advance(1.0)
    assert not sleeper.done()
    await clock.advance(1.0)
    assert sleeper.done()  # `advance` returned after the sleeper woke up


async def test_a_sleeper_cancelled_leaves_no_timer_behind() -> None:
    clock = FakeClock()
    sleeper = asyncio.create_task(clock.sleep_until(2.0))
    await until(lambda: clock.pending() == [2.0], what="the sleeper's timer set")

    sleeper.cancel()
    await asyncio.wait({sleeper}, timeout=BOUND)

    assert sleeper.cancelled() and clock.pending() == []
    await within(clock.advance(5.0))  # nothing to wait for


async def test_time_never_runs_backwards() -> None:
    with pytest.raises(ValueError):
        await FakeClock().advance(-1.0)


async def test_the_system_clock_is_the_loops_clock() -> None:
    clock = SystemClock()
    loop = asyncio.get_running_loop()
    fired = loop.create_future()

    clock.call_at(clock.now() - 1.0, lambda: fired.set_result(clock.now()))  # already due

    assert await within(fired) >= clock.now() - 1.0
    assert abs(clock.now() - loop.time()) < 1.0
    await clock.sleep_until(clock.now() - 1.0)  # in the past: returns at once
