"""A tiny run of the load generator (`bench/load.py`): two encounters for a second.

It starts real processes (a server per phase, the bots, the bare broadcast), so it
checks the whole harness end to end. It asserts that every phase measured something
and that the play was sound (every command answered, every event delivered, no seq
gap), never a speed: figures from a shared test machine are not the benchmark.
"""

from __future__ import annotations

from typing import Any

import pytest

from bench.load import Options, Results, ratio, report, run


@pytest.fixture(scope="module")
def results() -> Results:
    return run(
        Options(encounters=2, seconds=1.0, warmup=0.3, period=0.2, connections=20, pin=False)
    )


def _phase(figures: dict[str, Any] | None) -> dict[str, Any]:
    assert figures is not None
    return figures


def test_steady_times_every_command_to_its_event(results: Results) -> None:
    steady = _phase(results.steady)
    assert steady["connections"] == 2 * 10
    assert steady["sent"] > 0
    assert steady["acked"] == steady["sent"]
    assert steady["refused"] == {}
    assert steady["gaps"] == 0
    assert steady["latencies"] == steady["acked"]  # each command's event came back
    assert 0 < steady["event_p50_ms"] <= steady["event_p99_ms"] <= steady["event_max_ms"]
    assert steady["events"] >= steady["acked"]  # and went to the other nine clients too


def test_saturation_is_compared_with_the_bare_broadcast(results: Results) -> None:
    saturate, bare = _phase(results.saturate), _phase(results.bare)
    assert saturate["events"] > 0
    assert saturate["gaps"] == 0
    # two tables cannot load the server: the players run into their rate limit (20 a
    # second a connection), which refuses, changes nothing and is counted
    refused = saturate["refused"]
    assert set(refused) <= {"rate_limited"}
    assert saturate["acked"] + sum(refused.values()) == saturate["sent"]
    assert saturate["acked"] > 0
    assert bare["connections"] == saturate["connections"] == 20
    assert bare["events"] > 0
    assert ratio(saturate, bare) > 0


def test_idle_connections_are_weighed(results: Results) -> None:
    idle = _phase(results.idle)
    assert idle["connections"] == idle["asked"] == 20
    assert idle["error"] == ""
    assert idle["server_rss_after_kib"] > 0


def test_the_report_prints_each_figure(results: Results) -> None:
    text = "\n".join(report(results))
    for figure in ("p50", "p99", "events/s", "ratio combat / bare", "KiB per connection"):
        assert figure in text
