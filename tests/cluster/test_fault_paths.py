"""More of the cluster's fault paths, in this process through the proxies of
tests/cluster/proxied.py: a process that starts while Redis is away, a window that runs
out during an outage, commands without a client id, a reply lost on its way back, a
fenced runner answering a forwarded command, a graceful stop with a command held in
the store, and a runner's own failure as the asker sees it."""

from __future__ import annotations

import asyncio
import json
import logging
import struct
from dataclasses import replace
from typing import Any

import msgpack
import pytest

from server.bus import Subscription
from server.cluster.codec import Message
from server.cluster.node import Node, RedisUnreachable, shared_secret
from server.cluster.ownership import Settings, TimedBus
from server.cluster.timing import Timing
from server.engine.authority import GM
from server.engine.errors import UNAVAILABLE, CommandRefused
from server.engine.records import to_data
from server.engine.rulesets.verse.overrides import SetSetting
from server.engine.turns import StartCombat
from server.room.clock import SystemClock
from tests.cluster.conftest import redis_url
from tests.cluster.proxied import FAST, ROOM, Proxied, eventually, hold, proxied
from tests.support.faults import FaultyProxy
from tests.support.redis import fresh_prefix

__all__ = ["proxied", "redis_url"]

WAIT = FAST.forward_timeout + 2.0


async def refusal(send: Any) -> CommandRefused:
    with pytest.raises(CommandRefused) as refused:
        await asyncio.wait_for(send, WAIT)
    assert refused.value.code == UNAVAILABLE, refused.value
    return refused.value


async def changed_settings(proxied: Proxied) -> int:
    return [kind for _, kind, _ in await proxied.stream()].count("SettingChanged")


async def test_a_process_started_while_redis_is_out_of_reach_says_so(redis_url: str) -> None:
    async with FaultyProxy(redis_url) as proxy:
        await proxy.cut()
        node = Node(proxy.url, SystemClock(), prefix=fresh_prefix(), node_id="late")
        try:
            with pytest.raises(RedisUnreachable) as unreachable:
                await asyncio.wait_for(node.start(), 20)
            assert f"cannot reach Redis at {proxy.url}" in str(unreachable.value)
        finally:
            await asyncio.wait_for(node.close(), 10)
        with pytest.raises(RedisUnreachable):
            await asyncio.wait_for(asyncio.to_thread(shared_secret, proxy.url, "p:"), 20)


