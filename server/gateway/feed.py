"""One room's events, redacted and encoded once, fanned out to its connections.

A `Feed` follows one room for the connections of this process. It keeps its own copy
of the room's state (the room may run in another process once the log and bus are
networked): it starts from the log (latest snapshot, then the events after it),
subscribes to the bus, and applies each event it receives, so it knows the state
after every event, which redaction needs (`server/engine/views.py`).

For each batch (one command's events) it builds the `events` message once per
audience key (the GM; each set of sides) and encodes it once per subprotocol in use,
then hands the same bytes to every connection of that audience: the cost grows with
the number of audiences, not of connections.

Gaps and lag: the bus is only a wake-up with data (ARCHITECTURE). If the feed sees a
batch that does not follow the last seq it holds, or the bus drops it for lagging, it
reads what it missed from the log. A connection thus never sees a gap or a repeat.

Recent history: the feed keeps the last `history` events with the state after each,
so a reconnecting client is sent exactly what it missed; one further behind gets a
snapshot (docs/protocol.md, "Sequence numbers and resuming").

A lost bus (Redis down, its connection cut) ends the subscription as lagging: the feed
subscribes again, with backoff while Redis stays away, and reads what it missed from
the log, so its connections go on without a gap once Redis is back.

The window countdown: `window` messages say how long the open window has left. The
room's runner knows (`countdown`) when it runs in this process. In a cluster it may
run in another one: its runner then publishes a `Timing` with every batch (and alone
when it re-arms a countdown without an event, as after a takeover), and the feed
counts from when it received it (`server/cluster/timing.py`). A feed that knows
neither (it started while a window was open) asks the runner for its timing
(`want_timing`) and tells its connections the full length until the answer comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from protocol.codec import Frame, pack
from server.bus import Subscription, SubscriptionClosed
from server.cluster.timing import Timing
from server.engine.commands import Rewound
from server.engine.core import Event, apply
from server.engine.records import to_data
from server.engine.state import Encounter
from server.engine.views import Audience, event_view, event_views, state_view, window_view
from server.eventlog import Entry, EventLog
from server.gateway.offers import Held, choices_message
from server.gateway.tables import Tables
from server.room.countdown import Countdown
from server.tasks import backoff, cancel_and_wait

logger = logging.getLogger(__name__)


def _same(event: Event, other: Event) -> bool:
    """The same event, however each was decoded (the bus's codec, the log's)."""
    return event == other or to_data(event) == to_data(other)


Data = dict[str, Any]
CATCH_UP_BATCH = 64
"""Missed events per `events` frame on a resume: a long catch-up goes in several
frames, each well under the 4 MiB a client must accept."""
JOIN_LOG = 200
"""Log lines a connection that joins afresh gets of the recent history: the fight so
far, as far as a screen scrolls back."""
OFFER_SLICE = 0.004
"""Seconds the feed works out choices before it lets the event loop run other work (a
seat is rarely longer): what a command's answer waits behind them at most."""
OFFER_PAUSE = 0.005
"""Seconds it then pauses: a command's answer, a few wake-ups in a row and a log commit
in the writer's thread, runs meanwhile. With 1 ms, an answer still waited behind a
slice at some of its wake-ups: in `bench.battle`'s 64-combatant round the slowest
answer was 35-75 ms (50 ms is the target), 28-40 ms with 5. The cost: a big window's
choices take longer to make whole (64 seats: 0.7 s with 1 ms, 0.85-1.0 s with 5)."""
RETIMED = 0.5
"""Seconds by which a newly received countdown must differ from the one connections were
told before they are sent a fresh `window` message."""


class Source(Protocol):
    """What a feed listens to: the bus of the room's events (and, in a cluster, of the
    `Timing` its runner publishes). `Bus[Entry]` is one."""

    async def subscribe(
        self, topic: str, limit: int | None = None
    ) -> Subscription[Entry | Timing]: ...


