"""Waiting in tests, always with a deadline.

A test waits for the exact thing it needs (an event set, a task done, a queue grown to
a length), never for "a loop turn or two", and never for ever: every wait here fails
with a `TimeoutError` that says what did not happen, so a stuck test fails loudly
instead of hanging the run.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from server.bus import Subscription

T = TypeVar("T")

BOUND = 5.0
"""Seconds any single wait of a test may take: far more than it needs on a busy machine."""


async def within(awaitable: Awaitable[T], timeout: float = BOUND, what: str = "") -> T:
    """`await awaitable`, failing after `timeout` seconds instead of waiting for ever.

    A task given here is cancelled when time runs out, as `asyncio.wait_for` does. It
    fails even if what it awaits swallowed the cancellation and returned late.
    """
    late = TimeoutError(f"{what or awaitable!r}: not done within {timeout} s")
    try:
        async with asyncio.timeout(timeout) as deadline:
            result = await awaitable
    except TimeoutError:
        raise late from None
    if deadline.expired():
        raise late
    return result


async def until(
    predicate: Callable[[], bool | Awaitable[bool]],
    timeout: float = BOUND,
    what: str = "",
    step: float = 0.001,
) -> None:
    """Return as soon as `predicate()` holds (it may be a coroutine function), looking
    again every `step` seconds of real time; fail after `timeout` seconds.

    For conditions no code path signals (a queue's length, a timer armed): polling with
    a real sleep lets every other task run, however many loop turns that takes.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        held = predicate()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return
        if loop.time() >= deadline:
            name = what or getattr(predicate, "__name__", repr(predicate))
            raise TimeoutError(f"{name}: not true within {timeout} s")
        await asyncio.sleep(step)


async def take(subscription: Subscription[T], count: int, timeout: float = BOUND) -> list[T]:
    """The next `count` messages of a bus subscription, all within `timeout` seconds."""

    async def read() -> list[T]:
        return [await subscription.get() for _ in range(count)]

    return await within(read(), timeout, f"{count} messages on {subscription!r}")


async def rest(subscription: Subscription[T], timeout: float = BOUND) -> list[T]:
    """What is left in a closed subscription, read (by iterating it) within `timeout`."""

    async def read() -> list[T]:
        return [message async for message in subscription]

    return await within(read(), timeout, f"the rest of {subscription!r}")


SETTLE = 0.05
"""Seconds a task is watched by `settles`."""


async def settles(task: asyncio.Future[Any], timeout: float = SETTLE) -> bool:
    """Does `task` end within `timeout` seconds of real time? For checking that something
    *waits*: in that time the task gets every loop turn it can use, so False means it
    is blocked, not that it had no turn yet."""
    done, _ = await asyncio.wait({task}, timeout=timeout)
    return bool(done)
