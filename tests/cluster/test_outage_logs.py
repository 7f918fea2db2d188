"""What a cluster process logs when Redis goes away and when it loses a room, counted
line by line under real faults (the proxies of tests/cluster/proxied.py): operators
alert on warnings, so an outage is two warnings per process (one when it starts, one
when it ends, with what it cost), never one per retry; and a room taken over while its
process was frozen is an INFO line saying the room moved, without a traceback."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest
import redis

from server.engine.authority import GM
from server.engine.rulesets.verse.overrides import SetSetting
from server.engine.turns import StartCombat
from server.leases import fence_number
from tests.cluster.conftest import redis_url
from tests.cluster.proxied import FAST, ROOM, Proxied, eventually, hold, proxied

__all__ = ["proxied", "redis_url"]

OUT = "Redis out of reach"
BACK = "Redis answers again"


def server_records(caplog: pytest.LogCaptureFixture, level: int) -> list[logging.LogRecord]:
    return [
        record
        for record in caplog.records
        if record.name.startswith("server.") and record.levelno >= level
    ]


def lines(records: list[logging.LogRecord]) -> list[str]:
    return [f"{r.levelname} {getattr(r, 'node', '-')} {r.getMessage()}" for r in records]


async def test_a_redis_outage_is_one_warning_when_it_starts_and_one_when_it_ends(
    proxied: Proxied, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    runner = await proxied.add("a")
    follower = await proxied.add("b")
    await runner.send("gm", StartCombat(), "start")
    caplog.clear()

    loop = asyncio.get_running_loop()
    for member in proxied.members:
        await member.proxy.cut()
    cut_at = loop.time()
    # commands meanwhile, on both processes, each refused once it waited its time;
    # the outage outlives the lease, so the runner lets go of the room too
    for _ in range(2):
        outcomes = await asyncio.gather(
            runner.send("ayla", hold("ayla"), "ayla-holds"),
            follower.send("bram", hold("bram"), "bram-holds"),
            return_exceptions=True,
        )
        assert all(getattr(o, "code", None) == "unavailable" for o in outcomes), outcomes
        follower.room.want_timing()  # a feed asking for the countdown: cannot either
    down_for = loop.time() - cut_at
    for member in proxied.members:
        await member.proxy.heal()
    await runner.settle("ayla", hold("ayla"), "ayla-holds")
    await follower.settle("bram", hold("bram"), "bram-holds")
    await eventually(
        lambda: sum(BACK in r.getMessage() for r in caplog.records) == 2,
        10,
        "each process said Redis answers again",
    )

    warnings = server_records(caplog, logging.WARNING)
    assert len(warnings) == 4, lines(warnings)  # two per process
    for name in ("a", "b"):
        said = [r for r in warnings if getattr(r, "node", None) == name]
        assert [r.levelname for r in said] == ["WARNING", "WARNING"], lines(warnings)
        start, end = said
        assert start.getMessage().startswith(OUT) and "unavailable" in start.getMessage()
        assert end.getMessage().startswith(BACK)
        seconds: float = getattr(end, "seconds")  # noqa: B009  (an `extra` field)
        assert down_for - 1.0 < seconds < down_for + 3.0
        assert getattr(end, "failed") >= 2  # noqa: B009
        assert getattr(end, "refused") == 2  # noqa: B009  (its two commands, each refused)
    assert all(r.exc_info is None for r in caplog.records if r.name.startswith("server."))
    # what else was said at INFO tells what happened to the room, once each
    infos = [r.getMessage() for r in server_records(caplog, logging.INFO) if r not in warnings]
    assert len(infos) <= 8, infos
    assert all(infos.count(message) <= 2 for message in infos), infos  # once a process


async def test_an_owner_frozen_past_its_lease_logs_one_info_line_and_writes_nothing(
    proxied: Proxied, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    owner = await proxied.add("a")
    await owner.send("gm", SetSetting("planning_seconds", 1), "short")
    await owner.send("gm", StartCombat(), "start")  # window 1: its countdown runs here
    before = await proxied.stream()
    old_token = before[-1][2]
    caplog.clear()

    # a command arrives while the process is frozen: it is read when it wakes
    sending = asyncio.create_task(owner.settle("ayla", hold("ayla"), "ayla-holds"))
    lease = f"{proxied.prefix}room:{{{ROOM}}}:lease"
    fence = f"{proxied.prefix}room:{{{ROOM}}}:fence"
    other = redis.Redis.from_url(proxied.url)
    try:
        # frozen (a long pause, SIGSTOP): nothing in this process runs for longer than
        # the lease and the window; meanwhile another process takes the lease
        time.sleep(FAST.lease_ttl + 0.2)
        assert other.exists(lease) == 0  # expired
        taken = other.incr(fence)
        other.set(lease, taken, px=1500)  # ...and runs the room, writing nothing yet
    finally:
        other.close()

    # woken: its countdown is due and a command waits; the owner finds out and stops
    await eventually(lambda: not owner.room.holding or owner.room.room is None, 5, "let go")
    ack = await asyncio.wait_for(sending, 15)  # taken again once the other lease ran out
    after = await proxied.stream()
    written = after[len(before) :]
    assert written and all(fence_number(token) > fence_number(taken) for _, _, token in written)
    assert [token for _, _, token in after].count(old_token) == len(
        [t for _, _, t in before if t == old_token]
    )  # nothing more under the old token: not the expiry, not the command
    assert ack.first_seq == len(before) + 1 or ack.first_seq > len(before)

    said = server_records(caplog, logging.INFO)
    assert not [r for r in said if r.levelno >= logging.WARNING], lines(said)
    assert all(r.exc_info is None for r in said)
    moved = [r for r in said if "moved to another process" in r.getMessage()]
    assert len(moved) == 1, lines(said)
    assert moved[0].levelno == logging.INFO and "stopped here" in moved[0].getMessage()
    assert GM.role == "gm"
