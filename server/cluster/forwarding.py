"""Commands that reach a process not running their room go to the one that does.

Two kinds of channel, both on Redis pub/sub through `RedisBus`:

- `room:{id}:requests`: only the process running room `id` (the holder of its lease)
  subscribes. A process that gets a command for the room from one of its connections
  publishes a `Request` there: who sent it (the `Principal` from the connection's
  token), the command (as `records.to_data`), its client id and where to answer.
- `node:{id}:replies`: each process subscribes to its own. The runner answers every
  request there with a `Reply`: the ack's sequence numbers, or the refusal's code.

Pub/sub delivers at most once and keeps nothing, which is all this needs:

- Redis tells a publisher how many processes received a message, so a request nobody
  received (`NOBODY`: the room has no running process, or its process just died) is
  known at once, and the asker may take the room's lease itself.
- A request or reply lost on the way (a process killed while it answered, a
  connection cut) is a reply that never comes: the asker sends the command again with
  the same client id, and the room's retry rule (`server/room/room.py`: a client id it
  applied returns the first ack, across restarts too) makes that safe. A command is
  therefore applied once, whatever is lost.

A `Request` without a command asks the runner to publish its countdown (`Timing`) on
the room's event channel: a feed that started while a window was open needs it.

A runner that stops serving a room (it moves, or is rebuilt after a store fault) drops
the requests still waiting for the room, but lets the replies already decided go out
(for a short while): an asker told at once that the room's store failed need not wait
for its answer to time out.

Subscriptions lost while Redis is away, and the attempts to take them again, are
reported to the process's `Outage` (`server/cluster/outage.py`), not logged one by one.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Final, NamedTuple

import msgpack

from server.bus import Subscription, SubscriptionClosed
from server.bus.redis import RedisBus
from server.cluster.outage import Outage
from server.engine.authority import Principal
from server.engine.core import Command
from server.engine.records import from_data, to_data
from server.redis_clients import RedisSettings
from server.room import Ack
from server.tasks import backoff, cancel_and_wait

logger = logging.getLogger(__name__)

REQUESTS = "room:{{topic}}:requests"
REPLIES = "node:{{topic}}:replies"
INTERNAL_ERROR = "internal_error"
REPLY_GRACE = 1.0
"""Seconds a closing `Serving` lets its decided replies take to go out."""


class Request(NamedTuple):
    """A command for a room, from a process that does not run it."""

    id: str
    reply_to: str  # the asking process's node id
    principal: Principal | None  # None (with no command): a request for the countdown
    command: Command | None
    client_id: str | None


class Reply(NamedTuple):
    """The runner's answer to request `id`: an ack when `code` is "", else a refusal."""

    id: str
    code: str
    message: str
    first_seq: int
    last_seq: int

    @classmethod
    def acked(cls, request: Request, ack: Ack) -> Reply:
        return cls(request.id, "", "", ack.first_seq, ack.last_seq)

    @classmethod
    def refused(cls, request: Request, code: str, message: str) -> Reply:
        return cls(request.id, code, message, 0, 0)


class _Nobody:
    def __repr__(self) -> str:
        return "NOBODY"


NOBODY: Final = _Nobody()
"""What `ask` returns when no process received the request: nobody runs the room."""

Answer = Callable[[Request], Awaitable[Reply | None]]


class Serving:
    """A runner's subscription to its room's requests, answering each with `answer`."""

    def __init__(self, forwarder: Forwarder, room_id: str, answer: Answer) -> None:
        self.room_id = room_id
        self._forwarder = forwarder
        self._answer = answer
        self._answering: set[asyncio.Task[None]] = set()  # waiting for the room's answer
        self._replying: set[asyncio.Task[None]] = set()  # answered: publishing the reply
        self._task = asyncio.create_task(self._serve(), name=f"requests of {room_id}")

    async def close(self, grace: float = REPLY_GRACE) -> None:
        """Stop taking requests; those waiting for the room are dropped (their askers
        ask again), replies already decided get `grace` seconds to go out."""
        for task in list(self._answering):
            task.cancel()
        await cancel_and_wait(self._task)
        replying = list(self._replying)
        if replying:
            _, late = await asyncio.wait(replying, timeout=grace)
            for task in late:
                task.cancel()

    async def _serve(self) -> None:
        requests = self._forwarder.requests
        outage = self._forwarder.outage
        for attempt in itertools.count():
            try:
                subscription = await requests.subscribe(self.room_id)
            except Exception as error:
                await _pause(attempt, f"taking the requests of {self.room_id}", error, outage)
                continue
            outage.reached()
            try:
                while True:
                    request = await subscription.get()
                    task = asyncio.create_task(self._reply(request))
                    self._answering.add(task)
                    task.add_done_callback(self._answering.discard)
                    task.add_done_callback(self._replying.discard)
            except SubscriptionClosed as error:  # Redis lost: nothing pending can be told
                _ended(f"requests of {self.room_id}", error, outage)
            finally:
                with contextlib.suppress(Exception):
                    await subscription.close()

    async def _reply(self, request: Request) -> None:
        reply = await self._answer(request)
        if reply is None:
            return
        task = asyncio.current_task()
        assert task is not None
        self._answering.discard(task)  # decided: on close, let it go out
        self._replying.add(task)
        try:
            await self._forwarder.replies.publish(request.reply_to, [reply])
        except Exception as error:  # the asker times out and asks again
            self._forwarder.outage.failed(f"replying for room {self.room_id}", error)


