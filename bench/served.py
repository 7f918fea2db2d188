"""A cold embedded server on a SQLite log, and a GM's websocket to it: what
`bench.battle` and `bench.long_fight` time their commands through (`gateway` serves
any host: `bench.takeover`'s cluster process too).

The host and gateway are built as `App` builds them (the command readers first, as
`App.start` does before it serves), on the log file given; the GM's token names the
room; frames are msgpack, as the `combat` program's.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect

from server.bus.memory import MemoryBus
from server.engine.core import RULESETS
from server.eventlog import Entry
from server.eventlog.sqlite import SqliteEventLog
from server.gateway.commands import reader_for
from server.gateway.connection import Limits
from server.gateway.server import WS_PATH, Gateway
from server.gateway.tokens import TokenIssuer
from server.hosting import Embedded, Host
from server.room.clock import SystemClock

SECRET = b"bench-served-secret-of-32-bytes!!!"


@dataclass
class Gm:
    """A GM's connection (`ws`, not yet said hello) with its token."""

    ws: ClientConnection
    token: str

    async def hello(self) -> dict[str, Any]:
        """Say hello as the GM; the table that follows."""
        hello = {"type": "hello", "protocol": 2, "token": self.token, "resume_from_seq": None}
        await self.ws.send(msgpack.packb(hello))
        return await self.until("table")

    async def send(self, cid: str, command: dict[str, Any], answer: str = "ack") -> None:
        """Send `command` and wait for the frame of type `answer` that follows."""
        await self.ws.send(msgpack.packb({"type": "send", "cid": cid, "command": command}))
        await self.until(answer)

    async def until(self, kind: str, timeout: float = 60.0) -> dict[str, Any]:
        """The next frame of type `kind` (each wait bounded by `timeout`);
        `RuntimeError` on a refusal or an error on the way."""
        while True:
            frame = msgpack.unpackb(await asyncio.wait_for(self.ws.recv(), timeout))
            if frame["type"] == kind:
                return dict(frame)
            if frame["type"] in ("refused", "error"):
                raise RuntimeError(f"the server said {frame}")


@dataclass
class Served(Gm):
    """The GM's connection and the host behind it."""

    host: Host


@asynccontextmanager
async def served(path: Path, room: str, limits: Limits | None = None) -> AsyncIterator[Served]:
    """A fresh host and gateway on the log at `path` (which holds `room`), and a GM's
    connection to it; all closed on the way out."""
    log = SqliteEventLog(path)
    clock = SystemClock()
    issuer = TokenIssuer(SECRET)
    host = Host(log, Embedded(log, MemoryBus[Entry](), clock), clock, issuer)
    try:
        async with gateway(host, issuer, room, limits) as gm:
            yield gm
    finally:
        await host.close()
        await log.close()


@asynccontextmanager
async def gateway(
    host: Host, issuer: TokenIssuer, room: str, limits: Limits | None = None
) -> AsyncIterator[Served]:
    """A gateway serving `host` (the command readers built first, as `App.start` does),
    and a GM of `room` connected to it; the gateway closed on the way out, not `host`."""
    for ruleset in RULESETS:
        reader_for(ruleset)
    server = await Gateway(host, limits or Limits()).serve("127.0.0.1", 0)
    port = next(iter(server.sockets)).getsockname()[1]
    token = issuer.join_tokens(room, {})["gm"]
    try:
        async with connected(f"ws://127.0.0.1:{port}{WS_PATH}") as ws:
            yield Served(ws, token, host)
    finally:
        server.close()
        await server.wait_closed()


@asynccontextmanager
async def connected(url: str) -> AsyncIterator[ClientConnection]:
    """A msgpack websocket to the server at `url` (a `ws://.../ws` address)."""
    async with connect(
        url,
        subprotocols=["verse.msgpack.v2"],  # type: ignore[list-item]
        max_size=2**24,
    ) as ws:
        yield ws
