"""Behind Sentinel a process acknowledges an append only while a majority of the
sentinels vouch for the primary it wrote to (`server/primacy.py`), and with
`--redis-durability every-replica` only once every replica they find up has it.

The rule first, on what sentinels could say; then on real sentinels (a primary, two
replicas, three sentinels on loopback): sentinels lost, so the vouches run out and
appends are refused before a failover could have begun; a replica lost, so
`every-replica` waits until the sentinels find it down.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from server.engine.commands import Paused
from server.engine.core import Event
from server.eventlog.redis import RedisEventLog
from server.primacy import MARGIN, Vouch, replicas_up, vouched_until
from server.redis_clients import RedisSettings, Unconfirmed
from tests.support.redis import RedisServer, SentinelGroup, require_redis_server

ASKED = 100.0
RUN_ID = "a" * 40


def events_of(count: int) -> list[Event]:
    return [Paused("gm") for _ in range(count)]


def vouch(
    run_id: str = RUN_ID, *, down: bool = False, pending_ms: int = 0, quorum: int = 2
) -> Vouch:
    return Vouch(run_id, down, pending_ms, down_after_ms=5000, quorum=quorum, sentinels=3)


# -- the rule -----------------------------------------------------------------------------


def test_two_of_three_sentinels_vouch_until_the_first_of_them_could_find_it_down() -> None:
    """Quorum 2 of 3: the silent one cannot begin a failover alone, but it and either
    voucher can; so the lease lasts until the sooner voucher could find the primary
    down, less the margin."""
    until = vouched_until(ASKED, RUN_ID, [vouch(pending_ms=300), vouch(), None], 3)
    assert until == pytest.approx(ASKED + ((1 - MARGIN) * 5000 - 300) / 1000)


def test_three_vouches_last_until_the_second_could_find_it_down() -> None:
    until = vouched_until(ASKED, RUN_ID, [vouch(pending_ms=900), vouch(pending_ms=300), vouch()], 3)
    assert until == pytest.approx(ASKED + ((1 - MARGIN) * 5000 - 300) / 1000)


def test_one_sentinel_of_three_vouches_for_nothing() -> None:
    """The process cut off with its primary and one sentinel: no lease."""
    assert vouched_until(ASKED, RUN_ID, [vouch(), None, None], 3) is None


def test_a_sentinel_that_finds_the_primary_down_or_names_another_does_not_vouch() -> None:
    assert vouched_until(ASKED, RUN_ID, [vouch(), vouch(down=True), vouch("b" * 40)], 3) is None


def test_a_quorum_the_silent_sentinels_reach_alone_leaves_no_lease() -> None:
    """Quorum 1: the one sentinel that did not answer could begin a failover alone."""
    vouches = [vouch(quorum=1), vouch(quorum=1), None]
    assert vouched_until(ASKED, RUN_ID, vouches, 3) is None


def test_sentinels_that_know_more_sentinels_raise_the_majority() -> None:
    """Given two sentinels, but they know of five: two vouches are not a majority."""
    five = Vouch(RUN_ID, False, 0, down_after_ms=5000, quorum=3, sentinels=5)
    assert vouched_until(ASKED, RUN_ID, [five, five], 2) is None


def test_the_replicas_up_are_those_some_sentinel_finds_up() -> None:
    listings: list[list[dict[str, Any]] | None] = [
        [
            {"ip": "10.0.0.2", "port": 6379, "flags": "slave"},
            {"ip": "10.0.0.3", "port": 6379, "flags": "slave,s_down"},
        ],
        [{"ip": "10.0.0.2", "port": 6379, "flags": "slave"}],
        None,
    ]
    assert replicas_up(listings) == 1


# -- on real sentinels ----------------------------------------------------------------------

DOWN_AFTER_MS = 3000


@pytest.fixture
def group(tmp_path: Path) -> Iterator[SentinelGroup]:
    require_redis_server()
    sentinels = SentinelGroup(tmp_path, replicas=2, down_after_ms=DOWN_AFTER_MS)
    sentinels.start()
    try:
        yield sentinels
    finally:
        sentinels.stop()


async def log_on(group: SentinelGroup, durability: str) -> AsyncIterator[RedisEventLog]:
    settings = RedisSettings.parse(group.url, durability=durability, durability_timeout=0.5)
    async with RedisEventLog(settings, prefix="primacy:") as log:
        yield log


async def refused_after(log: RedisEventLog, version: int, limit: float) -> tuple[float, int]:
    """Append one event after another until one is refused as unconfirmed: the seconds
    that took, and the version reached."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        try:
            version = await log.append("r", events_of(1), version)
        except Unconfirmed as refused:
            assert "cannot show that its Redis is the primary" in str(refused)
            return time.monotonic() - started, version
        await asyncio.sleep(0.05)
    raise AssertionError(f"still acknowledged {limit}s after the sentinels went")


