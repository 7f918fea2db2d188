"""`Leases.attempt`: take a free lease at once, or say how long its holder has left."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from server.leases import LeaseLost, Leases
from tests.support.redis import forget_prefix, fresh_prefix
from tests.support.waiting import within


@pytest.fixture
async def leases(redis_url: str) -> AsyncIterator[Leases]:
    prefix = fresh_prefix()
    client = Redis.from_url(redis_url)
    yield Leases(client, ttl_ms=2000, prefix=prefix)
    try:
        await within(client.aclose(), what="closing the leases' Redis client")
    finally:
        await within(forget_prefix(redis_url, prefix), what="removing the test's keys")


async def test_a_free_lease_is_taken_and_a_held_one_tells_its_time_left(leases: Leases) -> None:
    first, wait = await leases.attempt("r")
    assert first is not None and wait == 0.0
    again, left = await leases.attempt("r")
    assert again is None and 1.5 < left <= 2.0
    await leases.renew(first)  # the holder keeps it
    assert await leases.release(first)
    second, wait = await leases.attempt("r")  # given back: taken at once, with a newer token
    assert second is not None and wait == 0.0
    assert int(second.fence.token) > int(first.fence.token)
    with pytest.raises(LeaseLost):
        await leases.renew(first)


async def test_attempt_and_acquire_share_one_fencing_counter(leases: Leases) -> None:
    taken = await leases.acquire("r")
    assert taken is not None
    assert await leases.release(taken)
    attempted, _ = await leases.attempt("r")
    assert attempted is not None and int(attempted.fence.token) == int(taken.fence.token) + 1
