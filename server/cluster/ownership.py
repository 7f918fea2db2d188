"""One room in a cluster: run here while this process holds its lease, forward otherwise.

Every process that serves a room's connections keeps a `ClusteredRoom` for it (the
gateway's `Runner`). At any moment it is in one of two states:

- **Holding** the room's lease (`server.leases`): a `Room` runs here on the shared
  Redis log, every append fenced by the lease's token (`FencedEventLog`), publishing
  each batch after a `Timing` of its countdown (`TimedBus`); the process answers the
  commands other processes forward (`forwarding.Serving`) and renews the lease every
  `renew_every` seconds.
- **Following**: another process runs the room (or nobody does). Commands are sent to
  the runner (`Forwarder.ask`) and its ack or refusal comes back. The keeper tries to
  take the lease the moment it is free: when it expires (its holder died or froze) or
  is given back (its holder shut down), so a room without a runner gets one within
  `poll` seconds of the lease's end.

Taking the lease starts a fresh `Room` from the latest snapshot and the Stream after
it (`Room.start`), with a full countdown for an open window (the time no process ran
the room is not charged to the players), announced with a `Timing` so every feed
shows it.

Losing it. A renewal refused (`LeaseLost`), or an append refused by the fence, stops
the room at once: its queued commands are refused as `room_closed` inside this module
and go to the new runner instead. That is the room moving, not an error: it is logged
at INFO. A holder that cannot reach Redis for longer than the lease's time to live
stops too: by then another process may hold it (a renewal waits no longer than the
lease has left, so a Redis that stops answering is found out in time). Fencing, not
the timing, is what makes this safe: an old holder's append is refused by Redis
itself. Until it knows, a holder in doubt (its last renewal failed, or is older than
the lease's time to live: the process was frozen) does not act on its own timers: a
window that runs out meanwhile waits for the next renewal (`_LeaseClock`), so a
process that wakes from a pause does not write for a room it no longer runs.

Faults. An append that fails for any other reason (Redis down, a connection cut
mid-append, a version conflict) leaves the room's state possibly behind the log; the
room is rebuilt from the log, and the command retried with its client id: the rebuilt
room knows (from the log) whether it was applied, so it is applied once. An append
that Redis applied but did not confirm as durable as asked (`Unconfirmed`: no replica
acknowledged it in time, under `--redis-durability replicated`) is such a fault: its
events are in the primary's Stream, unacknowledged. A room is (re)built only after the
log confirms everything the primary holds of it (`RedisEventLog.confirm`), so the
retry's ack, found in the log, is as durable as any other; until a replica confirms,
the command is refused with `unavailable`, saying that it may be in the log and that
a retry with its client id finds it there (never applies it twice). A command
without a client id is never sent again once it may have been applied: it is refused
with `unavailable` saying so. While Redis stays away, a command is refused with
`unavailable` after `forward_timeout` seconds, whatever it waits on (a frozen Redis
included): retryable with its client id, and applied once.

Logs. Redis out of reach is reported to the process's `Outage`
(`server/cluster/outage.py`), which logs one warning when it starts and one when it
ends; each failed attempt meanwhile is a DEBUG line.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from redis.exceptions import RedisError

from server.bus import Bus, Subscription
from server.cluster.codec import Message
from server.cluster.forwarding import INTERNAL_ERROR, NOBODY, Forwarder, Reply, Request, Serving
from server.cluster.outage import Outage
from server.cluster.timing import timing_of
from server.engine.authority import Principal
from server.engine.core import Command
from server.engine.errors import ROOM_CLOSED, UNAVAILABLE, CommandRefused
from server.engine.state import Encounter
from server.eventlog import Entry, VersionConflict
from server.eventlog.redis import RedisEventLog, Unconfirmed
from server.leases import Lease, LeaseLost, Leases
from server.logs import brief
from server.room import Ack, Countdown, Room
from server.room.clock import Clock, Timer
from server.room.rewind import Replayer, in_thread

logger = logging.getLogger(__name__)

STORE_FAULTS: tuple[type[Exception], ...] = (RedisError, OSError, VersionConflict, LeaseLost)
"""What a room's append can fail with besides a refusal: the room may be behind its log."""
OUTAGES: tuple[type[Exception], ...] = (RedisError, OSError)
"""Of those, the ones that mean Redis is out of reach (refused, dropped, timed out)."""
MOVING = "it is moving to another process, or being rebuilt"
UNCONFIRMED = (
    "Redis did not confirm its events as durable in time: they may be in the log "
    "unacknowledged, and a retry with the same cid finds them there instead of "
    "applying it twice"
)
RETRY_BACKOFF = (0.02, 0.05, 0.1, 0.2, 0.4, 0.5)
"""Seconds between a command's attempts to reach its room; the last one repeats."""


