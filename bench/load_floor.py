"""The floor: the least server that does the combat server's wire work, and nothing else.

    python -m bench.load_floor --frames FRAMES.json --host-token-file PATH

Why it exists: the bare broadcast (`bench.load_bare`) is the yardstick of the saturate
phase, but it is not a server any protocol could reach. It reads nothing and answers
nothing: it writes the same frames over and over, as fast as the sockets take them.
A server playing the game, even one whose own work cost nothing, must also read every
command frame, decode it, acknowledge the sender, and broadcast the event only once
the command came in, one command at a time per player (a player sends its next only
when the last is answered). This server does exactly that wire work and nothing more,
so what it delivers a second is the ceiling of the combat server on this machine with
these bots: `combat / floor` is the share of that ceiling the combat server reaches
(the rest is its own work), and `floor / bare` is what the wire work alone leaves of
the bare broadcast, that is how high `combat / bare` could go at all.

What it does, on a free loopback port (printing `serving on ws://...`):

* handshake: `hello` -> `welcome`, and for a room's token a `table` (a table with
  nobody in it, at the room's seq); the host token (written to `--host-token-file`) may `create`
  rooms, answered by `created` with made-up tokens for the GM, each seat the
  encounter names and the spectators. The encounter itself is not read further.
  Handshake messages go through `protocol`'s models and codec, so the bots' checks
  hold; none of this is in the measuring window.
* every frame of a room's connection: a bare msgpack decode for its `cid`; the room's
  seq goes up by one; one `update` frame per kind of client (GM, player, spectator),
  broadcast to the room's connections of that kind; then an `ack` naming that seq to
  the sender (`broadcast` to the one connection, as the combat server's session
  writes its frames). Each kind's frame is the `update` frame that kind of client got
  from the combat server in the same run (`bench.load_bots saturate --frames-out`,
  the same file the bare broadcast sends: its patch and its one log line), re-sent
  under the room's seqs (`from_seq`, `seq` and the line's `seq`): the same bytes, of
  the same sizes, as the combat server sent.

What it does not do: validate the command (pydantic), read it into an engine command,
authorize it, decide or apply it, append it to an event log, publish it on a bus,
build views, tables, patches or log lines per audience (the updates are pre-encoded),
send `window` or `choices` messages, rate-limit connections, or
settle its garbage collector. Its settings are the gateway's own
(`server/gateway/server.py`): no permessage-deflate, the same frame size, queue and
write limits, the same pings.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import secrets
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

import msgpack
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from bench.load_bare import WRITE_LIMIT, frames_of
from bench.load_proc import raise_fd_limit
from protocol import MAX_FRAME, MSGPACK_SUBPROTOCOL, decode, encode
from protocol.messages import Create, Created, Hello, Table, Welcome
from protocol.table import GridView, TableView

Role = Literal["gm", "player", "spectator"]
ROLES: tuple[Role, ...] = get_args(Role)
TOKEN_EXPIRES_AT = 2**40  # seconds since the epoch: never, for a benchmark
GRID = GridView(kind="square")
packb = msgpack.packb


class UpdateFrames:
    """Each kind of client's `update` frame, holding one event, for any seq.

    The captured frame is msgpack's bytes of `{"type": "update", "from_seq": seq - 1,
    "seq": seq, "patch": [...], "log": [{"seq": seq, ...}]}`: it is cut where its seqs
    are, once, so that `frame(kind, seq)` only joins the pieces around the new ones."""

    _FROM, _SEQ = packb("\x00from_seq\x00"), packb("\x00seq\x00")  # found in no frame
    _CUT = re.compile(b"(" + re.escape(_FROM) + b"|" + re.escape(_SEQ) + b")")

    def __init__(self, captured: dict[str, bytes]) -> None:
        self.layouts: dict[Role, tuple[list[bytes], list[int]]] = {}
        for kind in ROLES:
            message = msgpack.unpackb(captured[kind])
            seq = _one_event(kind, message)
            marked = {**message, "from_seq": "\x00from_seq\x00", "seq": "\x00seq\x00"}
            for items in ("log", "events"):
                if items in message:
                    marked[items] = [{**item, "seq": "\x00seq\x00"} for item in message[items]]
            cut = self._CUT.split(packb(marked))
            self.layouts[kind] = (cut[0::2], [0 if mark == self._FROM else 1 for mark in cut[1::2]])
            if self.frame(kind, seq) != captured[kind]:
                raise ValueError(f"the {kind}'s update frame is not laid out as msgpack's")

    def frame(self, kind: Role, seq: int) -> bytes:
        """`kind`'s frame of the batch that takes the room from `seq - 1` to `seq`."""
        parts, marks = self.layouts[kind]
        numbers = (packb(seq - 1), packb(seq))
        pieces = [parts[0]]
        for mark, part in zip(marks, parts[1:], strict=True):
            pieces += (numbers[mark], part)
        return b"".join(pieces)


def _one_event(kind: str, message: dict[str, Any]) -> int:
    """The seq of the one event `message`, an `update` frame, carries; ValueError when
    it is not such a frame."""
    # One command, one event (a declaration while planning is open): a frame of several
    # would not be the same work, so the run would compare badly.
    if message.get("type") != "update" or len(message.get("log", ())) != 1:
        raise ValueError(f"the {kind}'s captured frame is not an update of exactly one event")
    seq = message["seq"]
    if message["from_seq"] != seq - 1 or message["log"][0].get("seq") != seq:
        raise ValueError(f"the {kind}'s captured update does not hold exactly one event")
    if len(message.get("events", ())) > 1:
        raise ValueError(f"the {kind}'s captured update does not hold exactly one event")
    return int(seq)


@dataclass
class Room:
    """One encounter: its seq and its connections by kind of client."""

    id: str
    ruleset: str
    seq: int = 0
    members: dict[Role, list[ServerConnection]] = field(
        default_factory=lambda: {role: [] for role in ROLES}
    )


@dataclass(frozen=True)
class Grant:
    """What a room token lets its holder be."""

    room: Room
    role: Role
    seat: str = ""


class Floor:
    def __init__(self, frames: UpdateFrames, host_token: str) -> None:
        self.frames = frames
        self.host_token = host_token
        self.rooms: list[Room] = []
        self.tokens: dict[str, Grant] = {}

    async def handler(self, ws: ServerConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            hello = decode(await ws.recv())
            if not isinstance(hello, Hello):
                await ws.close(1008, "hello first")
            elif hello.token == self.host_token:
                await self.host(ws)
            elif hello.token in self.tokens:
                await self.member(ws, self.tokens[hello.token])
            else:
                await ws.close(1008, "unknown token")

    async def host(self, ws: ServerConnection) -> None:
        await ws.send(encode(Welcome(room="", ruleset="", role="host", seq=0)))
        async for frame in ws:
            message = decode(frame)
            if isinstance(message, Create):
                await ws.send(encode(self.create(message)))

    def create(self, message: Create) -> Created:
        ruleset = message.encounter.get("ruleset")
        room = Room(f"floor-{len(self.rooms)}", ruleset if isinstance(ruleset, str) else "verse")
        self.rooms.append(room)
        combatants: Any = message.encounter.get("combatants", [])
        seats = [c["seat"] for c in combatants if isinstance(c, dict) and c.get("seat")]
        gm, spectator = self.token(Grant(room, "gm")), self.token(Grant(room, "spectator"))
        players = {seat: self.token(Grant(room, "player", seat)) for seat in seats}
        name = message.encounter.get("name", "")
        return Created(
            cid=message.cid,
            room=room.id,
            name=name if isinstance(name, str) else "",
            ruleset=room.ruleset,
            gm=gm,
            players=players,
            spectator=spectator,
            expires_at=TOKEN_EXPIRES_AT,
        )

    def token(self, grant: Grant) -> str:
        token = secrets.token_urlsafe(16)
        self.tokens[token] = grant
        return token

    async def member(self, ws: ServerConnection, grant: Grant) -> None:
        room = grant.room
        controls = [grant.seat] if grant.seat else []
        welcome = Welcome(
            room=room.id,
            ruleset=room.ruleset,
            role=grant.role,
            seat=grant.seat,
            controls=controls,
            seq=room.seq,
        )
        await ws.send(encode(welcome))
        view = TableView(ruleset=room.ruleset, mode="live", phase="setup", grid=GRID)
        await ws.send(encode(Table(seq=room.seq, view=view)))
        members = room.members[grant.role]
        members.append(ws)
        try:
            await self.commands(ws, room)
        finally:
            members.remove(ws)

    async def commands(self, ws: ServerConnection, room: Room) -> None:
        """Each command frame: one update to the room, then the sender's ack."""
        sender = (ws,)
        frame = self.frames.frame
        members = room.members
        unpackb = msgpack.unpackb
        async for data in ws:
            message = unpackb(data)
            if message.get("type") != "send":
                continue
            room.seq += 1
            seq = room.seq
            for kind in ROLES:
                broadcast(members[kind], frame(kind, seq))
            ack = {"type": "ack", "cid": message["cid"], "first_seq": seq, "last_seq": seq}
            broadcast(sender, packb(ack))


async def main_async(args: argparse.Namespace) -> None:
    captured = frames_of(Path(args.frames))
    frames = UpdateFrames(captured)
    host_token = secrets.token_urlsafe(24)
    Path(args.host_token_file).write_text(host_token + "\n", encoding="utf-8")
    floor = Floor(frames, host_token)
    async with serve(
        floor.handler,
        "127.0.0.1",
        0,
        subprotocols=[Subprotocol(MSGPACK_SUBPROTOCOL)],  # what the clients offer
        max_size=MAX_FRAME,
        compression=None,
        max_queue=16,
        write_limit=WRITE_LIMIT,
        ping_interval=20,
        ping_timeout=20,
        close_timeout=5,
    ) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"floor server: serving on ws://127.0.0.1:{port}/ws", flush=True)
        stop = asyncio.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(signum, stop.set)
        await stop.wait()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="the floor server for bench.load")
    parser.add_argument("--frames", required=True, help="bench.load_bots --frames-out")
    parser.add_argument("--host-token-file", required=True, help="written at start-up")
    args = parser.parse_args(argv)
    raise_fd_limit()
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
