"""A lean websocket client for the bots: websockets does the handshake and the
sending, and frames are read here, fast.

Why not websockets' asyncio connection for reading too: it spends about 25 µs of
Python on every frame it receives (a future, a message assembler, a generator-based
frame parser), so one core of bots reads some 40,000 frames a second. A bare
broadcast server sends several times that; read through the full connection, the
bare figure would measure the bots, not the server, and the ratio the issue asks for
would flatter the combat server.

So websockets' Sans-I/O `ClientProtocol` does everything that must be right: the
opening handshake, subprotocol and permessage-deflate negotiation, and every frame
this client sends (masked, compressed when negotiated, pongs and the closing frame).
What this module does itself is only reading: it splits the byte stream into frames
(server frames are never masked), inflates compressed messages with the parameters
the handshake negotiated, answers pings through the protocol, and hands each whole
message to a callback with the time its bytes arrived.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections.abc import Callable
from typing import Any

from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import (
    PerMessageDeflate,
    enable_client_permessage_deflate,
)
from websockets.http11 import Response
from websockets.typing import Subprotocol
from websockets.uri import parse_uri

Listener = Callable[[bytes, float], None]
_TAIL = b"\x00\x00\xff\xff"  # RFC 7692 7.2.2: removed by the sender, put back to inflate
_TEXT, _BINARY, _CONTINUATION, _CLOSE, _PING = 0x1, 0x2, 0x0, 0x8, 0x9


class Closed(Exception):
    """The connection ended before the message awaited came."""


class Wire(asyncio.Protocol):
    """One client connection. `await Wire.open(url, subprotocol)`, then `send`,
    `await recv()` (for the handshake's replies) or `listen(callback)`."""

    def __init__(self, url: str, subprotocol: str, deflate: bool) -> None:
        extensions = enable_client_permessage_deflate(None) if deflate else None
        self.protocol = ClientProtocol(
            parse_uri(url),
            extensions=extensions,
            subprotocols=[Subprotocol(subprotocol)],
            max_size=None,
        )
        self.transport: asyncio.Transport | None = None
        self.subprotocol: str | None = None
        self.closed = False
        self._opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._head = b""
        self._buffer = b""
        self._parts: list[bytes] = []
        self._compressed = False
        self._inflate: Any = None  # zlib's decompressobj, when deflate was negotiated
        self._fresh_inflate = False  # the server resets its compressor every message
        self._window_bits = 15
        self._inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._listener: Listener | None = None

    @classmethod
    async def open(cls, url: str, subprotocol: str, *, deflate: bool = True) -> Wire:
        wire = cls(url, subprotocol, deflate)
        uri = wire.protocol.uri
        await asyncio.get_running_loop().create_connection(lambda: wire, uri.host, uri.port)
        await wire._opened
        return wire

    # -- asyncio.Protocol ----------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.protocol.send_request(self.protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        if not self._opened.done():
            self._handshake(data)
            return
        now = time.perf_counter()
        buffer = self._buffer + data if self._buffer else data
        at, size = 0, len(buffer)
        while size - at >= 2:
            first, second = buffer[at], buffer[at + 1]
            length, start = second & 0x7F, at + 2
            if length == 126:
                if size - at < 4:
                    break
                length, start = int.from_bytes(buffer[at + 2 : at + 4], "big"), at + 4
            elif length == 127:
                if size - at < 10:
                    break
                length, start = int.from_bytes(buffer[at + 2 : at + 10], "big"), at + 10
            end = start + length
            if end > size:
                break
            self._frame(first, buffer[start:end], now)
            at = end
        self._buffer = buffer[at:]

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self._opened.done():
            self._opened.set_exception(Closed(f"closed during the handshake: {exc}"))
        self._inbox.put_nowait(None)

    # -- using it ------------------------------------------------------------------

    def send(self, data: bytes) -> None:
        if self.closed:
            raise Closed("the connection is closed")
        self.protocol.send_binary(data)
        self._flush()

    async def recv(self) -> bytes:
        """The next message (before `listen` is called)."""
        message = await self._inbox.get()
        if message is None:
            raise Closed("the connection closed")
        return message

    def listen(self, listener: Listener) -> None:
        """Hand every later message, and any not yet `recv`ed, to `listener`."""
        now = time.perf_counter()
        while not self._inbox.empty():
            message = self._inbox.get_nowait()
            if message is not None:
                listener(message, now)
        self._listener = listener

    def close(self) -> None:
        """Send the closing frame and close the socket, without waiting for the server."""
        if self.transport is None or self.closed:
            return
        self.protocol.send_close(1000)
        self._flush()
        self.closed = True
        self.transport.close()

    def abort(self) -> None:
        if self.transport is not None:
            self.closed = True
            self.transport.abort()

    # -- inside ---------------------------------------------------------------------

    def _flush(self) -> None:
        assert self.transport is not None
        for data in self.protocol.data_to_send():
            if data:
                self.transport.write(data)

    def _handshake(self, data: bytes) -> None:
        self._head += data
        end = self._head.find(b"\r\n\r\n")
        if end < 0:
            return
        head, rest = self._head[: end + 4], self._head[end + 4 :]
        self.protocol.receive_data(head)
        responses = [e for e in self.protocol.events_received() if isinstance(e, Response)]
        failure = self.protocol.handshake_exc
        if failure is not None or not responses:
            self._opened.set_exception(failure or Closed("no handshake response"))
            return
        self.subprotocol = self.protocol.subprotocol
        for extension in self.protocol.extensions:
            if isinstance(extension, PerMessageDeflate):
                self._window_bits = extension.remote_max_window_bits or 15
                self._fresh_inflate = extension.remote_no_context_takeover
                self._inflate = zlib.decompressobj(wbits=-self._window_bits)
        self._opened.set_result(None)
        if rest:
            self.data_received(rest)

    def _frame(self, first: int, payload: bytes, now: float) -> None:
        opcode, fin = first & 0x0F, first & 0x80
        if opcode in (_TEXT, _BINARY):
            self._compressed = bool(first & 0x40)
            if not fin:
                self._parts = [payload]
                return
            self._message(payload, now)
        elif opcode == _CONTINUATION:
            self._parts.append(payload)
            if fin:
                self._message(b"".join(self._parts), now)
                self._parts = []
        elif opcode == _PING:
            if not self.closed:
                self.protocol.send_pong(payload)
                self._flush()
        elif opcode == _CLOSE:
            self.closed = True
            if self.transport is not None:
                self.transport.close()

    def _message(self, data: bytes, now: float) -> None:
        if self._compressed:
            if self._fresh_inflate:
                self._inflate = zlib.decompressobj(wbits=-self._window_bits)
            data = self._inflate.decompress(data + _TAIL)
        listener = self._listener
        if listener is not None:
            listener(data, now)
        else:
            self._inbox.put_nowait(data)
