"""A line-oriented screen with one status line: the window countdown.

On a terminal the status line sits under the fight and is redrawn in place (`\\r`),
so the countdown ticks without scrolling; a line of the fight first clears it, then
it is drawn again. When the output is not a terminal (a pipe, a file, a test) there is
no "in place": each new status text is printed as a line of its own, once.
"""

from __future__ import annotations

from typing import TextIO

CLEAR = "\r\x1b[K"  # back to the start of the line, erase it


class Screen:
    def __init__(self, out: TextIO, *, live: bool | None = None) -> None:
        self.out = out
        self.live = out.isatty() if live is None else live
        self._status: str | None = None

    def line(self, text: str) -> None:
        """Print `text` (one or several lines) above the status line."""
        if self.live and self._status:
            self.out.write(CLEAR)
        self.out.write(text + "\n")
        if self.live and self._status:
            self.out.write(self._status)
        self.out.flush()

    def status(self, text: str | None) -> None:
        """Show `text` as the status line (None: remove it)."""
        if text == self._status:
            return
        if self.live:
            self.out.write(CLEAR + (text or ""))
        elif text:
            self.out.write(text + "\n")
        self._status = text
        self.out.flush()
