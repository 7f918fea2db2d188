"""Plain HTTP/1.1 that any client can speak, on both ports: keep-alive, pipelining,
bounds, and a 400 for what is not HTTP.

The web app's port answers every request here (`web.py`); the websocket port every
connection whose first request is no websocket upgrade (`gateway/session.py`'s
`Socket`): `/healthz`, `/metrics`, its 404s. Both used to go through websockets' HTTP
reader, which is made for one request, the opening handshake: it answered the first
request, then read what followed as websocket frames, so two requests in one write got
no answer and a traceback logged at error. h11, the HTTP/1.1 state machine under
httpx and uvicorn, does the protocol here: parsing, message framing, whether a
connection may be kept (`Connection: close`, HTTP/1.0) and the next request on it
(`start_next_cycle`). This module does the I/O and the bounds, so that no client holds
more than a little, however it behaves:

* a request's line and headers: at most `max_head` bytes (431 beyond: h11 refuses a
  head still unfinished past it, this module one that came whole in one read); its
  body, which nothing here reads, is dropped up to `max_body` bytes (413 beyond);
* each request must arrive whole within `idle` seconds of the previous answer (or of
  the connection's start): one timer for an idle keep-alive and a slow sender alike;
  and a client has `idle` seconds to take each answer, or it is dropped;
* requests are answered in order, one at a time, and reading stops while one is
  answered: a client that pipelines without reading holds an answer in the
  transport's buffer and a read in the kernel's, not a queue of them;
* at most `max_requests` requests a connection, and none past the owner's `deadline`:
  the last answer says `Connection: close`;
* what h11 cannot read, or a path that is not ASCII (as websockets' reader), is
  answered 400 (431 for a head too long) and the connection closed. Logged at debug
  only: any open port gets junk, and junk is no fault of the server.

A connection that ends is closed gently (`HttpConnection.finish`): half-closed after
its last answer, then read and dropped until the client closes (or `linger` seconds),
so that bytes the client still had under way do not make the kernel reset the
connection over an answer the client has not read yet.

Requests and answers are websockets' `Request` and `Response` (`websockets.http11`),
the types the websocket port's routing takes for the upgrade requests websockets
answers: one route (`Gateway._route`) answers a request on either path. Whatever an
answer says about its connection (`Connection`, framing headers) is replaced here: this
module decides.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from http import HTTPStatus
from typing import cast

import h11
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

logger = logging.getLogger(__name__)

Answer = Callable[[Request], Response | Awaitable[Response]]
"""How a port answers one request."""

_DECIDED_HERE = {"connection", "keep-alive", "content-length", "transfer-encoding"}
"""Headers of an answer that this module sets itself: the connection's fate and the
body's framing."""


@dataclass(frozen=True)
class HttpLimits:
    """What one plain HTTP connection may hold (this module's docstring says why)."""

    idle: float = 5.0
    """Seconds for the next whole request to arrive, and for the client to take an
    answer. Five, as uvicorn's keep-alive: long enough for a browser's burst of files
    on one connection, short enough that an idle one is let go soon."""
    max_head: int = 64 * 1024
    """Bytes of a request's line and headers. Generous for browsers' cookies behind a
    shared domain; this is also the most a websocket upgrade's head may have, since the
    websocket port reads that head whole before handing it to websockets."""
    max_body: int = 64 * 1024
    """Bytes of a request's body, read and dropped: nothing here takes a body."""
    max_requests: int = 1000
    """Requests on one connection, as nginx's `keepalive_requests`."""
    linger: float = 2.0
    """Seconds a closing connection waits for the client to close its side."""


def http_response(
    status: HTTPStatus, body: bytes, content_type: str, headers: Iterable[tuple[str, str]] = ()
) -> Response:
    """A whole HTTP answer (the web app's files, the websocket port's `/healthz` and
    `/metrics`). It says nothing of the connection: whoever sends it decides, this
    module for a plain request, websockets (which closes after any answer but 101) for
    an upgrade request."""
    fields = [("Content-Type", content_type), ("Content-Length", str(len(body))), *headers]
    return Response(status.value, status.phrase, Headers(fields), body)


