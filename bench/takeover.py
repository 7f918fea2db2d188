"""A takeover in a cluster, timed: the process running a room with a long Redis log is
killed and a surviving process takes the room over. `bench.long_fight` prints it.

The room's log is played into a `RedisEventLog` on a private `redis-server`
(`bench.cluster.PrivateRedis`: a free loopback port, never a shared Redis). For each
run:

1. a server process (`python -m server --redis ...`, a child) runs the room: a GM
   says hello there, so it takes the room's lease and starts it;
2. a surviving process, here (a `Node`, host and gateway as `App` builds them), has a
   GM at the same table: it follows the room (its feed, no lease). The time from that
   GM's `hello` to its `table` is the **follower's table**: the feed's start on the
   Redis log (its latest snapshot and the events after it), on a cold process;
3. the runner is killed (SIGKILL: it gives nothing back, its lease runs out), and the
   surviving GM at once sends the next command of the fight; it waits for a runner.

Times: **lease wait**, from the kill to the moment the lease expires (the lease's time
to live, less what had passed since its last renewal: a setting, not the target's), and
**takeover**, from that moment to the GM's ack: the surviving process noticing the
free lease, taking it, rebuilding the room (its latest snapshot and the events after it,
read from Redis) and applying the command. The takeover is split by the surviving
process's own log lines ("room taken", "room running here") into **noticed** (lease
free → taken), **rebuild** (taken → running) and **first ack** (running → ack).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import msgpack
from redis.asyncio import Redis

from bench.cluster import PrivateRedis
from bench.live import Bots, play_into
from bench.load import Child
from bench.served import SECRET, Gm, Served, connected, gateway
from server.cluster import ownership
from server.cluster.node import Node, settings_for
from server.eventlog.redis import RedisEventLog
from server.gateway.tokens import TokenIssuer
from server.hosting import Host
from server.room.clock import SystemClock
from server.table.choices import wire

TAKEN, RUNNING = "room taken", "room running here"
"""The surviving process's log lines (`server.cluster.ownership`) that split the takeover."""


class Marks(logging.Handler):
    """When this process logged that it took the room, and that the room ran."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.at: dict[str, float] = {}

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message in (TAKEN, RUNNING):
            self.at.setdefault(message, time.perf_counter())


@asynccontextmanager
async def marking() -> AsyncIterator[Marks]:
    """`Marks` listening to `server.cluster.ownership` meanwhile (at INFO)."""
    logger = logging.getLogger(ownership.__name__)
    marks, level = Marks(), logger.level
    logger.addHandler(marks)
    logger.setLevel(logging.INFO)
    try:
        yield marks
    finally:
        logger.removeHandler(marks)
        logger.setLevel(level)


@asynccontextmanager
async def surviving(url: str, room: str, lease_ttl: float) -> AsyncIterator[tuple[Node, Served]]:
    """A cluster process here (as `App` builds it with `--redis url --lease-ttl`) and a
    GM of `room` connected to it, not said hello yet."""
    clock = SystemClock()
    issuer = TokenIssuer(SECRET)
    node = Node(url, clock, settings=settings_for(lease_ttl), node_id="survivor")
    await node.start()
    host = Host(node.log, node, clock, issuer)
    try:
        async with gateway(host, issuer, room) as gm:
            yield node, gm
    finally:
        await host.close()
        await node.close()


def start_runner(url: str, data: Path, lease_ttl: float) -> Child:
    """A server process of the cluster (a child), serving once this returns."""
    argv = [sys.executable, "-m", "server", "--port", "0", "--no-demo", "--no-web"]
    argv += ["--data-dir", str(data), "--redis", url, "--lease-ttl", str(lease_ttl)]
    argv += ["--secret", SECRET.decode()]
    return Child(argv, data.with_suffix(".log"), None)


async def one_takeover(url: str, room: str, data: Path, lease_ttl: float) -> dict[str, float]:
    """A runner process started, made to run `room`, killed; what the survivor took."""
    runner = await asyncio.to_thread(start_runner, url, data, lease_ttl)
    redis = Redis.from_url(url, socket_timeout=10, socket_connect_timeout=10)
    try:
        async with connected(runner.url) as ws:  # its GM: the runner starts the room
            await Gm(ws, TokenIssuer(SECRET).join_tokens(room, {})["gm"]).hello()
        async with surviving(url, room, lease_ttl) as (node, gm), marking() as marks:
            asked = time.perf_counter()
            await gm.hello()
            table = time.perf_counter() - asked
            hosted = await gm.host.get(room)
            assert hosted is not None and node.running == 0, "the survivor runs the room"
            _, command = Bots().next(hosted.feed.state)
            send = {"type": "send", "cid": "after-the-death", "command": wire(command)}
            runner.process.kill()
            killed = time.perf_counter()
            await gm.ws.send(msgpack.packb(send))
            left = await redis.pttl(f"room:{{{room}}}:lease")
            free = time.perf_counter() + max(0, left) / 1000
            await gm.until("ack", timeout=4 * lease_ttl + 10)
            acked = time.perf_counter()
            taken, running = marks.at[TAKEN], marks.at[RUNNING]
    finally:
        await redis.aclose()
        runner.process.kill()
        runner.stop()
    return {
        "follower's table": table,
        "lease wait": free - killed,
        "takeover": acked - free,
        "noticed": taken - free,
        "rebuild": running - taken,
        "first ack": acked - running,
    }


async def takeovers(
    work: Path, room: str, events: int, snapshot_every: int, runs: int, lease_ttl: float
) -> list[dict[str, float]]:
    """The room's Redis log made, then `runs` takeovers of it: each one's figures."""
    redis = await asyncio.to_thread(PrivateRedis, work / "redis", "everysec")
    try:
        log = RedisEventLog(redis.url)
        made = time.perf_counter()
        try:
            last = await play_into(log, room, events, snapshot_every)
        finally:
            await log.close()
        print(f"Redis log: {last} events in {time.perf_counter() - made:.1f} s of play")
        results = [
            await one_takeover(redis.url, room, work / f"runner-{run}", lease_ttl)
            for run in range(runs)
        ]
    finally:
        await asyncio.to_thread(redis.stop)
    return results