@dataclass(frozen=True, slots=True)
class Settings:
    """How a cluster keeps its rooms (seconds)."""

    lease_ttl: float = 5.0  # a lease not renewed for this long is free to take
    renew_every: float = 1.5  # the holder renews this often (well within the ttl)
    poll: float = 0.5  # a follower looks at a held lease at least this often
    forward_timeout: float = 10.0  # a command that cannot reach its room is refused then
    ask_timeout: float = 2.0  # one forwarded attempt waits this long for its answer

    def __post_init__(self) -> None:
        if not 0 < self.renew_every < self.lease_ttl:
            raise ValueError("a lease must be renewed more often than it expires")


class TimedBus:
    """The bus a room publishes on in a cluster: each batch goes out after a `Timing` of
    the room's countdown, so other processes' feeds count down the same window.

    Publishing is handed to one task that sends the batches in order, all those waiting
    in one Redis message: the room's next command does not wait for pub/sub (its events
    are in the log already, which is what an ack promises; a feed that misses a batch
    reads it from there), and under load several commands share one publish.
    """

    def __init__(
        self,
        bus: Bus[Message],
        topic: str,
        countdown: Callable[[], Countdown | None],
        outage: Outage | None = None,
    ) -> None:
        self._bus = bus
        self._topic = topic
        self._countdown = countdown
        self._outage = outage or Outage(topic)
        self._waiting: list[Message] = []
        self._sending: asyncio.Task[None] | None = None

    async def publish(self, topic: str, messages: Sequence[Entry]) -> None:
        if messages:
            self._waiting += [timing_of(self._countdown(), messages[-1].seq), *messages]
            self._send_soon()

    async def announce(self, seq: int) -> None:
        """Publish the countdown alone: it changed without an event (a takeover)."""
        self._waiting.append(timing_of(self._countdown(), seq, alone=True))
        self._send_soon()

    async def flush(self, timeout: float = 2.0) -> None:
        """Wait (a bounded time) until what was handed over is published."""
        sending = self._sending
        if sending is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(sending), timeout)

    async def subscribe(self, topic: str, limit: int | None = None) -> Subscription[Entry]:
        raise TypeError("a room only publishes: feeds subscribe to the cluster's bus")

    def _send_soon(self) -> None:
        if self._sending is None or self._sending.done():
            self._sending = asyncio.create_task(self._send(), name=f"publish {self._topic}")

    async def _send(self) -> None:
        while self._waiting:
            batch, self._waiting = self._waiting, []
            try:
                await self._bus.publish(self._topic, batch)
            except Exception as error:  # logged events stand: feeds catch up from the log
                self._outage.failed(f"publishing room {self._topic}'s events", error)


