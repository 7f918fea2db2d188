"""The room: the asyncio actor around one encounter (ARCHITECTURE, the room layer).

One task consumes a bounded command queue, so commands are decided one at a time
against the latest state. For each command the room:

1. checks who may send it (`authority.authorize`, with the `Principal` the caller gives)
   and refuses at once with `forbidden`; a full queue refuses at once with `room_busy`;
2. decides it (`engine.decide`; `Rewind` is decided here, see `rewind.py`);
3. appends the events to the `EventLog`, naming the version they were built on;
4. only then takes the new state, keeps the window countdown in step (`countdown.py`),
   publishes the events with their sequence numbers on the `Bus` (topic: room id) and
   acknowledges. A busy room (commands wait in its queue) holds back the publish of up
   to `HELD_BACK` commands' events and publishes them as one batch, so its feeds fan
   them out once; a quiet room publishes each command's events before its ack.

Refusals raise `CommandRefused` to the caller and change nothing. A failing append
(including `VersionConflict`) raises to the caller too: no state change, nothing
published. A failing publish does not undo anything: the events are facts once logged,
and subscribers catch up from the log.

Faults: anything but a refusal that ends a command (a log that cannot be reached, a
lease lost to another process, an append whose fate is unknown) is also reported to
`on_fault`, if given, the timer's own commands included, which have no caller to tell.
The room cannot repair that by itself (its state may now be behind the log); whoever
runs it decides (in a cluster, `server/cluster/ownership.py` rebuilds the room from the
log or stops it).

Timers: when the open window's countdown runs out the room queues
`WindowExpired(window)` as `authority.ROOM` (after a pause the GM refused, V24, at once
if its time ran out during the pause); if that is refused (the window closed in
the meantime, a pause came first) it is dropped quietly. If it fails (anything but a
refusal: the rules could not play the window's end, the log was away) it is logged or
reported as a fault and the window's countdown starts again with its full time, so an
open window always has a countdown: the next expiry tries again, after the GM has put
right what failed (a conditions table's entry) or closed the window. Timer commands do
not count against `queue_limit` (there is at most one running countdown), so a busy
room still closes its windows.

Retries: a command sent with a `client_id` that this room already applied for the same
principal returns the original `Ack` without applying it again. The room remembers
the last `recent_client_ids` acks (oldest forgotten first); the log keeps each
command's key with its events (`command_key`), so a room restarted after a crash
still knows them, and a client retrying a command whose ack it never got is not
applied twice. A restored ack carries the sequence numbers, not the events. Refused
commands are not remembered: retrying one decides it again, which is safe since it
changed nothing.

Sequence numbers are the log's (1, 2, ... per room); the state's version is
`initial.version + seq`, the same number when the room starts from a fresh encounter.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from server.bus import Bus
from server.engine.authority import ROOM, Principal, authorize
from server.engine.commands import Resumed, Rewind, Rewound, WindowExpired
from server.engine.core import Command, Decided, Event, apply_all, decide, replay
from server.engine.errors import ROOM_BUSY, ROOM_CLOSED, CommandRefused
from server.engine.state import Encounter
from server.eventlog import Entry, EventLog
from server.room.clock import Clock
from server.room.countdown import Countdown, WindowTimer
from server.room.rewind import Replayer, in_thread, rewound

logger = logging.getLogger(__name__)

HELD_BACK = 8
"""Commands' batches a busy room publishes as one at most (`Room._publish_held`).

