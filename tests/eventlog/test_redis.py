"""What only the Redis log promises: processes share it, leases fence it, Redis restarts.

The contract tests (test_contract*.py) run on Redis too; these add the Stream's layout,
two writers on one Redis, appends fenced by a room's lease, and a killed `redis-server`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from server.engine.commands import Paused, Resumed
from server.engine.state import Encounter
from server.eventlog import Entry, Invite, RoomCard, Snapshot, VersionConflict
from server.eventlog.redis import READ_PAGE, RedisEventLog
from server.leases import Fence, LeaseLost, Leases, fence_number
from tests.support.redis import RedisServer

EMPTY = Encounter(id="e", ruleset="verse", combatants={})


async def test_a_room_is_a_stream_whose_entry_ids_are_the_sequence_numbers(
    place: tuple[str, str], client: Redis
) -> None:
    url, prefix = place
    async with RedisEventLog(url, prefix=prefix) as log:
        await log.append("cellar", [Paused("ayla"), Resumed("gm")], 0)

    stream = await client.xrange(f"{prefix}room:{{cellar}}:events")

    assert [(entry_id, fields[b"type"], fields[b"ends"]) for entry_id, fields in stream] == [
        (b"1-1", b"Paused", b"0"),
        (b"2-1", b"Resumed", b"1"),
    ]


async def test_two_logs_on_one_redis_see_each_other_and_the_late_writer_conflicts(
    place: tuple[str, str],
) -> None:
    """Two processes, each with its own connections, both built on version 0."""
    url, prefix = place
    async with (
        RedisEventLog(url, prefix=prefix) as first,
        RedisEventLog(url, prefix=prefix) as second,
    ):
        await first.save_initial("r", EMPTY)
        await first.append("r", [Paused("ayla")], 0, command_key="ayla/c-1")

        with pytest.raises(VersionConflict) as conflict:
            await second.append("r", [Resumed("gm")], 0)

        assert conflict.value.actual == 1
        assert await second.rooms() == ["r"]
        assert await second.read("r") == [Entry(1, Paused("ayla"))]
        assert [applied.key for applied in await second.recent_commands("r", 5)] == ["ayla/c-1"]


async def test_an_invite_kept_by_one_process_is_found_and_revoked_by_another(
    place: tuple[str, str], client: Redis
) -> None:
    url, prefix = place
    ayla = Invite("AYLA234567", "r", "player", "ayla", ("ayla",))
    async with (
        RedisEventLog(url, prefix=prefix) as first,
        RedisEventLog(url, prefix=prefix) as second,
    ):
        await first.add_invites([ayla])
        await first.save_card("r", RoomCard("Duel", "verse", "live", ("ayla",)))

        assert await second.find_invite("AYLA234567") == ayla
        assert await second.load_card("r") == RoomCard("Duel", "verse", "live", ("ayla",))
        assert await second.revoke_invite("r", "AYLA234567") == ayla
        assert await first.find_invite("AYLA234567") is None

    kept = await client.hgetall(f"{prefix}invite:AYLA234567")
    assert kept[b"room"] == b"r" and kept[b"revoked"] == b"1"
    assert await client.lrange(f"{prefix}room:{{r}}:invites", 0, -1) == [b"AYLA234567"]


async def test_concurrent_appends_on_one_version_let_exactly_one_through(
    place: tuple[str, str],
) -> None:
    url, prefix = place
    logs = [RedisEventLog(url, prefix=prefix) for _ in range(5)]
    try:
        outcomes = await asyncio.gather(
            *(log.append("r", [Paused(f"p{i}")], 0) for i, log in enumerate(logs)),
            return_exceptions=True,
        )
        entries = await logs[0].read("r")
    finally:
        for log in logs:
            await log.close()

    assert outcomes.count(1) == 1
    assert sum(isinstance(outcome, VersionConflict) for outcome in outcomes) == 4
    assert len(entries) == 1


async def test_a_long_history_is_read_whole_and_in_order(place: tuple[str, str]) -> None:
    """Reading goes page by page; the pages join without a gap or a repeat."""
    url, prefix = place
    total = 2 * READ_PAGE + 3
    async with RedisEventLog(url, prefix=prefix) as log:
        version = 0
        while version < total:
            batch = [Paused(f"p{seq}") for seq in range(version + 1, min(total, version + 400) + 1)]
            version = await log.append("r", batch, version)

        entries = await log.read("r")
        tail = await log.read("r", after_seq=READ_PAGE - 1)

    assert [entry.seq for entry in entries] == list(range(1, total + 1))
    assert [entry.event for entry in entries] == [Paused(f"p{seq}") for seq in range(1, total + 1)]
    assert [entry.seq for entry in tail] == list(range(READ_PAGE, total + 1))


# -- leases and fencing --------------------------------------------------------------


async def test_the_lease_holder_appends_through_its_fence(
    place: tuple[str, str], client: Redis
) -> None:
    url, prefix = place
    lease = await Leases(client, prefix=prefix).acquire("r")
    assert lease is not None
    async with RedisEventLog(url, prefix=prefix) as log:
        fenced = log.fenced("r", lease.fence)

        assert await fenced.append("r", [Paused("ayla")], 0, command_key="ayla/c-1") == 1
        assert await fenced.read("r") == [Entry(1, Paused("ayla"))]
        with pytest.raises(ValueError):  # the fence is the room's, not a pass for all rooms
            await fenced.append("other", [Paused("ayla")], 0)
        assert await log.version("other") == 0


async def test_a_room_has_one_lease_holder_and_each_holder_a_later_token(
    place: tuple[str, str], client: Redis
) -> None:
    leases = Leases(client, prefix=place[1])
    first = await leases.acquire("r")
    assert first is not None

    assert await leases.acquire("r") is None  # held: nobody else gets it
    assert await leases.release(first)
    second = await leases.acquire("r")

    assert second is not None
    assert fence_number(second.fence.token) > fence_number(first.fence.token)
    assert await leases.acquire("other-room") is not None  # rooms have their own


async def test_an_old_holder_cannot_append_renew_or_release_after_a_new_one_took_over(
    place: tuple[str, str], client: Redis
) -> None:
    url, prefix = place
    leases = Leases(client, prefix=prefix)
    old = await leases.acquire("r")
    assert old is not None
    async with RedisEventLog(url, prefix=prefix) as log:
        await log.append("r", [Paused("ayla")], 0, fence=old.fence)
        await leases.release(old)  # as if it had expired while the old holder slept
        new = await leases.acquire("r")
        assert new is not None

        with pytest.raises(LeaseLost) as lost:
            await log.fenced("r", old.fence).append("r", [Resumed("old")], 1)
        with pytest.raises(LeaseLost):
            await leases.renew(old)

        assert lost.value.code == "lease_lost"
        assert not await leases.release(old)
        assert await log.read("r") == [Entry(1, Paused("ayla"))]
        assert await log.append("r", [Resumed("new")], 1, fence=new.fence) == 2


async def test_a_fence_is_checked_before_the_version(place: tuple[str, str]) -> None:
    """A writer without the lease learns it lost the room, not that it is behind."""
    url, prefix = place
    async with RedisEventLog(url, prefix=prefix) as log:
        stale = Fence(f"{prefix}room:{{r}}:lease", "1")  # a token nobody holds

        with pytest.raises(LeaseLost):
            await log.append("r", [Paused("a")], expected_version=7, fence=stale)

        assert await log.version("r") == 0


async def test_a_lease_that_is_not_renewed_expires_and_fences_its_holder_out(
    place: tuple[str, str], client: Redis
) -> None:
    """Redis counts the time to live: a holder paused past it loses the room."""
    url, prefix = place
    leases = Leases(client, prefix=prefix, ttl_ms=30)
    lease = await leases.acquire("r")
    assert lease is not None
    await leases.renew(lease)  # renewing in time keeps it

    async with asyncio.timeout(5):  # bounded: Redis expires the key after 30 ms
        while await client.exists(lease.fence.key):
            await asyncio.sleep(0.01)

    async with RedisEventLog(url, prefix=prefix) as log:
        with pytest.raises(LeaseLost):
            await log.append("r", [Paused("paused holder")], 0, fence=lease.fence)
        assert await log.version("r") == 0
    with pytest.raises(LeaseLost):
        await leases.renew(lease)
    assert await leases.acquire("r") is not None


# -- a redis-server that dies --------------------------------------------------------


async def test_a_killed_redis_fails_the_append_loudly_and_a_restarted_one_is_used_again(
    private_redis: RedisServer,
) -> None:
    """Without persistence the restarted Redis is empty: the log starts at version 0."""
    async with RedisEventLog(private_redis.url, retries=0) as log:
        await log.append("r", [Paused("ayla")], 0)
        private_redis.kill()

        with pytest.raises(RedisConnectionError):
            await log.append("r", [Resumed("gm")], 1)

        private_redis.start()
        assert await log.version("r") == 0  # `--appendonly no`: nothing survives
        assert await log.append("r", [Resumed("gm")], 0) == 1


async def test_with_appendfsync_always_nothing_acknowledged_is_lost_to_a_kill(
    tmp_path: Path,
) -> None:
    server = RedisServer(tmp_path, appendfsync="always")
    server.start()
    try:
        async with RedisEventLog(server.url) as log:
            await log.save_initial("r", EMPTY)
            await log.append("r", [Paused("ayla"), Resumed("gm")], 0, command_key="gm/c-1")
            await log.save_snapshot("r", 2, EMPTY)
        server.kill()  # SIGKILL right after the acknowledgements
        server.start()

        async with RedisEventLog(server.url) as restarted:
            assert await restarted.rooms() == ["r"]
            assert await restarted.load_initial("r") == EMPTY
            assert await restarted.latest_snapshot("r") == Snapshot(2, EMPTY)
            assert await restarted.read("r") == [
                Entry(1, Paused("ayla"), ends_batch=False),
                Entry(2, Resumed("gm")),
            ]
            assert [applied.key for applied in await restarted.recent_commands("r", 5)] == [
                "gm/c-1"
            ]
            assert await restarted.append("r", [Paused("gm")], expected_version=2) == 3
    finally:
        server.kill()
