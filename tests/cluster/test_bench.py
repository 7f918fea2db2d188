"""`python -m bench.cluster` runs every setup and reports what it measured (a short run:
the figures themselves are for people, on a quiet machine): embedded, and two processes
on Redis for each durability; `fsync` needs Redis 7.2, and an older one is reported as
refusing it."""

from __future__ import annotations

import pytest

from bench.cluster import main
from tests.support.redis import require_redis_server


def test_the_cluster_benchmark_measures_every_setup(capsys: pytest.CaptureFixture[str]) -> None:
    require_redis_server()
    results = main(["--encounters", "2", "--seconds", "1", "--warmup", "0.5", "--period", "0.5"])
    assert set(results) == {"embedded", "redis-local", "redis-replicated", "redis-fsync"}
    fsync = results["redis-fsync"]
    if "not_run" in fsync:  # Redis before 7.2
        assert "needs Redis 7.2 or later" in fsync["not_run"]
        del results["redis-fsync"]
    for figures in results.values():
        assert figures["events_per_second"] > 0 and figures["latencies"] > 0
        assert figures["gaps"] == 0 and not figures["refused"]
        assert 0 < figures["event_p50_ms"] <= figures["event_p99_ms"]
    printed = capsys.readouterr().out
    assert "embedded (1 process)" in printed and "redis-replicated (2 processes)" in printed
