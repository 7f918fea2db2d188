"""One room seen by two processes of a cluster, both in this event loop (two `Node`s on
a private Redis): where a command goes, what the lease's fence does to a runner that
lost it, and how a follower's feed learns the runner's countdown."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
from redis.asyncio import Redis

from protocol.codec import Frame, decode_server
from protocol.messages import Window
from server.app import DEMO_ENCOUNTER
from server.bus.redis import RedisBus, RedisSubscription
from server.cluster.forwarding import (
    NOBODY,
    REQUESTS,
    Forwarder,
    Reply,
    Request,
    decode_request,
    encode_request,
)
from server.cluster.node import Node, settings_for
from server.cluster.ownership import ClusteredRoom
from server.encounters import build, read_file
from server.engine.authority import GM, Principal
from server.engine.errors import CommandRefused
from server.engine.rulesets.verse.live import Declare
from server.engine.rulesets.verse.live_actions import HoldAction
from server.engine.state import Encounter
from server.engine.turns import StartCombat
from server.engine.views import Audience, audience_of
from server.gateway.feed import Feed
from server.leases import fence_number
from server.room.clock import SystemClock
from tests.support.redis import forget_prefix, fresh_prefix
from tests.support.server import wait_for
from tests.support.waiting import BOUND, until, within

AYLA = Principal("player", ("ayla",), "ayla")
ROOM = "ambush"
STOP = 20.0
"""Seconds a room's stop or a node's close may take: a few Redis round trips, or the
socket timeouts of a Redis that does not answer (5 s each); never for ever."""


@dataclass
class Pair:
    redis: Redis
    prefix: str
    initial: Encounter
    nodes: list[Node]

    def room(self, index: int, **settings: Any) -> ClusteredRoom:
        node = self.nodes[index]
        if settings:
            node.settings = replace(node.settings, **settings)
        runner = node.runner(ROOM, self.initial, queue_limit=16, snapshot_every=500)
        assert isinstance(runner, ClusteredRoom)
        return runner

    async def stream_tokens(self) -> list[str]:
        entries: Any = await self.redis.xrange(f"{self.prefix}room:{{{ROOM}}}:events")
        return [fields[b"fence"].decode() for _, fields in entries]


@pytest.fixture
async def pair(redis_url: str) -> AsyncIterator[Pair]:
    prefix = fresh_prefix()
    initial = build(read_file(DEMO_ENCOUNTER), ROOM).encounter
    nodes = [
        Node(redis_url, SystemClock(), prefix=prefix, settings=settings_for(1.0), node_id=name)
        for name in ("node-a", "node-b")
    ]
    redis = Redis.from_url(redis_url, socket_timeout=BOUND, socket_connect_timeout=BOUND)
    try:
        for node in nodes:
            await within(node.start(), what=f"starting {node.node_id}")
        await within(nodes[0].log.save_initial(ROOM, initial), what="saving the encounter")
        yield Pair(redis, prefix, initial, nodes)
    finally:
        try:
            for node in nodes:
                for runner in node._rooms:
                    await within(runner.stop(), STOP, f"stopping {ROOM} on {node.node_id}")
                await within(node.close(), STOP, f"closing {node.node_id}")
        finally:
            await within(redis.aclose(), what="closing the test's Redis client")
            await within(forget_prefix(redis_url, prefix), what="removing the test's keys")


async def test_a_follower_s_command_is_applied_by_the_runner(pair: Pair) -> None:
    runner, follower = pair.room(0), pair.room(1)
    await runner.start()
    await follower.start()
    assert runner.holding and not follower.holding

    started = await follower.submit(GM, StartCombat(), "start")
    declared = await follower.submit(AYLA, Declare("ayla", (HoldAction("ayla"),)), "hold")
    assert declared.first_seq == started.last_seq + 1  # the runner's sequence numbers
    assert runner.room is not None and runner.room.version == declared.last_seq
    with pytest.raises(CommandRefused) as refused:  # the runner's refusal, code and all
        await follower.submit(AYLA, Declare("bram", (HoldAction("bram"),)), "not-hers")
    assert refused.value.code == "forbidden"
    again = await follower.submit(AYLA, Declare("ayla", (HoldAction("ayla"),)), "hold")
    assert again.first_seq == declared.first_seq  # a retry by cid: the same ack, once
    assert runner.room.version == declared.last_seq


async def test_a_runner_that_lost_its_lease_is_fenced_off_and_the_command_goes_on(
    pair: Pair,
) -> None:
    # the runner renews rarely: it does not know yet that its lease is gone
    runner = pair.room(0, lease_ttl=30.0, renew_every=10.0)
    follower = pair.room(1)
    await runner.start()
    await follower.start()
    await runner.submit(GM, StartCombat(), "start")
    await pair.redis.delete(f"{pair.prefix}room:{{{ROOM}}}:lease")  # as if it expired
    await wait_for(lambda: follower.room is not None, timeout=5)

    # the old runner's append names its old token: Redis refuses it, the runner lets
    # go of the room, and the command is forwarded to the new runner, applied once
    ack = await runner.submit(AYLA, Declare("ayla", (HoldAction("ayla"),)), "hold")
    assert not runner.holding
    assert follower.room is not None and follower.room.version == ack.last_seq
    tokens = await pair.stream_tokens()
    assert len(tokens) == ack.last_seq
    assert tokens[-1] != tokens[0] and fence_number(tokens[-1]) > fence_number(
        tokens[0]
    )  # the new runner's
    # and it keeps forwarding from now on
    again = await runner.submit(GM, Declare("g1", (HoldAction("g1"),)), "g1")
    assert again.first_seq == ack.last_seq + 1


async def test_a_room_nobody_runs_is_taken_by_the_first_process_with_a_command(
    pair: Pair,
) -> None:
    first = pair.room(0)
    await first.start()
    await within(first.stop(), STOP, "stopping the first runner")  # gives the lease back
    second = pair.room(1)
    await second.start()
    ack = await second.submit(GM, StartCombat(), "start")
    assert second.holding and ack.first_seq == 1


class Listener:
    """A connection as a feed sees it: the GM's, keeping every message it was sent."""

    binary = True
    events = True

    def __init__(self) -> None:
        self.messages: list[Any] = []

    def audience(self, state: Encounter) -> Audience:
        return audience_of(GM, state)

    def plays(self, state: Encounter) -> tuple[str, ...]:
        return tuple(state.combatants)

    def push(self, frame: Frame, *, catch_up: bool = False) -> None:
        self.messages.append(decode_server(frame))

    @property
    def windows(self) -> list[Window]:
        return [m for m in self.messages if isinstance(m, Window)]


