"""A caller that gives up while its command is being logged does not stop the room.

A caller cancelled *while* its command is handled (the room awaits the log's append)
has its answer dropped; the room's task goes on serving the next commands and the
timers. In a cluster a graceful stop cancels the tasks answering forwarded commands:
the room still drains and gives its lease back at once, so another process takes it
over without waiting for the lease to run out."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence

import pytest
from redis.asyncio import Redis

from server.app import DEMO_ENCOUNTER
from server.bus.memory import MemoryBus
from server.cluster.node import Node, settings_for
from server.cluster.ownership import ClusteredRoom
from server.encounters import build, read_file
from server.engine.authority import GM
from server.engine.core import Event
from server.engine.turns import StartCombat
from server.eventlog import Entry
from server.eventlog.redis import RedisEventLog
from server.leases import Fence, room_key
from server.room import Ack, FakeClock, Room
from server.room.clock import SystemClock
from tests.room.probe import ProbeTally, probe_encounter
from tests.room.support import GatedLog
from tests.support.redis import RedisServer, private_redis
from tests.support.server import wait_for
from tests.support.waiting import within

__all__ = ["private_redis"]

BOUND = 2.0  # seconds any single wait here may take: the tests fail, never hang


async def test_a_caller_cancelled_mid_append_leaves_the_room_serving() -> None:
    log = GatedLog()
    room = Room("room-1", probe_encounter(), log=log, bus=MemoryBus[Entry](), clock=FakeClock())
    await room.start()
    try:
        log.close_gate()
        impatient = asyncio.create_task(room.submit(GM, ProbeTally("gm"), "first"))
        await asyncio.wait_for(log.entered.wait(), BOUND)  # the room is logging it
        impatient.cancel()  # the caller gives up (a timeout, a closed connection)
        log.gate.set()

        # The first command was logged all the same; the room must go on serving.
        ack = await asyncio.wait_for(room.submit(GM, ProbeTally("gm"), "second"), BOUND)
        assert (ack.first_seq, ack.last_seq) == (2, 2)
    finally:
        await asyncio.wait_for(room.stop(drain=False), BOUND)


# -- the same in a cluster: a graceful stop with a forwarded command in flight ----------


class GatedRedisLog(RedisEventLog):
    """The Redis log, with appends that wait at a gate the test opens."""

    def __init__(self, url: str, *, prefix: str) -> None:
        super().__init__(url, prefix=prefix)
        self.gate = asyncio.Event()
        self.gate.set()
        self.entered = asyncio.Event()

    async def append(
        self,
        room_id: str,
        events: Sequence[Event],
        expected_version: int,
        command_key: str | None = None,
        *,
        fence: Fence | None = None,
    ) -> int:
        self.entered.set()
        await within(self.gate.wait(), what="the test to open the log's gate")
        return await super().append(room_id, events, expected_version, command_key, fence=fence)


@pytest.fixture
async def nodes(private_redis: RedisServer) -> AsyncIterator[list[Node]]:
    found = [
        Node(private_redis.url, SystemClock(), settings=settings_for(3.0), node_id=name)
        for name in ("runner", "follower")
    ]
    for node in found:
        await node.start()
    yield found
    for node in found:
        for room in node._rooms:
            await within(room.stop(), 10, f"stopping a room on {node.node_id}")
        await within(node.close(), 10, f"closing {node.node_id}")


async def test_a_graceful_stop_with_a_forwarded_command_in_flight_hands_the_room_over(
    nodes: list[Node], private_redis: RedisServer
) -> None:
    runner_node, follower_node = nodes
    initial = build(read_file(DEMO_ENCOUNTER), "ambush").encounter
    await runner_node.log.save_initial("ambush", initial)
    log = GatedRedisLog(private_redis.url, prefix="")
    runner = ClusteredRoom(
        "ambush",
        initial,
        log=log,
        bus=runner_node.events,
        leases=runner_node.leases,
        forwarder=runner_node.forwarder,
        clock=SystemClock(),
        settings=runner_node.settings,
    )
    follower = follower_node.runner("ambush", initial, queue_limit=16, snapshot_every=500)
    redis = Redis.from_url(private_redis.url, socket_timeout=BOUND, socket_connect_timeout=BOUND)
    forwarded: asyncio.Task[Ack] | None = None
    try:
        await runner.start()
        await follower.start()
        assert runner.holding

        log.gate.clear()
        log.entered.clear()
        forwarded = asyncio.create_task(follower.submit(GM, StartCombat(), "start"))
        await asyncio.wait_for(log.entered.wait(), BOUND)  # the runner is logging it

        stopping = asyncio.create_task(runner.stop())  # SIGTERM: hand the room over
        await wait_for(lambda: not runner.holding, BOUND)  # it has let go of the requests
        log.gate.set()
        await asyncio.wait_for(stopping, BOUND)  # and the stop ends cleanly

        assert await redis.exists(room_key("", "ambush", "lease")) == 0  # given back
        ack = await asyncio.wait_for(forwarded, 10)  # applied once, by whoever runs it
        assert ack.first_seq == 1
    finally:
        log.gate.set()
        if forwarded is not None and not forwarded.done():
            forwarded.cancel()
        with contextlib.suppress(Exception):  # already stopped, or broken as above
            await asyncio.wait_for(runner.stop(), BOUND)
        await within(log.close(), what="closing the gated log")
        await within(redis.aclose(), what="closing the test's Redis client")
