"""A process's outage report (server/cluster/outage.py) on its own: the lines an
operator gets for failures and successes coming in any order."""

from __future__ import annotations

import asyncio
import logging

import pytest

from server.cluster.outage import Outage

QUIET = 0.05


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        f"{record.levelname} {record.getMessage()}"
        for record in caplog.records
        if record.name == "server.cluster.outage" and record.levelno >= logging.INFO
    ]


async def ended(outage: Outage, within: float = 2.0) -> None:
    async with asyncio.timeout(within):
        while outage.down:
            await asyncio.sleep(QUIET / 5)


async def test_one_warning_when_it_starts_and_one_with_the_counts_when_it_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    outage = Outage("node-a", quiet=QUIET)
    outage.refused()  # no outage: not counted
    outage.reached()  # nothing to end
    assert not outage.down and said(caplog) == []

    for attempt in range(30):
        outage.failed(f"attempt {attempt}", ConnectionError("Connection refused\nmore"))
    outage.refused()
    outage.refused()
    assert outage.down
    assert said(caplog) == [
        "WARNING Redis out of reach: attempt 0 failed (ConnectionError: Connection refused); "
        "commands are refused with 'unavailable' until it answers again"
    ]
    outage.reached()
    outage.reached()  # the first success counts
    await ended(outage)
    end = [r for r in caplog.records if r.getMessage().startswith("Redis answers again")]
    assert len(end) == 1 and end[0].levelno == logging.WARNING
    assert "(failed operations: 30, commands refused with 'unavailable': 2)" in end[0].getMessage()
    assert getattr(end[0], "node") == "node-a"  # noqa: B009  (an `extra` field)
    assert len(said(caplog)) == 2
    debug = [r for r in caplog.records if r.levelno == logging.DEBUG]
    assert len(debug) == 30  # each failure, for whoever looks closer


async def test_a_failure_soon_after_a_success_is_the_same_outage(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    outage = Outage("node-a", quiet=QUIET)
    outage.failed("renewing", TimeoutError())
    for _ in range(5):  # a Redis answering one call in two
        outage.reached()
        await asyncio.sleep(QUIET / 5)
        outage.failed("appending", OSError("reset"))
        await asyncio.sleep(QUIET / 5)
    assert outage.down
    outage.reached()
    await asyncio.sleep(QUIET / 2)
    outage.failed("appending", OSError("reset"))  # after the timer was set: still out
    outage.reached()
    await ended(outage)
    lines = said(caplog)
    assert len(lines) == 2, lines
    assert lines[0].startswith("WARNING Redis out of reach: renewing failed (TimeoutError)")
    assert lines[1].startswith("WARNING Redis answers again after 0.")
    assert "failed operations: 7," in lines[1]
    assert outage.outages == 1

    outage.failed("renewing", TimeoutError())  # a later outage is a new one, counted anew
    assert outage.outages == 2 and len(said(caplog)) == 3
    outage.reached()
    await ended(outage)
    assert "(failed operations: 1, commands refused with 'unavailable': 0)" in said(caplog)[3]
