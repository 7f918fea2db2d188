"""One websocket connection's shell: the socket, the clock and the rooms around a
`Connection` (gateway/connection.py), which decides everything else.

The shell feeds the connection what arrives and when, and does what it asks: writes
frames, closes, finds a room, submits a command, creates or renews. It never decides a
rule, a limit or a refusal.

Every incoming frame, data or control, reaches `Socket.process_event` (websockets'
hook for subclasses) before websockets acts on it; there it is counted against the
frame budget, and a flooder is cut off at once: its close frame is written, the rest
of what it sent is discarded, and nothing more is read from it.

Outgoing frames are written at once, in order, into the socket's buffer (as
`websockets.broadcast` writes): no queue, no writer task, nothing for the feed to wait
on. The buffer is bounded in bytes (`send_buffer`): a client that does not read fast
enough is closed with 4009 (`slow_reader`) instead of holding its room's feed back; it
reconnects and resumes from its last seq. Its close frame goes behind all it has not
read yet, and its socket stays while it reads its way there (`SLOW_READER_GRACE`).

Commands of one connection are handled one after another: the next message is read
once the previous one is acknowledged or refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import struct
import termios
import time
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame as WireFrame
from websockets.http11 import SERVER, Request, Response
from websockets.protocol import Event, State

from protocol.codec import Frame, binary_for
from protocol.errors import CloseCode, ErrorCode
from server.encounters import EncounterError
from server.engine.errors import CommandRefused
from server.engine.state import Encounter
from server.engine.views import Audience, audience_of
from server.gateway.connection import (
    Close,
    Connection,
    CreateRoom,
    Join,
    Limits,
    ListInvites,
    ListRooms,
    Output,
    PeekPast,
    Phase,
    ReadSheetText,
    Redeem,
    RenewTokens,
    RevokeInvite,
    Send,
    Submit,
    Welcomed,
)
from server.gateway.metrics import Metrics
from server.hosting import Host, Hosted, Unavailable
from server.plain_http import HttpConnection, HttpLimits, upgrade_requested
from server.table.overrides import GM

logger = logging.getLogger(__name__)


CUT_OFF_GRACE = 1.0
READ_SLICE = 4096  # bytes parsed between two looks at the frame budget
SLOW_READER_GRACE = 30.0
"""Seconds a slow reader, once told 4009, may go without reading anything before its
socket is dropped. Its close frame is queued behind the megabytes it has not read, so
it gets there only by reading: a laptop opened again, a congested link. About as long
as the keepalive gives any connection to answer a ping (20 s between pings, 20 s for
the pong): a client silent for longer is gone."""
SLOW_READER_LIMIT = 120.0
"""Seconds a slow reader may take in all to read its way to its close frame: one that
reads a byte now and then holds its socket no longer."""


ProcessRequest = Callable[[ServerConnection, Request], Awaitable[Response | None] | Response | None]
ProcessResponse = Callable[
    [ServerConnection, Request, Response], Awaitable[Response | None] | Response | None
]
"""websockets' hooks on the opening handshake (`serve(process_request=...)`)."""
OPEN_TIMEOUT = 10.0
"""Seconds websockets gives a connection to open (`serve(open_timeout=...)`, its
default): a websocket for its opening handshake, and a plain HTTP connection, which
`Socket.handshake` serves, for its whole life."""
PLAIN_HTTP = HttpLimits()
"""The bounds of a plain HTTP connection on the websocket port (`plain_http.py`)."""
PLAIN_HTTP_LIFETIME = OPEN_TIMEOUT - PLAIN_HTTP.linger - 1.0
"""Seconds from a plain HTTP connection's start after which its answers say
`Connection: close`, so that it has closed, lingering included, before
`OPEN_TIMEOUT` would reset it: a keep-alive client sees the connection end cleanly and
opens another."""


