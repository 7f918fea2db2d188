"""Processes of a cluster as in-process `Node`s, each reaching Redis through its own
fault-injecting proxy (tests/support/faults.py), so a test can cut, stall, slow or
reset one process's Redis, or everyone's, under a running room and watch what the
room's users and the processes' logs see. Redis itself is never touched: the proxies
break only their own connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from redis.asyncio import Redis

from server.app import DEMO_ENCOUNTER
from server.cluster.node import Node
from server.cluster.ownership import ClusteredRoom, Settings
from server.encounters import build, read_file
from server.engine.authority import GM, Principal
from server.engine.core import replay
from server.engine.errors import UNAVAILABLE, CommandRefused
from server.engine.rulesets.verse.live import Declare
from server.engine.rulesets.verse.live_actions import HoldAction
from server.engine.state import Encounter
from server.eventlog.redis import RedisEventLog
from server.room import Ack
from server.room.clock import SystemClock
from tests.support.faults import FaultyProxy
from tests.support.redis import forget_prefix, fresh_prefix
from tests.support.waiting import within

ROOM = "ambush"
FAST = Settings(lease_ttl=1.0, renew_every=0.3, poll=0.3, forward_timeout=2.5, ask_timeout=0.5)
"""A cluster's timings, shortened: a lease lives 1 s, a command waits 2.5 s for its room."""
STEP = 10.0
"""Seconds any one step of starting or closing a member may take."""
SEATS = {seat: Principal("player", (seat,), seat) for seat in ("ayla", "bram", "corvin")}


def hold(actor: str) -> Declare:
    return Declare(actor, (HoldAction(actor),))


def principal_of(actor: str) -> Principal:
    return SEATS.get(actor, GM)


@dataclass
class Member:
    """One process: its node, the proxy all its Redis traffic goes through (`proxy`),
    and, when asked for, a second proxy its room's log alone goes through (`log_proxy`)."""

    name: str
    node: Node
    proxy: FaultyProxy
    room: ClusteredRoom
    log_proxy: FaultyProxy | None = None

    async def send(self, actor: str, command: Any, cid: str | None) -> Ack:
        """`command` as `actor`'s; a refusal raises. Bounded: the room's own wait, and
        a few seconds more."""
        submitting = self.room.submit(principal_of(actor), command, cid)
        return await asyncio.wait_for(submitting, self.room.settings.forward_timeout + 5)

    async def settle(self, actor: str, command: Any, cid: str, within: float = 15.0) -> Ack:
        """Send until acknowledged, sending again (same cid) while refused `unavailable`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    return await self.send(actor, command, cid)
            except CommandRefused as refused:
                if refused.code != UNAVAILABLE or loop.time() >= deadline:
                    raise
            await asyncio.sleep(0.05)

    @property
    def proxies(self) -> list[FaultyProxy]:
        return [self.proxy] if self.log_proxy is None else [self.proxy, self.log_proxy]


class Proxied:
    """A cluster of `Member`s on the Redis at `url`, under key prefix `prefix`."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.prefix = fresh_prefix()
        self.initial: Encounter = build(read_file(DEMO_ENCOUNTER), ROOM).encounter
        # Past every proxy: what Redis really holds; each command waits a bounded time.
        self.redis = Redis.from_url(url, socket_timeout=STEP, socket_connect_timeout=STEP)
        self.members: list[Member] = []

    async def add(
        self,
        name: str,
        *,
        settings: Settings = FAST,
        snapshot_every: int = 500,
        log_proxy: bool = False,
        start: bool = True,
    ) -> Member:
        """A process named `name` serving the room (started: it runs the room if nobody
        does); `log_proxy`: its room's log goes through a proxy of its own."""
        proxy = FaultyProxy(self.url)
        await proxy.start()
        node = Node(proxy.url, SystemClock(), prefix=self.prefix, settings=settings, node_id=name)
        logs = None
        if log_proxy:
            logs = FaultyProxy(self.url)
            await logs.start()
            await within(node.log.close(), STEP, f"closing {name}'s first log")
            node.log = RedisEventLog(logs.url, prefix=self.prefix)
        await asyncio.wait_for(node.start(), 10)
        if not self.members:
            await asyncio.wait_for(node.log.save_initial(ROOM, self.initial), 10)
        runner = node.runner(ROOM, self.initial, queue_limit=16, snapshot_every=snapshot_every)
        assert isinstance(runner, ClusteredRoom)
        member = Member(name, node, proxy, runner, logs)
        self.members.append(member)
        if start:
            await asyncio.wait_for(runner.start(), 10)
        return member

    async def stream(self) -> list[tuple[int, str, str]]:
        """The room's Stream as Redis holds it: (seq, event type, fence token)."""
        entries: Any = await self.redis.xrange(f"{self.prefix}room:{{{ROOM}}}:events")
        return [
            (int(entry_id.split(b"-")[0]), fields[b"type"].decode(), fields[b"fence"].decode())
            for entry_id, fields in entries
        ]

    async def declarations(self) -> dict[str, int]:
        """How often each combatant's declaration is in the Stream."""
        entries: Any = await self.redis.xrange(f"{self.prefix}room:{{{ROOM}}}:events")
        counted: dict[str, int] = {}
        for _, fields in entries:
            if fields[b"type"] == b"DeclarationMade":
                actor = json.loads(fields[b"data"])["combatant"]
                counted[actor] = counted.get(actor, 0) + 1
        return counted

    async def snapshot_seq(self) -> int | None:
        seq = await self.redis.hget(f"{self.prefix}room:{{{ROOM}}}:snapshot", "seq")
        return None if seq is None else int(seq)

    async def state_from_redis(self) -> Encounter:
        """The room's state as its whole Stream gives it, from the initial encounter."""
        log = RedisEventLog(self.url, prefix=self.prefix)
        try:
            entries = await log.read(ROOM)
        finally:
            await log.close()
        return replay(self.initial, [entry.event for entry in entries])

    def runners(self) -> list[Member]:
        return [member for member in self.members if member.room.room is not None]

    async def close(self) -> None:
        """Heal every proxy, stop every member, remove the keys: each step bounded."""
        for member in self.members:
            for proxy in member.proxies:
                await within(proxy.heal(), STEP, f"healing {member.name}'s proxy")
        for member in self.members:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(member.room.stop(), 10)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(member.node.close(), 10)
            for proxy in member.proxies:
                await proxy.stop()  # within its own deadline
        await within(self.redis.aclose(), STEP, "closing the direct Redis client")
        await asyncio.wait_for(forget_prefix(self.url, self.prefix), 10)


@pytest.fixture
async def proxied(redis_url: str) -> AsyncIterator[Proxied]:
    cluster = Proxied(redis_url)
    try:
        yield cluster
    finally:
        await cluster.close()


async def eventually(
    predicate: Callable[[], Awaitable[bool]] | Callable[[], bool],
    within: float,
    what: str,
    step: float = 0.02,
) -> None:
    """Poll `predicate` (sync or async) until true, failing after `within` seconds (an
    async one that hangs included)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        outcome = predicate()
        if not isinstance(outcome, bool):
            limit = asyncio.timeout_at(deadline)
            try:
                async with limit:
                    outcome = await outcome
            except TimeoutError:
                if not limit.expired():  # the predicate's own error
                    raise
                raise AssertionError(f"not within {within}s: {what}") from None
        if outcome:
            return
        if loop.time() >= deadline:
            raise AssertionError(f"not within {within}s: {what}")
        await asyncio.sleep(step)