async def test_a_follower_s_feed_learns_the_runner_s_countdown(pair: Pair) -> None:
    runner, follower = pair.room(0), pair.room(1)
    await runner.start()
    await follower.start()
    await runner.submit(GM, StartCombat(), "start")  # planning window 1: 45 s
    await asyncio.sleep(1.0)

    # a feed started a second into the window tells the full length at first (it knows
    # no better), asks the runner, and corrects it when the runner's timing comes
    node = pair.nodes[1]
    feed = Feed(
        ROOM,
        node.log,
        node.source,
        pair.initial,
        countdown=lambda: follower.countdown,
        now=asyncio.get_running_loop().time,
        want_timing=follower.want_timing,
    )
    listener = Listener()
    await feed.start()
    try:
        feed.join(listener, None)
        await wait_for(lambda: len(listener.windows) >= 2, timeout=5)
        first, corrected = listener.windows[:2]
        assert first.remaining_ms == 45_000
        assert 42_000 < corrected.remaining_ms < 44_500 and corrected.running
        # from then on its messages count down the runner's window
        await runner.submit(AYLA, Declare("ayla", (HoldAction("ayla"),)), "hold")
        await wait_for(lambda: len(listener.windows) >= 3, timeout=5)
        assert listener.windows[2].remaining_ms < corrected.remaining_ms
    finally:
        await within(feed.stop(), what="stopping the feed")


async def answer_nothing(request: Request) -> Reply | None:
    return None


class LosingBus(RedisBus[Request]):
    """The requests' bus, losing a cancellation that comes while it subscribes, as
    Python 3.11's `asyncio.wait_for` (which redis-py sends every command with) loses
    one that comes as the operation it waits on finishes."""

    def __init__(self, url: str, prefix: str) -> None:
        super().__init__(url, encode_request, decode_request, prefix=prefix, channels=REQUESTS)
        self.subscribing = asyncio.Event()

    async def subscribe(self, topic: str, limit: int | None = None) -> RedisSubscription[Request]:
        self.subscribing.set()
        subscribed = asyncio.ensure_future(super().subscribe(topic, limit))
        try:
            return await asyncio.shield(subscribed)
        except asyncio.CancelledError:
            return await subscribed  # the cancellation is lost


async def test_a_process_that_stops_serving_a_room_lets_go_of_it_even_if_a_cancel_is_lost(
    pair: Pair, redis_url: str
) -> None:
    """A process that lets go of a room (it stops, or the room moves) stops serving the
    room's requests within a bounded time, even when the cancellation of the task that
    serves them is lost on the way; a command for the room then reaches nobody, so the
    next process takes the room at once."""
    forwarder = Forwarder(redis_url, "node-c", prefix=pair.prefix)
    first, forwarder.requests = forwarder.requests, LosingBus(redis_url, pair.prefix)
    await within(first.close(), what="closing the replaced requests' bus")
    try:
        serving = forwarder.serve(ROOM, answer_nothing)
        await within(forwarder.requests.subscribing.wait(), what="subscribing to requests")
        await within(serving.close(), what="letting go of the room's requests")

        channel = forwarder.requests.channel(ROOM)
        await until(lambda: subscribed(pair.redis, channel, 0), what="nobody serving")
        asked = pair.nodes[1].forwarder.ask(ROOM, GM, StartCombat(), "start", timeout=BOUND)
        assert await within(asked) is NOBODY
    finally:
        await within(forwarder.close(), what="closing the forwarder")


async def subscribed(redis: Redis, channel: bytes, count: int) -> bool:
    ((_, subscribers),) = await redis.pubsub_numsub(channel)
    return int(subscribers) == count