class Socket(ServerConnection):
    """websockets' server connection, telling its session of every incoming frame
    before websockets handles it (`arrived`); the session may cut it off there.

    A connection whose first request is no websocket upgrade is plain HTTP (`/healthz`,
    `/metrics`, the 404s): `data_received` holds the first request's head until it has
    ended, and a head that asks for a websocket goes to websockets byte for byte, as
    if nothing had looked at it; any other head, and all that follows, goes to
    `plain_http.py`, never to websockets' parser, which reads one request and then takes
    what follows for websocket frames (two requests in one write got no answer).
    `handshake` serves such a connection (keep-alive, pipelining, 400s for junk), under
    websockets' open timeout, until it closes, or until a request on it asks for a
    websocket, which websockets then takes as the connection's first request (a proxy
    may send an upgrade on a connection it kept from a health check)."""

    __slots__ = ("_head", "_http", "_upgraded", "arrived", "cut", "unanswered")
    """Slots, not attributes in the instance's dict. websockets' connection sets 27
    attributes, and Python 3.11 shares the keys of a class's instance dicts only up to
    a bound that shrinks as instances are made: an attribute first set after a few
    connections existed (the session's `arrived`, once a health check had come
    first) made every later connection's dict a dict of its own, 1.3 KiB more each
    (tests/server/test_idle_connections.py)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.arrived: Callable[[], bool] | None = None  # False: the frame is not to be handled
        self.unanswered: Callable[[], None] | None = None  # a keepalive ping went unanswered
        self.cut = False
        self._head: bytearray | None = None  # the first request's head so far, until it ends
        self._upgraded = False  # the bytes go to websockets
        self._http: HttpConnection | None = None  # a plain HTTP connection's

    def data_received(self, data: bytes) -> None:
        """Parse what came in a slice at a time, so that a flooder's chunk (up to
        256 KiB of tiny frames) costs at most a slice past its budget. Until the first
        request's head has ended, hold it: it decides where the bytes go."""
        if self._http is not None:
            self._http.receive(data)
            return
        if not self._upgraded:
            if self._head is None:
                head: bytes | bytearray = data
            else:
                self._head += data
                head = self._head
            upgrade = upgrade_requested(head, len(data), PLAIN_HTTP.max_head)
            if upgrade is None:
                if self._head is None:
                    self._head = bytearray(data)
                return
            self._head = None
            data = bytes(head)
            if not upgrade:
                self._plain(data)
                return
            self._upgraded = True
        self._parse(data)

    def _parse(self, data: bytes) -> None:
        for start in range(0, len(data), READ_SLICE):
            if self.cut:
                return
            super().data_received(data[start : start + READ_SLICE])

    def _plain(self, head: bytes) -> None:
        """Make this a plain HTTP connection, its first bytes `head`; `handshake`'s wait
        for a request ends, with none for websockets."""
        self._http = HttpConnection(self.transport, self.drain, PLAIN_HTTP)
        self._http.receive(head)
        self.request_rcvd.set_result(None)

    def eof_received(self) -> bool | None:  # type: ignore[override]  # websockets' never keeps
        """The client closed its side. A plain connection still answers what came
        before (the transport stays open: asyncio keeps it when this returns true); a
        first request cut short is plain HTTP's to refuse."""
        if self._http is None and not self._upgraded:
            head = self._head or b""
            self._head = None
            self._plain(bytes(head))
        if self._http is not None:
            self._http.receive_eof()
            return True
        super().eof_received()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        if self._http is not None:
            self._http.receive_eof()
        super().connection_lost(exc)

    def process_event(self, event: Event) -> None:
        if isinstance(event, WireFrame) and self.arrived is not None and not self.arrived():
            return
        super().process_event(event)

    async def keepalive(self) -> None:
        """websockets' keepalive (a ping every `ping_interval` seconds), except that a
        ping left unanswered for `ping_timeout` seconds closes with 4009
        (`slow_reader`): a client that answers no ping reads nothing, or is gone, and
        the cure is the same (reconnect and resume). websockets closes it with 1011,
        which docs/protocol.md keeps for a bug on the server."""
        assert self.ping_interval is not None and self.ping_timeout is not None
        latency = 0.0
        with contextlib.suppress(ConnectionClosed):
            while True:
                await asyncio.sleep(self.ping_interval - latency)
                pong = await self.ping()
                try:
                    async with asyncio.timeout(self.ping_timeout):
                        latency = await pong
                except TimeoutError:
                    if self.unanswered is not None:
                        self.unanswered()
                    async with self.send_context():  # returns once the socket is gone
                        self.protocol.fail(CloseCode.SLOW_READER, ErrorCode.SLOW_READER.value)
                    return

    async def handshake(
        self,
        process_request: ProcessRequest | None = None,
        process_response: ProcessResponse | None = None,
        server_header: str | None = SERVER,
    ) -> None:
        """websockets' opening handshake, then forget its headers: nothing reads them
        once the connection is open, and the request's and the response's headers
        held about 4 KiB for as long as each connection lived (bench/load.py's idle
        mode). Emptied in place, since websockets' parser keeps the request too; the
        request's path and the response's status stay.

        A plain HTTP connection is served here instead, with `process_request` (the
        gateway's routes) answering each request, until it closes; then there is no
        handshake, and websockets drops the connection as after any answer but 101."""
        deadline = self.loop.time() + PLAIN_HTTP_LIFETIME
        await super().handshake(process_request, process_response, server_header)
        if self._http is not None:  # websockets got no request: it did nothing
            if not await self._serve_plain(self._http, process_request, server_header, deadline):
                return
            await super().handshake(process_request, process_response, server_header)
        if self.protocol.state is State.OPEN:
            for message in (self.request, self.response):
                if message is not None:
                    message.headers.clear()

    async def _serve_plain(
        self,
        http: HttpConnection,
        process_request: ProcessRequest | None,
        server_header: str | None,
        deadline: float,
    ) -> bool:
        """Answer plain HTTP requests until the connection closes (False), or until a
        request asks for a websocket (True): websockets then reads that request and
        all after it, as if it had been the connection's first. The answers are the
        routes' (`process_request`, as for an upgrade request); a route that would
        let a plain request on to the upgrade gets 426."""

        async def answer(request: Request) -> Response:
            response = process_request(self, request) if process_request is not None else None
            if isinstance(response, Awaitable):
                response = await response
            if response is None:
                response = self.respond(HTTPStatus.UPGRADE_REQUIRED, "upgrade to a websocket\n")
                response.headers["Upgrade"] = "websocket"
            return response

        rest = await http.serve(
            answer,
            server_header=server_header,
            upgrade=True,
            deadline=deadline,
            serving=self.server.is_serving,
        )
        if rest is None:
            await http.finish()
            await asyncio.shield(self.connection_lost_waiter)  # websockets' open timeout bounds it
            return False
        self._http = None
        self._upgraded = True
        self.request_rcvd = self.loop.create_future()  # the plain connection resolved the first
        self.transport.resume_reading()
        self._parse(rest)
        if http.eof:
            super().eof_received()
        return True

    def cut_off(self, code: int, reason: str) -> None:
        """Close now without waiting for the client: the close frame and the end of the
        stream are written, nothing more is read (what the client sends waits in its
        own buffers, costing the server nothing), and the socket is dropped after
        `CUT_OFF_GRACE` seconds, time for the client to read why."""
        self.cut = True
        self.protocol.fail(code, reason)
        self.send_data()
        self.transport.pause_reading()
        self.loop.call_later(CUT_OFF_GRACE, self.transport.abort)

    def close_behind_backlog(self, code: int, reason: str) -> None:
        """Close a client that reads too slowly: the close frame is written after all
        it has not read, and the socket is dropped only once the client went
        `SLOW_READER_GRACE` seconds without reading anything (or `SLOW_READER_LIMIT`
        in all), else when the closing handshake ends.

        Not `close()`: websockets counts its close timeout (5 s) from the moment of
        the close and drops the socket at its next keepalive ping after that, reading
        or not, and with the close frame lost if the client had not read its way up
        to it by then: a client reading its backlog slowly got 1006, no close frame,
        instead of 4009."""
        self.protocol.send_close(code, reason)
        self.send_data()
        if self.keepalive_task is not None:  # its next ping would time the close out
            self.keepalive_task.cancel()
        self._drop_unless_read(self.loop.time() + SLOW_READER_LIMIT)

    def _drop_unless_read(self, limit: float) -> None:
        """In `SLOW_READER_GRACE` seconds: drop the socket if the client read nothing
        meanwhile (what it has not taken did not shrink) or `limit` has passed."""
        unsent = self.unsent()

        def look() -> None:
            if self.state is State.CLOSED:
                return
            if self.unsent() < unsent and self.loop.time() < limit:
                self._drop_unless_read(limit)
            else:
                self.transport.abort()

        self.loop.call_later(SLOW_READER_GRACE, look)

    def unsent(self) -> int:
        """Bytes written that the client has not taken yet: the transport's buffer and
        the socket's send queue (SIOCOUTQ, where the system tells it). The kernel's
        queue can hold a megabyte too, and the transport's buffer only shrinks once it
        has room again: a client reading slowly may take seconds to show there."""
        unsent = self.transport.get_write_buffer_size()
        sock = self.transport.get_extra_info("socket")
        with contextlib.suppress(OSError, AttributeError, ValueError):
            queued = fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, bytes(4))
            unsent += int(struct.unpack("i", queued)[0])
        return unsent


