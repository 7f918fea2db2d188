"""The backends the bus contract runs against: every backend passes the same suite.

Redis runs on a private `redis-server` started for the session (or on `REDIS_URL`),
each test under its own channel prefix (tests/support/redis.py); its messages travel
as UTF-8 bytes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from server.bus import Bus
from server.bus.memory import MemoryBus
from server.bus.redis import RedisBus
from tests.support.redis import fresh_prefix, private_redis, redis_url
from tests.support.waiting import within

__all__ = ["MakeBus", "make_bus", "private_redis", "redis_url"]

BACKENDS = ["memory", "redis"]
MakeBus = Callable[[int], Awaitable[Bus[str]]]


@pytest.fixture(params=BACKENDS)
async def make_bus(request: pytest.FixtureRequest) -> AsyncIterator[MakeBus]:
    """Build a bus of the backend whose subscriptions buffer `limit` messages."""
    made: list[RedisBus[str]] = []
    prefix = fresh_prefix()

    async def make(limit: int = 1024) -> Bus[str]:
        if request.param == "memory":
            return MemoryBus(limit)
        if request.param == "redis":
            url = request.getfixturevalue("redis_url")
            bus = RedisBus(url, str.encode, bytes.decode, limit=limit, prefix=prefix)
            made.append(bus)
            return bus
        raise LookupError(request.param)  # pragma: no cover - a backend named but not wired

    yield make
    for bus in made:
        await within(bus.close(), what="closing a bus after its test")