def upgrade_requested(head: bytes | bytearray, new: int, max_head: int) -> bool | None:
    """Whether a connection's first bytes `head` are a websocket upgrade request: None
    while its head has not ended (`new`: how many bytes just came, the only ones that
    can end it: parsed only then, so that a head sent a byte at a time costs no more
    than one sent whole); False for any other request, and for bytes that are no HTTP
    request (the plain path answers them 400) or a head over `max_head` (431)."""
    tail = head[-(new + 3) :]
    ended = b"\n\n" in tail or b"\n\r\n" in tail
    if not ended and len(head) > new and len(head) <= max_head:
        return None  # the first bytes were read already: h11 refuses junk from its first byte
    parser = h11.Connection(h11.SERVER, max_incomplete_event_size=max_head)
    parser.receive_data(bytes(head))
    try:
        event = parser.next_event()
    except h11.RemoteProtocolError:
        return False
    if event is h11.NEED_DATA:
        return None
    return isinstance(event, h11.Request) and _upgrade(event)


def _upgrade(request: h11.Request) -> bool:
    """A request that asks for a websocket (`Upgrade: websocket`), well formed or not:
    websockets judges the rest of it."""
    return any(
        name == b"upgrade"
        and b"websocket" in (token.strip() for token in value.lower().split(b","))
        for name, value in request.headers
    )


class _TooLarge(Exception):
    """A request's body passed `max_body`."""


