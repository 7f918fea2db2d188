"""The countdown of the open window: one timer kept in step with the encounter state.

After every batch of events the room calls `WindowTimer.follow` with the state's window,
its pause and whether anyone is at the table; the timer then holds these invariants:

- A window with no pause has a running countdown of `window.seconds`, started when its
  id first appeared. A window whose id stays the same keeps its deadline (an answer
  changes the window but not its time); a new id cancels the old countdown and starts
  a fresh one; no window cancels it.
- V24 Pause: every timer freezes with its remaining time; resume restarts it with
  exactly that time (LIVE_COMBAT: "Bram's window has 6.4 s left, exactly as it had").
- V24 `RefusePause` (the GM refuses a player's pause, `Resumed(refused=True)`): the
  pause is as if it never happened. The time the countdown stood frozen by the pause
  is charged to it (`refused=True`), so its time left is what it would have been
  without the pause; a window opened during the pause is charged from the moment it
  opened. A countdown whose time ran out meanwhile fires at once, and the window
  closes as a timeout (`WindowExpired`). Time frozen because nobody was at the table
  (`attended=False`, the host's freeze) is never charged: it would have stood still
  without the pause too.
- A countdown that has fired waits for its `WindowExpired` to close the window. If a
  pause overtook it (the expiry then is refused as `paused`), it freezes with 0 s left
  and fires again at once on resume. It never re-fires otherwise, so a refused expiry
  cannot loop.
- `fresh=True` (after a GM rewind) restarts the countdown with the full window length
  even if the id is unchanged: ids can repeat after a rewind, and the old deadline
  belongs to the abandoned branch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from server.room.clock import Clock, Timer


@dataclass(frozen=True, slots=True)
class Countdown:
    """What a client needs to show the countdown of window `window`."""

    window: int
    remaining: float  # seconds left (frozen while paused; 0 once fired)
    deadline: float | None  # clock time it runs out, None while frozen or fired


class WindowTimer:
    def __init__(self, clock: Clock, expire: Callable[[int], object]) -> None:
        self._clock = clock
        self._expire = expire  # called with the window id when its time runs out
        self._window: int | None = None
        self._deadline: float | None = None  # set while running
        self._remaining: float | None = None  # set while frozen (or not started yet)
        self._timer: Timer | None = None
        self._stopped = False
        # V24 RefusePause: the seconds this countdown would have run had nobody paused
        # (while paused and attended), and the clock time they are counted from.
        self._owed = 0.0
        self._owed_since: float | None = None

    def follow(
        self,
        window: int | None,
        seconds: float,
        paused: bool,
        fresh: bool = False,
        *,
        attended: bool = True,
        refused: bool = False,
    ) -> None:
        """Bring the countdown in line with the state's open window and pause.

        `attended`: someone is at the table (else the countdown freezes, uncharged).
        `refused`: this batch lifted a pause the GM refused (V24): the time the pause
        froze is charged to the countdown (module docstring).
        """
        if self._stopped:
            return
        now = self._clock.now()
        if self._owed_since is not None:
            self._owed += now - self._owed_since
            self._owed_since = None
        if window is None:
            self._clear()
            return
        if fresh or window != self._window:
            self._clear()
            self._window = window
            self._remaining = seconds
        if refused and self._remaining is not None:
            self._remaining = max(0.0, self._remaining - self._owed)
        if paused or not attended:
            self._freeze()
            if not paused:
                self._owed = 0.0  # only a pause is ever charged
            elif attended:
                self._owed_since = now
            return
        self._owed = 0.0
        if self._remaining is not None:
            self._deadline = now + self._remaining
            self._remaining = None
            self._timer = self._clock.call_at(self._deadline, self._fire)

    def stop(self) -> None:
        """Cancel for good (the room is stopping)."""
        self._clear()
        self._stopped = True

    @property
    def countdown(self) -> Countdown | None:
        if self._window is None:
            return None
        if self._deadline is not None:
            left = max(0.0, self._deadline - self._clock.now())
            return Countdown(self._window, left, self._deadline)
        return Countdown(self._window, self._remaining or 0.0, None)

    def _freeze(self) -> None:
        if self._deadline is not None:  # running: keep what is left
            self._remaining = max(0.0, self._deadline - self._clock.now())
        elif self._remaining is None:  # fired, and the pause overtook its expiry
            self._remaining = 0.0
        self._cancel()

    def _fire(self) -> object:
        window = self._window
        self._timer = None
        self._deadline = None
        return self._expire(window) if window is not None else None

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        self._deadline = None

    def _clear(self) -> None:
        self._cancel()
        self._window = None
        self._remaining = None
        self._owed = 0.0
        self._owed_since = None
