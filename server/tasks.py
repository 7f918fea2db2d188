"""Tasks that loop for ever: stopping one even when a cancellation is lost, and the
pause between its tries to reach the store again."""

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


RESUBSCRIBE_BACKOFF = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)
"""Seconds between attempts to subscribe again (and catch up) while the bus or the
log cannot be reached: a room's feed, a node's forwarding; the last one repeats."""


def backoff(attempt: int) -> float:
    """The pause before try number `attempt` + 1 (from 0) to reach the store again."""
    return RESUBSCRIBE_BACKOFF[min(attempt, len(RESUBSCRIBE_BACKOFF) - 1)]
