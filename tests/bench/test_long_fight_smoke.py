"""A tiny run of the long-fight benchmark (`bench/long_fight.py`): a short log, one run,
a lease living one second. It checks the harness end to end (a restart, two rewinds, a
cluster's takeover after a runner process is killed), never a speed."""

from __future__ import annotations

import re

import pytest

from bench import long_fight
from tests.support.redis import require_redis_server

LEASE_TTL = 1.0


def figures(out: str) -> dict[str, float]:
    """Each printed figure's median, in ms, by its name."""
    found = re.findall(r"^\s+(\S.*?)\s+([\d.]+) ms  \(min", out, re.MULTILINE)
    return {name: float(ms) for name, ms in found}


def test_every_figure_is_printed_and_the_takeover_follows_the_lease_s_expiry(
    capsys: pytest.CaptureFixture[str],
) -> None:
    require_redis_server()
    long_fight.main(["--events", "300", "--runs", "1", "--lease-ttl", str(LEASE_TTL)])
    out = capsys.readouterr().out
    printed = figures(out)

    assert set(printed) == {
        "restart",
        "rewind to the last",
        "rewind to the first",
        "follower's table",
        "lease wait",
        "takeover",
        "noticed",
        "rebuild",
        "first ack",
    }
    assert "lease time to live 1 s" in out
    # the killed runner's lease ran out within its time to live
    assert 0 < printed["lease wait"] <= LEASE_TTL * 1000
    # the survivor took the room once the lease was free, not before (the expiry is
    # known to the millisecond Redis counts in), then rebuilt it, then acked the command
    assert printed["noticed"] > -2.0
    assert printed["rebuild"] > 0 and printed["first ack"] > 0
