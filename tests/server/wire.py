"""A small raw-websocket client for the over-the-wire tests.

It speaks docs/protocol.md with nothing but `websockets` and `protocol.codec`, so the
tests check the server against the contract itself, not against a client library that
might share the server's mistakes. It keeps every raw frame it received (the redaction
tests search the bytes) and every decoded message, and it never waits without a bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol.codec import MAX_SERVER_FRAME, MSGPACK_SUBPROTOCOL, decode_server, pack
from protocol.messages import (
    Ack,
    Error,
    Events,
    Hello,
    Refused,
    ServerMessage,
    Snapshot,
    Table,
    Update,
    Welcome,
)

WAIT = 5.0
"""The longest any single expectation waits, in seconds: a test fails, never hangs."""

Frame = bytes | str
Match = Callable[[ServerMessage], bool]
_cids = itertools.count(1)


def new_cid(prefix: str = "c") -> str:
    """A fresh command id, unique within the test run."""
    return f"{prefix}-{next(_cids)}"


async def open_socket(
    url: str, subprotocols: Sequence[str] = (MSGPACK_SUBPROTOCOL,), **options: Any
) -> ClientConnection:
    """A websocket to the server that has sent nothing yet."""
    return await connect(
        url,
        subprotocols=list(subprotocols),  # type: ignore[arg-type]
        max_size=MAX_SERVER_FRAME,
        open_timeout=WAIT,
        **options,
    )


class Wire:
    """One connection: what it received (raw and decoded) and what it has not yet
    looked at (`expect` takes messages out of `pending`, in order)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.binary = ws.subprotocol == MSGPACK_SUBPROTOCOL
        self.raw: list[Frame] = []
        self.received: list[ServerMessage] = []
        self.pending: list[ServerMessage] = []
        self.welcome: Welcome | None = None

    @classmethod
    async def join(
        cls,
        url: str,
        token: str,
        *,
        subprotocol: str = MSGPACK_SUBPROTOCOL,
        resume_from_seq: int | None = None,
        events: bool = True,
        **options: Any,
    ) -> Wire:
        """Connect, say hello and wait for the welcome. `events`: ask for the raw events
        too (`Hello.events`), which most of these tests read."""
        wire = cls(await open_socket(url, [subprotocol], **options))
        hello = Hello(
            token=token, resume_from_seq=resume_from_seq, client="wire-tests", events=events
        )
        await wire.send(hello)
        welcome = await wire.expect(lambda m: isinstance(m, Welcome | Error))
        if not isinstance(welcome, Welcome):
            await wire.close()
            raise AssertionError(f"no welcome: {welcome}")
        wire.welcome = welcome
        return wire

    # -- sending ----------------------------------------------------------------------

    async def send(self, message: Any) -> None:
        """Send a message model, or plain data packed in this connection's encoding."""
        data = message.model_dump() if hasattr(message, "model_dump") else message
        await self.ws.send(pack(data, binary=self.binary))

    async def send_raw(self, frame: Frame) -> None:
        await self.ws.send(frame)

    async def command(self, command: dict[str, Any], cid: str | None = None) -> Ack | Refused:
        """Send `command` and wait for its `ack` or `refused`."""
        cid = cid or new_cid()
        await self.send({"type": "send", "cid": cid, "command": command})
        answer = await self.expect(lambda m: isinstance(m, Ack | Refused) and m.cid == cid)
        assert isinstance(answer, Ack | Refused)
        return answer

    async def acked(self, command: dict[str, Any], cid: str | None = None) -> Ack:
        """Send `command`; it must be acknowledged."""
        answer = await self.command(command, cid)
        assert isinstance(answer, Ack), f"{command['type']} was refused: {answer}"
        return answer

    async def ping(self, nonce: int) -> None:
        """A `ping` answered by its `pong`: the connection is served."""
        await self.send({"type": "ping", "nonce": nonce})
        await self.expect(lambda m: m.type == "pong" and m.nonce == nonce)

    # -- receiving --------------------------------------------------------------------

    async def receive(self, timeout: float = WAIT) -> ServerMessage:
        """The next frame off the socket, recorded and decoded."""
        frame = await asyncio.wait_for(self.ws.recv(), timeout)
        self.raw.append(frame)
        message = decode_server(frame)
        self.received.append(message)
        return message

    async def expect(self, match: Match, timeout: float = WAIT) -> ServerMessage:
        """The first message not yet taken that `match`es; later ones stay pending."""
        for index, message in enumerate(self.pending):
            if match(message):
                return self.pending.pop(index)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            message = await self.receive(max(0.0, deadline - loop.time()))
            if match(message):
                return message
            self.pending.append(message)

    async def drain(self, quiet: float = 0.2) -> None:
        """Read until nothing came for `quiet` seconds (everything queued is in)."""
        with contextlib.suppress(TimeoutError):
            while True:
                self.pending.append(await self.receive(quiet))

    async def until_seq(self, seq: int, timeout: float = WAIT) -> None:
        """Read until this connection holds every event up to `seq`."""
        if self.last_seq >= seq:
            return
        await self.expect(lambda _: self.last_seq >= seq, timeout)

    async def closed(self, timeout: float = WAIT) -> int | None:
        """Read until the server closes the connection; its close code."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        with contextlib.suppress(ConnectionClosed):
            while True:
                self.pending.append(await self.receive(max(0.0, deadline - loop.time())))
        return self.ws.close_code

    async def close(self) -> None:
        await self.ws.close()

    # -- what it holds ----------------------------------------------------------------

    @property
    def sequenced(self) -> list[tuple[int, dict[str, Any]]]:
        """Every `(seq, event)` received, in order of arrival."""
        return [
            (item.seq, item.event)
            for message in self.received
            if isinstance(message, Events | Update)
            for item in message.events or ()
        ]

    @property
    def seqs(self) -> list[int]:
        return [seq for seq, _ in self.sequenced]

    @property
    def snapshots(self) -> list[Snapshot]:
        return [m for m in self.received if isinstance(m, Snapshot)]

    @property
    def errors(self) -> list[Error]:
        return [m for m in self.received if isinstance(m, Error)]

    @property
    def last_seq(self) -> int:
        """The seq this connection is up to (its last snapshot or table and the events
        after)."""
        seq = 0
        for message in self.received:
            if isinstance(message, Snapshot | Table | Update):
                seq = max(seq, message.seq)
            elif isinstance(message, Events) and message.events:
                seq = max(seq, message.events[-1].seq)
        return seq


async def gm_view(url: str, gm_token: str) -> tuple[int, dict[str, Any]]:
    """The room's seq and the whole state, as a fresh GM connection is sent them."""
    wire = await Wire.join(url, gm_token)
    try:
        snapshot = await wire.expect(lambda m: isinstance(m, Snapshot))
        assert isinstance(snapshot, Snapshot) and wire.welcome is not None
        assert snapshot.seq == wire.welcome.seq
        return snapshot.seq, snapshot.view
    finally:
        await wire.close()


async def http_get(url: str, path: str) -> tuple[int, dict[str, str], bytes]:
    """A plain HTTP/1.1 GET on the websocket's host and port: status, headers, body."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), WAIT)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        await asyncio.wait_for(writer.drain(), WAIT)
        response = await asyncio.wait_for(reader.read(), 5)
    finally:
        writer.close()
    head, _, body = response.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines)}
    return int(status_line.split()[1]), headers, body


def lone_goblin(name: str) -> dict[str, Any]:
    """An encounter of one goblin, played by the GM: a room for tests of the wire."""
    encounter: dict[str, Any] = {
        "name": name,
        "combatants": [
            {
                "id": "g1",
                "side": "goblins",
                "sheet": {
                    "name": "Goblin",
                    "level": 1,
                    "health": 12,
                    "mana": 0,
                    "abilities": {
                        "strength": 2,
                        "dexterity": 3,
                        "constitution": 2,
                        "sanity": 0,
                        "intellect": 0,
                        "empathy": 0,
                    },
                    "defences": {
                        "physical_dodge": 13,
                        "physical_resistance": 1,
                        "spell_dodge": 10,
                        "spell_resistance": 0,
                    },
                },
            }
        ],
    }
    return encounter
