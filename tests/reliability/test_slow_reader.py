"""A client that stops reading while its room is busy is cut off with 4009
(`slow_reader`), the others play on unhindered, and it comes back where it stopped
(docs/protocol.md, "What the server enforces": a per-connection send buffer).

The server runs as a child process, with its default limits (a 1 MiB send buffer per
connection). Four bots play Live Combat rounds. A GM connection with a small socket
receive buffer reads the fight for a while, then stops reading, like a laptop whose
lid was closed. Meanwhile three other GM connections keep the room busy: each adds
and removes a goblin with 60 KB of GM notes, over and over, so every GM connection
receives about 120 KB a cycle. Once `/metrics` counts the slow reader's cut, the
pumping stops and the slow client wakes up: it reads what its buffers still hold,
finds the 4009 close, and (once the bots, who play on meanwhile, have stopped)
resumes from the last event it holds.

Checked: the close code and reason; no gap in what the slow client read, nor in what
it got on resuming (the events after its last seq, not a snapshot: it missed fewer
than the 1,024 the server keeps); the bots saw no gap, got answers while the room
was busy and every command of theirs answered (within `REPLY_SECONDS`: a server held
back by the slow reader answers none), and rounds went on while the slow client was
stuck. Their command latency is printed for each phase, not judged: speed is
measured in bench/, where the machine is known.

A second test has the slow client read its backlog slowly, past the server's first
keepalive ping after its close timeout (where websockets' own close dropped it, the
close frame unsent: 1006): the close frame waits behind the backlog, so it must
still come, as long as the client keeps reading.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed

from protocol.messages import Ack, Refused
from tests.reliability.support import (
    bounded,
    create_room,
    endless_fight,
    latency_line,
    metrics,
    noted_goblin,
    read_for,
    report,
    settle,
    stream_problems,
    table,
)
from tests.server.wire import Wire
from tests.support.server import ServerProcess

SEED = 4009
PUMPS = 3
KEPT = 1024  # the events a room's feed keeps for resuming (`Feed(history=...)`)
NOTES = 60_000  # bytes of GM notes on the goblin the pumps add and remove
PUMP_RATE = 15.0  # commands a second per pump: under the command rate (20)
MAX_CYCLES = 400  # per pump: far more than it takes to fill a slow reader's buffers
CUT_SECONDS = 40.0
WAKING_SECONDS = 30.0  # for the slow client, awake, to read its buffers and the close
THINK = (0.02, 0.1)  # seconds each bot takes before a command
ASLEEP = 1.0  # seconds the slow client of the second test sleeps on after its cut
RATE = 50_000  # bytes a second it then reads (a congested link)...
CONGESTED = 25.0  # ...until so many seconds after it connected; then the rest at once
KEEPALIVE = 20.0  # seconds between the server's keepalive pings (gateway/server.py)


def slow_cut(samples: dict[str, float]) -> float:
    return samples.get('combat_connections_closed_total{code="slow_reader"}', 0.0)


async def lid_closed(url: str, token: str, **options: Any) -> Wire:
    """A GM connection that will stop reading: a small receive buffer, and the
    websocket library keeps at most one frame it has not handed over."""
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    return await Wire.join(url, token, sock=sock, max_queue=1, **options)


async def pump(url: str, token: str, index: int, enough: asyncio.Event) -> list[float]:
    """Add and remove a goblin with big notes until told it is enough; the latency of
    each command. Its websocket takes in every frame as it comes (no `max_queue`), so
    its close at the end goes through at once rather than wait behind unread frames."""
    gm = await Wire.join(url, token, max_queue=None)
    goblin = noted_goblin(f"big-{index}", NOTES, 20 + 2 * index, 20)
    latencies: list[float] = []
    try:
        for cycle in range(MAX_CYCLES):
            if enough.is_set():
                break
            for command in (
                {"type": "AddCombatant", "combatant": goblin},
                {"type": "RemoveCombatant", "combatant": goblin["id"]},
            ):
                began = time.perf_counter()
                answer = await gm.command(command, cid=f"pump-{index}-{cycle}-{command['type']}")
                latencies.append(time.perf_counter() - began)
                assert isinstance(answer, Ack | Refused)
                await asyncio.sleep(1 / PUMP_RATE)
            gm.pending.clear()  # read and dropped: this GM keeps up
            gm.raw.clear()
            gm.received.clear()
    finally:
        await gm.close()
    return latencies


async def watch(url: str, enough: asyncio.Event) -> bool:
    """Poll `/metrics` until the slow reader's cut shows (True) or `CUT_SECONDS` pass;
    then the pumps may stop."""
    try:
        for _ in range(int(CUT_SECONDS / 0.1)):
            if slow_cut(await metrics(url)) >= 1:
                return True
            await asyncio.sleep(0.1)
        return False
    finally:
        enough.set()


async def test_a_slow_reader_is_cut_off_and_the_room_plays_on(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "data", options=["--no-demo"])
    lines: list[str] = []
    began = time.monotonic()
    try:
        await bounded(asyncio.to_thread(server.start), 30, "the server to start")
        created = await create_room(server.url, server.host_token, endless_fight("Slow", SEED))
        bots = table(server.url, created, SEED, THINK)
        bots[0].plays = lambda combatant: combatant in ("g1", "g2")  # not the pumps' goblins
        await bots[0].connect()
        assert isinstance(await bots[0].command({"type": "StartCombat"}), Ack)
        stop = asyncio.Event()
        playing = [asyncio.create_task(bot.play(stop)) for bot in bots]
        try:
            slow = await lid_closed(server.url, created.gm)
            await read_for(slow, 0.5)  # it reads the fight for a while...
            assert slow_cut(await metrics(server.url)) == 0
            # ...then stops reading, while the room gets busy
            busy = time.monotonic()
            enough = asyncio.Event()
            pumps = asyncio.gather(*(pump(server.url, created.gm, i, enough) for i in range(PUMPS)))
            cut = await bounded(watch(server.url, enough), CUT_SECONDS + 10, "the watcher")
            cut_at = time.monotonic()
            held_before = slow.last_seq
            # ...and wakes up soon after its cut: what its buffers hold, then the close
            waking = asyncio.create_task(slow.closed(WAKING_SECONDS))
            results = await bounded(pumps, 30, "the pumps")
            assert cut, "the slow reader was never cut off"
            await asyncio.sleep(1.0)  # the bots play on
        finally:
            stop.set()
            await bounded(asyncio.gather(*playing), 30, "the bots to stop")
        after = time.monotonic()
        for bot in bots:
            await bot.close()

        code = await bounded(waking, WAKING_SECONDS + 5, "the slow client's reading")
        assert (code, slow.ws.close_reason) == (4009, "slow_reader")
        first = slow.snapshots[0].seq
        assert slow.seqs == list(range(first + 1, slow.last_seq + 1)), "the slow client saw a gap"
        held = slow.last_seq
        gm_bot = bots[0]
        now = gm_bot.stream.last
        assert now is not None and now > held
        back = await Wire.join(server.url, created.gm, resume_from_seq=held)
        await back.until_seq(now, timeout=10)
        await back.close()
        assert await settle(server.url, 0) == 0, "connections still counted after all closed"
        if now - held <= KEPT:  # within the events a feed keeps: exactly those, no snapshot
            assert not back.snapshots, "resumed with a snapshot, though within the events kept"
            assert back.seqs[: now - held] == list(range(held + 1, now + 1)), "a gap on resuming"
        else:  # a busy machine let more happen meanwhile: a snapshot, then no gap
            assert back.snapshots, f"resumed {now - held} events behind without a snapshot"
            base = back.snapshots[0].seq
            assert back.seqs == list(range(base + 1, base + 1 + len(back.seqs))), "a gap"

        # the others were not held back
        assert not stream_problems(bots), stream_problems(bots)
        busy_latencies = [s for b in bots for s in b.latencies_between(busy, cut_at)]
        assert busy_latencies, "the bots got no answer while the room was busy"
        rounds = [
            seq
            for seq, event in gm_bot.stream.events.items()
            if event["$type"] == "RoundEnded" and seq > held_before
        ]
        assert rounds, "no round ended while the slow client was stuck"

        pump_latencies = [s for result in results for s in result]
        lines += [
            f"the slow GM read up to event {held_before}, stopped; cut off with {code} "
            f"(slow_reader) {cut_at - busy:.2f} s later, after the pumps' "
            f"{len(pump_latencies)} commands (about {len(pump_latencies) * NOTES / 1e6:.1f} MB "
            "of GM events for each GM connection)",
            f"on waking it read on to event {held} without a gap, and resuming from it got "
            f"events {held + 1}..{now} ({now - held} events, no snapshot)",
            f"{len(rounds)} rounds ended meanwhile; the bots saw no gap",
            latency_line(
                "bots, before the pumps", [s for b in bots for s in b.latencies_between(0, busy)]
            ),
            latency_line("bots, until the cut", busy_latencies),
            latency_line(
                "bots, after the cut", [s for b in bots for s in b.latencies_between(cut_at, after)]
            ),
            latency_line("pumps (60 KB AddCombatant, RemoveCombatant)", pump_latencies),
        ]
    finally:
        server.kill()
    lines.append(f"took {time.monotonic() - began:.2f} s in all")
    report("slow reader", lines)


async def test_a_slow_reader_that_reads_its_backlog_slowly_still_gets_4009(
    tmp_path: Path,
) -> None:
    """The slow client's close frame is written behind all it has not read (about a
    megabyte, more with the kernel's buffers), so it gets there only by reading it
    all. It wakes `ASLEEP` seconds after its cut and reads slowly (`RATE`) until
    past the server's first keepalive ping (`KEEPALIVE` after it connected), then
    fast. websockets' own close gave up on it at that ping, its close frame still
    unsent: 1006. It keeps reading, so the server keeps its socket: every frame,
    then 4009. It sends no keepalive pings of its own, as a browser: the server
    answers none once it has closed."""
    server = ServerProcess(tmp_path / "data", options=["--no-demo"])
    try:
        await bounded(asyncio.to_thread(server.start), 30, "the server to start")
        created = await create_room(server.url, server.host_token, endless_fight("Slow", SEED))
        connected = time.monotonic()
        slow = await lid_closed(server.url, created.gm, ping_interval=None)
        await read_for(slow, 0.3)
        enough = asyncio.Event()
        pumps = asyncio.gather(pump(server.url, created.gm, 0, enough))
        cut = await bounded(watch(server.url, enough), CUT_SECONDS + 10, "the watcher")
        cut_at = time.monotonic()
        held_before = slow.last_seq
        await asyncio.sleep(ASLEEP)
        frames = 0
        with contextlib.suppress(ConnectionClosed):
            for _ in range(100_000):  # far more frames than megabytes of 60 KB events
                slow.pending.append(await slow.receive(10.0))
                frames += 1
                if time.monotonic() < connected + CONGESTED:
                    await asyncio.sleep(len(slow.raw[-1]) / RATE)
        closed_at = time.monotonic()
        await bounded(pumps, 30, "the pump")
        assert cut, "the slow reader was never cut off"

        assert (slow.ws.close_code, slow.ws.close_reason) == (4009, "slow_reader")
        first = slow.snapshots[0].seq
        assert slow.seqs == list(range(first + 1, slow.last_seq + 1)), "the slow client saw a gap"
        # what this test is about: it was still reading at the server's keepalive ping
        assert closed_at - connected > KEEPALIVE, "read too fast to tell"
    finally:
        server.kill()
    report(
        "slow reader",
        [
            f"asleep at event {held_before}, cut off, awake {ASLEEP:.1f} s later; read "
            f"{frames} frames (to event {slow.last_seq}), {RATE / 1000:.0f} KB/s until "
            f"{CONGESTED:.0f} s after it connected, then 4009, {closed_at - cut_at:.1f} s "
            "after its cut"
        ],
    )
