"""The room's clock: the only place the server reads time (ARCHITECTURE, convention 1).

The engine never sees time; the room measures window lengths with an injected `Clock`
and turns a deadline into a `WindowExpired` command. Two clocks:

- `SystemClock`: the running asyncio loop's monotonic time (`loop.time()`, seconds).
- `FakeClock`: for tests. Time stands still until `await clock.advance(seconds)`, which
  fires every timer that falls due, earliest first, at its own time. Nothing sleeps.

A timer callback may return an awaitable (the room returns the future of the command it
queued). `SystemClock` ignores it, as asyncio does; `FakeClock.advance` awaits it before
firing the next timer, so a test sees every consequence of a deadline (a closed window,
the next window armed at the right fake time) the moment `advance` returns. The timer of
`FakeClock.sleep_until` returns one that is done once its sleeper has woken up: nothing
relies on how many loop turns a woken task takes.
"""

from __future__ import annotations

import asyncio
import heapq
import inspect
import itertools
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    """A scheduled callback. `asyncio.TimerHandle` is one."""

    def cancel(self) -> None: ...
    def when(self) -> float: ...


class Clock(Protocol):
    def now(self) -> float:
        """Monotonic seconds; only differences mean anything."""
        ...

    def call_at(self, when: float, callback: Callable[[], object]) -> Timer:
        """Run `callback` once `now() >= when` (a past `when` runs it as soon as possible)."""
        ...

    async def sleep_until(self, when: float) -> None:
        """Return once `now() >= when`."""
        ...


class SystemClock:
    """Real time: the running event loop's clock."""

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def call_at(self, when: float, callback: Callable[[], object]) -> Timer:
        return asyncio.get_running_loop().call_at(when, callback)

    async def sleep_until(self, when: float) -> None:
        await asyncio.sleep(max(0.0, when - self.now()))


class FakeTimer:
    """A timer of a `FakeClock`."""

    def __init__(self, when: float, callback: Callable[[], object]) -> None:
        self._when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True

    def when(self) -> float:
        return self._when


class FakeClock:
    """A clock that moves only when a test says so, firing due timers in order."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._timers: list[tuple[float, int, FakeTimer]] = []
        self._order = itertools.count()  # equal deadlines fire in the order they were set

    def now(self) -> float:
        return self._now

    def call_at(self, when: float, callback: Callable[[], object]) -> FakeTimer:
        timer = FakeTimer(when, callback)
        heapq.heappush(self._timers, (when, next(self._order), timer))
        return timer

    async def sleep_until(self, when: float) -> None:
        loop = asyncio.get_running_loop()
        woken: asyncio.Future[None] = loop.create_future()
        resumed: asyncio.Future[None] = loop.create_future()  # the sleeper runs again

        def wake() -> asyncio.Future[None]:
            if not woken.done():
                woken.set_result(None)
            return resumed  # `advance` goes on once the sleeper has

        timer = self.call_at(when, wake)
        try:
            await woken
        finally:
            timer.cancel()
            if not resumed.done():
                resumed.set_result(None)

    def pending(self) -> list[float]:
        """The deadlines of the timers still waiting, earliest first."""
        return sorted(when for when, _, timer in self._timers if not timer.cancelled)

    async def advance(self, seconds: float) -> None:
        """Move time forward by `seconds`, firing every timer due by then at its deadline."""
        if seconds < 0:
            raise ValueError("time only moves forward")
        target = self._now + seconds
        while self._timers and self._timers[0][0] <= target:
            when, _, timer = heapq.heappop(self._timers)
            if timer.cancelled:
                continue
            self._now = max(self._now, when)
            outcome = timer.callback()
            if inspect.isawaitable(outcome):
                await outcome
        self._now = target
