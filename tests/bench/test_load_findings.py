"""What the load benchmark found in the server, kept as tests on the smallest case.

Under load every command's events were followed by a `window` frame to every client,
doubling the frames the server sent. docs/protocol.md says when a `window` message
comes: "when a window opens, when a pause freezes it or a resume restarts it, after a
rewind, and once after the handshake if a window is open" (and the feed also sends
one when the window's answers change), and `choices` only when they change. A player
declaring again in the planning window (V20) changes none of these, so it must cost
one `update` frame, no more.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from protocol import MSGPACK_SUBPROTOCOL, decode_server, encode, pack
from protocol.messages import Ack, Hello, ServerMessage, Update
from tests.support.server import served
from tests.support.waiting import within

DECLARE = {
    "type": "Declare",
    "actor": "ayla",
    "actions": [{"$type": "Attack", "actor": "ayla", "target": "g1", "weapon": "longsword"}],
    "turn": 0,
}


class Reader:
    """One connection and every message it received, in order."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seen: list[ServerMessage] = []

    @classmethod
    async def join(cls, url: str, token: str) -> Reader:
        ws = await connect(url, subprotocols=[MSGPACK_SUBPROTOCOL])  # type: ignore[list-item]
        await ws.send(encode(Hello(token=token)))
        return cls(ws)

    async def until(self, done: Callable[[ServerMessage], bool]) -> ServerMessage:
        """Read on until a message (already received or new) for which `done` holds;
        the whole search within one deadline, however many other messages come."""
        for message in self.seen:
            if done(message):
                return message

        async def read() -> ServerMessage:
            while True:
                message = decode_server(await self.ws.recv())
                self.seen.append(message)
                if done(message):
                    return message

        return await within(read(), what="the message the test waits for")

    async def command(self, cid: str, command: dict[str, Any]) -> Ack:
        await self.ws.send(pack({"type": "send", "cid": cid, "command": command}))
        answer = await self.until(lambda m: getattr(m, "cid", None) == cid)
        assert isinstance(answer, Ack), answer
        return answer

    def update_of(self, seq: int) -> int:
        """The index of the `update` message that brings the table to `seq`."""
        for index, message in enumerate(self.seen):
            if isinstance(message, Update) and message.from_seq < seq <= message.seq:
                return index
        raise AssertionError(f"no update message carries seq {seq}")


def _carries(seq: int) -> Callable[[ServerMessage], bool]:
    return lambda m: isinstance(m, Update) and m.from_seq < seq <= m.seq


async def test_declaring_again_sends_no_window_message(tmp_path: Path) -> None:
    async with served(tmp_path) as server:
        assert server.demo is not None
        gm = await Reader.join(server.url, server.demo["gm"])
        ayla = await Reader.join(server.url, server.demo["players"]["ayla"])
        await gm.command("start", {"type": "StartCombat"})  # the planning window opens
        first = await ayla.command("first", DECLARE)
        await ayla.until(_carries(first.last_seq))
        again = await ayla.command("again", DECLARE)  # the same declaration once more
        await ayla.until(_carries(again.last_seq))
        # a batch's window message is queued right after its update, so whatever came
        # after the update and before this pong belongs to the batch
        await ayla.ws.send(pack({"type": "ping", "nonce": 1}))
        await ayla.until(lambda m: m.type == "pong")
        update = ayla.update_of(again.last_seq)
        carried = ayla.seen[update]
        assert isinstance(carried, Update) and len(carried.log) == 1  # its one event
        after = ayla.seen[update + 1 :]
        assert [m.type for m in after if m.type not in ("ack", "choices")] == ["pong"]
        # (its choices come from the feed's own task, a little later: that the same
        # choices are not sent again is tests/server/test_table_stream.py's to check)
        await within(gm.ws.close(), what="closing the GM's connection")
        await within(ayla.ws.close(), what="closing Ayla's connection")
