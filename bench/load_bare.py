"""The yardstick: a bare `websockets` server broadcasting the combat server's frames.

    python -m bench.load_bare --clients N --frames FRAMES.json [--group 10]
    python -m bench.load_bare


It accepts connections on a free loopback port (printing `serving on ws://...`), and
once `N` clients are connected it broadcasts, as fast as it can and for as long as it
runs, to groups of `--group` clients in turn: a group is one encounter's table (the
GM, four players, five spectators, in the order they connected), and each member gets
the `update` frame its kind of client last got from the combat server in the same run
(`bench.load_bots saturate --frames-out`), byte for byte. So the bare server sends the
same frames, of the same sizes, to as many clients as the combat server had, with
none of its work: no commands, no engine, no log, no redaction.

Settings are the combat server's own (`server/gateway/server.py`): the same write
limit, and no permessage-deflate (the gateway turns it off, so a client offering it
gets plain frames from both). `websockets.broadcast` has no
backpressure, so after each sweep over the groups the broadcaster waits while any
connection holds more than the write limit unsent, as the combat server's per
connection writer does; nothing is dropped, and what the clients count is what was
delivered.

Without `--frames` it broadcasts nothing and echoes every message it reads: the least
websockets server that holds connections open, the yardstick of `bench.load`'s idle
phase (`bench.load_bots idle_bare`), with the same settings.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
from pathlib import Path

from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from bench.load_proc import raise_fd_limit
from protocol import MSGPACK_SUBPROTOCOL

WRITE_LIMIT = 64 * 1024  # as the gateway's `write_limit`
KINDS = ("gm", "player", "player", "player", "player", *("spectator",) * 5)


def frames_of(path: Path) -> dict[str, bytes]:
    """The captured frames by kind of client; a missing kind takes another's."""
    found = {kind: bytes.fromhex(text) for kind, text in json.loads(path.read_text()).items()}
    if not found:
        raise ValueError(f"{path}: no frame was captured")
    fallback = next(iter(found.values()))
    return {kind: found.get(kind, fallback) for kind in set(KINDS)}


class Broadcaster:
    def __init__(self, clients: int, group: int, frames: dict[str, bytes]) -> None:
        self.clients = clients
        self.group = group
        self.frames = frames
        self.connections: list[ServerConnection] = []
        self.task: asyncio.Task[None] | None = None

    async def handler(self, ws: ServerConnection) -> None:
        self.connections.append(ws)
        if len(self.connections) == self.clients and self.task is None:
            self.task = asyncio.create_task(self.run())
        await ws.wait_closed()
        self.connections.remove(ws)

    def plan(self) -> list[tuple[list[ServerConnection], bytes]]:
        """Per group and per kind of client: who gets which frame, in one broadcast."""
        steps: list[tuple[list[ServerConnection], bytes]] = []
        for start in range(0, len(self.connections), self.group):
            members = self.connections[start : start + self.group]
            by_kind: dict[str, list[ServerConnection]] = {}
            for index, ws in enumerate(members):
                by_kind.setdefault(KINDS[index % len(KINDS)], []).append(ws)
            steps.extend((group, self.frames[kind]) for kind, group in by_kind.items())
        return steps

    async def run(self) -> None:
        steps = self.plan()
        transports = [ws.transport for ws in self.connections]
        while len(self.connections) == self.clients:  # until the first client leaves
            for members, frame in steps:
                broadcast(members, frame)
            await asyncio.sleep(0)
            while any(t.get_write_buffer_size() > WRITE_LIMIT for t in transports):
                await asyncio.sleep(0.0005)


async def echo(ws: ServerConnection) -> None:
    """Send back every message read, until the client leaves (an abort too: the idle
    phase's clients leave without a closing handshake)."""
    with contextlib.suppress(ConnectionClosed):
        while True:
            await ws.send(await ws.recv())


async def main_async(args: argparse.Namespace) -> None:
    broadcaster = None
    if args.frames:
        broadcaster = Broadcaster(args.clients, args.group, frames_of(Path(args.frames)))
    async with serve(
        echo if broadcaster is None else broadcaster.handler,
        "127.0.0.1",
        0,
        subprotocols=[Subprotocol(MSGPACK_SUBPROTOCOL)],  # what the clients offer
        max_size=64 * 1024,
        max_queue=16,
        write_limit=WRITE_LIMIT,
        ping_interval=20,
        ping_timeout=20,
        close_timeout=5,
        compression=None,  # as the gateway
    ) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"bare broadcast: serving on ws://127.0.0.1:{port}/", flush=True)
        stop = asyncio.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(signum, stop.set)
        await stop.wait()  # then return: a profiler running this process writes its file
        if broadcaster is not None and broadcaster.task is not None:
            broadcaster.task.cancel()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="bare websockets broadcast for bench.load")
    parser.add_argument("--clients", type=int, default=0)
    parser.add_argument("--group", type=int, default=len(KINDS))
    parser.add_argument("--frames", default="", help="without: an echo server")
    args = parser.parse_args(argv)
    raise_fd_limit()
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