class _LeaseTimer:
    """A timer of a `_LeaseClock`: fires its callback only while the lease is sure."""

    def __init__(
        self, clock: _LeaseClock, inner: Clock, when: float, callback: Callable[[], object]
    ) -> None:
        self._clock = clock
        self._callback = callback
        self.cancelled = False
        self._inner = inner.call_at(when, self.fire)

    def cancel(self) -> None:
        self.cancelled = True
        self._inner.cancel()
        self._clock.forget(self)

    def when(self) -> float:
        return self._inner.when()

    def fire(self) -> object:
        if self.cancelled:
            return None
        if not self._clock.sure():
            self._clock.hold(self)
            return None
        return self._callback()


class _LeaseClock:
    """The clock of a room run under a lease: `clock`, except that a timer falling due
    while `sure()` is false (the lease is in doubt) is held until `release()` (the next
    renewal that succeeds), or dropped with the room (cancelled)."""

    def __init__(self, clock: Clock, sure: Callable[[], bool]) -> None:
        self._clock = clock
        self.sure = sure
        self._held: list[_LeaseTimer] = []

    def now(self) -> float:
        return self._clock.now()

    async def sleep_until(self, when: float) -> None:
        await self._clock.sleep_until(when)

    def call_at(self, when: float, callback: Callable[[], object]) -> Timer:
        return _LeaseTimer(self, self._clock, when, callback)

    def hold(self, timer: _LeaseTimer) -> None:
        self._held.append(timer)

    def forget(self, timer: _LeaseTimer) -> None:
        if timer in self._held:
            self._held.remove(timer)

    def release(self) -> None:
        """The lease is sure again: fire what was held (each checks again)."""
        held, self._held = self._held, []
        for timer in held:
            timer.fire()


@dataclass(slots=True, eq=False)
class _Holding:
    """This process holds the room's lease; `room` is None while it is (re)built."""

    lease: Lease
    renewed_at: float  # loop time when the last renewal that succeeded was sent
    room: Room | None = None
    bus: TimedBus | None = None
    serving: Serving | None = None
    in_doubt: bool = False  # the last renewal failed (not refused: Redis did not answer)
    clock: _LeaseClock | None = None  # the room's clock, to release held timers


