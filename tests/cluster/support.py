"""A cluster for tests: a private `redis-server` and server processes sharing it.

Everything runs on loopback on free ports, in child processes a test may SIGKILL,
SIGSTOP or SIGTERM; never the machine's own Redis. The first server creates the demo
encounter (and so runs its room); the others start once it serves.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from tests.server.wire import Wire, http_get
from tests.support.redis import RedisServer, SentinelGroup
from tests.support.server import JOIN_LINE as TOKEN
from tests.support.server import JOIN_LINES, ServerProcess

ROOM = re.compile(r"room (\S+)\.$")


class Cluster:
    """`size` server processes on one private Redis (append-only file on, so a Redis
    restart keeps the fight), leases living `lease_ttl` seconds.

    `redis` is that Redis when the test makes its own (a password, TLS), or a
    `SentinelGroup` (the servers then find the primary through its sentinels);
    `options` are more options for every server (a durability, a password)."""

    def __init__(
        self,
        directory: Path,
        size: int,
        *,
        lease_ttl: float = 3.0,
        redis: RedisServer | SentinelGroup | None = None,
        options: Sequence[str] = (),
    ) -> None:
        self.directory = directory
        (directory / "redis").mkdir(parents=True, exist_ok=True)
        self.group = redis if isinstance(redis, SentinelGroup) else None
        self.redis = (
            redis
            if isinstance(redis, RedisServer)
            else RedisServer(directory / "redis", appendfsync="always")
        )
        self.lease_ttl = lease_ttl
        self.more = list(options)
        self.servers = [ServerProcess(directory / f"server-{n}") for n in range(size)]
        self.tokens: dict[str, str] = {}
        self.room = ""

    def options(self) -> list[str]:
        url = self.redis.url if self.group is None else self.group.url
        return ["--redis", url, "--lease-ttl", str(self.lease_ttl), *self.more]

    def primary(self) -> RedisServer:
        """The Redis the servers write to now."""
        return self.redis if self.group is None else self.group.primary()

    async def start(self) -> None:
        await asyncio.to_thread(self.redis.start if self.group is None else self.group.start)
        first, *others = self.servers
        for server in self.servers:
            server.options = self.options()
        await asyncio.wait_for(asyncio.to_thread(first.start), 30)
        lines = await asyncio.wait_for(asyncio.to_thread(first.read_output, JOIN_LINES), 10)
        self.tokens = {m.group(1).strip(): m.group(2) for line in lines if (m := TOKEN.match(line))}
        found = ROOM.search(lines[0])
        assert found and set(self.tokens) == {"GM", "ayla", "bram", "corvin", "spectator"}, lines
        self.room = found.group(1)
        await asyncio.gather(
            *(asyncio.wait_for(asyncio.to_thread(server.start), 30) for server in others)
        )

    def stop(self) -> None:
        for server in self.servers:
            server.kill()
        if self.group is None:
            self.redis.kill()
        else:
            self.group.stop()

    def url(self, index: int) -> str:
        return self.servers[index].url

    async def join(self, index: int, who: str, resume_from_seq: int | None = None) -> Wire:
        return await Wire.join(self.url(index), self.tokens[who], resume_from_seq=resume_from_seq)

    async def runs_room(self, index: int) -> bool:
        """Does server `index` run the demo's room (its /healthz counts it)?"""
        status, _, body = await http_get(self.url(index), "/healthz")
        assert status == 200
        rooms: int = json.loads(body)["rooms"]
        return rooms == 1

    async def runner(self, among: list[int] | None = None) -> int | None:
        """The index of the server that runs the room now, if one of `among` does."""
        for index in among if among is not None else range(len(self.servers)):
            if await self.runs_room(index):
                return index
        return None

    async def stream(self) -> list[tuple[int, str, str]]:
        """The room's Stream as Redis holds it: (seq, event type, fence token)."""
        entries = await self.entries()
        return [
            (int(entry_id.split(b"-")[0]), fields[b"type"].decode(), fields[b"fence"].decode())
            for entry_id, fields in entries
        ]

    async def entries(self, room: str = "") -> list[tuple[bytes, dict[bytes, bytes]]]:
        """The Stream of `room` (the demo's by default) as the primary holds it: (entry
        id, fields) in order."""

        def read() -> Any:
            with self.primary().client(timeout=10) as client:
                return client.xrange(f"room:{{{room or self.room}}}:events")

        found: list[tuple[bytes, dict[bytes, bytes]]] = await asyncio.to_thread(read)
        return found

    async def commands(self, room: str = "") -> dict[str, tuple[int, int]]:
        """Each command key the log of `room` (the demo's by default) holds, with the
        seqs of its batch."""
        room = room or self.room

        def read() -> tuple[Any, Any]:
            with self.primary().client(timeout=10) as client:
                first = client.hgetall(f"room:{{{room}}}:commands")
                last = client.zrange(f"room:{{{room}}}:recent", 0, -1, withscores=True)
                return first, last

        first, last = await asyncio.to_thread(read)
        ends = {key.decode(): int(score) for key, score in last}
        return {key.decode(): (int(seq), ends[key.decode()]) for key, seq in first.items()}


@asynccontextmanager
async def cluster(
    directory: Path,
    size: int,
    *,
    lease_ttl: float = 3.0,
    redis: RedisServer | SentinelGroup | None = None,
    options: Sequence[str] = (),
) -> AsyncIterator[Cluster]:
    running = Cluster(directory, size, lease_ttl=lease_ttl, redis=redis, options=options)
    try:
        await running.start()
        yield running
    finally:
        running.stop()


def hold(actor: str) -> dict[str, Any]:
    return {"type": "Declare", "actor": actor, "actions": [{"$type": "HoldAction", "actor": actor}]}


def attack(actor: str, target: str, weapon: str) -> dict[str, Any]:
    action = {"$type": "Attack", "actor": actor, "target": target, "weapon": weapon}
    return {"type": "Declare", "actor": actor, "actions": [action]}


def open_window(wire: Wire) -> int | None:
    """The window open after the last event `wire` holds (from its events alone)."""
    window = None
    for _, event in wire.sequenced:
        if event["$type"] == "WindowOpened":
            window = event["window"]["id"]
        elif event["$type"] == "WindowClosed" and event["window"] == window:
            window = None
    return window


def round_ended(wire: Wire) -> bool:
    return any(event["$type"] == "RoundEnded" for _, event in wire.sequenced)


async def close_windows_until_the_round_ends(gm: Wire, limit: int = 40) -> None:
    """The GM closes each window that opens (whatever the dice decided) until round 1
    is over: the round plays through the same way on every backend."""
    for _ in range(limit):
        await gm.drain(0.1)
        if round_ended(gm):
            return
        window = open_window(gm)
        assert window is not None, "no window open and the round goes on"
        answer = await gm.command({"type": "CloseWindow", "window": window})
        assert answer.type == "ack" or answer.code == "no_window", answer
    raise AssertionError("round 1 did not end")