class HttpConnection:
    """One connection's plain HTTP. Its asyncio protocol hands it what arrives
    (`receive`, `receive_eof`); `serve` answers through the transport and `finish`
    closes. Sans-I/O below (h11), asyncio above: the web port's protocol (`_Plain`)
    and the websocket port's `Socket` drive it alike."""

    def __init__(
        self,
        transport: asyncio.Transport,
        drain: Callable[[], Awaitable[None]],
        limits: HttpLimits,
    ) -> None:
        self._transport = transport
        self._drain = drain
        self._limits = limits
        self._h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=limits.max_head)
        self._waiter: asyncio.Future[None] | None = None
        self._stopping = False
        self._done = False  # answering is over: what still arrives is dropped
        self.eof = False

    # -- what the protocol calls --------------------------------------------------------

    def receive(self, data: bytes) -> None:
        """Bytes from the client. Reading pauses unless a request is awaited: the
        client's next bytes wait in the kernel while one is answered."""
        if self._done:
            return
        self._h11.receive_data(data)
        if not self._wake():
            self._transport.pause_reading()

    def receive_eof(self) -> None:
        """The client closed its side, or the connection was lost (idempotent)."""
        if not self.eof:
            self.eof = True
            if not self._done:
                self._h11.receive_data(b"")
        self._wake()

    def stop(self) -> None:
        """The server is closing: answer what has arrived, the last answer says
        `Connection: close`, and wait for no more."""
        self._stopping = True
        self._wake()

    def _wake(self) -> bool:
        waiter = self._waiter
        if waiter is None or waiter.done():
            return False
        waiter.set_result(None)
        return True

    # -- serving --------------------------------------------------------------------

    async def serve(
        self,
        answer: Answer,
        *,
        server_header: str | None = None,
        upgrade: bool = False,
        deadline: float | None = None,
        serving: Callable[[], bool] | None = None,
    ) -> bytes | None:
        """Answer requests in order until the connection is to close (None; then
        `finish` it), or, with `upgrade`, until a request asks for a websocket: then
        its bytes and all that came after it, to hand to websockets as the
        connection's first request. No request is answered past `deadline` (the
        loop's time), nor once `serving()` is false: the last answer says so."""
        loop = asyncio.get_running_loop()
        limits = self._limits
        for count in range(1, limits.max_requests + 1):
            until = loop.time() + limits.idle
            if deadline is not None:
                until = min(until, deadline)
            try:
                request = await self._request(until)
                if request is None:
                    return None
                if upgrade and _upgrade(request):
                    return self._handover(request)
                if _head_size(request) > limits.max_head:  # it came whole in one read
                    raise h11.RemoteProtocolError("request head too large", 431)
                plain = _plain_request(request)
                await self._body(until)
            except h11.RemoteProtocolError as error:
                await self._refuse(error.error_status_hint, str(error), server_header)
                return None
            except _TooLarge:
                await self._refuse(413, "request body too large", server_header)
                return None
            except TimeoutError:
                return None  # idle, or too slow to send a request: closed
            close = (
                count == limits.max_requests
                or self._stopping
                or (deadline is not None and loop.time() >= deadline)
                or (serving is not None and not serving())
            )
            response = await self._answer(answer, plain)
            if response is None:
                response, close = _text(HTTPStatus.INTERNAL_SERVER_ERROR), True
            try:
                self._respond(request.method, response, server_header, close=close)
            except (h11.LocalProtocolError, UnicodeEncodeError):  # a bug in the answer
                logger.exception("an HTTP answer could not be sent", extra={"path": plain.path})
                self._transport.abort()
                return None
            if not await self._drained():
                return None
            if self._h11.our_state is not h11.DONE or self._h11.their_state is not h11.DONE:
                return None  # either side said close, or HTTP/1.0
            self._h11.start_next_cycle()
        return None

    async def _request(self, until: float) -> h11.Request | None:
        """The next request's head, or None: the client closed, or the server stops."""
        while True:
            event = self._h11.next_event()
            if event is h11.NEED_DATA:
                if self._stopping or self.eof:
                    return None
                await self._wait(until)
                continue
            return event if isinstance(event, h11.Request) else None

    async def _body(self, until: float) -> None:
        """Read the request's body to its end, dropping it."""
        size = 0
        while True:
            event = self._h11.next_event()
            if event is h11.NEED_DATA:
                await self._wait(until)
            elif isinstance(event, h11.Data):
                size += len(event.data)
                if size > self._limits.max_body:
                    raise _TooLarge
            elif isinstance(event, h11.EndOfMessage):
                return

    async def _wait(self, until: float) -> None:
        """Until more bytes come (or the end, or `stop`), reading meanwhile."""
        waiter = self._waiter = asyncio.get_running_loop().create_future()
        self._transport.resume_reading()
        try:
            async with asyncio.timeout_at(until):
                await waiter
        finally:
            self._waiter = None

    async def _answer(self, answer: Answer, request: Request) -> Response | None:
        """The port's answer, or None when answering failed (a bug: logged, 500)."""
        try:
            response = answer(request)
            if inspect.isawaitable(response):
                response = await response
        except Exception:
            logger.exception("answering an HTTP request failed", extra={"path": request.path})
            return None
        return response

    def _respond(
        self, method: bytes, response: Response, server_header: str | None, *, close: bool
    ) -> None:
        body = bytes(response.body)
        headers = [
            (name.encode("latin-1"), value.encode("latin-1"))
            for name, value in response.headers.raw_items()
            if name.lower() not in _DECIDED_HERE
        ]
        headers.append((b"Content-Length", str(len(body)).encode()))
        if server_header is not None and "Server" not in response.headers:
            headers.append((b"Server", server_header.encode("latin-1")))
        if close:
            headers.append((b"Connection", b"close"))
        status = response.status_code
        head = h11.Response(
            status_code=status, headers=headers, reason=response.reason_phrase.encode("latin-1")
        )
        parts = [self._h11.send(head)]
        if body and method != b"HEAD" and status not in (204, 304):
            parts.append(self._h11.send(h11.Data(data=body)))
        parts.append(self._h11.send(h11.EndOfMessage()))
        self._transport.write(b"".join(part for part in parts if part))

    async def _refuse(self, status: int, reason: str, server_header: str | None) -> None:
        """Answer a request that cannot be served, if anything can still be said."""
        logger.debug("HTTP request refused", extra={"status": status, "reason": reason})
        if self._h11.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            return
        try:
            self._respond(b"", _text(HTTPStatus(status)), server_header, close=True)
        except h11.LocalProtocolError:
            return
        await self._drained()

    async def _drained(self) -> bool:
        """Wait until the client has taken enough of what was written; one that takes
        nothing for `idle` seconds is dropped (False)."""
        try:
            async with asyncio.timeout(self._limits.idle):
                await self._drain()
        except TimeoutError:
            logger.debug("HTTP client reads nothing: dropped")
            self._transport.abort()
            return False
        except ConnectionError:
            return False
        return True

    def _handover(self, request: h11.Request) -> bytes:
        """A websocket upgrade: its head as the client sent it (h11 keeps the names'
        case and the order) and the bytes after it, for websockets to read."""
        lines = [b"%s %s HTTP/%s" % (request.method, request.target, request.http_version)]
        lines.extend(name + b": " + value for name, value in request.headers.raw_items())
        rest, _ = self._h11.trailing_data
        self._done = True
        return b"\r\n".join([*lines, b"", b""]) + rest

    async def finish(self) -> None:
        """Close after the last answer: half-close, then read and drop what still
        comes until the client closes too or `linger` seconds pass (at once when the
        server stops)."""
        self._done = True
        transport = self._transport
        if transport.is_closing():
            return
        if not self.eof and not self._stopping and transport.can_write_eof():
            transport.write_eof()
            until = asyncio.get_running_loop().time() + self._limits.linger
            try:
                while not self.eof:
                    await self._wait(until)
            except TimeoutError:
                pass
        transport.close()


