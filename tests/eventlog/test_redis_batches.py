"""The Redis log sends the appends of many rooms together (`server/redis_batches.py`):
each room still gets its own answer, a refusal fails only its own append, and a busy
process holds one connection to Redis for them, not one per room."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis

from server.engine.commands import Paused, Resumed
from server.eventlog import Entry, VersionConflict
from server.eventlog.redis import RedisEventLog
from server.leases import LeaseLost, Leases
from tests.support.waiting import within

ROOMS = 40


async def test_appends_of_many_rooms_at_once_each_land_with_their_own_answer(
    place: tuple[str, str], client: Redis
) -> None:
    url, prefix = place
    async with RedisEventLog(url, prefix=prefix) as log:
        await log.append("r0", [Paused("gm")], 0)  # one room is ahead: its append conflicts
        before = int((await client.info("clients"))["connected_clients"])

        answers = await within(
            asyncio.gather(
                *(log.append(f"r{i}", [Paused(f"p{i}"), Resumed("gm")], 0) for i in range(ROOMS)),
                return_exceptions=True,
            ),
            what="the appends",
        )
        after = int((await client.info("clients"))["connected_clients"])

        assert isinstance(answers[0], VersionConflict) and answers[0].actual == 1
        assert answers[1:] == [2] * (ROOMS - 1)
        for i in range(1, ROOMS):
            assert await log.read(f"r{i}") == [
                Entry(1, Paused(f"p{i}"), False),
                Entry(2, Resumed("gm"), True),
            ]
        assert await log.read("r0") == [Entry(1, Paused("gm"))]
        # sent in batches over one connection, not one connection per waiting room
        assert after - before <= 2


async def test_a_fenced_off_append_fails_alone_among_the_appends_sent_with_it(
    place: tuple[str, str], client: Redis
) -> None:
    url, prefix = place
    leases = Leases(client, prefix=prefix)
    old = await leases.acquire("moved")
    assert old is not None
    await leases.release(old)
    assert await leases.acquire("moved") is not None  # another process took it
    async with RedisEventLog(url, prefix=prefix) as log:
        fenced = log.fenced("moved", old.fence)
        answers = await within(
            asyncio.gather(
                fenced.append("moved", [Paused("old")], 0),
                *(log.append(f"r{i}", [Paused("gm")], 0) for i in range(5)),
                return_exceptions=True,
            ),
            what="the appends",
        )

        assert isinstance(answers[0], LeaseLost)
        assert answers[1:] == [1] * 5
        assert await log.read("moved") == []


async def test_appends_go_on_after_redis_forgets_its_scripts(
    place: tuple[str, str], client: Redis
) -> None:
    """A fresh primary (a failover) knows no script: each is loaded and sent again."""
    url, prefix = place
    async with RedisEventLog(url, prefix=prefix) as log:
        await log.append("r", [Paused("gm")], 0)
        await client.script_flush()

        answers = await within(
            asyncio.gather(
                log.append("r", [Resumed("gm")], 1),
                *(log.append(f"s{i}", [Paused("gm")], 0) for i in range(5)),
            ),
            what="the appends",
        )

        assert answers == [2, 1, 1, 1, 1, 1]
        assert await log.read("r") == [Entry(1, Paused("gm")), Entry(2, Resumed("gm"))]
