"""`--redis-durability`: when an append counts as done.

`replicated`: an append returns only once a replica holds it (`WAIT 1`); one that no
replica confirms in time is not acknowledged: the command is refused `unavailable`,
its events stay in the primary's Stream, and its retry with the same cid finds them
there (once a replica confirms) rather than applying it again. `fsync` needs
`WAITAOF` (Redis 7.2+): a server asked for it on an older Redis does not start.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from server.app import DEMO_ENCOUNTER
from server.cluster.node import Node, settings_for
from server.cluster.ownership import ClusteredRoom
from server.encounters import build, read_file
from server.engine.authority import GM, Principal
from server.engine.errors import CommandRefused
from server.engine.rulesets.verse.live import Declare
from server.engine.rulesets.verse.live_actions import HoldAction
from server.engine.turns import StartCombat
from server.eventlog.redis import RedisEventLog
from server.redis_clients import RedisSettings, Unconfirmed
from server.room.clock import SystemClock
from tests.support.redis import RedisServer, info, wait_for_replica
from tests.support.server import ServerProcess
from tests.support.waiting import within

AYLA = Principal("player", ("ayla",), "ayla")
ROOM = "ambush"
STOP = 20.0


@dataclass
class Replicated:
    primary: RedisServer
    replica: RedisServer

    def settings(self, durability: str = "replicated", timeout: float = 0.5) -> RedisSettings:
        return RedisSettings.parse(
            self.primary.url, durability=durability, durability_timeout=timeout
        )

    def stream(self, server: RedisServer) -> list[tuple[int, str, Any]]:
        """The room's Stream on `server`: (seq, type, data)."""
        with server.client() as client:
            entries: Any = client.xrange(f"room:{{{ROOM}}}:events")
        return [
            (int(entry_id.split(b"-")[0]), fields[b"type"].decode(), json.loads(fields[b"data"]))
            for entry_id, fields in entries
        ]


@pytest.fixture
def replicated(tmp_path: Path) -> Any:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    primary = RedisServer(tmp_path / "a", appendfsync="everysec")
    replica = RedisServer(tmp_path / "b", replica_of=primary)
    primary.start()
    try:
        replica.start()
        wait_for_replica(replica)
        yield Replicated(primary, replica)
    finally:
        replica.kill()
        primary.kill()


async def test_a_replicated_append_is_on_the_replica_when_it_returns(
    replicated: Replicated,
) -> None:
    initial = build(read_file(DEMO_ENCOUNTER), ROOM).encounter
    node = Node(replicated.settings(), SystemClock(), settings=settings_for(2.0))
    await node.start()
    await node.log.save_initial(ROOM, initial)
    runner = node.runner(ROOM, initial, queue_limit=16, snapshot_every=500)
    assert isinstance(runner, ClusteredRoom)
    await runner.start()
    try:
        acked = [await runner.submit(GM, StartCombat(), "start")]
        for seat in ("ayla", "bram", "corvin"):
            who = Principal("player", (seat,), seat)
            acked.append(await runner.submit(who, Declare(seat, (HoldAction(seat),)), seat))
            # the moment the ack is given, the replica holds every event it names
            on_replica = replicated.stream(replicated.replica)
            assert on_replica and on_replica[-1][0] >= acked[-1].last_seq
    finally:
        await within(runner.stop(), STOP, "stopping the room")
        await within(node.close(), STOP, "closing the node")
    assert replicated.stream(replicated.replica) == replicated.stream(replicated.primary)


