"""Connection churn while a round plays: a few hundred connections come and go, in
every way a connection can end, and the server gives back what they took.

The server runs as a child process; four bots play Live Combat rounds throughout.
Twenty at a time, connections open and close in seeded ways: a spectator or a player
joins, reads the snapshot (or resumes from a recent seq) and says goodbye; a GM joins
and drops the TCP connection without a close frame; a websocket opens and closes
before its `hello`; a `hello` is sent and the socket closed before the `welcome`; a
TCP connection opens and closes without an upgrade; a join pings and waits for its
`pong`. Two equal waves, the first to warm the server up.

Checked, with the figures printed: `combat_connections` on `/metrics` comes back to
the bots' four; the server's open file descriptors come back to what they were; its
resident memory grows by little during the second wave (bounded: what one wave
leaves behind must not be repeated by the next); every churned join got its
`welcome`; the bots saw no gap and had every command answered, their latency printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from pathlib import Path

from websockets.exceptions import ConnectionClosed

from protocol.codec import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL, pack
from protocol.messages import Ack, Created, Hello, Pong, Snapshot
from tests.reliability.support import (
    ProcessFigures,
    bounded,
    connections,
    create_room,
    endless_fight,
    latency_line,
    metrics,
    percentile,
    process_figures,
    read_for,
    report,
    settle,
    stream_problems,
    table,
)
from tests.server.wire import Wire, open_socket
from tests.support.server import ServerProcess

SEED = 1701
WAVES = 3
WAVE = 140  # connections per wave
STAY = (0.05, 0.4)  # seconds a joined connection stays: a seeded draw
AT_ONCE = 20  # connections open at the same time, at most
THINK = (0.02, 0.1)
KINDS = ("spectator", "resume", "abort", "no_hello", "hello_then_close", "tcp_only", "ping")
FD_SLACK = 2  # file descriptors the server may hold beyond the baseline (its own files)
LAST_WAVE_GROWTH_KIB = 8 * 1024  # resident memory the last wave may add
P95_SECONDS = 1.0


async def churn_one(url: str, created: Created, kind: str, rng: random.Random) -> str:
    """One connection of `kind`, opened and ended; what it saw."""
    subprotocol = rng.choice([MSGPACK_SUBPROTOCOL, JSON_SUBPROTOCOL])
    if kind == "tcp_only":
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
        return "closed"
    if kind == "no_hello":
        ws = await open_socket(url, [subprotocol])
        await ws.close()
        return "closed"
    if kind == "hello_then_close":
        ws = await open_socket(url, [subprotocol])
        await ws.send(hello(created.spectator, subprotocol))
        ws.transport.abort()
        return "aborted"
    stay = rng.uniform(*STAY)  # how long a joined connection stays while the round plays
    if kind == "abort":
        wire = await Wire.join(url, created.gm, subprotocol=subprotocol)
        await read_for(wire, stay)
        wire.ws.transport.abort()  # no close frame: the socket just goes
        return "welcome"
    if kind == "resume":  # a player's connection drops, and it resumes where it was
        token = created.players[rng.choice(sorted(created.players))]
        joined = await Wire.join(url, token, subprotocol=subprotocol)
        await read_for(joined, stay / 2)
        await joined.close()
        held = joined.last_seq
        back = await Wire.join(url, token, subprotocol=subprotocol, resume_from_seq=held)
        await read_for(back, stay / 2)
        await back.close()
        if back.snapshots:
            return "resumed by snapshot"
        assert back.seqs == list(range(held + 1, held + 1 + len(back.seqs))), "a gap"
        return "resumed"
    wire = await Wire.join(url, created.spectator, subprotocol=subprotocol)
    if kind == "ping":
        await wire.send({"type": "ping", "nonce": 5})
        await wire.expect(lambda m: isinstance(m, Pong))
    else:
        await wire.expect(lambda m: isinstance(m, Snapshot))
    await read_for(wire, stay)
    await wire.close()
    return "welcome"


def hello(token: str, subprotocol: str) -> bytes | str:
    """A `hello` frame in the encoding of `subprotocol`."""
    return pack(Hello(token=token).model_dump(), binary=subprotocol == MSGPACK_SUBPROTOCOL)


async def wave(url: str, created: Created, rng: random.Random, count: int) -> Counter[str]:
    """`count` connections, `AT_ONCE` at a time."""
    gate = asyncio.Semaphore(AT_ONCE)
    outcomes: Counter[str] = Counter()

    async def one(index: int) -> None:
        kind = KINDS[index % len(KINDS)]
        local = random.Random(rng.random())
        async with gate:
            try:
                outcomes[f"{kind}: {await churn_one(url, created, kind, local)}"] += 1
            except (ConnectionClosed, OSError, TimeoutError) as error:
                outcomes[f"{kind}: failed ({type(error).__name__})"] += 1

    await asyncio.gather(*(one(i) for i in range(count)))
    return outcomes


async def test_connection_churn_leaves_nothing_behind(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    server = ServerProcess(tmp_path / "data", options=["--no-demo"])
    lines: list[str] = []
    began = time.monotonic()
    try:
        await bounded(asyncio.to_thread(server.start), 30, "the server to start")
        created = await create_room(server.url, server.host_token, endless_fight("Churn", SEED))
        bots = table(server.url, created, SEED, THINK)
        await bots[0].connect()
        assert isinstance(await bots[0].command({"type": "StartCombat"}), Ack)
        stop = asyncio.Event()
        playing = [asyncio.create_task(bot.play(stop)) for bot in bots]
        try:
            await bounded(settle(server.url, len(bots)), 15, "the bots to join")
            baseline = connections(await metrics(server.url))
            assert baseline == len(bots)
            before = process_figures(server.pid)
            figures: list[tuple[str, ProcessFigures, int, float]] = []
            waves: list[Counter[str]] = []
            windows: list[tuple[float, float]] = []
            for number in range(1, WAVES + 1):
                start = time.monotonic()
                outcome = await bounded(wave(server.url, created, rng, WAVE), 60, "a wave")
                end = time.monotonic()
                shown = await settle(server.url, baseline)
                figures.append(
                    (f"after wave {number}", process_figures(server.pid), shown, end - start)
                )
                waves.append(outcome)
                windows.append((start, end))
            await asyncio.sleep(0.5)  # the bots play on
        finally:
            stop.set()
            await bounded(asyncio.gather(*playing), 30, "the bots to stop")
        for bot in bots:
            await bot.close()

        lines.append(f"before: {baseline} connections (the bots), {before}")
        for (label, shown_figures, shown, took), outcome in zip(figures, waves, strict=True):
            lines.append(
                f"{label} ({WAVE} connections in {took:.2f} s, {WAVE / took:.0f} a second): "
                f"{shown} connections, {shown_figures}"
            )
            lines.append("  " + ", ".join(f"{n} {what}" for what, n in sorted(outcome.items())))
        growth = figures[-1][1].rss_kib - figures[-2][1].rss_kib
        lines.append(f"the last wave added {growth / 1024:.1f} MiB of resident memory")
        churn_latencies = [
            s for b in bots for start, end in windows for s in b.latencies_between(start, end)
        ]
        lines.append(latency_line("bots during the waves", churn_latencies))
        lines.append(f"the bots' events: {bots[0].stream.last}, no gap")

        # the server gave back what the connections took
        for _, _, shown, _ in figures:
            assert shown == baseline, "the connection gauge did not come back"
        for _, shown_figures, _, _ in figures:
            assert shown_figures.fds <= before.fds + FD_SLACK, (before, shown_figures)
        assert growth < LAST_WAVE_GROWTH_KIB, lines
        for outcome in waves:
            failed = {what: n for what, n in outcome.items() if "failed" in what}
            assert not failed, failed
        # and the table played on
        assert not stream_problems(bots), stream_problems(bots)
        assert churn_latencies, "the bots got no answer during the waves"
        assert percentile(churn_latencies, 0.95) < P95_SECONDS, lines[-2]
    finally:
        server.kill()
    lines.append(f"took {time.monotonic() - began:.2f} s in all")
    report("churn", lines)
