"""The window countdown as it travels between processes.

A window's countdown lives in the room's runner (`server/room/countdown.py`), on that
process's clock. A feed in another process needs it for its `window` messages, so the
runner publishes a `Timing` on the room's event channel before every batch of events
(and alone when its countdown changes without an event: a room taken over after its
runner died re-arms the open window with its full length). Clocks of two processes
cannot be compared, so a `Timing` carries the time left, not a deadline: the receiver
counts from the moment it receives it. Pub/sub delivers within milliseconds, which is
all a countdown shown to people in whole seconds can be off by.
"""

from __future__ import annotations

from typing import NamedTuple

from server.room.countdown import Countdown


class Timing(NamedTuple):
    """The runner's countdown after event `seq`: which window, the milliseconds left
    when it was published, and whether it is counting down (not frozen by a pause, not
    run out). `alone`: published without events (they come before it otherwise)."""

    seq: int
    window: int | None
    remaining_ms: int
    running: bool
    alone: bool = False

    def countdown(self, received_at: float, now: float) -> Countdown | None:
        """The countdown on the receiver's clock, `now`, for a Timing received at
        `received_at` (None when no window was open)."""
        if self.window is None:
            return None
        left = self.remaining_ms / 1000
        if not self.running:
            return Countdown(self.window, left, None)
        deadline = received_at + left
        return Countdown(self.window, max(0.0, deadline - now), deadline)


def timing_of(countdown: Countdown | None, seq: int, *, alone: bool = False) -> Timing:
    """The `Timing` to publish for a runner's `countdown` after event `seq`."""
    if countdown is None:
        return Timing(seq, None, 0, False, alone)
    return Timing(
        seq,
        countdown.window,
        round(countdown.remaining * 1000),
        countdown.deadline is not None and countdown.remaining > 0,
        alone,
    )
