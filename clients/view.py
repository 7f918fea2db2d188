"""What a client holds of the fight: the view, kept current as events arrive, the
events since the last snapshot, and the open window's countdown.

A snapshot is the whole view as the server sent it. Each event after it is kept in
`events` and folded into the view (`folding.py`, with the room's rule system's folds
from the ruleset table): the window, the pause, the round and the turn, health and
hit points, mana, conditions and statuses, positions, deaths and fainting, the
combatants added and removed. So `state` is the fight now, as this audience may see it,
not as it was when the client connected. What an event does not tell this audience
(another side's coarse health after a hit, say) is folded as a guess and recorded in
`doubts`, for a screen to show as approximate; the next snapshot or a `Rewound` event
(a whole view) ends every doubt.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from clients.folding import Doubts, fold
from clients.rulesets import words_for
from protocol.messages import Window

Data = dict[str, Any]


@dataclass
class View:
    """The fight after event `seq`: `state` is the snapshot's view with every later
    event folded in; `events` are those events, `(seq, event)`, in order; `doubts` what
    the folded view may have wrong (module docstring)."""

    state: Data = field(default_factory=dict)
    snapshot_seq: int | None = None
    seq: int | None = None
    events: list[tuple[int, Data]] = field(default_factory=list)
    doubts: Doubts = field(default_factory=Doubts)
    rewound_paused: dict[int, str] = field(default_factory=dict)
    """Who the fight was paused by (`""`: nobody) right after each `Rewound` event, by
    seq: the event carries the restored state, not the pause it leaves (a pause goes on
    through a rewind; a fight taken back from its end is paused by the GM, R70)."""

    def reset(self, seq: int, state: Data) -> None:
        """A snapshot: replace whatever was held with it."""
        self.state = dict(state)
        self.snapshot_seq = seq
        self.seq = seq
        self.events = []
        self.doubts.clear()
        self.rewound_paused.clear()

    def add(self, seq: int, event: Data) -> None:
        """Event `seq`, already checked to follow the last one held."""
        self.events.append((seq, event))
        self.seq = seq
        folding = words_for(str(self.state.get("ruleset", ""))).folding
        fold(self.state, event, folding, self.doubts)
        if event.get("$type") == "Rewound":
            self.rewound_paused[seq] = str(self.state.get("paused_by") or "")

    @property
    def approximate(self) -> bool:
        """Whether something the view shows may be off (`doubts`)."""
        return bool(self.doubts)

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

    def turns_of(self, combatant: str) -> list[int]:
        """The indexes of `combatant`'s turns in the turn order (V16: a fast one has
        two initiatives, so two turns a round)."""
        order = self.state.get("turn_order")
        if not isinstance(order, list):
            return []
        return [
            i
            for i, slot in enumerate(order)
            if isinstance(slot, dict) and slot.get("combatant") == combatant
        ]

    def undeclared_turns(self, combatant: str) -> list[int]:
        """Which of `combatant`'s turns this round (counted from 1, as `declare turn N`
        takes them) have no declaration yet (V20)."""
        declared = {
            d.get("turn") for d in self.state.get("declarations", []) if isinstance(d, dict)
        }
        return [n for n, slot in enumerate(self.turns_of(combatant), 1) if slot not in declared]

    @staticmethod
    def asked(window: Data) -> list[str]:
        """Who `window` (a window of the view) asks."""
        return [str(a.get("combatant")) for a in window.get("asked", []) if isinstance(a, dict)]

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