async def test_appends_are_refused_once_two_of_three_sentinels_are_gone(
    group: SentinelGroup,
) -> None:
    """Two sentinels of three killed: the last one alone cannot vouch, so appends are
    refused within the lease, well before the sentinels' down-after time (a failover
    elsewhere needs at least that); with the sentinels back they are acknowledged
    again."""
    async for log in log_on(group, "local"):
        version = await log.append("r", events_of(1), 0)
        for sentinel in group.sentinels[1:]:
            sentinel.kill()
        took, version = await refused_after(log, version, DOWN_AFTER_MS / 1000 * 2)
        # within the lease (less the margin), and a second for a busy machine's loop
        assert took < (1 - MARGIN) * DOWN_AFTER_MS / 1000 + 1.0, took
        for sentinel in group.sentinels[1:]:
            await asyncio.to_thread(sentinel.start)
        deadline = time.monotonic() + 10
        while True:
            version = await log.version("r")
            try:
                await log.append("r", events_of(1), version)
                break
            except Unconfirmed:
                assert time.monotonic() < deadline, "never acknowledged again"
                await asyncio.sleep(0.2)


async def test_every_replica_waits_for_both_replicas_until_the_sentinels_find_one_down(
    group: SentinelGroup,
) -> None:
    """Acknowledged means on both replicas; one replica killed, appends are refused
    until the sentinels find it down, then acknowledged once the other has them."""
    async for log in log_on(group, "every-replica"):
        assert log.primacy is not None and log.primacy.replicas == 2
        version = await log.append("r", events_of(3), 0)
        for replica in group.servers[1:]:
            with replica.client() as client:
                assert client.xlen("primacy:room:{r}:events") == version
        group.servers[2].kill()
        with pytest.raises(Unconfirmed, match="1 of the 2 replicas"):
            await log.append("r", events_of(1), version)
        deadline = time.monotonic() + DOWN_AFTER_MS / 1000 + 10
        while True:
            version = await log.version("r")
            try:
                version = await log.append("r", events_of(1), version)
                break
            except Unconfirmed:
                assert time.monotonic() < deadline, "never acknowledged with one replica"
                await asyncio.sleep(0.2)
        assert log.primacy.replicas == 1
        with group.servers[1].client() as client:
            assert client.xlen("primacy:room:{r}:events") == version


def test_every_replica_needs_sentinel() -> None:
    with pytest.raises(ValueError, match="needs redis\\+sentinel"):
        RedisSettings.parse("redis://127.0.0.1:6379", durability="every-replica")


async def test_a_primary_short_of_replicas_refuses_and_the_append_is_unconfirmed(
    private_redis: RedisServer,
) -> None:
    """The deploy files' `min-replicas-to-write 1`: a primary cut off from every replica
    takes no write (`NOREPLICAS`); the append is not acknowledged, as one no replica
    confirmed, and nothing was written."""
    with private_redis.client() as client:
        client.config_set("min-replicas-to-write", 1)
    async with RedisEventLog(private_redis.url, prefix="short:") as log:
        with pytest.raises(Unconfirmed, match="NOREPLICAS"):
            await log.append("r", events_of(1), 0)
        assert await log.version("r") == 0


async def test_a_write_run_by_another_redis_than_the_one_vouched_for_is_unconfirmed(
    group: SentinelGroup,
) -> None:
    """A pool may hold connections to two servers (one opened while a sentinel still
    named the old primary): the write's own connection says which Redis ran it, and
    it counts only if that is the one the sentinels vouch for. Here the vouches are
    made to name another server than the one the log writes to."""
    async for log in log_on(group, "local"):
        assert log.primacy is not None
        version = await log.append("r", events_of(1), 0)
        with group.servers[0].client() as client:
            assert log.primacy.run_id == client.info("server")["run_id"]
        watching = log.primacy._task
        assert watching is not None
        watching.cancel()  # no look may name the real one again before the append
        await asyncio.gather(watching, return_exceptions=True)
        assert log.primacy.holds()
        log.primacy.run_id = "f" * 40  # as if they vouched for a promoted replica
        with pytest.raises(Unconfirmed, match="cannot show"):
            await log.append("r", events_of(1), version)


def test_a_sentinel_whose_failover_is_under_way_vouches_for_nothing() -> None:
    state = {"runid": RUN_ID, "flags": "master,failover_in_progress", "quorum": 2}
    assert Vouch.of(state).down


def test_a_quorum_above_the_vouches_leaves_no_lease() -> None:
    """Quorum 4 of 3 configured sentinels: no failover could ever begin, and no lease
    either (a misconfiguration is refused, not a traceback)."""
    assert vouched_until(ASKED, RUN_ID, [vouch(quorum=4)] * 3, 3) is None


def test_the_sentinel_s_clock_counts_from_its_last_good_answer_when_later() -> None:
    """A link that drops counts from the last good answer, not a pending ping."""
    state = {"runid": RUN_ID, "flags": "master", "last-ping-sent": 0, "last-ok-ping-reply": 700}
    assert Vouch.of(state).pending_ms == 700
