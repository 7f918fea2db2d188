"""Stopping a task that loops for ever, even when a cancellation is lost."""

from __future__ import annotations

import asyncio
from typing import Any

RECANCEL = 0.25
"""Seconds a stopping task is given to end before it is cancelled again."""


async def cancel_and_wait(task: asyncio.Task[Any]) -> None:
    """Cancel `task` and return once it has ended, cancelling it again every
    `RECANCEL` seconds until it does.

    A cancellation can be lost: on Python 3.11, `asyncio.wait_for` (which redis-py uses
    for every command it sends) returns the result of an operation that finished in the
    same loop turn as the cancellation. A listening task that lost it (it was sending
    its SUBSCRIBE) would go on to wait for messages for ever, and so would whoever
    waits for it to end: a process shutting down, a room handed over or let go.
    """
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=RECANCEL)
    if not task.cancelled():
        task.result()  # what it failed with, as awaiting it would raise
