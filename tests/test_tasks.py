"""`server.tasks.cancel_and_wait`: a task that swallows one cancellation (as a listening
task can when the cancel lands in the same loop turn as the operation it awaits) is
still stopped, in bounded time."""

from __future__ import annotations

import asyncio

import pytest

from server.tasks import RECANCEL, cancel_and_wait


async def test_a_task_that_loses_a_cancellation_is_cancelled_again() -> None:
    swallowed = 0
    listening = asyncio.Event()

    async def listener() -> None:
        nonlocal swallowed
        listening.set()
        while True:
            try:
                await asyncio.Event().wait()  # waits for ever
            except asyncio.CancelledError:
                if swallowed:
                    raise
                swallowed += 1  # the lost one: it goes on waiting

    task = asyncio.create_task(listener())
    await asyncio.wait_for(listening.wait(), 5)
    async with asyncio.timeout(10 * RECANCEL):
        await cancel_and_wait(task)
    assert task.cancelled() and swallowed == 1


async def test_a_task_that_failed_says_why() -> None:
    async def failing() -> None:
        raise ValueError("broken")

    task = asyncio.create_task(failing())
    await asyncio.wait({task}, timeout=5)
    with pytest.raises(ValueError, match="broken"):
        await cancel_and_wait(task)
