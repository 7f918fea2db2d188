"""The websocket port's plain HTTP (docs/protocol.md, "HTTP: health and metrics"):
`/healthz`, `/metrics` and the 404s with keep-alive and pipelining, a request that is
no HTTP answered 400 (431 for a head too long) with nothing logged as an error, and a
websocket upgrade taken by websockets whether it is a connection's first request or
comes after plain ones (gateway/session.py's `Socket`, server/plain_http.py).

Raw bytes on a socket (tests/support/http.py); the websocket after plain requests is
spoken with websockets' own sans-I/O client, over that same socket."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.typing import Subprotocol
from websockets.uri import parse_uri

from protocol.codec import JSON_SUBPROTOCOL, pack
from protocol.messages import Hello
from server.gateway import session
from server.plain_http import HttpLimits
from tests.server.wire import Wire
from tests.support.http import RawHttp, errors, get
from tests.support.server import Served, served
from tests.support.waiting import within


@pytest.fixture
async def server(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> AsyncIterator[Served]:
    """A server with the demo room; no test may leave an error in the log."""
    caplog.set_level(logging.DEBUG)
    async with served(tmp_path) as running:
        yield running
    assert errors(caplog.records) == []


def port_of(server: Served) -> int:
    return int(server.url.rsplit(":", 1)[1].split("/")[0])


@pytest.mark.parametrize("count", [2, 3])
async def test_requests_in_one_write_are_all_answered_in_order(server: Served, count: int) -> None:
    """The issue's case: two requests in one write got no answer, and websockets
    logged an AssertionError at error."""
    paths = ["/healthz", "/metrics", "/nothing-here"][:count]
    async with RawHttp.open(port_of(server)) as http:
        await http.send(b"".join(get(path) for path in paths))
        answers = [await http.answer() for _ in paths]

        assert [a.status for a in answers] == [200, 200, 404][:count]
        assert json.loads(answers[0].body) == {"status": "ok", "rooms": 1}
        assert b"combat_connections" in answers[1].body
        assert all("connection" not in a.headers for a in answers)  # kept
        await http.send(get("/healthz"))
        assert (await http.answer()).status == 200


async def test_a_kept_connection_serves_a_request_sent_after_the_answer(server: Served) -> None:
    async with RawHttp.open(port_of(server)) as http:
        await http.send(get("/metrics"))
        first = await http.answer()
        await http.send(get("/healthz"))
        second = await http.answer()
        await http.send(get("/ws"))  # without an upgrade
        third = await http.answer()

    assert first.status == 200 and first.headers["content-type"].startswith("text/plain")
    assert second.status == 200 and json.loads(second.body)["status"] == "ok"
    assert third.status == 400 and b"offer a subprotocol" in third.body


@pytest.mark.parametrize(
    "request_",
    [get("/healthz", "Connection: close"), b"GET /healthz HTTP/1.0\r\n\r\n"],
    ids=["Connection: close", "HTTP/1.0"],
)
async def test_connection_close_is_honoured(server: Served, request_: bytes) -> None:
    async with RawHttp.open(port_of(server)) as http:
        await http.send(request_ + get("/metrics"))  # the second is never answered
        answer = await http.answer()

        assert answer.status == 200 and answer.headers["connection"] == "close"
        assert await http.closed()


async def test_head_and_a_plain_request_on_the_upgrade_path(server: Served) -> None:
    """HEAD: the headers alone. A plain GET /ws that offers a subprotocol but no
    upgrade: 426, and the connection goes on."""
    async with RawHttp.open(port_of(server)) as http:
        await http.send(
            b"HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
            + get("/ws", f"Sec-WebSocket-Protocol: {JSON_SUBPROTOCOL}")
            + get("/healthz")
        )
        head = await http.answer(head=True)
        refused = await http.answer()
        after = await http.answer()

    assert head.status == 200 and int(head.headers["content-length"]) > 0
    assert (refused.status, refused.headers["upgrade"]) == (426, "websocket")
    assert after.status == 200


MALFORMED = {
    "garbage": b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03 a TLS hello",
    "junk lines": b"hello there\r\n\r\n",
    "a bad request line": b"GET /healthz\r\nHost: x\r\n\r\n",
    "a bad header": b"GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n",
    "cut short": b"GET /healthz HTTP/1.1\r\nHost: x\r\n",
    "after a good request": get("/healthz") + b"GET\x00 / HTTP/1.1\r\n\r\n",
}


@pytest.mark.parametrize("data", MALFORMED.values(), ids=MALFORMED.keys())
async def test_a_malformed_request_is_answered_400_and_closed_and_no_error_logged(
    server: Served, data: bytes
) -> None:
    """Nothing at error level: the `server` fixture checks the log."""
    async with RawHttp.open(port_of(server)) as http:
        await http.send(data)
        if data.endswith(b"x\r\n"):
            http.writer.write_eof()  # the head never ends
        if data.startswith(b"GET /healthz HTTP/1.1\r\nHost: 127"):
            assert (await http.answer()).status == 200
        answer = await http.answer()

        assert (answer.status, answer.body) == (400, b"bad request\n")
        assert answer.headers["connection"] == "close"
        assert await http.closed()


async def test_a_head_too_long_is_answered_431_and_closed(server: Served) -> None:
    async with RawHttp.open(port_of(server)) as http:
        await http.send(b"GET /healthz HTTP/1.1\r\nHost: x\r\nCookie: " + b"a" * 100_000)
        answer = await http.answer()

        assert answer.status == 431 and answer.headers["connection"] == "close"
        assert await http.closed()


async def test_an_idle_kept_connection_is_let_go(
    server: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session, "PLAIN_HTTP", HttpLimits(idle=0.3))
    async with RawHttp.open(port_of(server)) as http:
        await http.send(get("/healthz"))
        assert (await http.answer()).status == 200
        assert await http.closed()


async def test_a_plain_connection_ends_cleanly_before_the_open_timeout(
    server: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """websockets' open timeout bounds a plain connection's life: past
    `PLAIN_HTTP_LIFETIME` its answer says close, and it ends with a FIN, not a reset."""
    monkeypatch.setattr(session, "PLAIN_HTTP_LIFETIME", 0.0)
    async with RawHttp.open(port_of(server)) as http:
        await http.send(get("/healthz") + get("/metrics"))
        answer = await http.answer()

        assert answer.status == 200 and answer.headers["connection"] == "close"
        assert await http.closed()


class Websocket:
    """websockets' sans-I/O client over a raw connection that may have carried plain
    HTTP first."""

    def __init__(self, http: RawHttp, url: str) -> None:
        self.http = http
        self.protocol = ClientProtocol(parse_uri(url), subprotocols=[Subprotocol(JSON_SUBPROTOCOL)])
        self.protocol.send_request(self.protocol.connect())
        self.pending: list[Response | Frame] = []

    def upgrade(self) -> bytes:
        return b"".join(self.protocol.data_to_send())

    async def next_event(self) -> Response | Frame:
        while not self.pending:
            data = await within(self.http.reader.read(65536), what="the websocket")
            assert data, "the server closed"
            self.protocol.receive_data(data)
            for event in self.protocol.events_received():
                assert isinstance(event, Response | Frame)
                self.pending.append(event)
        return self.pending.pop(0)

    async def join(self, token: str) -> dict[str, object]:
        """Say hello; the welcome."""
        answer = await self.next_event()
        assert isinstance(answer, Response) and answer.status_code == 101, answer
        assert answer.headers["Sec-WebSocket-Protocol"] == JSON_SUBPROTOCOL
        self.protocol.send_text(pack(Hello(token=token).model_dump(), binary=False).encode())
        await self.http.send(b"".join(self.protocol.data_to_send()))
        frame = await self.next_event()
        assert isinstance(frame, Frame) and frame.opcode is Opcode.TEXT
        message: dict[str, object] = json.loads(frame.data)
        return message


@pytest.mark.parametrize("pipelined", [False, True], ids=["after", "in one write"])
async def test_a_websocket_upgrade_after_plain_requests_opens_the_websocket(
    server: Served, pipelined: bool
) -> None:
    """A proxy may send an upgrade on a connection it kept from a health check."""
    assert server.demo is not None
    async with RawHttp.open(port_of(server)) as http:
        websocket = Websocket(http, server.url)
        if pipelined:
            await http.send(get("/healthz") + get("/metrics") + websocket.upgrade())
            assert [(await http.answer()).status for _ in range(2)] == [200, 200]
        else:
            await http.send(get("/healthz"))
            assert (await http.answer()).status == 200
            await http.send(websocket.upgrade())
        welcome = await websocket.join(server.demo["spectator"])

    assert (welcome["type"], welcome["role"]) == ("welcome", "spectator")


async def test_a_first_request_that_upgrades_still_goes_to_websockets(server: Served) -> None:
    """The usual websocket, and one whose head arrives a byte at a time."""
    assert server.demo is not None
    wire = await Wire.join(server.url, server.demo["spectator"])
    await wire.close()
    async with RawHttp.open(port_of(server)) as http:
        websocket = Websocket(http, server.url)
        for byte in websocket.upgrade():
            await http.send(bytes([byte]))
        welcome = await websocket.join(server.demo["spectator"])
    assert welcome["role"] == "spectator"