Eight, not four: a saturated server delivered a fifth more events a second (fewer
frames and fewer audiences' updates a command), and sixteen no more than eight but
with later events (bench/RESULTS.md, "Eight commands a publish"). A quiet room holds
nothing back, so only a room already behind its players waits for it."""


@dataclass(frozen=True, slots=True)
class Ack:
    """A command's events are in the log with sequence numbers `first_seq..last_seq`.

    A command that caused no event has `events == ()` and both numbers equal to the
    log's version at the time.
    """

    first_seq: int
    last_seq: int
    events: tuple[Event, ...]


def command_key(principal: Principal, client_id: str) -> str:
    """Who sent a command and its client id, as the log keeps it: a retry from the same
    token with the same id is the same command, across restarts too."""
    return "\x1f".join((principal.role, principal.name, *principal.controls, "", client_id))


@dataclass(slots=True)
class _Job:
    principal: Principal
    command: Command
    client_id: str | None
    done: asyncio.Future[Ack | None]
    internal: bool = False  # the room's own command (a timer): refusals are dropped quietly


class Room:
    def __init__(
        self,
        room_id: str,
        initial: Encounter,
        *,
        log: EventLog,
        bus: Bus[Entry],
        clock: Clock,
        queue_limit: int = 256,
        recent_client_ids: int = 1024,
        snapshot_every: int = 0,
        on_fault: Callable[[Exception], object] | None = None,
        replayer: Replayer = in_thread,
    ) -> None:
        self.room_id = room_id
        self.initial = initial
        self.queue_limit = queue_limit
        self._log = log
        self._bus = bus
        self._state = initial
        self._version = 0  # the log's version: the last sequence number appended
        self._queue: asyncio.Queue[_Job | None] = asyncio.Queue()
        self._acks: OrderedDict[str, Ack] = OrderedDict()
        self._recent_limit = recent_client_ids
        self._snapshot_every = snapshot_every
        self._attended = True  # `set_attended`: the host says when nobody is connected
        self._snapshot_seq = 0
        self._timer = WindowTimer(clock, self._expire)
        self._task: asyncio.Task[None] | None = None
        self._accepting = False
        self._on_fault = on_fault
        self._replayer = replayer  # a `Rewind`'s replay (rewind.py)
        self._held_back: list[Ack] = []  # logged, not yet published (`_publish_held`)

    # -- what others may look at ------------------------------------------------------

    @property
    def state(self) -> Encounter:
        return self._state

    @property
    def version(self) -> int:
        """The log's version: the sequence number of the last event appended."""
        return self._version

    @property
    def countdown(self) -> Countdown | None:
        """The open window's countdown (running or frozen), None without a window."""
        return self._timer.countdown

    @property
    def queued(self) -> int:
        """Commands waiting in the queue (not counting the one being handled)."""
        return self._queue.qsize()

    # -- life ------------------------------------------------------------------------

    async def start(self) -> None:
        """Catch up with the log (a restarted room), arm the countdown, start consuming.

        A restarted room starts from its latest snapshot and replays only the events
        after it. A window open in the log gets a full countdown: the time spent while
        no room ran is not charged to the players.
        """
        if self._task is not None:
            return
        snapshot = await self._log.latest_snapshot(self.room_id)
        start, after = (snapshot.state, snapshot.seq) if snapshot else (self.initial, 0)
        entries = await self._log.read(self.room_id, after_seq=after)
        self._state = replay(start, [entry.event for entry in entries])
        self._version = entries[-1].seq if entries else after
        self._snapshot_seq = after
        for applied in await self._log.recent_commands(self.room_id, self._recent_limit):
            self._acks[applied.key] = Ack(applied.first_seq, applied.last_seq, ())
        self._follow_window(fresh=True)
        self._accepting = True
        self._task = asyncio.create_task(self._consume(), name=f"room {self.room_id}")

    async def stop(self, *, drain: bool = True) -> None:
        """Stop: refuse new commands (`room_closed`) and cancel the countdown.

        `drain=True` handles the commands already queued first (their callers get their
        acks); `drain=False` refuses them with `room_closed` unhandled.
        """
        self._accepting = False
        self._timer.stop()
        if self._task is None:
            return
        if not drain:
            while not self._queue.empty():
                job = self._queue.get_nowait()
                if job is not None:
                    self._finish(job, CommandRefused(ROOM_CLOSED, "the room stopped"))
        self._queue.put_nowait(None)
        await self._task

    async def __aenter__(self) -> Room:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- commands --------------------------------------------------------------------

    async def submit(
        self, principal: Principal, command: Command, client_id: str | None = None
    ) -> Ack:
        """Queue `command` from `principal`; return its `Ack` once its events are logged.

        Raises `CommandRefused` (`forbidden`, `room_busy`, `room_closed`, or the engine's
        code) and errors of the log; none of them changes the room. A caller cancelled
        before its command was handled withdraws it.
        """
        if not self._accepting:
            raise CommandRefused(ROOM_CLOSED, f"room {self.room_id} is not running")
        authorize(principal, command)
        if client_id is not None:
            known = self._acks.get(command_key(principal, client_id))
            if known is not None:
                return known
        if self._queue.qsize() >= self.queue_limit:
            raise CommandRefused(ROOM_BUSY, f"room {self.room_id} has {self.queue_limit} queued")
        job = _Job(principal, command, client_id, asyncio.get_running_loop().create_future())
        self._queue.put_nowait(job)
        ack = await job.done
        assert ack is not None  # only the room's own jobs end without an ack
        return ack

    def _expire(self, window: int) -> asyncio.Future[Ack | None]:
        """The countdown of `window` ran out: queue `WindowExpired` as the room."""
        done: asyncio.Future[Ack | None] = asyncio.get_running_loop().create_future()
        job = _Job(ROOM, WindowExpired(window), None, done, internal=True)
        self._queue.put_nowait(job)
        return job.done

    async def _consume(self) -> None:
        try:
            while True:
                if self._queue.empty():  # nothing waits: what is held back goes out
                    await self._publish_held(busy=False)
                if (job := await self._queue.get()) is None:
                    break
                if job.done.done():  # its caller gave up waiting before we got to it
                    continue
                try:
                    ack = await self._handle(job)
                except Exception as error:  # handed to the caller: the room goes on
                    self._finish(job, error)
                    if not isinstance(error, CommandRefused):
                        if job.internal:
                            self._expire_again(job.command)
                        if self._on_fault is not None:
                            self._on_fault(error)
                except asyncio.CancelledError:  # the task was cancelled, not stopped
                    self._finish(job, CommandRefused(ROOM_CLOSED, "the room was cancelled"))
                    raise
                else:
                    await self._publish_held(busy=not self._queue.empty())
                    if not job.done.done():  # its caller may have been cancelled meanwhile
                        job.done.set_result(ack)
        finally:  # stopped (or cancelled): what is logged is published
            await self._publish_held(busy=False)

    def _finish(self, job: _Job, error: Exception) -> None:
        if job.done.done():
            return
        if job.internal:
            # A runner that handles faults (`on_fault`: a cluster's, whose store may be
            # away) reports them itself; with none, a timer's failure is a bug.
            if not isinstance(error, CommandRefused) and self._on_fault is None:
                logger.error("room %s: %s failed", self.room_id, job.command, exc_info=error)
            job.done.set_result(None)
        else:
            job.done.set_exception(error)

    async def _handle(self, job: _Job) -> Ack:
        key = command_key(job.principal, job.client_id) if job.client_id is not None else None
        if key is not None and key in self._acks:
            return self._acks[key]  # a retry queued before the first was handled
        before = self._state
        if isinstance(job.command, Rewind):
            events: list[Event] = [
                await rewound(
                    self._log, self.room_id, self.initial, before, job.command, self._replayer
                )
            ]
        else:
            events = decide(before, job.command)
        if events:
            # A flow that applied its events as it decided them hands its state on.
            after = events.state if isinstance(events, Decided) else apply_all(before, events)
            last = await self._log.append(self.room_id, events, self._version, key)
            first = self._version + 1
            assert last == first + len(events) - 1, "the log numbered the batch unexpectedly"
            self._state = after
            self._version = last
            refused = any(isinstance(e, Resumed) and e.refused for e in events)
            self._follow_window(fresh=isinstance(events[0], Rewound), refused=refused)
            ack = Ack(first, last, tuple(events))
        else:
            ack = Ack(self._version, self._version, ())
        if key is not None:
            self._remember(key, ack)
        if events:
            self._held_back.append(ack)
            await self._maybe_snapshot()
        return ack

    async def _maybe_snapshot(self) -> None:
        """Every `snapshot_every` events, keep the state so a restart replays little.

        The command is already logged and acknowledged-to-be: a failed snapshot is
        logged and costs only a longer replay on the next start.
        """
        if not self._snapshot_every or self._version - self._snapshot_seq < self._snapshot_every:
            return
        try:
            await self._log.save_snapshot(self.room_id, self._version, self._state)
        except Exception:
            logger.exception("room %s: snapshot at %d failed", self.room_id, self._version)
        else:
            self._snapshot_seq = self._version

    def set_attended(self, attended: bool) -> None:
        """Is anyone at the table? With nobody connected the countdown freezes, as in a
        Pause, and restarts with what was left when someone is back: a fight left alone
        overnight does not play itself on, round after round of expired windows."""
        if attended != self._attended:
            self._attended = attended
            if self._accepting:
                self._follow_window()

    def _follow_window(self, fresh: bool = False, refused: bool = False) -> None:
        """Keep the countdown in step with the state; `refused`: the batch lifted a pause
        the GM refused (V24), so the time it froze is charged (`countdown.py`)."""
        window = self._state.window
        if window is None:
            self._timer.follow(None, 0.0, paused=False)
        else:
            self._timer.follow(
                window.id,
                window.seconds,
                paused=self._state.paused_by != "",
                fresh=fresh,
                attended=self._attended,
                refused=refused,
            )

    def _expire_again(self, command: Command) -> None:
        """The room's own expiry of the open window failed: the window stays open, so
        its countdown starts again with its full time (module docstring, Timers)."""
        window = self._state.window
        expired = command.window if isinstance(command, WindowExpired) else None
        if window is not None and window.id == expired:
            self._follow_window(fresh=True)

    def _remember(self, key: str, ack: Ack) -> None:
        self._acks[key] = ack
        while len(self._acks) > self._recent_limit:
            self._acks.popitem(last=False)

    async def _publish_held(self, *, busy: bool) -> None:
        """Publish the logged batches not yet published as one, unless the room is
        `busy` (commands wait in its queue) and holds fewer than `HELD_BACK` of them.

        One publish for several commands is one fan-out: the feed builds each
        audience's update once for them all, and each connection gets one frame. It
        happens only when commands queue up, so a quiet table's events go out at once,
        as soon as they are logged; and each command is acknowledged only after its
        events are logged, whether published yet or not."""
        held = self._held_back
        if not held or (busy and len(held) < HELD_BACK):
            return
        self._held_back = []
        last = held[-1].last_seq
        entries = [
            Entry(seq, event, seq == last)
            for ack in held
            for seq, event in enumerate(ack.events, ack.first_seq)
        ]
        try:
            await self._bus.publish(self.room_id, entries)
        except Exception:  # logged events stand; subscribers catch up from the log
            logger.exception(
                "room %s: publishing %d..%d failed", self.room_id, held[0].first_seq, last
            )
