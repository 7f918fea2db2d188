"""A tiny run of the load generator (`bench/load.py`): two encounters for a second.

It starts real processes (a server per phase, the bots, the floor server, the bare
broadcast), so it checks the whole harness end to end. It asserts that every phase
measured something and that the play was sound (every command answered, every event
delivered, no seq gap), never a speed: figures from a shared test machine are not the
benchmark.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from bench.load import Options, Results, ratio, report, run
from bench.load_floor import ROLES, UpdateFrames


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


def test_saturation_is_compared_with_the_floor_server(results: Results) -> None:
    saturate, floor, bare = _phase(results.saturate), _phase(results.floor), _phase(results.bare)
    assert floor["connections"] == saturate["connections"] == 20
    assert floor["events"] > 0
    assert floor["gaps"] == 0  # every client got every event of its room, in order
    assert floor["refused"] == {}  # the floor limits no rate
    assert floor["acked"] == floor["sent"] > 0
    assert floor["latencies"] == floor["acked"]  # each command's event came back
    # the same frames: the one-event update each kind of client got from the combat server
    # for a declaration in a quiet room (`load_bots.sample`), to a room's 1 GM, 4 players
    # and 5 spectators, under the floor's seqs (three numbers in each frame, a byte or two
    # wider or narrower where the rooms run at another rate)
    captured = saturate["sample_bytes"]
    layout = {"gm": 1, "player": 4, "spectator": 5}
    sent = sum(captured[kind] * n for kind, n in layout.items()) / sum(layout.values())
    assert abs(floor["event_frame_bytes"] - sent) <= 3 * 2
    assert ratio(saturate, floor) > 0
    assert ratio(floor, bare) > 0


def test_the_floor_sends_the_captured_frames_byte_for_byte() -> None:
    def frame(seq: int, seat: str) -> bytes:
        line = {"seq": seq, "kind": "DeclarationMade", "text": f"{seat} declares", "rolls": []}
        patch = [{"op": "replace", "path": "/version", "value": 41}]
        update = {"type": "update", "from_seq": seq - 1, "seq": seq, "patch": patch}
        data: bytes = msgpack.packb({**update, "log": [line]})
        return data

    captured: dict[str, bytes] = {role: frame(300, role) for role in ROLES}
    frames = UpdateFrames(captured)
    for role in ROLES:
        assert frames.frame(role, 300) == captured[role]
        assert frames.frame(role, 7) == frame(7, role)
        assert frames.frame(role, 70_000) == frame(70_000, role)  # wider numbers too
    update = msgpack.unpackb(captured["gm"])
    none = msgpack.packb({**update, "log": []})
    two = msgpack.packb({**update, "log": update["log"] * 2})
    events = msgpack.packb({"type": "events", "events": [{"seq": 1, "event": {}}]})
    for odd in (none, two, events):
        with pytest.raises(ValueError, match="exactly one event"):
            UpdateFrames({**captured, "gm": odd})


def test_idle_connections_are_weighed(results: Results) -> None:
    idle = _phase(results.idle)
    assert idle["connections"] == idle["asked"] == 20
    assert idle["error"] == ""
    assert idle["server_rss_after_kib"] > 0


def test_idle_connections_are_weighed_on_a_bare_server_too(results: Results) -> None:
    bare = _phase(results.idle_bare)
    assert bare["phase"] == "idle_bare"
    assert bare["connections"] == bare["asked"] == 20  # each hello was echoed back
    assert bare["error"] == ""
    assert bare["server_rss_after_kib"] > 0
    text = "\n".join(report(results))
    assert "bare websockets server: 20 connections" in text
    assert "combat / bare" in text


def test_the_report_prints_each_figure(results: Results) -> None:
    text = "\n".join(report(results))
    figures = (
        "p50",
        "p99",
        "events/s",
        "floor server",
        "ratio combat / bare",
        "ratio combat / floor",
        "ratio floor / bare",
        "KiB per connection",
    )
    for figure in figures:
        assert figure in text
