"""One room's events, redacted and encoded once, fanned out to its connections.

A `Feed` follows one room for the connections of this process. It keeps its own copy
of the room's state (the room may run in another process once the log and bus are
networked): it starts from the log (latest snapshot, then the events after it),
subscribes to the bus, and applies each event it receives, so it knows the state
after every event, which redaction needs (`server/engine/views.py`).

For each batch (one command's events) it builds the `events` message once per
audience key (the GM; each set of sides) and encodes it once per subprotocol, then
hands the same bytes to every connection of that audience: the cost grows with the
number of audiences, not of connections.

Gaps and lag: the bus is only a wake-up with data (ARCHITECTURE). If the feed sees a
batch that does not follow the last seq it holds, or the bus drops it for lagging, it
reads what it missed from the log. A connection thus never sees a gap or a repeat.

Recent history: the feed keeps the last `history` events with the state after each,
so a reconnecting client is sent exactly what it missed; one further behind gets a
snapshot (docs/protocol.md, "Sequence numbers and resuming").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from protocol.codec import pack
from server.bus import Bus, SubscriptionClosed
from server.engine.commands import Rewound
from server.engine.core import Event, apply
from server.engine.state import Encounter
from server.engine.views import Audience, event_views, state_view, window_view
from server.eventlog import Entry, EventLog
from server.room.countdown import Countdown

logger = logging.getLogger(__name__)

Data = dict[str, Any]
Frame = bytes | str
CATCH_UP_BATCH = 64
"""Missed events per `events` frame on a resume: a long catch-up goes in several
frames, each well under the 4 MiB a client must accept."""
ENCODINGS = (True, False)  # binary (msgpack) frames, text (JSON) frames


class Listener(Protocol):
    """A connection as the feed sees it: its audience and its outgoing frames."""

    @property
    def binary(self) -> bool:
        """Does it take msgpack (binary) frames, or JSON (text) ones?"""
        ...

    def audience(self, state: Encounter) -> Audience: ...

    def push(self, frame: Frame, *, catch_up: bool = False) -> None:
        """Queue `frame` for sending; never waits (a full queue cuts the connection).

        `catch_up` frames (the snapshot or missed events of a join) are queued whatever
        their size: they are what the client asked for, not a sign of a slow reader.
        """
        ...


@dataclass(frozen=True, slots=True)
class Step:
    """One event of the room's log and the state right after it."""

    seq: int
    event: Event
    state: Encounter


