"""What only the Redis bus promises: processes hear each other, and a gap is never silent.

The contract tests (test_contract.py) run on Redis too; these add two buses (two
processes) on one Redis, the one subscription connection per bus, unsubscribing, a
batch nobody can read, and a killed `redis-server`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from server.bus import SubscriberLagging, SubscriptionClosed
from server.bus.redis import RedisBus, RedisSubscription
from tests.support.redis import RedisServer, fresh_prefix
from tests.support.waiting import BOUND, settles, take, until, within


def text_bus(url: str, prefix: str = "", limit: int = 1024) -> RedisBus[str]:
    return RedisBus(url, str.encode, bytes.decode, limit=limit, prefix=prefix, retries=0)


@pytest.fixture
async def plain(private_redis: RedisServer) -> AsyncIterator[Redis]:
    """A plain client on the test's own server, to look at Redis from outside."""
    client = Redis.from_url(private_redis.url, socket_timeout=BOUND, socket_connect_timeout=BOUND)
    yield client
    await within(client.aclose(), what="closing the plain client")


async def numsub(client: Redis, channel: bytes) -> int:
    """How many connections Redis has subscribed to `channel`."""
    ((_, count),) = await client.pubsub_numsub(channel)
    return int(count)


async def unsubscribed(client: Redis, channel: bytes) -> bool:
    return await numsub(client, channel) == 0


async def test_a_subscriber_in_another_process_gets_every_batch_in_order(
    redis_url: str,
) -> None:
    prefix = fresh_prefix()
    async with text_bus(redis_url, prefix) as room_side, text_bus(redis_url, prefix) as gateway:
        listener = await gateway.subscribe("cellar")

        await room_side.publish("cellar", ["1", "2"])
        await room_side.publish("cellar", ["3"])
        await room_side.publish("elsewhere", ["not for cellar"])

        assert await take(listener, 3) == ["1", "2", "3"]


async def test_the_publishing_process_hands_its_own_batches_over_once_as_they_are(
    redis_url: str,
) -> None:
    """A room's own process gets its events without a trip through Redis: the very
    messages published, and not a second time when Redis brings them back."""
    prefix = fresh_prefix()
    async with text_bus(redis_url, prefix) as room_side, text_bus(redis_url, prefix) as other:
        listener = await room_side.subscribe("cellar")
        mine = "-".join(["declared"] * 50)  # a string made here: a decoded copy is another

        assert await room_side.publish_counted("cellar", [mine]) == 1  # Redis's count too
        await other.publish("cellar", ["theirs"])

        got = await take(listener, 2)
        assert got == [mine, "theirs"]
        assert got[0] is mine


async def test_one_bus_listens_on_one_connection_whatever_its_subscriptions(
    private_redis: RedisServer, plain: Redis
) -> None:
    async with text_bus(private_redis.url) as bus:
        for topic in ["one", "one", "two", "three", "three"]:
            await bus.subscribe(topic)

        subscribers = await plain.client_list(_type="pubsub")

        assert len(subscribers) == 1


async def test_the_channel_is_unsubscribed_when_its_last_subscription_ends(
    private_redis: RedisServer, plain: Redis
) -> None:
    async with text_bus(private_redis.url, limit=1) as bus:
        channel = bus.channel("room")
        closing, lagging = await bus.subscribe("room"), await bus.subscribe("room")
        assert await numsub(plain, channel) == 1

        await closing.close()
        assert await numsub(plain, channel) == 1  # `lagging` still listens
        await bus.publish("room", ["1", "2"])  # too much for it: dropped

        assert lagging.lagging
        assert bus.subscribers("room") == 0
        # the UNSUBSCRIBE goes out in the background
        await until(lambda: unsubscribed(plain, channel), what="the channel unsubscribed")


async def test_a_batch_nobody_can_read_makes_its_subscribers_lag(
    private_redis: RedisServer, plain: Redis
) -> None:
    """Something else published on the channel: the subscriber cannot know what it
    missed, so it is told to catch up from the log; the bus itself goes on."""
    async with text_bus(private_redis.url) as bus:
        listener = await bus.subscribe("room")
        await bus.publish("room", ["1"])

        await plain.publish(bus.channel("room"), b"not a frame")

        assert await take(listener, 1) == ["1"]
        with pytest.raises(SubscriberLagging):
            await within(listener.get())
        again = await bus.subscribe("room")
        await bus.publish("room", ["2"])
        assert await take(again, 1) == ["2"]


async def test_a_killed_redis_makes_every_subscriber_lag_and_a_new_subscription_works_again(
    private_redis: RedisServer,
) -> None:
    """Messages published while the connection was down are gone from pub/sub: each
    subscriber learns it lags, reads the log, and subscribes again once Redis is back."""
    async with text_bus(private_redis.url, limit=10) as bus:
        waiting = await bus.subscribe("room")
        buffered = await bus.subscribe("room")
        await bus.publish("room", ["before"])
        assert await take(waiting, 1) == ["before"]
        pending = asyncio.create_task(waiting.get())

        private_redis.kill()

        with pytest.raises(SubscriberLagging):
            await within(pending)
        assert await within(_drain(buffered)) == ["before"]
        assert buffered.lagging
        with pytest.raises(RedisConnectionError):
            await bus.publish("room", ["while down"])
        with pytest.raises(RedisConnectionError):
            await bus.subscribe("room")

        private_redis.start()
        again = await bus.subscribe("room")
        await bus.publish("room", ["after"])

        assert await take(again, 1) == ["after"]


async def _drain(subscription: RedisSubscription[str]) -> list[str]:
    """The messages left in a subscription that ended as lagging."""
    left: list[str] = []
    while True:
        try:
            left.append(await subscription.get())
        except SubscriberLagging:
            return left


async def test_closing_the_bus_ends_its_subscriptions(redis_url: str) -> None:
    bus = text_bus(redis_url, fresh_prefix())
    listener = await bus.subscribe("room")
    waiting = asyncio.create_task(listener.get())
    assert not await settles(waiting)  # it waits

    await within(bus.close(), what="closing the bus")

    with pytest.raises(SubscriptionClosed):
        await within(waiting)
    assert not listener.lagging
    with pytest.raises(RuntimeError):
        await bus.publish("room", ["after close"])
