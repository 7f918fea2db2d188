"""The bus over Redis pub/sub: a room's events reach the subscribers of every process.

Each topic is the channel `room:{topic}:bus` (after `prefix`). Pub/sub is only a
wake-up: Redis keeps nothing for a subscriber that is not connected, so a subscriber
that may have missed something is told so (`SubscriberLagging`) and catches up from the
event log by sequence number, as with the memory bus (see `server.bus`).

Batches. `publish` sends one batch as one Redis message, so a batch arrives whole or
not at all and the lagging rule (a batch that does not fit whole drops the subscriber)
is the memory bus's. The payload is a frame: the publishing bus's 16-byte id, the
publish's 8-byte number, then each message as a 4-byte length and the bytes of the
`encode` callable given to the bus (the bus is generic; `decode` turns bytes back).

One connection per bus for subscriptions. A process subscribes all its subscriptions
over one dedicated connection, read by one task: every SUBSCRIBE is answered by a
confirmation in order, and a subscription starts buffering exactly at its
confirmation, so it sees everything Redis delivers after it subscribed and nothing
from before.

A connection lost is a gap. The subscription connection is never silently re-opened:
when it fails, every subscription ends as lagging (its consumer reads the log and
subscribes again, which opens a new connection), and a subscribe in flight raises the
connection error. So no message is lost without its subscriber knowing.

Publishing goes over the client's pool in batches (`server/redis_batches.py`): the
publishes of every topic that come while one pipeline of them is on its way go
together in the next, in the order they were made, so a topic's messages keep their
order and a busy process pays one round trip for many rooms' batches.

A publish that fails raises (the room logs it; subscribers find the gap by sequence
number). redis-py retries a publish after a connection error, so a batch whose first
try did reach Redis can arrive twice: consumers skip sequence numbers they have.

This process's own subscribers get a publish at once. `publish` hands the messages
themselves to the bus's subscriptions of the topic before it sends them to Redis (as
the memory bus does: no encoding read back, no decoding, no wait for Redis), and the
reader drops the copy Redis brings back (the frame names its bus). So a room's own
process sees its events in the order the room published them, as soon as it
published them, and `publish` returns only once they were handed over. A subscription
of this bus receives what the bus publishes from the moment it is subscribed (what
`subscribe` returned), and what other processes publish from its confirmation, as
above. It never waits for a subscriber to read: a full buffer drops its subscriber at
once, whichever way the batch came.
"""

from __future__ import annotations

import asyncio
import logging
import math
import struct
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection

from server.bus import SubscriberLagging, SubscriptionClosed
from server.bus.memory import BoundedSubscription
from server.redis_batches import Batches
from server.redis_clients import SOCKET_TIMEOUT, RedisSettings

T = TypeVar("T")
DEFAULT_LIMIT = 1024
ROOM_CHANNEL = "room:{{topic}}:bus"
"""A room's event channel: `{topic}` is the room id, in braces (a Redis Cluster hash tag)."""
__all__ = ["SOCKET_TIMEOUT", "RedisBus", "RedisSubscription"]
_HEADER = struct.Struct(">16sQ")  # the publishing bus's id, the publish's number
_LENGTH = struct.Struct(">I")

logger = logging.getLogger(__name__)


class RedisSubscription(BoundedSubscription[T]):
    """One subscriber's bounded buffer, filled by the bus's reader (`server.bus`)."""

    def __init__(self, bus: RedisBus[T], topic: str, limit: int) -> None:
        super().__init__(topic, limit)
        self._bus = bus

    async def _detach(self) -> None:
        await self._bus.forget(self)


class _Listening(Generic[T]):
    """The subscription connection and what rides on it; replaced when it fails."""

    def __init__(self, connection: AbstractConnection) -> None:
        self.connection = connection
        self.reader: asyncio.Task[None] | None = None
        self.send_lock = asyncio.Lock()  # commands go out whole and in order
        # Per channel: the subscriptions waiting for their SUBSCRIBE's confirmation,
        # in the order the commands went out, and those receiving.
        self.pending: dict[bytes, deque[tuple[RedisSubscription[T], asyncio.Future[None]]]] = {}
        self.active: dict[bytes, list[RedisSubscription[T]]] = {}

    def idle(self, channel: bytes) -> bool:
        return not self.pending.get(channel) and not self.active.get(channel)