class Feed:
    def __init__(
        self,
        room_id: str,
        log: EventLog,
        bus: Bus[Entry],
        initial: Encounter,
        countdown: Callable[[], Countdown | None],
        now: Callable[[], float],
        *,
        history: int = 1024,
    ) -> None:
        self.room_id = room_id
        self._log = log
        self._bus = bus
        self._initial = initial
        self._countdown = countdown
        self._now = now
        self._history: deque[Step] = deque(maxlen=history)
        self._listeners: set[Listener] = set()
        self.state = initial
        self.seq = 0
        self._task: asyncio.Task[None] | None = None
        self._window_key: tuple[Any, ...] | None = None

    # -- life --------------------------------------------------------------------------

    async def start(self) -> None:
        """Subscribe, then read the log: what arrives meanwhile is skipped by seq."""
        subscription = await self._bus.subscribe(self.room_id, limit=4096)
        snapshot = await self._log.latest_snapshot(self.room_id)
        if snapshot is not None:
            self.state, self.seq = snapshot.state, snapshot.seq
        await self._catch_up()
        self._window_key = self._window_of(self.state)
        self._task = asyncio.create_task(self._follow(subscription), name=f"feed {self.room_id}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    # -- listeners ---------------------------------------------------------------------

    def join(self, listener: Listener, resume_from: int | None) -> int:
        """Register `listener` and queue its catch-up; return the seq it is up to.

        Nothing awaits in here, so no batch can slip between the catch-up and the
        registration: the listener gets every later batch exactly once.
        """
        audience = listener.audience(self.state)
        covered = resume_from is not None and self._covers(resume_from)
        if covered and resume_from is not None:
            missed = [step for step in self._history if step.seq > resume_from]
            for start in range(0, len(missed), CATCH_UP_BATCH):
                chunk = missed[start : start + CATCH_UP_BATCH]
                listener.push(self._events_frame(chunk, audience, listener.binary), catch_up=True)
        else:
            message = {
                "type": "snapshot",
                "seq": self.seq,
                "view": state_view(self.state, audience),
            }
            listener.push(pack(message, binary=listener.binary), catch_up=True)
        window = self._window_message(self.state, audience)
        if window is not None:
            listener.push(pack(window, binary=listener.binary), catch_up=True)
        self._listeners.add(listener)
        return self.seq

    def leave(self, listener: Listener) -> None:
        self._listeners.discard(listener)

    @property
    def listeners(self) -> int:
        return len(self._listeners)

    def _covers(self, seq: int) -> bool:
        """Can the events after `seq` be sent from memory?"""
        if seq == self.seq:
            return True
        if seq > self.seq or not self._history:
            return False
        return self._history[0].seq <= seq + 1

    # -- following the room -----------------------------------------------------------

    async def _follow(self, subscription: Any) -> None:
        while True:
            try:
                batch: list[Entry] = [await subscription.get()]
                while True:  # whatever else is already buffered: one batch per command
                    if batch[-1].ends_batch:
                        break
                    batch.append(await subscription.get())
            except SubscriptionClosed:  # lagging (or closed): read the log, subscribe again
                with contextlib.suppress(Exception):
                    await subscription.close()
                subscription = await self._bus.subscribe(self.room_id, limit=4096)
                await self._catch_up()
                continue
            try:
                if batch[0].seq > self.seq + 1:
                    await self._catch_up()  # a gap: the log has what the bus lost
                else:
                    self._dispatch([e for e in batch if e.seq > self.seq])
            except Exception:  # one bad batch must not end the feed of the whole room
                logger.exception("feed %s: batch at %d failed", self.room_id, batch[0].seq)

    async def _catch_up(self) -> None:
        entries = await self._log.read(self.room_id, after_seq=self.seq)
        if entries:
            self._dispatch(entries)

    def _dispatch(self, entries: Sequence[Entry]) -> None:
        """Apply `entries`, then send them to every listener, redacted per audience."""
        if not entries:
            return
        steps: list[Step] = []
        state = self.state
        for entry in entries:
            state = apply(state, entry.event)
            steps.append(Step(entry.seq, entry.event, state))
        self.state, self.seq = state, entries[-1].seq
        self._history.extend(steps)
        if not self._listeners:
            self._window_key = self._window_of(state)
            return
        audiences = {listener: listener.audience(state) for listener in self._listeners}
        frames = self._frames(steps, audiences.values())
        window_key = self._window_of(state)
        rewound = any(isinstance(step.event, Rewound) for step in steps)  # a fresh countdown
        window_changed = (window_key != self._window_key or rewound) and state.window is not None
        self._window_key = window_key
        window_frames: dict[tuple[Any, ...], Frame] = {}
        for listener, audience in audiences.items():
            listener.push(frames[audience.key, listener.binary])
            if window_changed:
                key = (audience.key, listener.binary)
                frame = window_frames.get(key)
                if frame is None:
                    message = self._window_message(state, audience)
                    if message is None:
                        continue
                    frame = window_frames[key] = pack(message, binary=listener.binary)
                listener.push(frame)

    def _frames(
        self, steps: Sequence[Step], audiences: Iterable[Audience]
    ) -> dict[tuple[tuple[str, ...], bool], Frame]:
        by_key = {audience.key: audience for audience in audiences}
        events: dict[tuple[str, ...], list[Data]] = {key: [] for key in by_key}
        for step in steps:
            views = event_views(step.event, step.state, by_key.values())
            for key, view in views.items():
                events[key].append({"seq": step.seq, "event": view})
        frames: dict[tuple[tuple[str, ...], bool], Frame] = {}
        for key, batch in events.items():
            message = {"type": "events", "events": batch}
            for encoding in ENCODINGS:
                frames[key, encoding] = pack(message, binary=encoding)
        return frames

    def _events_frame(self, steps: Sequence[Step], audience: Audience, encoding: bool) -> Frame:
        return self._frames(steps, [audience])[audience.key, encoding]

    # -- the window countdown -----------------------------------------------------------

    @staticmethod
    def _window_of(state: Encounter) -> tuple[Any, ...]:
        """What a `window` message reflects: a new one is sent when this changes."""
        window = state.window
        if window is None:
            return (None,)
        return (window.id, window.answered, state.paused_by != "")

    def _window_message(self, state: Encounter, audience: Audience) -> Data | None:
        window = state.window
        if window is None:
            return None
        view = window_view(window, state, audience)
        assert view is not None
        countdown = self._countdown()
        total_ms = round(window.seconds * 1000)
        if countdown is not None and countdown.window == window.id:
            remaining_ms = round(countdown.remaining * 1000)
            running = countdown.deadline is not None and state.paused_by == ""
        else:  # no countdown known here (yet): the full length, as a fresh room gives
            remaining_ms, running = total_ms, state.paused_by == ""
        return {
            "type": "window",
            "seq": self.seq,
            "window": window.id,
            "kind": str(window.kind),
            "about": window.about,
            "asked": [
                {"combatant": ask["combatant"], "options": list(ask["options"])}
                for ask in view["asked"]
            ],
            "answered": list(window.answered),
            "total_ms": total_ms,
            "remaining_ms": min(remaining_ms, total_ms),
            "running": running and remaining_ms > 0,
        }
