"""One connection's flood stalls nobody else (docs/protocol.md, "What the server
enforces": the frame budget and the pong rate).

Every frame counts against the connection's frame budget, whatever its type: messages
that cannot be read, `ping` messages, websocket pings. Over it, the connection is
closed at once with 4010 (`flooding`). The spectator's link is the one most often
shared, so the floods here come from a spectator.
"""

from __future__ import annotations

import asyncio
import json
import re
import statistics
import subprocess
import time
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from protocol.messages import Pong
from server.gateway.connection import Limits
from tests.server.test_restart import printed_tokens
from tests.server.wire import Wire, gm_view, http_get
from tests.support.pressing import another_room, pressing
from tests.support.server import ServerProcess, served

ROUNDS = 3
PHASE_SECONDS = 2.5


def setting(value: float) -> dict[str, Any]:
    return {"type": "SetSetting", "name": "reaction_seconds", "value": value}


# -- in this process: what the flooder and the others see --------------------------------


async def test_unreadable_frames_over_the_budget_close_the_connection_4010(
    tmp_path: Path,
) -> None:
    limits = Limits(frames_per_second=50.0, frame_burst=100)
    async with served(tmp_path, limits=limits) as server:
        assert server.demo is not None
        gm = await Wire.join(server.url, server.demo["gm"])
        before = await gm_view(server.url, server.demo["gm"])
        flooder = await Wire.join(server.url, server.demo["spectator"])
        for _ in range(400):
            try:
                await flooder.send_raw(b"\xc1")
            except Exception:  # closed under it: the point
                break
        assert await flooder.closed() == 4010
        assert flooder.ws.close_reason == "flooding"
        answers = [e.code for e in flooder.errors]
        # Frames read before the budget ran out were answered; none after it.
        assert len(answers) <= 100 and set(answers) <= {"malformed_frame"}
        assert await gm_view(server.url, server.demo["gm"]) == before  # nothing changed
        await gm.ping(1)
        await gm.acked(setting(9.0))  # the room plays on


async def test_websocket_pings_count_against_the_frame_budget(tmp_path: Path) -> None:
    async with served(tmp_path, limits=Limits(frames_per_second=20.0, frame_burst=50)) as server:
        assert server.demo is not None
        flooder = await Wire.join(server.url, server.demo["spectator"])
        for n in range(200):
            try:
                await flooder.ws.ping(str(n))  # never waits for the pong
            except Exception:
                break
        assert await flooder.closed() == 4010


async def test_ping_messages_are_answered_at_a_bounded_rate(tmp_path: Path) -> None:
    limits = Limits(pongs_per_second=2.0, pong_burst=4, frames_per_second=1_000, frame_burst=1_000)
    async with served(tmp_path, limits=limits) as server:
        assert server.demo is not None
        wire = await Wire.join(server.url, server.demo["spectator"])
        started = time.monotonic()
        for nonce in range(40):
            await wire.send({"type": "ping", "nonce": nonce})
        await wire.drain(0.5)
        elapsed = time.monotonic() - started
        pongs = [m for m in wire.received if isinstance(m, Pong)]
        assert 4 <= len(pongs) <= 4 + 2.0 * elapsed + 1, (len(pongs), elapsed)
        assert [p.nonce for p in pongs[:4]] == [0, 1, 2, 3]
        assert wire.ws.close_code is None  # within the frame budget: still served


# -- across processes: another room's latency under a flood -------------------------------


def flooding(url: str, token: str, kind: str) -> AbstractAsyncContextManager[subprocess.Popen[str]]:
    """A flooder in its own process for PHASE_SECONDS, rejoining whenever it is closed."""
    return pressing("tests.support.flooder", url, token, str(PHASE_SECONDS), kind)


async def latencies(gm: Wire, seconds: float) -> list[float]:
    """A GM playing on: a command every 50 ms (within the command rate) for `seconds`,
    each timed to its ack."""
    times: list[float] = []
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    value = 5.0
    while loop.time() < end:
        value = 5.0 if value >= 30 else value + 1
        started = time.perf_counter()
        await gm.acked(setting(value))
        times.append(time.perf_counter() - started)
        await asyncio.sleep(0.05)
    return times


SLACK = 0.025
"""Seconds a flood may add to another room's p95 on a busy machine (the test's bound)."""


def p95(times: list[float]) -> float:
    return statistics.quantiles(times, n=20)[-1]


async def test_a_flood_leaves_another_room_s_latency_near_its_baseline(
    tmp_path: Path,
) -> None:
    server = ServerProcess(tmp_path / "server")
    try:
        await asyncio.wait_for(asyncio.to_thread(server.start), 30)
        tokens = await printed_tokens(server)
        created = await another_room(server.url, server.host_token)
        other = await Wire.join(server.url, created.gm)
        await latencies(other, 0.5)  # warm up
        # Phases alternate, so both see the same machine. The baseline runs beside a
        # process that makes the same frames and sends none: the flooder's own CPU is
        # not the server's doing on a small machine.
        baseline: list[float] = []
        flooded: list[float] = []
        summaries = []
        for _ in range(ROUNDS):
            for kind, times in (("idle", baseline), ("malformed", flooded)):
                async with flooding(server.url, tokens["spectator"], kind) as process:
                    await asyncio.sleep(0.3)  # under way
                    times += await latencies(other, PHASE_SECONDS - 0.5)
                    out, _ = await asyncio.wait_for(asyncio.to_thread(process.communicate), 20)
                if kind == "malformed":
                    summaries.append(json.loads(out))
        summary = {key: sum(s[key] for s in summaries) for key in ("sent", "connections")}
        print(
            f"\nflood: {summary['sent']} frames over {summary['connections']} connections; "
            f"other room's command p95 {p95(baseline) * 1e3:.2f} ms without, "
            f"{p95(flooded) * 1e3:.2f} ms with ({len(baseline)} and {len(flooded)} commands)"
        )
        # The flooder is cut off: a client that never stops sending may never read
        # the close frame, so the server's own count says it.
        _, _, metrics = await http_get(server.url, "/metrics")
        cut = re.search(rb'combat_connections_closed_total\{code="flooding"\} (\d+)', metrics)
        assert cut is not None and int(cut.group(1)) >= summary["connections"] - 1, summary
        # Before the frame budget, a flood took another room's p95 from 1.8 ms to 606
        # ms. The bound catches that, not a few milliseconds of a shared machine's
        # noise (2.3 ms against 8.2 ms was seen while a neighbour ran a benchmark).
        allowed = max(2 * p95(baseline), p95(baseline) + SLACK)
        assert p95(flooded) <= allowed, (p95(baseline), p95(flooded))
        await other.ping(2)
    finally:
        server.kill()