class ClusteredRoom:
    """Room `room_id` as one process of a cluster sees it (the module's docstring)."""

    def __init__(
        self,
        room_id: str,
        initial: Encounter,
        *,
        log: RedisEventLog,
        bus: Bus[Message],
        leases: Leases,
        forwarder: Forwarder,
        clock: Clock,
        settings: Settings,
        queue_limit: int = 256,
        snapshot_every: int = 500,
        outage: Outage | None = None,
        replayer: Replayer = in_thread,
    ) -> None:
        self.room_id = room_id
        self.initial = initial
        self._log = log
        self._bus = bus
        self._leases = leases
        self._forwarder = forwarder
        self._clock = clock
        self.settings = settings
        self.queue_limit = queue_limit
        self.snapshot_every = snapshot_every
        self._holding: _Holding | None = None
        self._changed = asyncio.Event()  # set (and replaced) whenever holding changes
        self._lock = asyncio.Lock()  # taking, rebuilding and letting go, one at a time
        self._keeper: asyncio.Task[None] | None = None
        self._chores: set[asyncio.Task[None]] = set()
        self._closed = False
        self._outage = outage or Outage(room_id)
        self._replayer = replayer  # the room's, for a `Rewind`

    # -- what others look at ----------------------------------------------------------

    @property
    def holding(self) -> bool:
        """Does this process hold the room's lease?"""
        return self._holding is not None

    @property
    def room(self) -> Room | None:
        """The room, while it runs in this process."""
        holding = self._holding
        return None if holding is None else holding.room

    @property
    def countdown(self) -> Countdown | None:
        room = self.room
        return None if room is None else room.countdown

    # -- life -------------------------------------------------------------------------

    async def start(self) -> None:
        """Take the room if nobody runs it, then keep watching its lease."""
        if self._keeper is not None:
            return
        try:
            await self._take()
        except Exception as error:  # not fatal: the keeper tries again
            logger.warning("room %s: could not take it: %s", self.room_id, brief(error))
        self._keeper = asyncio.create_task(self._keep(), name=f"lease of {self.room_id}")

    async def stop(self) -> None:
        """Stop for good (the process shuts down): the queued commands are handled,
        then the lease is given back, so another process takes the room at once."""
        self._closed = True
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
        for chore in list(self._chores):
            chore.cancel()
        async with self._lock:
            holding = self._holding
            if holding is None:
                return
            self._set_holding(None)
            await self._close_room(holding, drain=True)
            with contextlib.suppress(Exception):
                await self._leases.release(holding.lease)
            logger.info("room handed over", extra={"room": self.room_id})

    # -- commands ---------------------------------------------------------------------

    async def submit(
        self, principal: Principal, command: Command, client_id: str | None = None
    ) -> Ack:
        """Apply `command` in whichever process runs the room; its `Ack`.

        Refusals of the room come back as `CommandRefused`; a room that cannot be
        reached within `forward_timeout` seconds refuses with `unavailable`, as does a
        command without a client id that may or may not have been applied.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.forward_timeout
        why = _Why()
        try:
            async with asyncio.timeout_at(deadline):
                return await self._submit(principal, command, client_id, deadline, why)
        except TimeoutError:  # whatever it waited on (a stalled Redis too) took too long
            self._outage.refused()
            if client_id is None and why.maybe_applied:
                raise _unsure(self.room_id, why.last or "it did not answer in time") from None
            raise _unavailable(self.room_id, why) from None
        except CommandRefused as refused:
            if refused.code == UNAVAILABLE:
                self._outage.refused()
            raise

    async def _submit(
        self,
        principal: Principal,
        command: Command,
        client_id: str | None,
        deadline: float,
        why: _Why,
    ) -> Ack:
        """`submit`'s attempts, until one is answered; `submit` bounds them in time."""
        loop = asyncio.get_running_loop()
        for attempt in itertools.count():
            if self._closed:
                raise CommandRefused(UNAVAILABLE, "this server is shutting down: retry")
            changed = self._changed
            holding = self._holding
            if holding is not None and holding.room is not None:
                why.maybe_applied = True  # from here an interrupted attempt may land
                try:
                    return await holding.room.submit(principal, command, client_id)
                except CommandRefused as refused:
                    if refused.code != ROOM_CLOSED:
                        raise
                    why.maybe_applied = False
                    # the room stopped under this command: it moves, or is rebuilt
                except STORE_FAULTS as fault:
                    why.failed(fault)  # details to the log, not to players
                    if client_id is None:  # it may have been applied: only its id can tell
                        raise _unsure(self.room_id, why.last) from fault
            elif holding is None:
                why.maybe_applied = True
                try:
                    reply = await self._forwarder.ask(
                        self.room_id,
                        principal,
                        command,
                        client_id,
                        timeout=min(self.settings.ask_timeout, deadline - loop.time()),
                        interrupt=changed,
                    )
                except STORE_FAULTS as fault:  # Redis is away: the request may be lost
                    self._failed("forwarding a command", fault)
                    why.last = "its store is out of reach"
                    if client_id is None:
                        raise _unsure(self.room_id, why.last) from fault
                    reply = None
                if isinstance(reply, Reply):
                    if reply.code == "":
                        return Ack(reply.first_seq, reply.last_seq, ())
                    if reply.code == INTERNAL_ERROR:
                        raise RuntimeError(f"room {self.room_id} failed: {reply.message}")
                    if reply.code != UNAVAILABLE:
                        raise CommandRefused(reply.code, reply.message)
                    why.told(reply.message)
                    if client_id is None:  # the runner's store may have failed mid-append
                        raise _unsure(self.room_id, why.last)
                elif reply is None:  # lost or slow: cannot tell
                    why.last = why.last or "the process running it did not answer"
                    if client_id is None:
                        raise _unsure(self.room_id, why.last)
                if reply is NOBODY:
                    why.maybe_applied = why.unconfirmed  # nobody ran it this time
                if reply is NOBODY or reply is None:
                    await self._take_quietly()
            # `submit`'s timeout ends any wait at the deadline; this is the net for a
            # cancellation lost on the way (Python 3.11's wait_for can drop one)
            if loop.time() >= deadline:
                raise _unavailable(self.room_id, why)
            delay = RETRY_BACKOFF[min(attempt, len(RETRY_BACKOFF) - 1)]
            with contextlib.suppress(TimeoutError):  # a change of runner ends the wait
                await asyncio.wait_for(changed.wait(), min(delay, deadline - loop.time()))
        raise AssertionError("unreachable")  # pragma: no cover

    async def _answer(self, request: Request) -> Reply | None:
        """Answer a request forwarded by another process (this one runs the room)."""
        if request.command is None or request.principal is None:
            await self._announce()
            return None
        room = self.room
        if room is None:
            return Reply.refused(request, UNAVAILABLE, MOVING)
        try:
            ack = await room.submit(request.principal, request.command, request.client_id)
        except CommandRefused as refused:
            if refused.code == ROOM_CLOSED:
                return Reply.refused(request, UNAVAILABLE, MOVING)
            return Reply.refused(request, refused.code, refused.message)
        except LeaseLost:
            return Reply.refused(request, UNAVAILABLE, "it moved to another process")
        except Unconfirmed:  # the room reported it too (`_fault`): it is rebuilt
            return Reply.refused(request, UNAVAILABLE, UNCONFIRMED)
        except STORE_FAULTS:  # the room reported it too (`_fault`): it is rebuilt
            return Reply.refused(request, UNAVAILABLE, "its store failed")
        except Exception:
            logger.exception("room %s: a forwarded command failed", self.room_id)
            return Reply.refused(request, INTERNAL_ERROR, "the server failed")
        return Reply.acked(request, ack)

    def want_timing(self) -> None:
        """A feed of this process needs the room's countdown: ask whoever runs it."""
        if self._holding is not None:
            self._chore(self._announce())
        else:
            self._chore(self._forwarder.ask_timing(self.room_id))

    async def _announce(self) -> None:
        holding = self._holding
        if holding is None or holding.room is None or holding.bus is None:
            return
        await holding.bus.announce(holding.room.version)

    # -- the lease ----------------------------------------------------------------------

    async def _keep(self) -> None:
        """Renew the lease while holding it; take it when it is free otherwise."""
        loop = asyncio.get_running_loop()
        while not self._closed:
            try:
                holding = self._holding
                if holding is None:
                    wait = await self._take()
                    await asyncio.sleep(min(wait, self.settings.poll) + random.uniform(0, 0.05))
                    continue
                if holding.room is None:
                    await self._rebuild(holding, None, "")
                due = holding.renewed_at + self.settings.renew_every - loop.time()
                if due > 0:
                    await asyncio.sleep(min(due, self.settings.poll))
                else:
                    await self._renew(holding)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("room %s: keeping the lease failed", self.room_id)
                await asyncio.sleep(self.settings.poll)

    async def _take(self) -> float:
        """Take the lease and start the room here if nobody holds it; otherwise the
        seconds until the holder's lease would run out."""
        async with self._lock:
            if self._holding is not None or self._closed:
                return self.settings.poll
            sent = asyncio.get_running_loop().time()
            try:
                lease, wait = await self._leases.attempt(self.room_id)
            except STORE_FAULTS as fault:
                self._failed(f"taking the lease of room {self.room_id}", fault)
                return self.settings.poll
            self._outage.reached()
            if lease is None:
                return wait
            holding = _Holding(lease, sent)
            self._set_holding(holding)
            logger.info("room taken", extra={"room": self.room_id, "fence": lease.fence.token})
            await self._run(holding)
            return 0.0

    async def _take_quietly(self) -> None:
        with contextlib.suppress(Exception):
            await self._take()

    async def _renew(self, holding: _Holding) -> None:
        """Renew the lease, waiting no longer than it has left (at least `renew_every`:
        a process woken from a pause still hears whether it lost the lease)."""
        loop = asyncio.get_running_loop()
        sent = loop.time()
        left = holding.renewed_at + self.settings.lease_ttl - sent
        try:
            async with asyncio.timeout(max(left, self.settings.renew_every)):
                await self._leases.renew(holding.lease)
        except LeaseLost:
            await self._let_go(holding, "it moved to another process (its lease passed on)")
        except STORE_FAULTS as fault:  # TimeoutError included: Redis did not answer
            holding.in_doubt = True
            self._failed(f"renewing the lease of room {self.room_id}", fault)
            if loop.time() - holding.renewed_at >= self.settings.lease_ttl:
                await self._let_go(
                    holding,
                    "Redis was out of reach for the lease's time to live; "
                    "another process may take it",
                )
            else:  # try again soon, not at once: every held room of every process would
                # hammer a Redis that is coming back
                left = holding.renewed_at + self.settings.lease_ttl - loop.time()
                pause = min(self.settings.renew_every / 4, left) * random.uniform(0.5, 1.0)
                await asyncio.sleep(max(0.0, pause))
        else:
            holding.renewed_at = sent
            holding.in_doubt = False
            self._outage.reached()
            if holding.clock is not None:
                holding.clock.release()

    def _sure(self, holding: _Holding) -> bool:
        """Is this process sure it still holds the lease (for its timers)? Not if the
        last renewal is older than the lease's time to live (the process was frozen)
        or failed, nor if Redis failed it in any way since (it may be away)."""
        renewed = holding.renewed_at
        fresh = asyncio.get_running_loop().time() - renewed < self.settings.lease_ttl
        return fresh and not holding.in_doubt and self._outage.last_failure < renewed

    # -- the room while held ------------------------------------------------------------

    async def _run(self, holding: _Holding) -> None:
        """Start a room on the fenced log (the caller holds `_lock`); on a failure the
        keeper tries again."""
        room: Room | None = None
        bus = TimedBus(
            self._bus,
            self.room_id,
            lambda: None if room is None else room.countdown,
            self._outage,
        )
        clock = _LeaseClock(self._clock, lambda: self._sure(holding))
        try:  # what the log holds is durable before any ack is given from it
            await self._log.confirm(self.room_id)
        except STORE_FAULTS as fault:
            self._failed(f"confirming the log of room {self.room_id}", fault)
            return
        room = Room(
            self.room_id,
            self.initial,
            log=self._log.fenced(self.room_id, holding.lease.fence),
            bus=bus,
            clock=clock,
            queue_limit=self.queue_limit,
            snapshot_every=self.snapshot_every,
            on_fault=lambda fault: self._fault(holding, room, fault),
            replayer=self._replayer,
        )
        try:
            await room.start()
        except STORE_FAULTS as fault:
            self._failed(f"starting room {self.room_id}", fault)
            return
        self._outage.reached()
        holding.room, holding.bus, holding.clock = room, bus, clock
        holding.serving = self._forwarder.serve(self.room_id, self._answer)
        self._set_holding(holding)  # wakes the commands waiting for a room
        logger.info("room running here", extra={"room": self.room_id, "seq": room.version})
        self._chore(self._announce())

    def _fault(self, holding: _Holding, room: Room | None, fault: Exception) -> None:
        """The room's append failed (not refused): rebuild it, or let go of a lost lease."""
        if self._holding is not holding or holding.room is not room:
            return
        if isinstance(fault, LeaseLost):
            self._chore(
                self._let_go(holding, "it moved to another process (an append was fenced off)")
            )
        elif isinstance(fault, STORE_FAULTS):
            self._failed(f"an append to room {self.room_id}", fault)
            self._chore(self._rebuild(holding, room, brief(fault)))
        else:  # not the store's: a bug, which the room leaves to its runner to report
            logger.error("room %s: a command failed", self.room_id, exc_info=fault)

    async def _rebuild(self, holding: _Holding, room: Room | None, why: str) -> None:
        """Stop `room` (its state may be behind the log) and start it again from the log."""
        async with self._lock:
            if self._holding is not holding or holding.room is not room:
                return
            if room is not None:
                logger.info(
                    "room %s: rebuilding it from the log after a failed append (%s)",
                    self.room_id,
                    why,
                )
                await self._close_room(holding, drain=False)
            await self._run(holding)

    async def _let_go(self, holding: _Holding, why: str) -> None:
        """Stop running the room here at once: the lease is lost (or may be)."""
        async with self._lock:
            if self._holding is not holding:
                return
            logger.info("room %s: stopped here: %s", self.room_id, why)
            self._set_holding(None)
            await self._close_room(holding, drain=False)

    async def _close_room(self, holding: _Holding, *, drain: bool) -> None:
        serving, room, bus = holding.serving, holding.room, holding.bus
        holding.serving = holding.room = holding.bus = holding.clock = None
        self._set_holding(self._holding)
        if serving is not None:
            await serving.close()
        if room is not None:
            await room.stop(drain=drain)
        if bus is not None:
            await bus.flush()

    def _failed(self, what: str, fault: Exception) -> None:
        """An operation on Redis failed: an outage's, or a refusal logged here."""
        if isinstance(fault, OUTAGES):
            self._outage.failed(what, fault)
        else:  # Redis answered, with a version conflict: an append's fate was unknown
            logger.info("room %s: %s failed: %s", self.room_id, what, brief(fault))

    def _set_holding(self, holding: _Holding | None) -> None:
        self._holding = holding
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def _chore(self, job: Coroutine[Any, Any, None]) -> None:
        """Run `job` in the background, keeping a reference until it is done."""
        task = asyncio.create_task(job)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)