class Session:
    """The shell around one connection (this module's docstring says what it does).
    Slotted: it lives as long as its connection."""

    __slots__ = (
        "_allowance",
        "_audience",
        "_closer",
        "_counted",
        "_hosted",
        "binary",
        "connection",
        "host",
        "limits",
        "metrics",
        "ws",
    )

    def __init__(self, ws: ServerConnection, host: Host, limits: Limits, metrics: Metrics):
        self.ws = ws
        self.host = host
        self.limits = limits
        self.metrics = metrics
        self.binary = binary_for(ws.subprotocol)
        self.connection = Connection(
            limits, host.issuer, binary=self.binary, now=time.monotonic(), web=host.web_page
        )
        self._allowance = 0  # catch-up bytes the send buffer may hold beyond its limit
        self._closer: asyncio.Task[None] | None = None
        self._hosted: Hosted | None = None
        self._counted = False  # in the connections gauge
        self._audience: tuple[object, Audience] | None = None  # a roster, its audience in it
        if isinstance(ws, Socket):
            ws.arrived = self._arrived
            ws.unanswered = self._unanswered

    @property
    def role(self) -> str:
        return self.connection.role

    # -- what the feed calls ----------------------------------------------------------

    def audience(self, state: Encounter) -> Audience:
        """Its audience in `state`, kept while the roster is the same object: a
        player's sides come from its combatants' records (copy on write), and the feed
        asks after every batch."""
        kept = self._audience
        if kept is not None and kept[0] is state.combatants:
            return kept[1]
        principal = self.connection.principal
        assert principal is not None
        audience = audience_of(principal, state)
        self._audience = (state.combatants, audience)
        return audience

    @property
    def events(self) -> bool:
        return self.connection.events

    def plays(self, state: Encounter) -> tuple[str, ...]:
        """The combatants whose choices this connection gets: a player's own; for the
        GM its console's seat (`"gm"`: the room's commands and the overrides) and the
        combatants no player seat plays (it may act for any, but plays those); none for
        a spectator or a host."""
        principal = self.connection.principal
        if principal is None or self.role == "spectator":
            return ()
        if self.role == "gm":  # its console (`table.overrides`) and the unseated
            seated = self._hosted.seated if self._hosted is not None else frozenset()
            return (GM, *(c for c in state.combatants if c not in seated))
        return principal.controls

    def push(self, frame: Frame, *, catch_up: bool = False) -> None:
        """Write `frame` now, without waiting (as `websockets.broadcast` does): the
        frame goes to the socket's buffer in order, and the feed never waits for a
        client. What the client has not read yet stays in the buffer; over
        `send_buffer` bytes the client is a slow reader and is closed (4009).

        Catch-up frames (the snapshot or missed events of a join) are written whatever
        their size, and the buffer may hold that much more until it drains below its
        limit again, so a big fight can still be joined."""
        if self.connection.closed:
            return
        transport = self.ws.transport
        buffered = transport.get_write_buffer_size() if transport is not None else 0
        if catch_up:
            self._allowance = max(self._allowance, buffered) + len(frame)
        elif buffered > self.limits.send_buffer + self._allowance:
            self._do(self.connection.slow())
            return
        elif buffered <= self.limits.send_buffer:
            self._allowance = 0  # the catch-up has drained
        self._write(frame)

    def _write(self, frame: Frame) -> None:
        broadcast((self.ws,), frame)
        self.metrics.frames_sent += 1

    # -- the connection ---------------------------------------------------------------

    async def run(self) -> None:
        """Read the client's messages and answer each in turn until the connection ends,
        then leave the room. One coroutine, no nested reader: every coroutine an idle
        connection waits in is memory held for as long as it stays connected."""
        connection = self.connection
        try:
            while not connection.closed:
                try:
                    if connection.phase is Phase.HELLO:
                        timeout = max(0.0, connection.hello_deadline - time.monotonic())
                        frame = await asyncio.wait_for(self.ws.recv(), timeout)
                    else:
                        frame = await self.ws.recv()
                except TimeoutError:
                    self._do(connection.expire(time.monotonic()))
                    continue
                await self._run(connection.received(frame, time.monotonic()))
                del frame  # not held while waiting for the next one (the hello, its token)
        except ConnectionClosed:
            pass
        finally:
            if self._hosted is not None:
                self._hosted.feed.leave(self)
            if self._counted:
                self.metrics.connections.labels(self.role).dec()
            if self._closer is not None:
                with contextlib.suppress(Exception):
                    await self._closer

    def _arrived(self) -> bool:
        """Every incoming frame: within the budget, or the connection is cut off."""
        outputs = self.connection.arrived(time.monotonic())
        for output in outputs:
            assert isinstance(output, Close)
            self.metrics.cut.labels(str(output.code)).inc()
            logger.info("cut off", extra={"role": self.role, "reason": str(output.code)})
            assert isinstance(self.ws, Socket)
            self.ws.cut_off(output.close_code, str(output.code))
        return not outputs and not self.connection.closed

    def _unanswered(self) -> None:
        """A keepalive ping went unanswered: the socket closes as a slow reader."""
        self.metrics.cut.labels(ErrorCode.SLOW_READER.value).inc()
        logger.info("no pong", extra={"role": self.role, "reason": ErrorCode.SLOW_READER.value})

    async def _run(self, outputs: list[Output]) -> None:
        """Do what the connection asks, feeding back how each request went."""
        while outputs:
            output, *outputs = outputs
            if isinstance(output, Send | Close):
                self._do([output])
            elif isinstance(output, Welcomed):
                self._count()
            elif isinstance(output, Redeem):
                outputs = [*await self._redeem(output), *outputs]
            elif isinstance(output, Join):
                outputs = [*await self._join(output), *outputs]
            else:
                outputs = [*await self._request(output), *outputs]

    def _do(self, outputs: list[Output]) -> None:
        """Write frames and closes (the only outputs that need no waiting)."""
        for output in outputs:
            if isinstance(output, Send):
                if output.outcome is not None:
                    self.metrics.commands.labels(*output.outcome).inc()
                self.push(output.frame)
            elif isinstance(output, Close):
                self._close(output)

    def _close(self, close: Close) -> None:
        """Send the `error` (if any), then close with the error's close code."""
        if self._closer is not None:
            return
        if close.frame is not None:
            self._write(close.frame)
        self.metrics.cut.labels(str(close.code)).inc()
        ws = self.ws
        if (
            close.code is ErrorCode.SLOW_READER
            and isinstance(ws, Socket)
            and ws.state is State.OPEN  # else the client's close came first: as below
        ):
            ws.close_behind_backlog(close.close_code, str(close.code))
            return
        # websockets aborts the socket if the close handshake times out.
        self._closer = asyncio.create_task(self.ws.close(close.close_code, str(close.code)))

    async def _redeem(self, redeem: Redeem) -> list[Output]:
        try:
            grant = await self.host.redeem(redeem.code)
        except Unavailable as error:
            logger.info("invite unavailable", extra={"error": str(error)})
            message = "the invite code cannot be looked up now; reconnect soon"
            return self.connection.join_failed(ErrorCode.UNAVAILABLE, message)
        except Exception:
            logger.exception("looking up an invite code failed")
            return self.connection.failed()
        return self.connection.redeemed(redeem, grant)

    async def _join(self, join: Join) -> list[Output]:
        grant = join.grant
        try:
            hosted = await self.host.get(grant.room_id)
        except Unavailable as error:
            # The store's outage is reported where it is found, once (cluster/outage.py).
            logger.info("room unavailable", extra={"room": grant.room_id, "error": str(error)})
            message = "the room cannot be reached now; reconnect soon"
            return self.connection.join_failed(ErrorCode.UNAVAILABLE, message)
        except Exception:
            logger.exception("join failed", extra={"room": grant.room_id})
            return self.connection.failed()
        if hosted is None:
            message = "the token names no room on this server"
            return self.connection.join_failed(ErrorCode.UNAUTHORIZED, message)
        if self.connection.closed:  # cut off while the room was loading
            return []
        self._count()
        feed = hosted.feed
        self._do(self.connection.joined(grant.room_id, feed.state.ruleset, feed.seq))
        self._hosted = hosted
        feed.join(self, join.resume_from_seq)
        logger.info(
            "joined",
            extra={
                "room": grant.room_id,
                "role": self.role,
                "seat": grant.seat,
                "client": join.client,
                "token": grant.token_id,  # which token joined, never the token itself
            },
        )
        return []

    def _count(self) -> None:
        if not self._counted:
            self._counted = True
            self.metrics.connections.labels(self.role).inc()

    async def _request(self, request: Output) -> list[Output]:
        """A command, a create, a renew, a host's rooms or a GM's invites or peek request:
        its answer, `unavailable` when the store is away, `internal_error` (and a close)
        on a bug."""
        try:
            if isinstance(request, Submit):
                return await self._submit(request)
            if isinstance(request, PeekPast):
                view = await self.host.peek(request.room, request.seq)
                return self.connection.peeked(request.cid, request.seq, view)
            if isinstance(request, ReadSheetText):
                assert self._hosted is not None  # a GM's request: the connection has joined
                combatant = await self.host.read_sheet(
                    self._hosted.room_id, request.file, request.text
                )
                return self.connection.sheet_read(request.cid, combatant)
            if isinstance(request, ListRooms):
                rooms = await self.host.listing()
                return self.connection.listed(request.cid, rooms)
            if isinstance(request, ListInvites):
                codes = await self.host.codes(request.room)
                return self.connection.codes(request.cid, request.room, codes)
            if isinstance(request, RevokeInvite):
                return await self._revoke(request)
            if isinstance(request, CreateRoom):
                built, tokens = await self.host.create_uploaded(
                    request.encounter, request.files, request.file
                )
                logger.info(
                    "created", extra={"room": tokens["room"], "seats": len(tokens["players"])}
                )
                return self.connection.created(
                    request.cid, tokens, built.name, built.encounter.ruleset
                )
            assert isinstance(request, RenewTokens)
            ruleset, tokens = await self.host.renew(request.room, request.seats)
            logger.info("renewed", extra={"room": request.room, "seats": len(tokens["players"])})
            return self.connection.created(request.cid, tokens, "", ruleset)
        except CommandRefused as refused:  # a peek no rewind could go to, a sheet's problems
            return self.connection.refused(_cid(request), refused.code, refused.message)
        except EncounterError as error:
            code = ErrorCode.INVALID_ENCOUNTER
            return self.connection.refused(_cid(request), code, "; ".join(error.problems))
        except Unavailable as error:
            logger.info("store unavailable", extra={"error": str(error)})
            message = "the store cannot be reached now: retry shortly"
            return self.connection.refused(_cid(request), ErrorCode.UNAVAILABLE, message)
        except Exception:
            room = self._hosted.room_id if self._hosted is not None else ""
            logger.exception("request failed", extra={"room": room})
            return self.connection.failed()

    async def _revoke(self, request: RevokeInvite) -> list[Output]:
        codes = await self.host.revoke(request.room, request.code, request.reissue)
        if codes is None:
            problem = "no such invite code in this room (mistyped, or revoked already)"
            return self.connection.refused(request.cid, ErrorCode.UNKNOWN_INVITE, problem)
        logger.info("invite revoked", extra={"room": request.room, "reissued": request.reissue})
        return self.connection.codes(request.cid, request.room, codes)

    async def _submit(self, request: Submit) -> list[Output]:
        hosted = self._hosted
        assert hosted is not None
        started = time.perf_counter()
        try:
            command = hosted.reader.read(request.command)
            ack = await hosted.runner.submit(request.principal, command, request.cid)
        except CommandRefused as refused:
            return self.connection.refused(request.cid, refused.code, refused.message)
        self.metrics.latency.observe(time.perf_counter() - started)
        return self.connection.acked(request.cid, ack.first_seq, ack.last_seq)


def _cid(request: Output) -> str:
    cid: str = getattr(request, "cid", "")
    return cid