async def test_a_window_that_runs_out_while_redis_is_away_closes_once_it_answers(
    proxied: Proxied, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    # a lease that outlives the outage: the process keeps the room throughout
    patient = replace(FAST, lease_ttl=4.0, renew_every=0.4, forward_timeout=8.0)
    owner = await proxied.add("a", settings=patient)
    await owner.send("gm", SetSetting("planning_seconds", 1), "short")
    await owner.send("gm", StartCombat(), "start")  # window 1 runs out in a second
    token = (await proxied.stream())[-1][2]

    await owner.proxy.cut()
    await asyncio.sleep(1.5)  # its second runs out while Redis is away
    assert owner.room.room is not None and owner.room.room.countdown is not None
    assert owner.room.room.countdown.remaining == 0  # shown as run out, not yet closed
    await owner.proxy.heal()

    async def window_1_closed() -> bool:
        return any(
            kind == "WindowClosed" and json.loads(data)["window"] == 1
            for kind, data in await events(proxied)
        )

    await eventually(window_1_closed, 2 * patient.renew_every + 2, "window 1 closed")
    closing = [d for k, d in await events(proxied) if k == "WindowClosed"]
    assert [json.loads(d)["window"] for d in closing].count(1) == 1
    assert owner.room.holding and {t for _, _, t in await proxied.stream()} == {token}
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


async def events(proxied: Proxied) -> list[tuple[str, str]]:
    entries: Any = await proxied.redis.xrange(f"{proxied.prefix}room:{{{ROOM}}}:events")
    return [(f[b"type"].decode(), f[b"data"].decode()) for _, f in entries]


async def test_a_command_without_a_client_id_is_refused_not_sent_again(
    proxied: Proxied,
) -> None:
    runner = await proxied.add("a", log_proxy=True)
    follower = await proxied.add("b")
    await runner.send("gm", StartCombat(), "start")
    assert runner.log_proxy is not None
    setting = SetSetting("planning_seconds", 30)

    # the asking process cannot reach Redis: its request may or may not have gone out
    await follower.proxy.cut()
    refused = await refusal(follower.room.submit(GM, setting, None))
    assert "out of reach" in refused.message and "may have been applied" in refused.message
    await follower.proxy.heal()

    # the runner's store is away: its append failed, whether it landed cannot be told
    await runner.log_proxy.cut()
    refused = await refusal(runner.room.submit(GM, setting, None))
    assert "store failed" in refused.message and "may have been applied" in refused.message
    await runner.log_proxy.heal()
    await eventually(lambda: runner.room.room is not None, 5, "the room runs again")
    assert await changed_settings(proxied) == 0

    # the runner does not answer in time: the request may still be applied
    runner.proxy.stall(to_redis=False)
    refused = await refusal(follower.room.submit(GM, setting, None))
    assert "did not answer" in refused.message and "may have been applied" in refused.message
    await runner.proxy.heal()
    assert await changed_settings(proxied) <= 1


async def test_a_process_shutting_down_refuses_commands_as_unavailable(
    proxied: Proxied,
) -> None:
    member = await proxied.add("a")
    await member.send("gm", StartCombat(), "start")
    await asyncio.wait_for(member.room.stop(), 10)
    refused = await refusal(member.send("ayla", hold("ayla"), "ayla-holds"))
    assert "shutting down" in refused.message
    await asyncio.wait_for(member.room.stop(), 10)  # stopping twice is harmless
    assert member.node.running == 0


async def test_a_reply_lost_on_its_way_back_still_acks_the_command_once(
    proxied: Proxied,
) -> None:
    runner = await proxied.add("a", log_proxy=True)
    follower = await proxied.add("b")
    await runner.send("gm", StartCombat(), "start")
    assert runner.log_proxy is not None

    runner.log_proxy.stall()  # the forwarded command's append waits in the runner
    sending = asyncio.create_task(follower.send("bram", hold("bram"), "bram-holds"))
    await eventually(lambda: runner.log_proxy.holding > 0, 5, "the append is held")
    await runner.proxy.cut()  # the runner loses pub/sub (and its lease) meanwhile
    await runner.log_proxy.heal()  # the append lands; its reply cannot be sent
    ack = await asyncio.wait_for(sending, 15)  # from the next runner, by its cid
    assert await proxied.declarations() == {"bram": 1}
    stream = await proxied.stream()
    assert ack.first_seq == len(stream)  # the append the runner made, acknowledged
    assert follower.room.holding and follower.node.running == 1
    await runner.proxy.heal()
    await eventually(lambda: not runner.room.holding, 5, "the old runner let go")
    assert runner.node.running == 0


async def test_a_fenced_runner_answering_a_forwarded_command_lets_go(
    proxied: Proxied, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    # the runner renews rarely: it does not know its lease is gone until it writes
    stale = await proxied.add("a", settings=replace(FAST, lease_ttl=30.0, renew_every=10.0))
    others = [await proxied.add("b"), await proxied.add("c")]
    await stale.send("gm", StartCombat(), "start")
    await proxied.redis.delete(f"{proxied.prefix}room:{{{ROOM}}}:lease")  # as if expired
    await eventually(lambda: any(m.room.room is not None for m in others), 5, "taken over")
    asker = next(m for m in others if not m.room.holding)

    # both runners hear the request; the old one's append is fenced off
    ack = await asker.settle("bram", hold("bram"), "bram-holds")
    await eventually(lambda: not stale.room.holding, 5, "the stale runner let go")
    assert await proxied.declarations() == {"bram": 1}
    assert ack.first_seq == len(await proxied.stream())
    moved = [r for r in caplog.records if "moved to another process" in r.getMessage()]
    assert len(moved) == 1 and moved[0].levelno == logging.INFO and moved[0].exc_info is None


async def test_a_graceful_stop_with_a_forwarded_command_held_in_the_store(
    proxied: Proxied,
) -> None:
    runner = await proxied.add("a", log_proxy=True)
    follower = await proxied.add("b")
    await runner.send("gm", StartCombat(), "start")
    assert runner.log_proxy is not None

    runner.log_proxy.stall()
    sending = asyncio.create_task(follower.send("bram", hold("bram"), "bram-holds"))
    await eventually(lambda: runner.log_proxy.holding > 0, 5, "the append is held")
    stopping = asyncio.create_task(runner.room.stop())  # SIGTERM: hand the room over
    await eventually(lambda: not runner.room.holding, 5, "it stopped taking requests")
    await runner.log_proxy.heal()
    await asyncio.wait_for(stopping, 10)
    ack = await asyncio.wait_for(sending, 15)  # applied once, acknowledged by the next
    assert await proxied.declarations() == {"bram": 1}
    assert ack.first_seq == len(await proxied.stream())


async def test_a_runner_s_own_failure_reaches_the_asker_as_a_server_failure(
    proxied: Proxied, caplog: pytest.LogCaptureFixture
) -> None:
    runner = await proxied.add("a")
    follower = await proxied.add("b")
    await runner.send("gm", StartCombat(), "start")
    room = runner.room.room
    assert room is not None

    async def broken(*args: object) -> int:
        raise RuntimeError("a bug under the room")

    room._log.append = broken  # type: ignore[method-assign, assignment]
    with pytest.raises(RuntimeError) as failed:
        await asyncio.wait_for(follower.send("bram", hold("bram"), "bram-holds"), WAIT)
    assert str(failed.value) == "room ambush failed: the server failed"
    logged = [r for r in caplog.records if "a forwarded command failed" in r.getMessage()]
    assert len(logged) == 1 and logged[0].levelno == logging.ERROR and logged[0].exc_info
    assert runner.room.room is room  # not a store fault: the room is not rebuilt for it


async def test_the_countdown_is_published_for_a_feed_that_asks(proxied: Proxied) -> None:
    runner = await proxied.add("a")
    follower = await proxied.add("b")
    await runner.send("gm", StartCombat(), "start")
    subscription = await follower.node.events.subscribe(ROOM)
    try:
        for asking in (runner, follower):  # a feed on the runner's process, and elsewhere
            asking.room.want_timing()
            timing = await asyncio.wait_for(next_timing(subscription), 5)
            assert timing.alone and timing.window == 1 and timing.running
    finally:
        await subscription.close()


async def next_timing(subscription: Subscription[Message]) -> Timing:
    while True:
        message = await subscription.get()
        if isinstance(message, Timing):
            return message


async def test_settings_that_would_let_a_lease_lapse_are_refused() -> None:
    with pytest.raises(ValueError, match="renewed more often"):
        Settings(lease_ttl=1.0, renew_every=1.0)


async def test_a_room_s_bus_publishes_only(redis_url: str) -> None:
    node = Node(redis_url, SystemClock(), prefix=fresh_prefix(), node_id="solo")
    bus = TimedBus(node.events, ROOM, lambda: None)
    try:
        await bus.publish(ROOM, [])  # nothing to send: nothing sent
        await asyncio.wait_for(bus.flush(), 1)
        with pytest.raises(TypeError):
            await bus.subscribe(ROOM)
    finally:
        await asyncio.wait_for(node.close(), 10)


async def test_starting_twice_or_stopping_before_starting_changes_nothing(
    proxied: Proxied,
) -> None:
    first = await proxied.add("a")
    await asyncio.wait_for(first.room.start(), 5)  # already started: nothing more
    await first.send("gm", StartCombat(), "start")
    assert first.room.holding and first.node.running == 1

    never = await proxied.add("b", start=False)
    await asyncio.wait_for(never.room.stop(), 5)
    await asyncio.wait_for(never.room.start(), 5)  # a stopped room never runs again
    assert not never.room.holding
    assert (await refusal(never.send("bram", hold("bram"), "b"))).code == UNAVAILABLE


async def test_a_room_whose_log_cannot_be_read_is_not_run_and_says_why(
    proxied: Proxied, caplog: pytest.LogCaptureFixture
) -> None:
    await proxied.redis.xadd(
        f"{proxied.prefix}room:{{{ROOM}}}:events",
        {"type": "Paused", "data": "{not json", "ends": "1", "fence": ""},
        id="1-1",
    )
    member = await proxied.add("a")
    refused = await refusal(member.send("gm", StartCombat(), "start"))
    assert "retry with the same cid" in refused.message
    assert member.room.room is None
    said = [r for r in caplog.records if r.name == "server.cluster.ownership"]
    assert any("could not take it: JSONDecodeError" in r.getMessage() for r in said)
    assert any(r.levelno == logging.ERROR and r.exc_info for r in said)  # the keeper's


async def test_commands_queued_on_a_runner_that_lost_its_lease_go_to_the_new_one(
    proxied: Proxied,
) -> None:
    # the runner renews rarely: it learns it lost the room from the fence
    runner = await proxied.add(
        "a", settings=replace(FAST, lease_ttl=30.0, renew_every=10.0), log_proxy=True
    )
    other = await proxied.add("b")
    await runner.send("gm", StartCombat(), "start")
    assert runner.log_proxy is not None and runner.room.room is not None
    room = runner.room.room

    runner.log_proxy.stall()
    first = asyncio.create_task(runner.settle("ayla", hold("ayla"), "ayla-holds"))
    await eventually(lambda: runner.log_proxy.holding > 0, 5, "its append is held")
    second = asyncio.create_task(runner.settle("bram", hold("bram"), "bram-holds"))
    await eventually(lambda: room.queued == 1, 5, "the next command waits behind it")
    await proxied.redis.delete(f"{proxied.prefix}room:{{{ROOM}}}:lease")  # as if expired
    await eventually(lambda: other.room.room is not None, 5, "the other process took over")

    await runner.log_proxy.heal()  # the held append is fenced off; the runner lets go
    ayla, bram = await asyncio.wait_for(asyncio.gather(first, second), 15)
    assert not runner.room.holding
    assert await proxied.declarations() == {"ayla": 1, "bram": 1}
    stream = await proxied.stream()
    assert {ayla.first_seq, bram.first_seq} == {len(stream) - 1, len(stream)}
    assert stream[-1][2] == stream[-2][2] != stream[0][2]  # both by the new runner


async def test_requests_nobody_can_read_are_skipped(
    proxied: Proxied, caplog: pytest.LogCaptureFixture
) -> None:
    runner = await proxied.add("a")
    follower = await proxied.add("b")
    await runner.send("gm", StartCombat(), "start")
    channel = runner.node.forwarder.requests.channel(ROOM)
    wrong = [
        ["r1", "b", to_data(StartCombat()), None, None],  # a command where a sender goes
        ["r2", "b", to_data(GM), to_data(GM), None],  # a sender where a command goes
    ]
    for count, fields in enumerate(wrong, 1):
        await proxied.redis.publish(channel, frame(msgpack.packb(fields, use_bin_type=True)))
        await eventually(lambda n=count: unreadable(caplog) == n, 5, "logged as unreadable")
        # the runner takes requests again (the bus dropped it as a lagging subscriber)
        ack = await follower.settle("gm", SetSetting("planning_seconds", 30 + count), f"s{count}")
        assert ack.first_seq == len(await proxied.stream())
    assert await changed_settings(proxied) == 2


def unreadable(caplog: pytest.LogCaptureFixture) -> int:
    return sum("unreadable batch" in r.getMessage() for r in caplog.records)


def frame(payload: bytes) -> bytes:
    """One message as the bus frames it (server/bus/redis.py): a foreign sender's."""
    return struct.pack(">16sQ", b"\0" * 16, 1) + struct.pack(">I", len(payload)) + payload
