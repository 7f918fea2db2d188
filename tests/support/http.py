"""A raw HTTP/1.1 client for the tests of the server's plain HTTP (both ports).

Bytes are written exactly as a test gives them (two requests in one write, junk, a
head that never ends), and answers are read off the stream one by one by a reader of
a few lines, not by an HTTP library: the tests check the server against HTTP itself,
not against a library that might share its parser's mistakes. Every read has a bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

from tests.support.waiting import within

WAIT = 5.0


@dataclass
class Answer:
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes


class RawHttp:
    """One TCP connection to a port, written to and read from as raw bytes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, port: int) -> AsyncIterator[RawHttp]:
        reader, writer = await within(asyncio.open_connection("127.0.0.1", port), WAIT)
        try:
            yield cls(reader, writer)
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await within(writer.wait_closed(), WAIT)

    async def send(self, data: bytes) -> None:
        """`data` in one write."""
        self.writer.write(data)
        await within(self.writer.drain(), WAIT)

    async def answer(self, *, head: bool = False) -> Answer:
        """The next answer on the stream (`head`: to a HEAD, so without a body)."""
        status_line = await within(self.reader.readuntil(b"\r\n"), WAIT, "a status line")
        version, status, *_ = status_line.decode("latin-1").split(" ", 2)
        assert version == "HTTP/1.1", status_line
        headers: dict[str, str] = {}
        while (line := await within(self.reader.readuntil(b"\r\n"), WAIT)) != b"\r\n":
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        length = 0 if head else int(headers["content-length"])
        body = await within(self.reader.readexactly(length), WAIT, "an answer's body")
        return Answer(int(status), headers, body)

    async def closed(self, timeout: float = WAIT) -> bool:
        """True once the server has closed the connection with nothing more sent;
        False if it sends anything else first."""
        try:
            rest = await within(self.reader.read(), timeout, "the server to close")
        except ConnectionResetError:
            return False  # reset: an answer it had not read could have been lost
        return rest == b""


def get(path: str, *fields: str) -> bytes:
    """A GET request for `path`, with a Host and any other header `fields`."""
    lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", *fields, "", ""]
    return "\r\n".join(lines).encode()


def errors(records: list[logging.LogRecord]) -> list[str]:
    """The records at error level or above, as lines to show when there are some."""
    return [f"{r.name}: {r.getMessage()}" for r in records if r.levelno >= logging.ERROR]