async def test_an_append_no_replica_confirms_is_refused_and_its_retry_applies_it_once(
    replicated: Replicated, caplog: pytest.LogCaptureFixture
) -> None:
    initial = build(read_file(DEMO_ENCOUNTER), ROOM).encounter
    node = Node(replicated.settings(timeout=0.3), SystemClock(), settings=settings_for(1.0))
    await node.start()
    await node.log.save_initial(ROOM, initial)
    runner = node.runner(ROOM, initial, queue_limit=16, snapshot_every=500)
    assert isinstance(runner, ClusteredRoom)
    await runner.start()
    try:
        await runner.submit(GM, StartCombat(), "start")
        replicated.replica.kill()  # the primary's only replica is gone

        hold = Declare("ayla", (HoldAction("ayla"),))
        with caplog.at_level(logging.WARNING), pytest.raises(CommandRefused) as refused:
            await runner.submit(AYLA, hold, "hold")
        assert refused.value.code == "unavailable"
        told = str(refused.value)
        assert "may be in the log" in told and "retry with the same cid" in told, told
        assert "nothing was applied" not in told
        # the operator is told what to fix, once
        said = [r.getMessage() for r in caplog.records if "no replica confirmed" in r.getMessage()]
        assert said and "--redis-durability replicated" in said[0], said
        # the events are in the primary's Stream, unacknowledged
        declared = [
            seq
            for seq, kind, data in replicated.stream(replicated.primary)
            if kind == "DeclarationMade" and data["combatant"] == "ayla"
        ]
        assert len(declared) == 1

        await asyncio.to_thread(replicated.replica.start)
        await asyncio.to_thread(wait_for_replica, replicated.replica)
        again = await runner.submit(AYLA, hold, "hold")  # the same cid: found, not applied
        assert again.first_seq == declared[0]
        stream = replicated.stream(replicated.primary)
        assert [seq for seq, _, _ in stream] == list(range(1, len(stream) + 1))
        assert sum(1 for _, kind, d in stream if d.get("combatant") == "ayla" and
                   kind == "DeclarationMade") == 1  # fmt: skip
        assert replicated.stream(replicated.replica) == stream
    finally:
        await within(runner.stop(), STOP, "stopping the room")
        await within(node.close(), STOP, "closing the node")


async def test_an_append_raises_unconfirmed_but_stays_in_the_primary_s_stream(
    replicated: Replicated,
) -> None:
    initial = build(read_file(DEMO_ENCOUNTER), ROOM).encounter
    async with RedisEventLog(replicated.settings(timeout=0.2)) as log:
        await log.save_initial(ROOM, initial)
        replicated.replica.kill()
        events = [StartCombat()]  # any record will do for the log
        with pytest.raises(Unconfirmed, match=r"no replica confirmed the write within 0\.2s"):
            await log.append(ROOM, events, 0, "key")
        assert await log.version(ROOM) == 1
        assert [a.key for a in await log.recent_commands(ROOM, 5)] == ["key"]
        with pytest.raises(Unconfirmed):
            await log.confirm(ROOM)


async def test_replicated_durability_without_a_replica_is_a_warning_at_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    alone = RedisServer(tmp_path)
    alone.start()
    node = Node(
        RedisSettings.parse(alone.url, durability="replicated"),
        SystemClock(),
        settings=settings_for(1.0),
    )
    try:
        with caplog.at_level(logging.WARNING):
            await within(node.start(), what="starting the node")
        assert any("has no replica connected" in r.getMessage() for r in caplog.records)
    finally:
        await within(node.close(), STOP, "closing the node")
        alone.kill()


async def test_fsync_durability_needs_waitaof(tmp_path: Path) -> None:
    """Redis 7.2 added WAITAOF; on an older one the server does not start, and says so."""
    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis", appendfsync="everysec")
    redis.start()
    try:
        version = str(info(redis, "server")["redis_version"])
        server = ServerProcess(
            tmp_path / "server", options=["--redis", redis.url, "--redis-durability", "fsync"]
        )
        if tuple(int(part) for part in version.split(".")[:2]) >= (7, 2):
            await asyncio.wait_for(asyncio.to_thread(server.start), 30)
            server.stop()
            return
        with pytest.raises(RuntimeError, match="did not start"):
            await asyncio.wait_for(asyncio.to_thread(server.start), 30)
        said = server.log_path.read_text()
        assert f"needs Redis 7.2 or later (WAITAOF); this Redis is {version}" in said, said
        assert "use 'replicated'" in said
    finally:
        redis.kill()
