"""The web app's port speaks HTTP/1.1 to any client (server/plain_http.py): pipelined
and keep-alive requests answered in order, `Connection: close` and HTTP/1.0 honoured,
a request that is no HTTP answered 400 (431 for a head too long) and its connection
closed, with nothing logged as an error; every connection bounded in time.

The client is raw bytes on a socket (tests/support/http.py). No browser is needed."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.plain_http import HttpLimits, HttpServer
from server.web import WebApp
from tests.support.http import RawHttp, errors, get
from tests.support.waiting import within

CONFIG = {"ws_port": 4321, "ws_path": "/ws"}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "web"
    root.mkdir()
    (root / "index.html").write_text("<!doctype html><title>table</title>")
    (root / "app.css").write_text("body { margin: 0 }")
    return root


@pytest.fixture
async def port(site: Path, caplog: pytest.LogCaptureFixture) -> AsyncIterator[int]:
    """The web app on a free port; no test may leave an error in the log."""
    caplog.set_level(logging.DEBUG)
    web = await WebApp(ws_port=4321, root=site).serve("127.0.0.1", 0)
    try:
        yield web.sockets[0].getsockname()[1]
    finally:
        web.close()
        await within(web.wait_closed(), what="the web app to stop")
    assert errors(caplog.records) == []


@pytest.mark.parametrize("count", [2, 3])
async def test_requests_in_one_write_are_all_answered_in_order(port: int, count: int) -> None:
    """The issue's case: `GET /config.json` twice in one write got no answer at all."""
    paths = ["/config.json", "/app.css", "/"][:count]
    async with RawHttp.open(port) as http:
        await http.send(b"".join(get(path) for path in paths))
        answers = [await http.answer() for _ in paths]

        assert [a.status for a in answers] == [200] * count
        assert json.loads(answers[0].body) == CONFIG
        assert answers[1].body == b"body { margin: 0 }"
        assert all("connection" not in a.headers for a in answers)  # kept
        await http.send(get("/config.json"))  # and still served
        assert (await http.answer()).status == 200


async def test_a_kept_connection_serves_a_request_sent_after_the_answer(port: int) -> None:
    async with RawHttp.open(port) as http:
        await http.send(get("/app.css"))
        first = await http.answer()
        await http.send(get("/missing.js"))
        second = await http.answer()
        await http.send(get("/config.json"))
        third = await http.answer()

    assert (first.status, second.status, third.status) == (200, 404, 200)
    assert second.body == b"not found\n" and json.loads(third.body) == CONFIG
    assert second.headers["x-content-type-options"] == "nosniff"  # headers as before


@pytest.mark.parametrize(
    "request_",
    [
        get("/config.json", "Connection: close"),
        b"GET /config.json HTTP/1.0\r\n\r\n",  # no keep-alive in HTTP/1.0
    ],
    ids=["Connection: close", "HTTP/1.0"],
)
async def test_connection_close_is_honoured(port: int, request_: bytes) -> None:
    async with RawHttp.open(port) as http:
        await http.send(request_ + get("/app.css"))  # the second is never answered
        answer = await http.answer()

        assert answer.status == 200 and json.loads(answer.body) == CONFIG
        assert answer.headers["connection"] == "close"
        assert await http.closed()