class RedisBus(Generic[T]):
    """A `Bus` on the Redis `where` names (a URL or `RedisSettings`); `encode`/`decode`
    turn a message into bytes and back. Behind Sentinel the subscription connection,
    like every other, connects to the primary of the moment (`server/redis_clients.py`):
    after a failover the subscriptions end as lagging and their consumers subscribe
    again on the new primary.

    `limit` is the default buffer of a subscription; `prefix` goes before every channel;
    `channels` names a topic's channel (after `prefix`): `{topic}` is replaced by the
    topic; the default is a room's event channel, other uses (the command forwarding of
    `server.cluster`) give their own. `on_lost` hears of each loss of the subscription
    connection (a cluster counts them in its outage report, `server.cluster.outage`);
    without it the bus logs a warning for each.
    """

    def __init__(
        self,
        where: str | RedisSettings,
        encode: Callable[[T], bytes],
        decode: Callable[[bytes], T],
        *,
        limit: int = DEFAULT_LIMIT,
        prefix: str = "",
        retries: int = 3,
        channels: str = ROOM_CHANNEL,
        on_lost: Callable[[BaseException], object] | None = None,
    ) -> None:
        self.limit = limit
        self.prefix = prefix
        self.channels = channels
        self._encode = encode
        self._decode = decode
        self._on_lost = on_lost
        self._client: Redis = RedisSettings.of(where).client(retries=retries)
        self._batches = Batches(self._client)  # the publishes of many rooms, one round trip
        self._id = uuid.uuid4().bytes
        self._published = 0
        self._listening: _Listening[T] | None = None
        self._connecting = asyncio.Lock()
        self._chores: set[asyncio.Task[None]] = set()
        self._closed = False

    def channel(self, topic: str) -> bytes:
        """The Redis channel of `topic` (a room id)."""
        return (self.prefix + self.channels.replace("{topic}", topic)).encode()

    # -- the Bus protocol ----------------------------------------------------------------

    async def publish(self, topic: str, messages: Sequence[T]) -> None:
        await self.publish_counted(topic, messages)

    async def publish_counted(self, topic: str, messages: Sequence[T]) -> int:
        """`publish`, and say how many buses (processes) subscribed to `topic` received
        it: Redis's count of subscribed connections. 0 tells that nobody listens."""
        if not messages:
            return 0
        self._check_open()
        self._published += 1
        frame = _frame(self._id, self._published, [self._encode(m) for m in messages])
        channel = self.channel(topic)
        listening = self._listening
        if listening is not None and listening.active.get(channel):
            self._hand_over(listening, channel, messages)  # ours: at once, as they are
        received: int = await self._batches.command("PUBLISH", channel, frame)
        return received

    async def subscribe(self, topic: str, limit: int | None = None) -> RedisSubscription[T]:
        self._check_open()
        subscription = RedisSubscription(self, topic, self.limit if limit is None else limit)
        channel = self.channel(topic)
        confirmed = asyncio.get_running_loop().create_future()
        while True:
            listening = await self._listen()
            async with listening.send_lock:
                if listening is not self._listening:  # lost while we waited: the next one
                    continue
                listening.pending.setdefault(channel, deque()).append((subscription, confirmed))
                try:
                    await listening.connection.send_command(
                        "SUBSCRIBE", channel, check_health=False
                    )
                except Exception as error:  # fails `confirmed` with `error`, as it fails all
                    self._lost(listening, error)
                break
        await confirmed  # raises the connection's error if it failed
        return subscription

    # -- beyond the protocol -------------------------------------------------------------

    def subscribers(self, topic: str) -> int:
        """How many subscriptions of this bus receive `topic` (lagging ones are gone)."""
        listening = self._listening
        return 0 if listening is None else len(listening.active.get(self.channel(topic), ()))

    async def forget(self, subscription: RedisSubscription[T]) -> None:
        """Stop delivering to `subscription`; unsubscribe the channel if nobody is left."""
        listening = self._listening
        if listening is None:
            return
        channel = self.channel(subscription.topic)
        receiving = listening.active.get(channel, [])
        if subscription in receiving:
            receiving.remove(subscription)
        await self._unsubscribe_if_idle(listening, channel)

    async def close(self) -> None:
        """End every subscription (`SubscriptionClosed`) and close the connections."""
        if self._closed:
            return
        self._closed = True
        listening, self._listening = self._listening, None
        if listening is not None:
            self._end_all(listening, SubscriptionClosed("the bus was closed"), None)
            if listening.reader is not None:
                listening.reader.cancel()
            await listening.connection.disconnect()
        for chore in list(self._chores):
            chore.cancel()
        await self._batches.close()
        await self._client.aclose()

    # -- the subscription connection -----------------------------------------------------

    async def _listen(self) -> _Listening[T]:
        """The live subscription connection, opened (with its reader) if there is none."""
        async with self._connecting:
            if self._listening is None:
                # a connection of our own, outside the pool: it is never handed back
                pool = self._client.connection_pool
                connection = pool.connection_class(**pool.connection_kwargs)
                await connection.connect()  # type: ignore[no-untyped-call]  # unannotated upstream
                listening: _Listening[T] = _Listening(connection)
                listening.reader = asyncio.create_task(self._read(listening), name="bus reader")
                self._listening = listening
            return self._listening

    async def _read(self, listening: _Listening[T]) -> None:
        """Read the subscription connection until it fails or the bus closes."""
        try:
            while True:
                # math.inf: wait as long as it takes; push_request: RESP3 delivers
                # published messages and confirmations as pushes (RESP2 as replies)
                reply: Any = await listening.connection.read_response(
                    timeout=math.inf, push_request=True
                )
                kind, channel = reply[0], reply[1]
                if kind == b"message":
                    self._deliver(listening, channel, reply[2])
                elif kind == b"subscribe":
                    self._confirm(listening, channel)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self._lost(listening, error)

    def _confirm(self, listening: _Listening[T], channel: bytes) -> None:
        """A SUBSCRIBE took effect: its subscription receives from the next message on."""
        waiting = listening.pending.get(channel)
        if not waiting:
            return
        subscription, confirmed = waiting.popleft()
        if not waiting:
            del listening.pending[channel]
        if confirmed.done() or subscription.ended:  # its caller gave up waiting
            self._chore(self._unsubscribe_if_idle(listening, channel))
            return
        listening.active.setdefault(channel, []).append(subscription)
        confirmed.set_result(None)

    def _deliver(self, listening: _Listening[T], channel: bytes, frame: bytes) -> None:
        """Hand one published batch to this channel's subscriptions."""
        receiving = listening.active.get(channel, [])
        if frame[: len(self._id)] == self._id:
            return  # published by this bus, which handed it to its subscribers then
        try:
            _, _, payloads = _unframe(frame)
            messages = [self._decode(payload) for payload in payloads] if receiving else []
        except Exception:  # a batch nobody can read is a gap: the log has it
            logger.exception("bus: an unreadable batch on %s", channel.decode())
            for subscription in receiving:
                subscription.end(SubscriberLagging("a batch on the bus could not be read"))
            self._drop_idle(listening, channel, [])
            return
        self._hand_over(listening, channel, messages)

    def _hand_over(self, listening: _Listening[T], channel: bytes, messages: Sequence[T]) -> None:
        """Offer a batch to the channel's subscriptions; drop those it does not fit."""
        receiving = listening.active.get(channel, [])
        kept = [subscription for subscription in receiving if subscription.offer(messages)]
        if len(kept) != len(receiving):
            self._drop_idle(listening, channel, kept)

    def _drop_idle(
        self, listening: _Listening[T], channel: bytes, kept: list[RedisSubscription[T]]
    ) -> None:
        """Keep only `kept` receiving `channel`; unsubscribe it if that is nobody."""
        if kept:
            listening.active[channel] = kept
            return
        listening.active.pop(channel, None)
        self._chore(self._unsubscribe_if_idle(listening, channel))

    async def _unsubscribe_if_idle(self, listening: _Listening[T], channel: bytes) -> None:
        """UNSUBSCRIBE `channel` unless a subscription receives it or waits for it.

        Checked under the send lock, so it can never overtake a SUBSCRIBE sent for a
        new subscription: Redis sees them in the order they were decided.
        """
        async with listening.send_lock:
            if listening is not self._listening or not listening.idle(channel):
                return
            try:
                await listening.connection.send_command("UNSUBSCRIBE", channel, check_health=False)
            except Exception as error:
                self._lost(listening, error)

    def _lost(self, listening: _Listening[T], error: BaseException) -> None:
        """The subscription connection failed: everyone on it may have missed messages."""
        if self._listening is listening:
            self._listening = None
        if self._on_lost is None:
            logger.warning("bus: the subscription connection to Redis was lost: %s", error)
        else:
            logger.debug("bus: the subscription connection to Redis was lost: %s", error)
            self._on_lost(error)
        self._end_all(listening, SubscriberLagging(f"the bus lost Redis: {error}"), error)
        self._chore(listening.connection.disconnect())

    def _end_all(
        self, listening: _Listening[T], reason: SubscriptionClosed, error: BaseException | None
    ) -> None:
        for receiving in listening.active.values():
            for subscription in receiving:
                subscription.end(reason)
        listening.active.clear()
        for waiting in listening.pending.values():
            for _, confirmed in waiting:
                if not confirmed.done():
                    confirmed.set_exception(error or reason)
        listening.pending.clear()

    def _chore(self, job: Any) -> None:
        """Run `job` in the background, keeping a reference until it is done."""
        task = asyncio.ensure_future(job)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the bus is closed")

    async def __aenter__(self) -> RedisBus[T]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _frame(origin: bytes, number: int, payloads: Sequence[bytes]) -> bytes:
    parts = [_HEADER.pack(origin, number)]
    for payload in payloads:
        parts += [_LENGTH.pack(len(payload)), payload]
    return b"".join(parts)


def _unframe(frame: bytes) -> tuple[bytes, int, list[bytes]]:
    """The publishing bus, the publish's number and the messages' bytes of a frame;
    `ValueError` (or `struct.error`) for anything else."""
    origin, number = _HEADER.unpack_from(frame)
    payloads: list[bytes] = []
    at = _HEADER.size
    while at < len(frame):
        (length,) = _LENGTH.unpack_from(frame, at)
        at += _LENGTH.size
        if at + length > len(frame):
            raise ValueError("a bus frame cut short")
        payloads.append(frame[at : at + length])
        at += length
    return origin, number, payloads
