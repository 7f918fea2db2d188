"""`python -m bench.cluster` runs every setup and reports what it measured (a short run:
the figures themselves are for people, on a quiet machine): embedded, one process on
Redis and two (split) for each durability; `fsync` needs Redis 7.2, and an older one is
reported as refusing it."""

from __future__ import annotations

from typing import Any

import pytest

from bench.cluster import main, parse, summary
from tests.support.redis import require_redis_server


@pytest.mark.timeout(300)
def test_the_cluster_benchmark_measures_every_setup(capsys: pytest.CaptureFixture[str]) -> None:
    require_redis_server()
    short = ["--encounters", "2", "--seconds", "1", "--warmup", "0.5", "--period", "0.5"]
    runs = main([*short, "--processes", "1,2"])
    assert len(runs) == 1
    results = runs[0]
    assert set(results) == {
        "embedded",
        *(
            f"redis-{d}{split}"
            for d in ("local", "replicated", "fsync")
            for split in ("", "-split")
        ),
    }
    for name in ("redis-fsync", "redis-fsync-split"):
        fsync = results[name]
        if "not_run" in fsync:  # Redis before 7.2
            assert "needs Redis 7.2 or later" in fsync["not_run"]
            del results[name]
    for setup, figures in results.items():
        assert figures["events_per_second"] > 0 and figures["latencies"] > 0
        assert figures["gaps"] == 0 and not figures["refused"]
        assert 0 < figures["event_p50_ms"] <= figures["event_p99_ms"]
        assert len(figures["server_cpu"]) == (2 if setup.endswith("-split") else 1)
        assert (figures["redis_cpu"] is None) == (setup == "embedded")
    printed = capsys.readouterr().out
    assert "embedded (1 process)" in printed
    assert "redis-local (1 process)" in printed
    assert "redis-replicated-split (2 processes)" in printed


def test_the_summary_takes_the_median_of_each_runs_share_of_embedded() -> None:
    def run(embedded: tuple[float, float], redis: tuple[float, float]) -> dict[str, Any]:
        return {
            name: {"events_per_second": rate, "events_per_cpu_second": per_cpu}
            for name, (rate, per_cpu) in (("embedded", embedded), ("redis-local", redis))
        }

    lines = summary(
        [
            run((1000, 2000), (800, 1900)),
            run((2000, 2200), (1000, 2000)),
            run((500, 1800), (450, 1500)),
        ]
    )
    assert lines[0] == "medians of 3 runs:"
    embedded, redis = lines[1], lines[2]
    assert embedded.startswith("embedded (1 process)") and "events/s 1000," in embedded
    # shares 0.80, 0.50, 0.90: the median share is 0.80, not 800 / 1000 of the medians
    assert "events/s 800, x embedded 0.80 (0.80 / 0.50 / 0.90)" in redis
    assert "per CPU s 1900, x embedded 0.91 (0.95 / 0.91 / 0.83)" in redis


def test_the_runs_and_processes_are_checked() -> None:
    assert parse(["--processes", "2,1", "--runs", "3"]).processes == (1, 2)
    assert parse([]).setups == ["embedded", "redis-local", "redis-replicated", "redis-fsync"]
    for wrong in (["--processes", "3"], ["--runs", "0"]):
        with pytest.raises(SystemExit):
            parse(wrong)
