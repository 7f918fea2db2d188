"""What the client does when the stream breaks its promises: a scripted server.

The real server never leaves a gap or repeats an event (its own tests hold it to
that), so these cases are played by a small websocket server that follows a script:
each connection answers `hello` with a welcome and then sends the frames it is given.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.typing import Subprotocol

from clients.client import Client, ConnectionLost, GapFound, JoinError
from protocol.codec import MSGPACK_SUBPROTOCOL, decode, pack
from protocol.messages import Hello
from tests.support.server import wait_for
from tests.support.waiting import within

Script = Callable[[ServerConnection, Hello, int], Any]


@dataclass
class Scripted:
    url: str = ""
    hellos: list[Hello] = field(default_factory=list)


def welcome(seq: int) -> dict[str, Any]:
    return {
        "type": "welcome",
        "protocol": 1,
        "room": "r-1",
        "ruleset": "verse",
        "role": "spectator",
        "seat": "",
        "controls": [],
        "seq": seq,
    }


def events(*seqs: int) -> dict[str, Any]:
    return {
        "type": "events",
        "events": [{"seq": s, "event": {"$type": "RoundStarted", "round": s}} for s in seqs],
    }


def snapshot(seq: int) -> dict[str, Any]:
    return {"type": "snapshot", "seq": seq, "view": {"$type": "Encounter", "window": None}}


@pytest.fixture
def scripted() -> Callable[[Script], Any]:
    """`async with scripted(script) as server`: a server playing `script` per connection."""

    def make(script: Script) -> Any:
        return _serve(script)

    return make


class _serve:
    def __init__(self, script: Script) -> None:
        self.script = script
        self.state = Scripted()
        self.server: Any = None

    async def __aenter__(self) -> Scripted:
        async def handler(ws: ServerConnection) -> None:
            hello = decode(await within(ws.recv(), what="the client's hello"))
            assert isinstance(hello, Hello)
            self.state.hellos.append(hello)
            await self.script(ws, hello, len(self.state.hellos))
            await ws.wait_closed()  # until the client leaves, or `__aexit__` closes it

        offered = [Subprotocol(MSGPACK_SUBPROTOCOL)]
        self.server = await serve(handler, "127.0.0.1", 0, subprotocols=offered)
        port = next(iter(self.server.sockets)).getsockname()[1]
        self.state.url = f"ws://127.0.0.1:{port}/ws"
        return self.state

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()  # its connections too: each handler's wait ends
        await within(self.server.wait_closed(), what="the scripted server to close")


async def send(ws: ServerConnection, *messages: dict[str, Any]) -> None:
    for message in messages:
        await ws.send(pack(message))


async def test_a_gap_makes_the_client_resume_from_the_last_event_it_holds(
    scripted: Callable[[Script], Any],
) -> None:
    async def script(ws: ServerConnection, hello: Hello, nth: int) -> None:
        if nth == 1:
            await send(ws, welcome(0), snapshot(0), events(1, 2), events(4))  # 3 is missing
        else:
            await send(ws, welcome(4), events(3, 4))

    async with (
        scripted(script) as server,
        await Client.connect(server.url, "t", keep_events=True) as client,
    ):
        await wait_for(lambda: client.seq == 4)
        assert [hello.resume_from_seq for hello in server.hellos] == [None, 2]
        assert [seq for seq, _ in client.events] == [1, 2, 3, 4]
        assert (client.gaps, client.repeats, client.connections) == (1, 0, 2)
        found = [m async for m in _until(client, GapFound)]
        assert found[-1] == GapFound(expected=3, got=4)


async def test_a_repeated_event_is_dropped_and_counted(
    scripted: Callable[[Script], Any],
) -> None:
    async def script(ws: ServerConnection, hello: Hello, nth: int) -> None:
        await send(ws, welcome(0), snapshot(0), events(1, 2), events(2, 3))

    async with (
        scripted(script) as server,
        await Client.connect(server.url, "t", keep_events=True) as client,
    ):
        await wait_for(lambda: client.seq == 3)
        assert [seq for seq, _ in client.events] == [1, 2, 3]
        assert (client.gaps, client.repeats) == (0, 1)


async def test_a_closed_room_is_not_reconnected_to(scripted: Callable[[Script], Any]) -> None:
    async def script(ws: ServerConnection, hello: Hello, nth: int) -> None:
        await send(ws, welcome(0), snapshot(0))
        await ws.close(4004, "room_closed")

    async with (
        scripted(script) as server,
        await Client.connect(
            server.url, "t", auto_reconnect=True, backoff=(0.01,), keep_events=True
        ) as client,
    ):
        lost = [m async for m in _until(client, ConnectionLost)][-1]
        assert lost == ConnectionLost(code=4004, reason="room_closed", reconnecting=False)
        await asyncio.sleep(0.05)  # bounded: time for a reconnection that must not happen
        assert len(server.hellos) == 1


async def test_a_refused_handshake_raises_with_the_servers_code(
    scripted: Callable[[Script], Any],
) -> None:
    async def script(ws: ServerConnection, hello: Hello, nth: int) -> None:
        await send(ws, {"type": "error", "code": "token_expired", "message": "expired"})
        await ws.close(4002, "token_expired")

    async with scripted(script) as server:
        with pytest.raises(JoinError) as error:
            await Client.connect(server.url, "old", keep_events=True)
    assert (error.value.code, error.value.message, error.value.close_code) == (
        "token_expired",
        "expired",
        4002,
    )
    assert error.value.final


async def _until(client: Client, kind: type) -> AsyncIterator[Any]:
    """Messages from the client's stream up to the first of `kind` (bounded)."""
    stream = client.messages()
    while True:
        message = await asyncio.wait_for(anext(stream), 5)
        yield message
        if isinstance(message, kind):
            return
