"""One server process with `--redis`: the same server as the embedded one, its rooms in
Redis. A fight is played, and a second process started later (the first one gone)
finds it as it was: Redis, not the process, holds it."""

from __future__ import annotations

from pathlib import Path

from protocol.messages import Created, Error, Hello, Refused, Welcome
from server.app import DEMO_ENCOUNTER
from server.encounters import read_file
from tests.cluster.support import attack, close_windows_until_the_round_ends, hold
from tests.server.wire import Wire, gm_view, open_socket
from tests.support.redis import RedisServer
from tests.support.server import served


async def test_a_fight_in_redis_outlives_its_process(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path, appendfsync="always")
    redis.start()
    try:
        async with served(tmp_path / "first", redis=redis.url) as server:
            assert server.demo is not None
            tokens = server.demo
            gm = await Wire.join(server.url, tokens["gm"])
            ayla = await Wire.join(server.url, tokens["players"]["ayla"])
            await gm.acked({"type": "StartCombat"})
            await ayla.acked(attack("ayla", "g1", "longsword"))
            for seat in ("bram", "corvin"):
                player = await Wire.join(server.url, tokens["players"][seat])
                await player.acked(hold(seat))
            await gm.acked(attack("g1", "ayla", "scimitar"))
            await gm.acked(attack("g2", "bram", "scimitar"))
            await close_windows_until_the_round_ends(gm)
            before = await gm_view(server.url, tokens["gm"])
            # a host token (signed with the secret the cluster keeps in Redis) creates
            host = await Wire.join(server.url, server.host_token)
            encounter = read_file(DEMO_ENCOUNTER)
            await host.send({"type": "create", "cid": "duel", "encounter": encounter})
            created = await host.expect(lambda m: isinstance(m, Created | Refused))
            assert isinstance(created, Created), created

        # another process, another data dir: same Redis, same fight, same tokens
        async with served(tmp_path / "second", redis=redis.url) as again:
            assert again.demo is None  # the cluster already has its rooms
            assert await gm_view(again.url, tokens["gm"]) == before
            back = await Wire.join(again.url, tokens["players"]["ayla"], resume_from_seq=3)
            await back.until_seq(before[0])
            assert back.seqs == list(range(4, before[0] + 1))
            duel_gm = await Wire.join(again.url, created.gm)
            assert duel_gm.welcome is not None and duel_gm.welcome.room == created.room
    finally:
        redis.kill()


async def test_a_room_that_cannot_be_loaded_while_redis_is_down_says_so(tmp_path: Path) -> None:
    """A hello for a room this process has not loaded yet, while Redis is away: an
    `unavailable` error and the connection closed with 1011 (reconnect later), not a
    crash; once Redis is back the same token joins."""
    redis = RedisServer(tmp_path, appendfsync="always")
    redis.start()
    try:
        async with (
            served(tmp_path / "first", redis=redis.url) as first,
            served(tmp_path / "second", redis=redis.url, demo=False) as second,
        ):
            host = await Wire.join(second.url, second.host_token)
            await host.send(
                {"type": "create", "cid": "new", "encounter": read_file(DEMO_ENCOUNTER)}
            )
            created = await host.expect(lambda m: isinstance(m, Created | Refused))
            assert isinstance(created, Created), created

            redis.kill()
            wire = Wire(await open_socket(first.url))
            await wire.send(Hello(token=created.gm))
            refused = await wire.expect(lambda m: isinstance(m, Error | Welcome))
            assert isinstance(refused, Error) and refused.code == "unavailable"
            assert await wire.closed() == 1011

            redis.start()
            gm = await Wire.join(first.url, created.gm)
            assert gm.welcome is not None and gm.welcome.room == created.room
    finally:
        redis.kill()
