"""The Bus contract: ordered fan-out per topic; a slow subscriber is dropped, not waited on."""

from __future__ import annotations

import asyncio

import pytest

from server.bus import SubscriberLagging
from tests.bus.conftest import MakeBus
from tests.support.waiting import rest, settles, take, within


async def test_every_subscriber_gets_every_message_in_publish_order(make_bus: MakeBus) -> None:
    bus = await make_bus(1024)
    first, second = await bus.subscribe("room"), await bus.subscribe("room")

    await bus.publish("room", ["1", "2"])
    await bus.publish("room", ["3"])

    assert await take(first, 3) == ["1", "2", "3"]
    assert await take(second, 3) == ["1", "2", "3"]


async def test_topics_are_separate(make_bus: MakeBus) -> None:
    bus = await make_bus(1024)
    one, two = await bus.subscribe("one"), await bus.subscribe("two")

    await bus.publish("one", ["for one"])
    await bus.publish("two", ["for two"])

    assert await take(one, 1) == ["for one"]
    assert await take(two, 1) == ["for two"]


async def test_a_subscriber_sees_only_what_is_published_after_it_subscribed(
    make_bus: MakeBus,
) -> None:
    bus = await make_bus(1024)
    await bus.publish("room", ["before"])
    late = await bus.subscribe("room")

    await bus.publish("room", ["after"])

    assert await take(late, 1) == ["after"]


async def test_get_waits_for_the_next_message(make_bus: MakeBus) -> None:
    bus = await make_bus(1024)
    listener = await bus.subscribe("room")
    waiting = asyncio.create_task(listener.get())
    assert not await settles(waiting)  # nothing to get: it waits

    await bus.publish("room", ["news"])

    assert await within(waiting) == "news"


async def test_closing_ends_iteration_after_what_was_buffered(make_bus: MakeBus) -> None:
    bus = await make_bus(1024)
    listener = await bus.subscribe("room")
    await bus.publish("room", ["1", "2"])

    await listener.close()
    await bus.publish("room", ["after close"])

    assert await rest(listener) == ["1", "2"]
    assert not listener.lagging


async def test_a_slow_subscriber_is_dropped_as_lagging_without_blocking_others(
    make_bus: MakeBus,
) -> None:
    """Its buffer holds 3: the batch that does not fit whole drops it. It keeps the
    gap-free prefix it had, then learns it lags (and catches up from the event log)."""
    bus = await make_bus(3)
    slow, fast = await bus.subscribe("room"), await bus.subscribe("room", limit=100)

    await bus.publish("room", ["1", "2"])
    assert await take(fast, 2) == ["1", "2"]
    await bus.publish("room", ["3", "4"])  # slow would hold 4: dropped, publish returns
    await bus.publish("room", ["5"])

    assert slow.lagging and not fast.lagging
    assert await take(slow, 2) == ["1", "2"]
    with pytest.raises(SubscriberLagging):
        await within(slow.get())
    assert await take(fast, 3) == ["3", "4", "5"]


async def test_iterating_a_lagging_subscription_raises_after_its_prefix(
    make_bus: MakeBus,
) -> None:
    bus = await make_bus(1)
    listener = await bus.subscribe("room")
    await bus.publish("room", ["1"])
    await bus.publish("room", ["2"])

    received: list[str] = []

    async def iterate() -> None:
        async for message in listener:
            received.append(message)

    with pytest.raises(SubscriberLagging):
        await within(iterate())
    assert received == ["1"]


async def test_a_waiting_subscriber_learns_at_once_that_it_was_dropped(
    make_bus: MakeBus,
) -> None:
    bus = await make_bus(1)
    listener = await bus.subscribe("room")
    waiting = asyncio.create_task(listener.get())
    assert not await settles(waiting)  # it waits

    await bus.publish("room", ["1", "2"])  # a batch bigger than the buffer

    with pytest.raises(SubscriberLagging):
        await within(waiting)
