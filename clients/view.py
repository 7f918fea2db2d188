"""What a client holds of the fight: the last snapshot's view and the events since it,
and the open window's countdown.

A client cannot re-run the engine (it has no rules and no dice), so it does not fold
every event into the view. It keeps the snapshot as the server sent it, the list of
events after it, and folds in only what an event states outright: the open window,
the pause, the round, the phase, and a `Rewound` event's restored view, which replaces
the view whole (docs/protocol.md, "Events"). Anything else a screen shows comes from
the events themselves (`AttackRolled` carries its roll, `DamageDealt` its damage).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol.messages import Window

Data = dict[str, Any]


@dataclass
class View:
    """The fight after event `seq`: `state` is the snapshot's view with the plain facts
    of later events folded in; `events` are those events, `(seq, event)`, in order."""

    state: Data = field(default_factory=dict)
    snapshot_seq: int | None = None
    seq: int | None = None
    events: list[tuple[int, Data]] = field(default_factory=list)

    def reset(self, seq: int, state: Data) -> None:
        """A snapshot: replace whatever was held with it."""
        self.state = dict(state)
        self.snapshot_seq = seq
        self.seq = seq
        self.events = []

    def add(self, seq: int, event: Data) -> None:
        """Event `seq`, already checked to follow the last one held."""
        self.events.append((seq, event))
        self.seq = seq
        _fold(self.state, event)

    def name_of(self, combatant: str) -> str:
        """The sheet's name, with the id when several share it ("Goblin (g2)"), as the
        server's narration names combatants; the id when the view does not know it."""
        combatants = self.state.get("combatants")
        if not isinstance(combatants, dict) or combatant not in combatants:
            return combatant
        name = _sheet_name(combatants[combatant])
        if name is None:
            return combatant
        shared = sum(1 for c in combatants.values() if _sheet_name(c) == name)
        return f"{name} ({combatant})" if shared > 1 else name

    def side_of(self, combatant: str) -> str:
        combatants = self.state.get("combatants")
        if isinstance(combatants, dict):
            entry = combatants.get(combatant)
            if isinstance(entry, dict) and isinstance(entry.get("side"), str):
                return str(entry["side"])
        return ""


def _sheet_name(combatant: Any) -> str | None:
    if not isinstance(combatant, dict):
        return None
    sheet = combatant.get("sheet")
    if isinstance(sheet, dict) and isinstance(sheet.get("name"), str):
        return str(sheet["name"])
    return None


def _fold(state: Data, event: Data) -> None:
    """Fold in what `event` says outright; leave the rest to the events list."""
    kind = event.get("$type")
    if kind == "Rewound" and isinstance(event.get("state"), dict):
        state.clear()
        state.update(event["state"])
    elif kind == "WindowOpened":
        state["window"] = event.get("window")
    elif kind == "WindowClosed":
        window = state.get("window")
        if isinstance(window, dict) and window.get("id") == event.get("window"):
            state["window"] = None
    elif kind == "Paused":
        state["paused_by"] = event.get("by", "")
    elif kind == "Resumed":
        state["paused_by"] = ""
    elif kind == "RoundStarted":
        state["round"] = event.get("round")
        state["phase"] = "combat"


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
