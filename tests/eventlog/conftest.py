"""The backends the event log contract runs against: every backend passes the same suite.

The contract tests (test_contract.py, test_contract_rooms.py) stay as they are; a new
backend adds a name to BACKENDS and a branch to `event_log`. Redis runs on a private
`redis-server` started for the session (or on `REDIS_URL`), each test under its own
key prefix (tests/support/redis.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

from server.eventlog import EventLog
from server.eventlog.memory import MemoryEventLog
from server.eventlog.redis import RedisEventLog
from server.eventlog.sqlite import SqliteEventLog
from tests.support.redis import forget_prefix, fresh_prefix, private_redis, redis_url
from tests.support.waiting import within

__all__ = ["client", "event_log", "place", "private_redis", "redis_url"]

BACKENDS = ["memory", "sqlite", "redis"]


@pytest.fixture(params=BACKENDS)
async def event_log(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[EventLog]:
    log: EventLog
    url = prefix = ""
    if request.param == "memory":
        log = MemoryEventLog()
    elif request.param == "sqlite":
        log = SqliteEventLog(tmp_path / "events.sqlite")
    elif request.param == "redis":
        url, prefix = request.getfixturevalue("redis_url"), fresh_prefix()
        log = RedisEventLog(url, prefix=prefix)
    else:  # pragma: no cover - a backend named but not wired
        raise LookupError(request.param)
    yield log
    try:
        await within(log.close(), what=f"closing the {request.param} log after its test")
    finally:
        if url:
            await within(forget_prefix(url, prefix), what="removing the test's keys")


@pytest.fixture
async def place(redis_url: str) -> AsyncIterator[tuple[str, str]]:
    """The shared test Redis and a key prefix of this test's own."""
    prefix = fresh_prefix()
    yield redis_url, prefix
    await within(forget_prefix(redis_url, prefix), what="removing the test's keys")


@pytest.fixture
async def client(place: tuple[str, str]) -> AsyncIterator[Redis]:
    """A plain client, to look at what the log wrote and to take leases."""
    plain = Redis.from_url(place[0])
    yield plain
    await within(plain.aclose(), what="closing the plain client")
