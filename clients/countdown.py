"""The open window's countdown, as a client shows it between `window` messages."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from protocol.messages import Window


@dataclass(frozen=True)
class WindowClock:
    """The open window as its last `window` message told it, counting down locally.

    The server sends the time left when it sent the message; counting down from the
    moment the message arrived gives every client the same countdown without agreeing
    on a clock (docs/protocol.md, "Receiving the fight"). `clock` is a monotonic clock
    in seconds, injectable for tests.
    """

    message: Window
    received_at: float
    clock: Callable[[], float] = time.monotonic

    @classmethod
    def start(cls, message: Window, clock: Callable[[], float] = time.monotonic) -> WindowClock:
        return cls(message, clock(), clock)

    @property
    def id(self) -> int:
        return self.message.window

    @property
    def kind(self) -> str:
        return self.message.kind

    @property
    def about(self) -> str:
        return self.message.about

    @property
    def running(self) -> bool:
        """False while the fight is paused (frozen) or once the time ran out."""
        return self.message.running and self.remaining() > 0

    @property
    def total(self) -> float:
        return self.message.total_ms / 1000

    @property
    def asked(self) -> dict[str, list[str]]:
        """Who may answer, and with which options (another side's options are hidden:
        an empty list)."""
        return {ask.combatant: list(ask.options) for ask in self.message.asked}

    @property
    def answered(self) -> list[str]:
        return list(self.message.answered)

    @property
    def waiting_for(self) -> list[str]:
        """Those asked who have not answered or passed yet."""
        done = set(self.message.answered)
        return [ask.combatant for ask in self.message.asked if ask.combatant not in done]

    def remaining(self) -> float:
        """Seconds left: frozen while paused, never below zero."""
        left = self.message.remaining_ms / 1000
        if not self.message.running:
            return left
        return max(0.0, left - (self.clock() - self.received_at))
