"""What an open connection that waits costs the server (issue 16, "Capacity": at most
15 KiB a connection, weighed whole by `bench.load --mode idle`).

Here the server's side of 100 joined, quiet spectators is traced (`tracemalloc`, in
this process): what the server's code and websockets' server side allocated for them
and still hold. It was about 16 KiB a connection while every connection kept its
handshake's headers, the last message it read and a coroutine more; it is about 10 KiB
since. A connection that again keeps what it no longer needs shows here, whatever the
machine's load. A health check comes first, as it does in a deployment: it once made
every later connection's dict of attributes 1.3 KiB larger (`Socket.__slots__`).
"""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from pathlib import Path

import server as server_package
from tests.server.wire import Wire, http_get
from tests.support.server import served

SPECTATORS = 100
BUDGET = 12 * 1024
"""Bytes a connection's server side may hold, as traced here (about 10 KiB today)."""
SERVER_DIR = str(Path(server_package.__file__).parent) + "/"
WEBSOCKETS_SERVER = ("/websockets/asyncio/server.py", "/websockets/server.py")


def _server_side(frame: tracemalloc.Frame) -> bool:
    name = frame.filename
    return name.startswith(SERVER_DIR) or name.endswith(WEBSOCKETS_SERVER)


def _held(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot) -> int:
    """The bytes allocated between the snapshots, still held, by the server's code or
    websockets' server side (any frame of the allocation's traceback in them)."""
    return sum(
        stat.size_diff
        for stat in after.compare_to(before, "traceback")
        if any(_server_side(frame) for frame in stat.traceback)
    )


async def test_an_idle_spectator_costs_the_server_little(tmp_path: Path) -> None:
    async with served(tmp_path) as server:
        assert server.demo is not None
        token = server.demo["spectator"]
        assert (await http_get(server.url, "/healthz"))[0] == 200
        first = await Wire.join(server.url, token, events=False)  # the room is loaded
        await first.drain()
        tracemalloc.start(25)
        try:
            gc.collect()
            before = tracemalloc.take_snapshot()
            wires = [await Wire.join(server.url, token, events=False) for _ in range(SPECTATORS)]
            await asyncio.gather(*(wire.drain() for wire in wires))
            gc.collect()
            after = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
        for wire in [first, *wires]:
            await wire.close()
    per_connection = _held(before, after) / SPECTATORS
    print(f"\nidle spectator: {per_connection:.0f} bytes traced on the server's side")
    assert per_connection <= BUDGET
