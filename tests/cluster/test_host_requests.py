"""A host's requests meet a Redis outage: `create` and `renew` are refused with the
retryable `unavailable` (docs/protocol.md, "Error codes"), the connection stays open,
and the same request succeeds once Redis is back. Before, the fault escaped the
session and the connection was closed with 1011 and no `error` frame.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from protocol.messages import Created, Refused
from tests.server.wire import Wire, lone_goblin
from tests.support.redis import RedisServer
from tests.support.server import served

ANSWER = 30.0  # seconds: Redis clients give up on a dead server within their timeouts


async def answer(host: Wire, message: dict[str, object]) -> Created | Refused:
    await host.send(message)
    cid = message["cid"]
    found = await host.expect(lambda m: isinstance(m, Created | Refused) and m.cid == cid, ANSWER)
    assert isinstance(found, Created | Refused)
    return found


async def test_create_and_renew_in_a_redis_outage_are_unavailable_then_work(
    tmp_path: Path,
) -> None:
    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis")
    await asyncio.to_thread(redis.start)
    try:
        async with served(tmp_path / "server", redis=redis.url) as server:
            host = await Wire.join(server.url, server.host_token)
            create = {"type": "create", "cid": "make", "encounter": lone_goblin("Outage")}
            renew = {"type": "renew", "cid": "again", "room": "elsewhere-000000", "seats": {}}

            await asyncio.to_thread(redis.kill)
            for message in (create, renew):
                refused = await answer(host, message)
                assert isinstance(refused, Refused), refused
                assert refused.code == "unavailable", refused
            await host.ping(1)  # the connection goes on
            assert not host.errors

            await asyncio.to_thread(redis.start)
            created: Created | Refused | None = None
            loop = asyncio.get_running_loop()
            back = loop.time()
            while loop.time() - back < ANSWER:
                created = await answer(host, create)
                if isinstance(created, Created):
                    break
                assert created.code == "unavailable", created
                await asyncio.sleep(0.2)
            assert isinstance(created, Created), created
            renewed = await answer(host, {**renew, "room": created.room})
            assert isinstance(renewed, Created) and renewed.room == created.room
    finally:
        await asyncio.to_thread(redis.kill)
