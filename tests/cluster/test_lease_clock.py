"""The clock a room runs on under a lease (server/cluster/ownership.py, `_LeaseClock`),
on a fake clock: a countdown that runs out while the process is not sure it still
holds the room's lease (it was frozen, Redis is away) waits for the next renewal
instead of closing the window for a room another process may run by now."""

from __future__ import annotations

import asyncio

from server.cluster.ownership import _LeaseClock
from server.room.clock import FakeClock


class Lease:
    def __init__(self) -> None:
        self.sure = True


async def test_a_countdown_due_while_the_lease_is_in_doubt_waits_for_a_renewal() -> None:
    clock, lease = FakeClock(), Lease()
    timers = _LeaseClock(clock, lambda: lease.sure)
    fired: list[int] = []
    first = timers.call_at(1.0, lambda: fired.append(1))
    timers.call_at(2.0, lambda: fired.append(2))
    dropped = timers.call_at(3.0, lambda: fired.append(3))
    assert first.when() == 1.0 and timers.now() == 0.0

    await clock.advance(1.0)
    assert fired == [1]  # sure: on time
    lease.sure = False
    await clock.advance(2.0)
    assert fired == [1]  # due, held back
    dropped.cancel()  # the room stopped (or a pause froze the window) meanwhile
    timers.release()
    assert fired == [1]  # a renewal that did not settle the doubt: still held
    lease.sure = True
    timers.release()
    assert fired == [1, 2]  # the lease is sure again: fired once, the cancelled one never
    timers.release()
    assert fired == [1, 2]


async def test_a_held_countdown_cancelled_by_one_released_before_it_never_fires() -> None:
    clock, lease = FakeClock(), Lease()
    timers = _LeaseClock(clock, lambda: lease.sure)
    fired: list[str] = []
    later = timers.call_at(2.0, lambda: fired.append("later"))

    def expire() -> None:  # its consequence (a window closed) cancels the next countdown
        fired.append("first")
        later.cancel()

    timers.call_at(1.0, expire)
    lease.sure = False
    await clock.advance(2.0)
    lease.sure = True
    timers.release()
    assert fired == ["first"]


async def test_waiting_on_the_lease_clock_is_waiting_on_the_room_s_clock() -> None:
    clock = FakeClock()
    timers = _LeaseClock(clock, lambda: False)
    waiting = asyncio.create_task(timers.sleep_until(5.0))
    async with asyncio.timeout(1):
        while clock.pending() != [5.0]:  # the sleep has set its timer
            await asyncio.sleep(0.001)
    await clock.advance(5.0)
    await asyncio.wait_for(waiting, 1)
    assert timers.now() == 5.0
