"""`Leases.attempt`: take a free lease at once, or say how long its holder has left."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from server.leases import LeaseLost, Leases, fence_number
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
    assert fence_number(second.fence.token) > fence_number(first.fence.token)
    with pytest.raises(LeaseLost):
        await leases.renew(first)


async def test_attempt_and_acquire_share_one_fencing_counter(leases: Leases) -> None:
    taken = await leases.acquire("r")
    assert taken is not None
    assert await leases.release(taken)
    attempted, _ = await leases.attempt("r")
    assert (
        attempted is not None
        and fence_number(attempted.fence.token) == fence_number(taken.fence.token) + 1
    )


async def test_two_takers_drawing_one_number_from_two_counters_hold_different_tokens(
    leases: Leases,
) -> None:
    """Behind Sentinel, a cut-off primary and the replica promoted meanwhile each count
    on their own: two processes may draw the same number. Here the second draws it
    after the counter went back (as on the other primary): its token differs, and the
    first, whose token the lease key does not hold, can neither renew nor append."""
    client = leases._client
    other = Leases(client, ttl_ms=2000, prefix=leases.prefix, taker="other-process")
    first = await leases.acquire("r")
    assert first is not None
    await client.delete(f"{leases.prefix}room:{{r}}:lease", f"{leases.prefix}room:{{r}}:fence")
    second = await other.acquire("r")
    assert second is not None
    assert fence_number(first.fence.token) == fence_number(second.fence.token) == 1
    assert first.fence.token != second.fence.token
    with pytest.raises(LeaseLost):
        await leases.renew(first)
    await other.renew(second)