class Listener(Protocol):
    """A connection as the feed sees it: its audience and its outgoing frames."""

    @property
    def binary(self) -> bool:
        """Does it take msgpack (binary) frames, or JSON (text) ones?"""
        ...

    @property
    def events(self) -> bool:
        """Did it ask for the raw events too (`Hello.events`)?"""
        ...

    def audience(self, state: Encounter) -> Audience: ...

    def plays(self, state: Encounter) -> tuple[str, ...]:
        """The combatants whose choices it gets (none: no `choices` messages)."""
        ...

    def push(self, frame: Frame, *, catch_up: bool = False) -> None:
        """Send `frame` without waiting (a client that reads too slowly is cut off).

        `catch_up` frames (the snapshot or missed events of a join) are sent whatever
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
        bus: Source,
        initial: Encounter,
        countdown: Callable[[], Countdown | None],
        now: Callable[[], float],
        *,
        history: int = 1024,
        want_timing: Callable[[], object] | None = None,
        attendance: Callable[[bool], object] | None = None,
    ) -> None:
        self.room_id = room_id
        self._attendance = attendance  # told when the first listener comes, the last goes
        self._log = log
        self._bus = bus
        self._initial = initial
        self._countdown = countdown
        self._now = now
        self._want_timing = want_timing
        self._timing: Timing | None = None  # the last countdown published by the runner
        self._timing_at = 0.0  # when it was received, on `now`'s clock
        self._told: tuple[int, float | None, float] | None = None  # see `_retimed`
        self._history: deque[Step] = deque(maxlen=history)
        self._listeners: set[Listener] = set()
        self.state = initial
        self.seq = 0
        self._subscription: Subscription[Entry | Timing] | None = None
        self._task: asyncio.Task[None] | None = None
        self._window_key: tuple[Any, ...] | None = None
        self._tables = Tables()
        self._held: dict[Listener, tuple[str, ...]] = {}  # the table key each one holds
        # the choices each was last sent, with the key of the table it held then
        self._offered: dict[Listener, tuple[tuple[str, ...] | None, Held]] = {}
        self._offered_at: tuple[Any, ...] | None = None  # `Tables.offer_basis` of the last offer
        self._asked: dict[Listener, bool] = {}  # whose choices to send (`_offer`)
        self._offering: asyncio.Task[None] | None = None
        self._began = 0.0  # when the choices' current slice began (`_offer_to`)

    # -- life --------------------------------------------------------------------------

    async def start(self) -> None:
        """Subscribe, then read the log: what arrives meanwhile is skipped by seq."""
        subscription = await self._bus.subscribe(self.room_id, limit=4096)
        try:
            snapshot = await self._log.latest_snapshot(self.room_id)
            if snapshot is not None:
                self.state, self.seq = snapshot.state, snapshot.seq
            await self._catch_up()
        except BaseException:  # the log cannot be read now: leave nothing behind
            with contextlib.suppress(Exception):
                await subscription.close()
            raise
        self._window_key = self._window_of(self.state)
        self._subscription = subscription
        self._task = asyncio.create_task(self._follow(subscription), name=f"feed {self.room_id}")
        self._ask_timing()

    async def stop(self) -> None:
        """Stop following and listening (a task cancelled before it ran has no `finally`
        to close its subscription, so it is closed here too)."""
        if self._task is not None:
            await cancel_and_wait(self._task)
        if self._offering is not None:
            await cancel_and_wait(self._offering)
        if self._subscription is not None:
            with contextlib.suppress(Exception):
                await self._subscription.close()

    # -- listeners ---------------------------------------------------------------------

    def join(self, listener: Listener, resume_from: int | None) -> int:
        """Register `listener` and queue its catch-up; return the seq it is up to.

        The catch-up: the log lines it missed (from `resume_from`; all the history kept
        when it holds nothing or too old a seq), with the raw events or a snapshot when
        it asked for events, then its table, the open window and its choices.
        Nothing awaits in here, so no batch can slip between the catch-up and the
        registration: the listener gets every later batch exactly once.
        """
        audience = listener.audience(self.state)
        covered = resume_from is not None and self._covers(resume_from)
        if covered:
            missed = [step for step in self._history if step.seq > (resume_from or 0)]
        else:
            missed = list(self._history)[-JOIN_LOG:]
        views = [event_view(step.event, step.state, audience) for step in missed]
        if listener.events and not covered:
            snapshot = {
                "type": "snapshot",
                "seq": self.seq,
                "view": state_view(self.state, audience),
            }
            listener.push(pack(snapshot, binary=listener.binary), catch_up=True)
        table = self._tables.table(self.state, audience)
        for start in range(0, len(missed), CATCH_UP_BATCH):
            steps = missed[start : start + CATCH_UP_BATCH]
            seen = views[start : start + CATCH_UP_BATCH]
            if listener.events and covered:
                events = [{"seq": s.seq, "event": v} for s, v in zip(steps, seen, strict=True)]
                raw = {"type": "events", "events": events}
                listener.push(pack(raw, binary=listener.binary), catch_up=True)
            lines = self._tables.lines(steps, seen, table, audience.key)
            log = {"type": "log", "lines": lines}
            listener.push(pack(log, binary=listener.binary), catch_up=True)
        message = {"type": "table", "seq": self.seq, "view": table}
        listener.push(pack(message, binary=listener.binary), catch_up=True)
        self._listeners.add(listener)
        self._held[listener] = audience.key
        if len(self._listeners) == 1 and self._attendance is not None:
            # First, so the window message below tells the countdown running again.
            self._attendance(True)
        window = self._window_message(self.state, audience)
        if window is not None:
            listener.push(pack(window, binary=listener.binary), catch_up=True)
        self._offer(listener, self.state, catch_up=True)
        self._offered_at = None  # its choices are of this state, not of the last offer's
        return self.seq

    def leave(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.discard(listener)
            self._held.pop(listener, None)
            self._offered.pop(listener, None)
            self._asked.pop(listener, None)
            if not self._listeners and self._attendance is not None:
                self._attendance(False)

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

    async def _follow(self, subscription: Subscription[Entry | Timing]) -> None:
        try:
            await self._follow_from(subscription)
        finally:  # stopped (cancelled): stop listening too
            if self._subscription is not None:
                with contextlib.suppress(Exception):
                    await self._subscription.close()

    async def _follow_from(self, subscription: Subscription[Entry | Timing]) -> None:
        self._subscription = subscription
        while True:
            try:
                batch = await self._next_batch(subscription)
            except SubscriptionClosed:  # lagging (or closed): read the log, subscribe again
                with contextlib.suppress(Exception):
                    await subscription.close()
                subscription = self._subscription = await self._resubscribe()
                continue
            if not batch:  # a countdown published alone
                try:
                    if self._timing is not None and self._timing.seq > self.seq:
                        await self._catch_up()  # it names events the bus did not bring
                    self._retimed()
                except Exception:
                    logger.exception("feed %s: a new countdown failed", self.room_id)
                continue
            try:
                if batch[0].seq > self.seq + 1:
                    await self._catch_up()  # a gap: the log has what the bus lost
                elif batch[0].seq <= self.seq and not self._holds(batch):
                    await self._catch_up()  # another history: the log says which is kept
                else:
                    self._dispatch([e for e in batch if e.seq > self.seq])
            except Exception:  # one bad batch must not end the feed of the whole room
                logger.exception("feed %s: batch at %d failed", self.room_id, batch[0].seq)

    async def _next_batch(self, subscription: Subscription[Entry | Timing]) -> list[Entry]:
        """The next command's entries (a `Timing` before them is taken in on the way);
        [] after a `Timing` published alone."""
        batch: list[Entry] = []
        while True:  # whatever else is already buffered: one batch per command
            message = await subscription.get()
            if isinstance(message, Timing):
                self._timed(message)
                if message.alone:  # the countdown changed by itself (a takeover)
                    return batch
                continue
            batch.append(message)
            if message.ends_batch:
                return batch

    async def _resubscribe(self) -> Subscription[Entry | Timing]:
        """Subscribe again and read what was missed, trying until the bus and the log
        answer (a Redis restart): the connections wait, then get every event in order.

        One warning when the first try fails and one line when the feed is back: an
        outage of a minute is two lines per room, not one per try."""
        started = self._now()
        failures = 0
        for attempt in itertools.count():
            try:
                subscription = await self._bus.subscribe(self.room_id, limit=4096)
            except Exception as error:
                failures += 1
                await self._retry_after(attempt, "cannot subscribe", error)
                continue
            try:
                await self._catch_up()
            except Exception as error:
                with contextlib.suppress(Exception):
                    await subscription.close()
                failures += 1
                await self._retry_after(attempt, "cannot read the log", error)
                continue
            if failures:
                logger.info(
                    "feed %s: following again after %.1fs and %d failed tries",
                    self.room_id,
                    self._now() - started,
                    failures,
                )
            self._ask_timing()
            return subscription
        raise AssertionError("unreachable")  # pragma: no cover

    async def _retry_after(self, attempt: int, what: str, error: Exception) -> None:
        delay = backoff(attempt)
        log = logger.warning if attempt == 0 else logger.debug
        log("feed %s: %s (%s); trying again until it answers", self.room_id, what, error)
        await asyncio.sleep(delay)

    async def _catch_up(self) -> None:
        """Read what the log holds after the last event this feed holds, and check that
        it still holds that event: if not, the feed goes back (`_went_back`)."""
        last = self._step(self.seq)
        after = self.seq if last is None else self.seq - 1  # from the last one held
        entries = await self._log.read(self.room_id, after_seq=after)
        if last is not None:
            if not entries or entries[0].seq != last.seq or not _same(entries[0].event, last.event):
                await self._went_back()
                return
            entries = entries[1:]
        if entries:
            self._dispatch(entries)

    def _step(self, seq: int) -> Step | None:
        """The step at `seq` of the history this feed keeps, if it keeps it."""
        if not self._history or not self._history[0].seq <= seq <= self.seq:
            return None
        return self._history[seq - self._history[0].seq]

    def _holds(self, batch: Sequence[Entry]) -> bool:
        """Whether the events of `batch` this feed already holds are the ones it holds
        at their seqs (a batch the bus brings again), not another history's."""
        for entry in batch:
            step = self._step(entry.seq)
            if step is not None and not _same(entry.event, step.event):
                return False
        return True

    async def _went_back(self) -> None:
        """The log no longer holds events this feed followed: a Redis failover or a
        network partition took acknowledged events back (docs/deploy.md, "Durability").
        Start again from the log as it is, and tell every connection, which then gets
        the fight as a join does (a snapshot, the recent log lines, the table, the
        window and its choices)."""
        snapshot = await self._log.latest_snapshot(self.room_id)
        state, seq = (snapshot.state, snapshot.seq) if snapshot else (self._initial, 0)
        entries = await self._log.read(self.room_id, after_seq=seq)
        lost = self.seq
        agreed = self._agreed(seq, entries)
        listeners = list(self._listeners)
        logger.warning(
            "feed %s: the log went back from %d to %d (it holds %d)",
            self.room_id,
            lost,
            agreed,
            entries[-1].seq if entries else seq,
            extra={"room": self.room_id},
        )
        self._listeners.clear()
        self._held.clear()
        self._offered.clear()
        self._asked.clear()
        self._history.clear()
        self._tables.rewound()
        self._timing, self._told = None, None  # a countdown of the lost history
        self.state, self.seq = state, seq
        self._dispatch(entries)  # nobody listens: applied and kept, sent to none
        self._window_key = self._window_of(self.state)
        message = {
            "type": "went_back",
            "seq": agreed,
            "from_seq": lost,
            "message": (
                f"the fight went back to event {agreed}: the events after it that you "
                "were sent are not in the room's log (a failover or a network partition "
                "took them back); what follows is the fight as the log has it"
            ),
        }
        attendance, self._attendance = self._attendance, None  # the same people stay
        try:
            for listener in listeners:
                try:
                    listener.push(pack(message, binary=listener.binary), catch_up=True)
                    self.join(listener, None)
                except Exception:  # one connection's failure must not drop the others
                    logger.exception("feed %s: telling a connection failed", self.room_id)
        finally:
            self._attendance = attendance
        self._ask_timing()

    def _agreed(self, seq: int, entries: Sequence[Entry]) -> int:
        """The last event the log and this feed's history (before it goes back) agree
        on: where the two histories part, which is what the connections keep up to.
        Events older than the history kept are taken as agreed: the feed cannot tell."""
        agreed = seq
        for entry in entries:
            step = self._step(entry.seq)
            if entry.seq > self.seq or (step is not None and not _same(entry.event, step.event)):
                break
            agreed = entry.seq
        return min(agreed, self.seq)

    def _dispatch(self, entries: Sequence[Entry]) -> None:
        """Apply `entries`, then send them to every listener, redacted per audience:
        one `update` per audience key (and encoding, and wish for raw events)."""
        if not entries:
            return
        steps: list[Step] = []
        state = self.state
        for entry in entries:
            state = apply(state, entry.event)
            steps.append(Step(entry.seq, entry.event, state))
        from_seq = self.seq
        self.state, self.seq = state, entries[-1].seq
        self._history.extend(steps)
        rewound = any(isinstance(step.event, Rewound) for step in steps)  # a fresh countdown
        if rewound:
            self._tables.rewound()
            self._offered_at = None
        if not self._listeners:
            self._window_key = self._window_of(state)
            self._tables.forget(())
            self._offered_at = None
            return
        audiences: dict[Listener, Audience] = {}
        keys: dict[Listener, tuple[str, ...]] = {}
        by_key: dict[tuple[str, ...], Audience] = {}
        raw_for: set[tuple[str, ...]] = set()
        for listener in self._listeners:
            audience = audiences[listener] = listener.audience(state)
            key = keys[listener] = audience.key
            by_key[key] = audience
            if listener.events:
                raw_for.add(key)
        updates = self._updates(steps, by_key, from_seq, raw_for)
        frames: dict[tuple[tuple[str, ...], bool, bool], Frame] = {}  # packed when first needed
        window_key = self._window_of(state)
        window_changed = (window_key != self._window_key or rewound) and state.window is not None
        self._window_key = window_key
        window_frames: dict[tuple[Any, ...], Frame] = {}
        held = self._held
        for listener, key in keys.items():
            binary = listener.binary
            if held.get(listener) != key:
                held[listener] = key  # its table is another key's: a whole one
                message, view, raw = updates[key]
                if listener.events:  # the batch's events too, as its new audience sees them
                    listener.push(pack({"type": "events", "events": raw}, binary=binary))
                listener.push(pack({"type": "log", "lines": message["log"]}, binary=binary))
                table = {"type": "table", "seq": self.seq, "view": view}
                listener.push(pack(table, binary=binary))
            else:
                fkey = (key, binary, listener.events)
                frame = frames.get(fkey)
                if frame is None:
                    message = updates[key][0]
                    if listener.events:
                        message = {**message, "events": updates[key][2]}
                    frame = frames[fkey] = pack(message, binary=binary)
                listener.push(frame)
            if window_changed:
                wkey = (key, binary)
                frame = window_frames.get(wkey)
                if frame is None:
                    window = self._window_message(state, audiences[listener])
                    if window is not None:
                        frame = window_frames[wkey] = pack(window, binary=binary)
                if frame is not None:
                    listener.push(frame)
        self._tables.forget(by_key)
        basis = self._tables.offer_basis(state)
        if basis != self._offered_at:  # else no choices changed (`offer_basis`)
            self._offered_at = basis
            for listener in audiences:  # after every update is out: choices take longer
                self._offer(listener, state)

    def reseated(self) -> None:
        """The room's player seats changed (`create`, `renew`): the GM plays other
        combatants now, so the next batch offers choices again, whatever it changed."""
        self._offered_at = None

    def _updates(
        self,
        steps: Sequence[Step],
        by_key: dict[tuple[str, ...], Audience],
        from_seq: int,
        raw_for: set[tuple[str, ...]],
    ) -> dict[tuple[str, ...], tuple[Data, Data, list[Data]]]:
        """For each audience key: the batch's `update` message (without raw events), the
        key's new table, and the raw events as it sees them (only for the keys in
        `raw_for`, which have a connection that asked for them; [] for the others)."""
        events: dict[tuple[str, ...], list[Data]] = {key: [] for key in by_key}
        for step in steps:
            views = event_views(step.event, step.state, by_key.values())
            for key, view in views.items():
                events[key].append(view)
        patches: dict[tuple[str, ...], list[Data] | None] = {}
        tables: dict[tuple[str, ...], Data] = {}
        for key, audience in by_key.items():
            patches[key], tables[key] = self._tables.advance(self.state, audience)
        lines = self._tables.batch_lines(steps, events, tables)
        updates: dict[tuple[str, ...], tuple[Data, Data, list[Data]]] = {}
        for key in by_key:
            message = {
                "type": "update",
                "from_seq": from_seq,
                "seq": self.seq,
                "patch": patches[key] or [],
                "log": lines[key],
            }
            raw = (
                [
                    {"seq": step.seq, "event": view}
                    for step, view in zip(steps, events[key], strict=True)
                ]
                if key in raw_for
                else []
            )
            updates[key] = (message, tables[key], raw)
        return updates

    def _offer(self, listener: Listener, state: Encounter, *, catch_up: bool = False) -> None:
        """Have `listener` sent its choices of `state`, the feed's newest, when they
        changed since the last it was sent: soon, not now.

        The choices are worked out by a task of their own (`_offer_asked`), a few
        combatants at a time: a seat is several milliseconds of engine checks, the 64
        of a big fight's planning window most of a second, and the batch's updates and
        the commands' acks must not wait for them.
        `catch_up`: the first choices of a join, sent whatever their size."""
        assert state is self.state
        if catch_up:  # a join: its first choices are whole
            self._offered.pop(listener, None)
        self._asked[listener] = self._asked.get(listener, False) or catch_up
        if self._offering is None or self._offering.done():
            self._offering = asyncio.create_task(
                self._offer_asked(), name=f"choices {self.room_id}"
            )

    async def _offer_asked(self) -> None:
        """Send every listener asked for its choices those of the newest state. A
        listener whose choices a newer batch overtakes while they are made is dropped
        half made and made again from the newer state (the seats already made are kept
        by `Tables`, so only what the batch changed is made twice)."""
        self._began = time.perf_counter()
        while self._asked:
            state, seq = self.state, self.seq
            listener, catch_up = next(iter(self._asked.items()))
            del self._asked[listener]
            if listener not in self._listeners:
                continue
            try:
                done = await self._offer_to(listener, state, seq, catch_up)
            except Exception:  # one listener's failure must not end its room's choices
                logger.exception("feed %s: choices at %d failed", self.room_id, seq)
                continue
            if not done and listener in self._listeners:  # the newer batch asked again
                self._asked[listener] = self._asked.get(listener, False) or catch_up

    async def _offer_to(
        self, listener: Listener, state: Encounter, seq: int, catch_up: bool
    ) -> bool:
        """Make `listener`'s seats of `state` combatant by combatant and send what
        changed, yielding to the event loop whenever `OFFER_SLICE` seconds went on them.
        What is made by then is sent before it yields: a planning window's 64 seats go
        in a few frames, not in one of a megabyte. False when a newer batch (or the
        listener's leaving) stopped it half way.

        Choices are a help, not the fight: a combatant whose choices cannot be worked
        out (an engine check that raised) is logged and gets none."""
        plays = listener.plays(state)
        if not plays:
            return True  # it is sent no choices
        made: Held = {}
        for combatant in plays:
            if time.perf_counter() - self._began > OFFER_SLICE:
                if made:
                    self._send_choices(listener, seq, plays, made, catch_up)
                # a short sleep, not sleep(0): what a command's answer does next (a few
                # wake-ups in a row) all runs before the next slice starts
                await asyncio.sleep(OFFER_PAUSE)
                self._began = time.perf_counter()
                if self.state is not state or listener not in self._listeners:
                    return False
            try:
                made[combatant] = self._tables.choices(state, combatant)
            except Exception:
                logger.exception(
                    "feed %s: choices of %s at %d failed", self.room_id, combatant, seq
                )
                made[combatant] = []
        self._send_choices(listener, seq, plays, made, catch_up)
        return True

    def _send_choices(
        self, listener: Listener, seq: int, plays: tuple[str, ...], made: Held, catch_up: bool
    ) -> None:
        """Send `listener` what changed in its choices, those of `plays` not `made` yet
        left as it holds them (all of them after a join or a whole table: the held
        table's key is kept with what it was sent)."""
        key = self._held.get(listener)
        offered = self._offered.get(listener)
        before = offered[1] if offered is not None and offered[0] == key else None
        held = before or {}
        now = {c: made[c] if c in made else held.get(c, []) for c in plays}
        message = choices_message(seq, now, before)
        self._offered[listener] = (key, now)
        if message is not None:
            listener.push(pack(message, binary=listener.binary), catch_up=catch_up)

    # -- the window countdown -----------------------------------------------------------

    @staticmethod
    def _window_of(state: Encounter) -> tuple[Any, ...]:
        """What a `window` message reflects: a new one is sent when this changes."""
        window = state.window
        if window is None:
            return (None,)
        return (window.id, window.asked, window.answered, state.paused_by != "")

    def _timed(self, timing: Timing) -> None:
        self._timing, self._timing_at = timing, self._now()

    def _ask_timing(self) -> None:
        """Ask the runner for its countdown when a window is open and none is known."""
        window = self.state.window
        if self._want_timing is None or window is None:
            return
        if self._countdown_of(window.id) is None:
            self._want_timing()

    def _countdown_of(self, window: int) -> Countdown | None:
        """Window `window`'s countdown: the runner's if it runs here, else the last one
        it published; None when neither is known."""
        countdown = self._countdown()
        if countdown is not None and countdown.window == window:
            return countdown
        timing = self._timing
        if timing is not None and timing.window == window:
            return timing.countdown(self._timing_at, self._now())
        return None

    def _retimed(self) -> None:
        """A `Timing` came alone: if its countdown is not the one the connections were
        told (a takeover re-armed the window), tell them again."""
        window = self.state.window
        if window is None or not self._listeners:
            return
        countdown = self._countdown_of(window.id)
        if countdown is None or self._told_matches(window.id, countdown):
            return
        frames: dict[tuple[Any, ...], Frame] = {}
        for listener in self._listeners:
            audience = listener.audience(self.state)
            key = (audience.key, listener.binary)
            frame = frames.get(key)
            if frame is None:
                message = self._window_message(self.state, audience)
                if message is None:
                    return
                frame = frames[key] = pack(message, binary=listener.binary)
            listener.push(frame)

    def _told_matches(self, window: int, countdown: Countdown) -> bool:
        told = self._told
        if told is None or told[0] != window or (told[1] is None) != (countdown.deadline is None):
            return False
        if countdown.deadline is None:
            return abs(told[2] - countdown.remaining) < RETIMED
        assert told[1] is not None
        return abs(told[1] - countdown.deadline) < RETIMED

    def _window_message(self, state: Encounter, audience: Audience) -> Data | None:
        window = state.window
        if window is None:
            return None
        view = window_view(window, state, audience)
        assert view is not None
        countdown = self._countdown_of(window.id)
        total_ms = round(window.seconds * 1000)
        if countdown is not None:
            self._told = (window.id, countdown.deadline, countdown.remaining)
        else:
            self._told = (window.id, self._now() + window.seconds, window.seconds)
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