def _plain_request(request: h11.Request) -> Request:
    """websockets' Request for h11's: a path that is not ASCII is refused, as
    websockets' own reader refuses it; header values are Latin-1, as there."""
    try:
        path = request.target.decode("ascii")
    except UnicodeDecodeError:
        raise h11.RemoteProtocolError("request target is not ASCII", 400) from None
    headers = Headers(
        [(name.decode("latin-1"), value.decode("latin-1")) for name, value in request.headers]
    )
    version = request.http_version.decode("ascii")
    return Request(path, headers, request.method.decode("ascii"), f"HTTP/{version}")


def _head_size(request: h11.Request) -> int:
    """About the bytes of a request's line and headers."""
    line = len(request.method) + len(request.target) + 12
    return line + sum(len(name) + len(value) + 4 for name, value in request.headers)


def _text(status: HTTPStatus) -> Response:
    """A short plain-text answer that names its status."""
    return http_response(status, f"{status.phrase.lower()}\n".encode(), "text/plain; charset=utf-8")


# -- a port of plain HTTP ---------------------------------------------------------------


class _Plain(asyncio.Protocol):
    """The asyncio protocol of one connection of an `HttpServer`."""

    def __init__(self, server: HttpServer) -> None:
        self._server = server
        self._paused = False
        self._lost = False
        self._drainer: asyncio.Future[None] | None = None
        self.task: asyncio.Task[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)
        self.http = HttpConnection(self._transport, self._drain, self._server.limits)
        self._server.connections.add(self)
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        server = self._server
        try:
            await self.http.serve(
                server.answer, server_header=server.server_header, serving=server.is_serving
            )
            await self.http.finish()
        except Exception:
            logger.exception("an HTTP connection failed")
            self._transport.abort()
        finally:
            server.connections.discard(self)

    def data_received(self, data: bytes) -> None:
        self.http.receive(data)

    def eof_received(self) -> bool:
        self.http.receive_eof()
        return True  # answers may still be written: `finish` closes

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        self.http.receive_eof()
        self._release()

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        self._release()

    def _release(self) -> None:
        if self._drainer is not None and not self._drainer.done():
            self._drainer.set_result(None)

    async def _drain(self) -> None:
        """Until the transport's buffer is below its high-water mark (or the
        connection is gone), as a StreamWriter's `drain`."""
        while self._paused and not self._lost:
            self._drainer = asyncio.get_running_loop().create_future()
            try:
                await self._drainer
            finally:
                self._drainer = None


class HttpServer:
    """A port that answers plain HTTP, as `asyncio.Server` does: `sockets`, `close`,
    `wait_closed`. Unlike Python 3.11's `asyncio.Server`, `wait_closed` also waits for
    the connections: `close` ends idle ones at once and the others after the answer
    under way, each bounded by its limits."""

    def __init__(self, answer: Answer, limits: HttpLimits, server_header: str | None) -> None:
        self.answer = answer
        self.limits = limits
        self.server_header = server_header
        self.connections: set[_Plain] = set()
        self._server: asyncio.Server | None = None

    async def start(self, hostname: str, port: int) -> None:
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(lambda: _Plain(self), hostname, port)

    @property
    def sockets(self) -> tuple[socket.socket, ...]:
        return self._server.sockets if self._server is not None else ()

    def is_serving(self) -> bool:
        return self._server is not None and self._server.is_serving()

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for connection in list(self.connections):
            connection.http.stop()

    async def wait_closed(self) -> None:
        if self._server is not None:
            await self._server.wait_closed()
        tasks = [c.task for c in self.connections if c.task is not None]
        if tasks:
            await asyncio.wait(tasks)


async def serve_http(
    answer: Answer,
    hostname: str,
    port: int,
    *,
    limits: HttpLimits | None = None,
    server_header: str | None = None,
) -> HttpServer:
    """Start answering plain HTTP on `hostname:port` with `answer`."""
    server = HttpServer(answer, limits or HttpLimits(), server_header)
    await server.start(hostname, port)
    return server


__all__ = ["HttpConnection", "HttpLimits", "HttpServer", "http_response", "serve_http"]
