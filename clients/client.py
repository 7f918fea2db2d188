"""The async client: connect, resume, send commands, follow the fight.

`Client.connect(url, token)` opens a websocket, says `hello` and waits for `welcome`
(docs/protocol.md, "The handshake"). From then on one reader task per connection reads
the server's frames: a `table` replaces the table held (`table.HeldTable`), an `update`
patches it and extends its log, `choices` change the seat's choices, a `window`
restarts the countdown (`countdown.WindowClock`), an `ack` or `refused` answers the
`send` waiting for its cid. Everything a screen needs (welcome, table, update, log,
choices, window, error, a lost connection) is also queued for `async for message in
client` (unless `queue_messages=False`, for a program that only reads `table` and
`window`).

The raw events: a client made with `events=True` (the default, for tools and tests)
asks for them too (docs/protocol.md, "The raw events") and gets them as `Events`
messages, a `snapshot` when it joins or is too far behind; it reads none of them. With
`keep_events=True` it also keeps them: `snapshot` is the last snapshot received and
`events` every event after it, `(seq, event)`, in order, so a test can read what the
server sent.

Sequence numbers: the client keeps the seq of the last table it holds and, with
`events=True`, of the last raw event. An update or an event that does not follow it (a
gap) makes the client resume at once, as the protocol asks; an event it already holds
(a repeat) is dropped. Both are counted (`gaps`, `repeats`), so a test can hold the
server to "no gaps and no repeats".

Resuming: `reconnect()` opens a new connection with `resume_from_seq` = the last seq
held, and sends again, with the same cid, every command not answered yet; the server
applies a command once per cid (docs/protocol.md, "Retries"). With `auto_reconnect`
the client does this by itself when a connection drops, except when the server said
that reconnecting is pointless (a bad token, a closed room).

Several servers: `Client.connect([url_a, url_b], token)` knows several addresses of
one service (the processes of a cluster, or a server that may come back on another
port). Connecting tries them in turn from the one last used, and takes the first that
welcomes it; when the connection drops, the server it was on is tried last. Each round
of attempts that finds none is followed by the next backoff pause (round robin with
backoff), and the client resumes by seq wherever it lands.

This module imports `protocol` and `websockets`, never the server (import-linter).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.typing import Subprotocol

from clients.countdown import WindowClock
from clients.table import HeldTable, OutOfStep
from protocol.codec import (
    JSON_SUBPROTOCOL,
    MAX_SERVER_FRAME,
    MSGPACK_SUBPROTOCOL,
    decode_server,
    encode,
)
from protocol.errors import CloseCode, ErrorCode, ProtocolError
from protocol.messages import (
    Ack,
    Choices,
    Codes,
    Create,
    Created,
    Error,
    Events,
    Hello,
    Invites,
    Listing,
    Log,
    Pong,
    Refused,
    Renew,
    Revoke,
    Rooms,
    Send,
    Sequenced,
    Snapshot,
    Table,
    Update,
    Welcome,
    WentBack,
    Window,
)

logger = logging.getLogger(__name__)

CLIENT_NAME = "combat-cli/0.1"
Encoding = Literal["msgpack", "json"]
SUBPROTOCOL: dict[str, str] = {"msgpack": MSGPACK_SUBPROTOCOL, "json": JSON_SUBPROTOCOL}

FINAL_CLOSES = frozenset(
    {
        CloseCode.UNSUPPORTED_VERSION,
        CloseCode.UNAUTHORIZED,
        CloseCode.TOKEN_EXPIRED,
        CloseCode.HELLO_REQUIRED,
        CloseCode.ROOM_CLOSED,
    }
)
"""Close codes after which reconnecting cannot help (docs/protocol.md, "Close codes")."""

FINAL_ERRORS = frozenset(
    {
        ErrorCode.UNSUPPORTED_VERSION,
        ErrorCode.UNAUTHORIZED,
        ErrorCode.TOKEN_EXPIRED,
        ErrorCode.HELLO_REQUIRED,
        ErrorCode.ROOM_CLOSED,
    }
)

BACKOFF = (0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0)
"""Seconds between reconnection attempts; the last one repeats."""


class JoinError(Exception):
    """The server refused the handshake (or it never completed): `code` is the
    protocol's error code (`unauthorized`, `token_expired`, ...) or `connection_failed`
    when no websocket could be opened."""

    def __init__(self, code: str, message: str, close_code: int | None = None) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.close_code = close_code

    @property
    def final(self) -> bool:
        """Will trying again with the same token fail the same way?"""
        return self.code in FINAL_ERRORS or (self.close_code in FINAL_CLOSES)


class ClientClosed(Exception):
    """The client was closed before the answer came."""


@dataclass(frozen=True)
class ConnectionLost:
    """Queued when a connection ends: its close code and reason, and whether the client
    is reconnecting by itself (otherwise `reconnect()` or `close()` is up to you)."""

    code: int | None
    reason: str
    reconnecting: bool


@dataclass(frozen=True)
class GapFound:
    """Queued when the client saw a seq that did not follow its last one and resumes."""

    expected: int
    got: int


Incoming = (
    Welcome
    | Table
    | Update
    | Log
    | Choices
    | Snapshot
    | Events
    | Window
    | WentBack
    | Error
    | ConnectionLost
    | GapFound
)
Answer = Ack | Refused
_END = object()


Request = Send | Create | Renew | Rooms | Invites | Revoke
"""What waits for an answer by its cid."""


@dataclass
class _Pending:
    message: Request
    future: asyncio.Future[Any]


class _Gap(Exception):
    def __init__(self, expected: int, got: int) -> None:
        super().__init__(f"expected seq {expected}, got {got}")
        self.expected = expected
        self.got = got


class Client:
    """One seat (or the GM, a spectator, a host) connected to a combat server."""

    def __init__(
        self,
        url: str | Sequence[str],
        token: str,
        *,
        encoding: Encoding = "msgpack",
        auto_reconnect: bool = False,
        reconnect_for: float = 60.0,
        backoff: Sequence[float] = BACKOFF,
        handshake_timeout: float = 10.0,
        client_name: str = CLIENT_NAME,
        clock: Callable[[], float] = time.monotonic,
        queue_messages: bool = True,
        events: bool = True,
        keep_events: bool = False,
    ) -> None:
        if encoding not in SUBPROTOCOL:
            raise ValueError(f"encoding is 'msgpack' or 'json', not {encoding!r}")
        urls = (url,) if isinstance(url, str) else tuple(url)
        if not urls:
            raise ValueError("a client needs at least one server URL")
        self.urls = urls
        self._at = 0  # the index in `urls` of the server tried first (the one last used)
        self.token = token
        self.encoding: Encoding = encoding
        self.binary = encoding == "msgpack"
        self.auto_reconnect = auto_reconnect
        self.reconnect_for = reconnect_for
        self.backoff = tuple(backoff) or BACKOFF
        self.handshake_timeout = handshake_timeout
        self.client_name = client_name
        self.clock = clock
        self.queue_messages = queue_messages  # False: nobody iterates, keep nothing
        self.welcome: Welcome | None = None
        self.raw_events = events  # ask for the raw events (and snapshots) too
        self.keep_events = keep_events and events
        self.snapshot: Snapshot | None = None
        """The last snapshot received (only with `keep_events`)."""
        self.events: list[tuple[int, dict[str, Any]]] = []
        """The raw events after `snapshot` (or since joining), `(seq, event)`, in order
        (only with `keep_events`)."""
        self._event_seq: int | None = None  # the last raw event held
        self.table = HeldTable()
        self.window: WindowClock | None = None
        self.gaps = 0
        self.repeats = 0
        self.connections = 0  # handshakes completed, reconnections included
        self._connection: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._reconnecting: asyncio.Task[None] | None = None
        self._generation = 0
        self._lock = asyncio.Lock()
        self._pending: dict[str, _Pending] = {}
        self._incoming: asyncio.Queue[Any] = asyncio.Queue()
        self._cids = itertools.count(1)
        self._cid_prefix = secrets.token_hex(3)
        self._closed = False

    # -- connecting --------------------------------------------------------------------

    @classmethod
    async def connect(
        cls,
        url: str | Sequence[str],
        token: str,
        *,
        encoding: Encoding = "msgpack",
        resume_from_seq: int | None = None,
        **options: Any,
    ) -> Client:
        """A connected client: the handshake done, `welcome` set (or `JoinError`).
        `url` is one server's address, or several of one service, tried in turn."""
        client = cls(url, token, encoding=encoding, **options)
        await client.start(resume_from_seq)
        return client

    async def start(self, resume_from_seq: int | None = None) -> Welcome:
        """Connect for the first time. With `resume_from_seq` the client holds no table
        yet, only the seq: the server sends the lines (and events) after it."""
        if resume_from_seq is not None:
            self._event_seq = resume_from_seq
            self.table.seq = resume_from_seq
        async with self._lock:
            return await self._open(resume_from_seq)

    async def reconnect(self) -> Welcome:
        """Drop the current connection (if any) and resume from the last seq held;
        commands not answered yet are sent again with the same cid."""
        if self._closed:
            raise ClientClosed("the client is closed")
        async with self._lock:
            await self._drop()
            return await self._open(self.seq)

    async def close(self) -> None:
        """Close the connection for good; sends still waiting get `ClientClosed`."""
        if self._closed:
            return
        self._closed = True
        if self._reconnecting is not None and self._reconnecting is not asyncio.current_task():
            self._reconnecting.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reconnecting
        await self._drop()
        for pending in self._pending.values():
            if not pending.future.done():
                pending.future.set_exception(ClientClosed("the client was closed"))
        self._pending.clear()
        self._incoming.put_nowait(_END)

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def url(self) -> str:
        """The server connected to now (or last, or to be tried first)."""
        return self.urls[self._at]

    @property
    def connection(self) -> ClientConnection | None:
        """The open websocket, None while disconnected."""
        return self._connection

    @property
    def connected(self) -> bool:
        return self._connection is not None

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def seq(self) -> int | None:
        """The seq to resume from: the last raw event held with `events=True`, else the
        last table's (None before the first)."""
        return self._event_seq if self.raw_events else self.table.seq

    @property
    def role(self) -> str:
        return self.welcome.role if self.welcome is not None else ""

    @property
    def controls(self) -> list[str]:
        return list(self.welcome.controls) if self.welcome is not None else []

    async def _open(self, resume_from: int | None) -> Welcome:
        """Connect to the first server that welcomes us, from the one last used;
        `JoinError` when none does (a final one at once: another server of the same
        service would say the same)."""
        failures: list[JoinError] = []
        for step in range(len(self.urls)):
            index = (self._at + step) % len(self.urls)
            try:
                welcome = await self._open_at(self.urls[index], resume_from)
            except JoinError as error:
                if error.final:
                    raise
                failures.append(error)
                continue
            self._at = index
            return welcome
        if len(failures) == 1:
            raise failures[0]
        last = failures[-1]
        tried = "; ".join(
            f"{url}: {error}" for url, error in zip(self._order(), failures, strict=True)
        )
        raise JoinError(last.code, f"no server welcomed us ({tried})", last.close_code)

    def _order(self) -> list[str]:
        """The servers in the order `_open` tries them."""
        return [self.urls[(self._at + step) % len(self.urls)] for step in range(len(self.urls))]

    async def _open_at(self, url: str, resume_from: int | None) -> Welcome:
        """Connect to `url`, handshake, start reading, re-send what is unanswered (locked)."""
        try:
            ws = await connect(
                url,
                subprotocols=[Subprotocol(SUBPROTOCOL[self.encoding])],
                max_size=MAX_SERVER_FRAME,
                open_timeout=self.handshake_timeout,
                close_timeout=2,
            )
        except (OSError, WebSocketException, TimeoutError) as error:  # refused, bad URL, ...
            raise JoinError("connection_failed", f"cannot open {url}: {error}") from None
        try:
            welcome = await self._handshake(ws, resume_from)
        except BaseException:
            await ws.close()
            raise
        self._generation += 1
        self._connection = ws
        self.welcome = welcome
        self.connections += 1
        self._notify(welcome)
        self._reader = asyncio.create_task(self._read(ws, self._generation), name="client reader")
        for pending in list(self._pending.values()):
            await self._transmit(pending.message)
        return welcome

    async def _handshake(self, ws: ClientConnection, resume_from: int | None) -> Welcome:
        hello = Hello(
            token=self.token,
            resume_from_seq=resume_from,
            client=self.client_name,
            events=self.raw_events,
        )
        try:
            await ws.send(encode(hello, binary=self.binary))
            frame = await asyncio.wait_for(ws.recv(), self.handshake_timeout)
        except TimeoutError:
            raise JoinError("connection_failed", "no welcome came in time") from None
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
            reason = closed.rcvd.reason if closed.rcvd is not None else ""
            raise JoinError(
                reason or "connection_closed", "closed at the handshake", code
            ) from None
        try:
            message = decode_server(frame)
        except ProtocolError as error:
            raise JoinError(error.code, f"unreadable answer to hello: {error.message}") from None
        if isinstance(message, Error):  # the close that follows carries the close code
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ws.wait_closed(), self.handshake_timeout)
            raise JoinError(message.code, message.message, ws.close_code)
        if not isinstance(message, Welcome):
            raise JoinError("unexpected_message", f"expected a welcome, got a {message.type}")
        return message

    async def _drop(self) -> None:
        """Forget the current connection (its reader stops without reconnecting)."""
        self._generation += 1
        ws, reader = self._connection, self._reader
        self._connection = None
        self._reader = None
        if ws is not None:
            await ws.close()
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader

    # -- reading -----------------------------------------------------------------------

    async def _read(self, ws: ClientConnection, generation: int) -> None:
        gap: _Gap | None = None
        try:
            async for frame in ws:
                try:
                    message = decode_server(frame)
                except ProtocolError as error:  # a server bug: say so, keep reading
                    logger.warning("unreadable frame from the server: %s", error)
                    continue
                self._handle(message)
        except _Gap as found:
            gap = found
        except ConnectionClosed:
            pass
        if generation != self._generation or self._closed:
            return  # replaced by reconnect() or close()
        self._connection = None
        if gap is not None:
            self.gaps += 1
            self._notify(GapFound(gap.expected, gap.got))
            await ws.close()
            self._reconnect_soon()
            return
        code = ws.close_code
        reason = ws.close_reason or ""
        again = self.auto_reconnect and code not in FINAL_CLOSES
        self._at = (self._at + 1) % len(self.urls)  # the server it was on is tried last
        # Whatever countdown we showed is no longer known: the window may close while we
        # are away. The handshake of the next connection tells the open one, if any.
        self.window = None
        self._notify(ConnectionLost(code, reason, again))
        if again:
            self._reconnect_soon()

    def _handle(self, message: Any) -> None:
        if isinstance(message, Update):
            if self.raw_events and message.events is not None:
                fresh = self._accept(message.events)
                if fresh:
                    self._notify(Events(events=fresh))
            self._hold(message)
        elif isinstance(message, Table | Log | Choices):
            self._hold(message)
        elif isinstance(message, Events):
            fresh = self._accept(message.events)
            if fresh:
                self._notify(Events(events=fresh))
        elif isinstance(message, Snapshot):
            self._event_seq = message.seq
            if self.keep_events:
                self.snapshot = message
                self.events = []
            self._notify(message)
        elif isinstance(message, WentBack):
            self.table.went_back(message.seq)
            self._event_seq = message.seq
            self.events = [(seq, event) for seq, event in self.events if seq <= message.seq]
            self.window = None
            self._notify(message)
        elif isinstance(message, Window):
            self.window = WindowClock.start(message, self.clock)
            self._notify(message)
        elif isinstance(message, Ack | Refused | Created | Listing | Codes):
            pending = self._pending.pop(message.cid, None)
            if pending is not None and not pending.future.done():
                pending.future.set_result(message)
        elif isinstance(message, Error):
            self._notify(message)
        elif isinstance(message, Pong | Welcome):
            pass  # a pong answers nothing we wait for; a second welcome cannot happen

    def _hold(self, message: Table | Update | Log | Choices) -> None:
        """Keep the table, its log and the choices as the server sends them; an update
        that does not follow the table held is a gap (resume)."""
        held = self.table.seq
        if isinstance(message, Update) and held is not None and message.seq <= held:
            return  # a repeat: already held
        try:
            self.table.take(message.model_dump(exclude_unset=True))
        except OutOfStep:
            held = self.table.seq or 0
            got = message.from_seq + 1 if isinstance(message, Update) else held + 1
            raise _Gap(held + 1, got) from None
        if isinstance(message, Table | Update):
            self._forget_window(self.table.view.get("window"))
        self._notify(message)

    def _forget_window(self, window: Any) -> None:
        """The table no longer shows the window counting down: it closed (no `window`
        message says so), the fight ended, or a rewind brought it back under a new id
        (whose `window` message comes right after the update)."""
        if self.window is not None and (
            not isinstance(window, dict) or window.get("id") != self.window.id
        ):
            self.window = None

    def _accept(self, batch: list[Sequenced]) -> list[Sequenced]:
        """The events of `batch` that follow the last seq held; `_Gap` at a hole."""
        fresh: list[Sequenced] = []
        for item in batch:
            last = self._event_seq
            if last is not None and item.seq <= last:
                self.repeats += 1
                continue
            if last is not None and item.seq != last + 1:
                if fresh:
                    self._notify(Events(events=fresh))
                raise _Gap(last + 1, item.seq)
            self._event_seq = item.seq
            event = item.event
            if self.keep_events:
                self.events.append((item.seq, event))
            fresh.append(item)
        return fresh

    def _notify(self, item: Incoming) -> None:
        if self.queue_messages:
            self._incoming.put_nowait(item)

    def _reconnect_soon(self) -> None:
        if self._reconnecting is None or self._reconnecting.done():
            self._reconnecting = asyncio.create_task(self._keep_trying(), name="client reconnect")

    async def _keep_trying(self) -> None:
        """Reconnect with backoff until it works, the time is up or it cannot work: each
        attempt tries every server in turn, and the pause comes after a round."""
        deadline = self.clock() + self.reconnect_for
        delays = itertools.chain(self.backoff, itertools.repeat(self.backoff[-1]))
        generation = self._generation
        while not self._closed:
            try:
                async with self._lock:
                    if self._generation != generation or self._connection is not None:
                        return  # someone reconnected meanwhile
                    await self._open(self.seq)
                return
            except JoinError as error:
                if error.final or self.clock() >= deadline:
                    self._notify(ConnectionLost(error.close_code, error.code, False))
                    return
            await asyncio.sleep(next(delays))

    # -- sending -----------------------------------------------------------------------

    def next_cid(self) -> str:
        """A fresh command id: this client's random prefix and a counter."""
        return f"{self._cid_prefix}-{next(self._cids)}"

    async def send(
        self, command: dict[str, Any], cid: str | None = None, *, timeout: float | None = None
    ) -> Answer:
        """Send one engine command and wait for its `ack` or `refused`.

        While disconnected the command waits and is sent on reconnecting; `timeout`
        (seconds) bounds the wait (`TimeoutError`; the command stays queued)."""
        message = Send(cid=cid or self.next_cid(), command=command)
        answer = await self._request(message, timeout)
        assert isinstance(answer, Ack | Refused)
        return answer

    async def create(
        self, encounter: dict[str, Any], cid: str | None = None, *, timeout: float | None = None
    ) -> Created | Refused:
        """Create an encounter (a host token's connection only)."""
        message = Create(cid=cid or self.next_cid(), encounter=encounter)
        answer = await self._request(message, timeout)
        assert isinstance(answer, Created | Refused)
        return answer

    async def renew(
        self,
        room: str,
        seats: dict[str, list[str]],
        cid: str | None = None,
        *,
        timeout: float | None = None,
    ) -> Created | Refused:
        """Fresh tokens for an existing room and these seats (a host token's connection)."""
        message = Renew(cid=cid or self.next_cid(), room=room, seats=seats)
        answer = await self._request(message, timeout)
        assert isinstance(answer, Created | Refused)
        return answer

    async def rooms(
        self, cid: str | None = None, *, timeout: float | None = None
    ) -> Listing | Refused:
        """Every room the server knows, with how to join each (a host token's connection)."""
        answer = await self._request(Rooms(cid=cid or self.next_cid()), timeout)
        assert isinstance(answer, Listing | Refused)
        return answer

    async def invites(
        self, cid: str | None = None, *, timeout: float | None = None
    ) -> Codes | Refused:
        """The room's invite codes (the GM's connection only)."""
        answer = await self._request(Invites(cid=cid or self.next_cid()), timeout)
        assert isinstance(answer, Codes | Refused)
        return answer

    async def revoke(
        self,
        code: str,
        *,
        reissue: bool = False,
        cid: str | None = None,
        timeout: float | None = None,
    ) -> Codes | Refused:
        """Revoke one of the room's invite codes, and with `reissue` give its seat a
        fresh one (the GM's connection only); the room's codes then."""
        message = Revoke(cid=cid or self.next_cid(), code=code, reissue=reissue)
        answer = await self._request(message, timeout)
        assert isinstance(answer, Codes | Refused)
        return answer

    async def _request(self, message: Request, timeout: float | None) -> Any:
        if self._closed:
            raise ClientClosed("the client is closed")
        if message.cid in self._pending:
            raise ValueError(f"cid {message.cid!r} is still waiting for its answer")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[message.cid] = _Pending(message, future)
        await self._transmit(message)
        if timeout is None:
            return await future
        return await asyncio.wait_for(asyncio.shield(future), timeout)

    async def _transmit(self, message: Request) -> None:
        """Send now if connected; a lost frame is sent again by the next connection."""
        ws = self._connection
        if ws is None:
            return
        with contextlib.suppress(ConnectionClosed):
            await ws.send(encode(message, binary=self.binary))

    # -- following ---------------------------------------------------------------------

    def __aiter__(self) -> AsyncIterator[Incoming]:
        return self.messages()

    async def messages(self) -> AsyncIterator[Incoming]:
        """What arrives, in order, until `close()`: one consumer at a time."""
        while True:
            item = await self._incoming.get()
            if item is _END:
                self._incoming.put_nowait(_END)  # a later iterator ends too
                return
            yield item

    def pending(self) -> list[str]:
        """The cids of the commands sent and not answered yet."""
        return list(self._pending)