class Forwarder:
    """One process's end of command forwarding: asking other processes' rooms, and
    answering the requests of the rooms it runs (`serve`)."""

    def __init__(
        self,
        where: str | RedisSettings,
        node_id: str,
        *,
        prefix: str = "",
        outage: Outage | None = None,
    ) -> None:
        self.node_id = node_id
        self.outage = outage or Outage(node_id)
        self.requests: RedisBus[Request] = RedisBus(
            where,
            encode_request,
            decode_request,
            prefix=prefix,
            channels=REQUESTS,
            on_lost=self._lost,
        )
        self.replies: RedisBus[Reply] = RedisBus(
            where, encode_reply, decode_reply, prefix=prefix, channels=REPLIES, on_lost=self._lost
        )
        self._waiting: dict[str, asyncio.Future[Reply]] = {}
        self._listening: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Subscribe to this process's replies (raises if Redis cannot be reached)."""
        subscription = await self.replies.subscribe(self.node_id)
        self._listening = asyncio.create_task(self._listen(subscription), name="replies")

    def _lost(self, error: BaseException) -> None:
        self.outage.failed("the subscription connection of command forwarding", error)

    async def close(self) -> None:
        if self._listening is not None:
            await cancel_and_wait(self._listening)
        await self.requests.close()
        await self.replies.close()

    def serve(self, room_id: str, answer: Answer) -> Serving:
        """Answer the requests of `room_id` (this process runs it) until closed."""
        return Serving(self, room_id, answer)

    async def ask(
        self,
        room_id: str,
        principal: Principal,
        command: Command,
        client_id: str | None,
        timeout: float,
        interrupt: asyncio.Event | None = None,
    ) -> Reply | _Nobody | None:
        """Send `command` to the process running `room_id` and wait for its answer.

        `NOBODY` when no process received it; None when no answer came within `timeout`
        seconds, or `interrupt` was set first (this process took the room meanwhile).
        A connection error of Redis raises.
        """
        request = Request(uuid.uuid4().hex, self.node_id, principal, command, client_id)
        answer: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._waiting[request.id] = answer
        try:
            if await self.requests.publish_counted(room_id, [request]) == 0:
                return NOBODY
            waiting: set[asyncio.Future[Any]] = {answer}
            interrupted = None
            if interrupt is not None:
                interrupted = asyncio.ensure_future(interrupt.wait())
                waiting.add(interrupted)
            try:
                await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            finally:
                if interrupted is not None:
                    interrupted.cancel()
            return answer.result() if answer.done() else None
        finally:
            self._waiting.pop(request.id, None)

    async def ask_timing(self, room_id: str) -> None:
        """Ask the runner of `room_id` to publish its countdown (best effort)."""
        request = Request(uuid.uuid4().hex, self.node_id, None, None, None)
        try:
            await self.requests.publish(room_id, [request])
        except Exception as error:
            self.outage.failed(f"asking room {room_id} for its countdown", error)

    async def _listen(self, subscription: Subscription[Reply]) -> None:
        """Hand each reply to the ask waiting for it; subscribe again when Redis drops."""
        while True:
            try:
                reply = await subscription.get()
            except SubscriptionClosed as error:
                _ended("replies", error, self.outage)
                with contextlib.suppress(Exception):
                    await subscription.close()
                subscription = await self._resubscribe()
                continue
            waiting = self._waiting.get(reply.id)
            if waiting is not None and not waiting.done():
                waiting.set_result(reply)

    async def _resubscribe(self) -> Subscription[Reply]:
        for attempt in itertools.count():
            try:
                subscription = await self.replies.subscribe(self.node_id)
            except Exception as error:
                await _pause(attempt, "taking this process's replies", error, self.outage)
                continue
            self.outage.reached()
            return subscription
        raise AssertionError("unreachable")  # pragma: no cover


async def _pause(attempt: int, what: str, error: Exception, outage: Outage) -> None:
    delay = backoff(attempt)
    outage.failed(what, error)
    logger.debug("%s: again in %.2fs", what, delay)
    await asyncio.sleep(delay)


def _ended(what: str, error: SubscriptionClosed, outage: Outage) -> None:
    """A subscription ended: part of an outage (its connection was lost), or a
    subscriber too slow for its buffer, worth a line of its own."""
    if outage.down:
        logger.debug("%s: the subscription ended: %s", what, error)
    else:
        logger.info("%s: the subscription ended (%s); subscribing again", what, error)


def encode_request(request: Request) -> bytes:
    principal = None if request.principal is None else to_data(request.principal)
    command = None if request.command is None else to_data(request.command)
    fields = [request.id, request.reply_to, principal, command, request.client_id]
    packed: bytes = msgpack.packb(fields, use_bin_type=True)
    return packed


def decode_request(data: bytes) -> Request:
    id_, reply_to, principal, command, client_id = msgpack.unpackb(
        data, raw=False, strict_map_key=False
    )
    who = None if principal is None else from_data(principal)
    what = None if command is None else from_data(command)
    if who is not None and not isinstance(who, Principal):
        raise ValueError(f"a request from a {type(who).__name__}, not a Principal")
    if what is not None and not isinstance(what, Command):
        raise ValueError(f"a request for a {type(what).__name__}, not a command")
    return Request(str(id_), str(reply_to), who, what, client_id)


def encode_reply(reply: Reply) -> bytes:
    packed: bytes = msgpack.packb(list(reply), use_bin_type=True)
    return packed


def decode_reply(data: bytes) -> Reply:
    id_, code, message, first_seq, last_seq = msgpack.unpackb(data, raw=False)
    return Reply(str(id_), str(code), str(message), int(first_seq), int(last_seq))