async def test_head_gets_the_headers_without_a_body_and_the_next_request_is_read(
    port: int,
) -> None:
    async with RawHttp.open(port) as http:
        await http.send(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n" + get("/app.css"))
        head = await http.answer(head=True)
        after = await http.answer()

    assert head.status == 405 and head.headers["allow"] == "GET"  # only GET, as before
    assert after.status == 200 and after.body == b"body { margin: 0 }"


MALFORMED = {
    "garbage": b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03 a TLS hello",
    "junk lines": b"hello there\r\n\r\n",
    "a bad request line": b"GET /config.json\r\nHost: x\r\n\r\n",
    "a bad header": b"GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n",
    "no Host in HTTP/1.1": b"GET / HTTP/1.1\r\n\r\n",
    "a path that is not ASCII": "GET /é HTTP/1.1\r\nHost: x\r\n\r\n".encode(),
    "after a good request": get("/app.css") + b"GET\x00 / HTTP/1.1\r\n\r\n",
}


@pytest.mark.parametrize("data", MALFORMED.values(), ids=MALFORMED.keys())
async def test_a_malformed_request_is_answered_400_and_closed_and_no_error_logged(
    port: int, data: bytes
) -> None:
    """Nothing at error level: the `port` fixture checks the log."""
    async with RawHttp.open(port) as http:
        await http.send(data)
        if data.startswith(b"GET /app.css"):
            assert (await http.answer()).status == 200
        answer = await http.answer()

        assert (answer.status, answer.body) == (400, b"bad request\n")
        assert answer.headers["connection"] == "close"
        assert await http.closed()


async def test_a_head_too_long_is_answered_431_and_closed(port: int) -> None:
    """A header line past `HttpLimits.max_head` (64 KiB) that never ends, or one that
    came whole: refused, not held."""
    async with RawHttp.open(port) as http:
        await http.send(b"GET / HTTP/1.1\r\nHost: x\r\nCookie: " + b"a" * 100_000)
        answer = await http.answer()

        assert answer.status == 431 and answer.headers["connection"] == "close"
        assert await http.closed()
    async with RawHttp.open(port) as http:
        await http.send(get("/", "Cookie: " + "a" * 100_000))
        assert (await http.answer()).status == 431


async def test_a_body_is_read_and_dropped_and_a_large_one_refused(port: int) -> None:
    async with RawHttp.open(port) as http:
        await http.send(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        await http.send(get("/app.css"))
        assert (await http.answer()).status == 405
        assert (await http.answer()).status == 200
    async with RawHttp.open(port) as http:
        await http.send(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        await http.send(b"x" * 100_000)
        answer = await http.answer()
        assert answer.status == 413 and await http.closed()


async def test_a_client_that_closes_its_side_still_gets_its_answers(port: int) -> None:
    async with RawHttp.open(port) as http:
        await http.send(get("/app.css") + get("/config.json"))
        http.writer.write_eof()
        assert [(await http.answer()).status for _ in range(2)] == [200, 200]
        assert await http.closed()


async def served_with(site: Path, limits: HttpLimits) -> tuple[HttpServer, int]:
    web = await WebApp(ws_port=4321, root=site).serve("127.0.0.1", 0, limits)
    return web, web.sockets[0].getsockname()[1]


async def test_an_idle_or_slow_connection_is_closed_after_the_idle_timeout(site: Path) -> None:
    web, port = await served_with(site, HttpLimits(idle=0.3))
    try:
        async with RawHttp.open(port) as idle:
            await idle.send(get("/app.css"))
            assert (await idle.answer()).status == 200
            assert await idle.closed()  # nothing more asked: let go
        async with RawHttp.open(port) as slow:
            await slow.send(b"GET / HTTP/1.1\r\n")  # and never the rest
            assert await slow.closed()
    finally:
        web.close()
        await within(web.wait_closed())


async def test_the_last_request_a_connection_may_make_is_answered_with_close(
    site: Path,
) -> None:
    web, port = await served_with(site, HttpLimits(max_requests=2))
    try:
        async with RawHttp.open(port) as http:
            await http.send(get("/app.css") * 3)
            first, second = await http.answer(), await http.answer()

            assert "connection" not in first.headers
            assert second.headers["connection"] == "close"
            assert await http.closed()
    finally:
        web.close()
        await within(web.wait_closed())


async def test_stopping_closes_kept_connections_at_once(site: Path) -> None:
    web, port = await served_with(site, HttpLimits(idle=60.0))
    async with RawHttp.open(port) as http:
        await http.send(get("/app.css"))
        assert (await http.answer()).status == 200
        started = asyncio.get_running_loop().time()
        web.close()
        await within(web.wait_closed(), 2.0, "the web app to stop")
        assert await http.closed(2.0)
    assert asyncio.get_running_loop().time() - started < 2.0