@dataclass(slots=True)
class _Why:
    """Why a command's last attempt did not reach its room, for its refusal; and
    whether an attempt may have left its events in the log unconfirmed."""

    last: str = ""
    unconfirmed: bool = False
    maybe_applied: bool = False  # an attempt may have reached the log, or be on its way

    def failed(self, fault: Exception) -> None:
        """An attempt in this process failed with `fault`, a store's."""
        if isinstance(fault, Unconfirmed):
            self.told(UNCONFIRMED)
        else:
            self.last = "its store failed"

    def told(self, message: str) -> None:
        """The process running the room refused an attempt as `unavailable`."""
        if message == UNCONFIRMED:
            self.unconfirmed = True
        if not self.unconfirmed or message == UNCONFIRMED:
            self.last = message


def _unavailable(room_id: str, why: _Why) -> CommandRefused:
    if why.unconfirmed:
        reason = UNCONFIRMED
        return CommandRefused(UNAVAILABLE, f"room {room_id} cannot take commands now ({reason})")
    reason = why.last or "its store or the process running it is out of reach, or it is moving"
    if why.maybe_applied:
        return CommandRefused(
            UNAVAILABLE,
            f"room {room_id} cannot take commands now ({reason}): it may have been applied; "
            "retry with the same cid, which is applied once",
        )
    return CommandRefused(
        UNAVAILABLE,
        f"room {room_id} cannot take commands now ({reason}): nothing was applied; "
        "retry with the same cid",
    )


def _unsure(room_id: str, why: str) -> CommandRefused:
    """A command without a client id that may have been applied: never sent again."""
    return CommandRefused(
        UNAVAILABLE,
        f"room {room_id} cannot take commands now ({why}); the command may have been "
        "applied: look before sending it again (a command with a cid is applied once)",
    )
