"""SIGKILL in the middle of a Live Combat round, three times, and a restart on the same
data dir each time: nothing acknowledged is lost or doubled (docs/architecture.md, "The
server": an fsync before any ack; "Retries across crashes").

The server runs as a child process. Four bots play the demo cast (the GM plays the
goblins, each seat its hero): declarations, dodges, blocks and passes, one command at
a time each. At a moment drawn from a seeded generator the server is killed; the
bots lose their connections (a command may be in flight), reconnect to the restarted
server with `resume_from_seq`, and send the command they had no answer to again with
the same `cid`. After the last restart they play on a little, then stop.

Checked at the end:

* every acked `cid` is in the log exactly once, under its own ack's seq range (a
  command applied twice would have moved its key to the later batch), and nothing
  is in the log under a `cid` that was not acked; each retry got the first answer;
* the log's seqs run 1..N with no gap, and a fresh GM connection resuming from 0 gets
  exactly those events, the GM bot's own events among them unchanged;
* replaying the log from the room's initial encounter gives the state the live server
  shows a fresh GM (the same view, the same state hash);
* no bot saw a gap or a repeat in its events across its connections.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from dataclasses import dataclass
from pathlib import Path

from protocol.messages import Ack, Snapshot
from tests.reliability.support import (
    RECONNECT_SECONDS,
    Bot,
    answer_counts,
    bounded,
    create_room,
    endless_fight,
    gm_view_of,
    latency_line,
    report,
    settle,
    stored_log,
    stream_problems,
    table,
    view_digest,
)
from tests.server.wire import Wire
from tests.support.server import ServerProcess

SEED = 20261201
KILLS = 5
COMMANDS_BEFORE_KILL = (6, 16)  # commands sent between two kills: a seeded draw
SNAPSHOT_EVERY = 500  # the room saves its state every 500 events (docs/protocol.md)
KILL_DELAYS = (0.0, 0.001, 0.002, 0.003)  # after that command's frame left


async def start(server: ServerProcess) -> float:
    """Start `server`; how long it took to serve."""
    began = time.monotonic()
    await bounded(asyncio.to_thread(server.start), 30, "the server to start")
    return time.monotonic() - began


class Trigger:
    """Set once the bots together have sent `count` more commands."""

    def __init__(self) -> None:
        self.left = 0
        self.fired = asyncio.Event()

    def arm(self, count: int) -> None:
        self.left = count
        self.fired.clear()

    def __call__(self) -> None:
        self.left -= 1
        if self.left == 0:
            self.fired.set()


async def test_sigkill_mid_round_loses_and_doubles_nothing(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    data = tmp_path / "data"
    server = ServerProcess(data, options=["--no-demo"])
    lines: list[str] = []
    began = time.monotonic()
    try:
        await start(server)
        created = await create_room(server.url, server.host_token, endless_fight("Kill", SEED))
        bots = table(server.url, created, SEED)
        trigger = Trigger()
        for bot in bots:
            bot.on_send = trigger
        gm = bots[0]
        await gm.connect()
        started = await gm.command({"type": "StartCombat"})
        assert isinstance(started, Ack), started
        stop = asyncio.Event()
        playing = [asyncio.create_task(bot.play(stop)) for bot in bots]
        kills: list[Kill] = []
        try:
            for number in range(1, KILLS + 1):
                trigger.arm(rng.randint(*COMMANDS_BEFORE_KILL))
                await bounded(trigger.fired.wait(), 30, "the bots to send their commands")
                await asyncio.sleep(rng.choice(KILL_DELAYS))
                server.kill()
                killed_at = time.monotonic()
                kill = Kill(
                    number,
                    in_flight={s.cid for b in bots for s in b.sent if s.waiting},
                    version=stored_log(data, created.room).version,
                    acked=sum(len(bot.acks) for bot in bots),
                )
                # the port is free once the process is gone: restart on the same one
                server = ServerProcess(data, port=server.port, options=["--no-demo"])
                kill.restart = await start(server)
                await bounded(
                    all_connected(bots, number + 1, playing),
                    RECONNECT_SECONDS,
                    "the bots to come back",
                )
                kill.back = time.monotonic() - killed_at
                kills.append(kill)
            trigger.arm(rng.randint(*COMMANDS_BEFORE_KILL))
            await bounded(trigger.fired.wait(), 30, "the bots to play on")
        finally:
            stop.set()
            await bounded(asyncio.gather(*playing), 30, "the bots to stop")
        for bot in bots:
            await bot.close()
        await check(server, data, created.room, created.gm, bots, kills, lines)
    finally:
        server.kill()
    errors = [line for line in server.log_lines() if line.get("level") in ("error", "critical")]
    assert not errors, f"the server logged errors: {errors[:3]}"
    lines.append(f"took {time.monotonic() - began:.2f} s in all")
    report("kill -9", lines)


@dataclass
class Kill:
    number: int
    in_flight: set[str]  # cids sent and not answered when the server died
    version: int  # the log's last seq then
    acked: int
    restart: float = 0.0
    back: float = 0.0


async def all_connected(
    bots: list[Bot], connections: int, playing: list[asyncio.Task[None]]
) -> None:
    """Every bot is connected, its `connections`-th connection at least."""
    for _ in range(100_000):
        if all(bot.connected and bot.connections >= connections for bot in bots):
            return
        for task in playing:
            if task.done():
                task.result()  # a bot that gave up says why
                raise AssertionError("a bot stopped playing")
        await asyncio.sleep(0.02)


async def check(
    server: ServerProcess,
    data: Path,
    room: str,
    gm_token: str,
    bots: list[Bot],
    kills: list[Kill],
    lines: list[str],
) -> None:
    # a fresh GM: the state now, and every event from the start
    snapshot_wire = await Wire.join(server.url, gm_token)
    shot = await snapshot_wire.expect(lambda m: isinstance(m, Snapshot))
    assert isinstance(shot, Snapshot)
    await snapshot_wire.close()
    now = shot.seq
    log = stored_log(data, room)
    seqs = [seq for seq, _ in log.events]
    assert seqs == list(range(1, len(seqs) + 1)), "the log has a gap"
    assert now <= len(seqs)

    # a fresh GM resuming from 0 gets every event; only a room restarted from a state it
    # saved (every 500 events) may send a snapshot instead (docs/protocol.md)
    fresh = await Wire.join(server.url, gm_token, resume_from_seq=0)
    await fresh.until_seq(now, timeout=10)
    await fresh.close()
    base = fresh.snapshots[0].seq if fresh.snapshots else 0
    if fresh.snapshots:
        assert now >= SNAPSHOT_EVERY, "resuming from 0 got a snapshot: events not in memory"
        kept = log.replayed(base)
        assert gm_view_of(kept) == fresh.snapshots[0].view, "the snapshot is not the log's"
    seen = dict(fresh.sequenced)
    assert sorted(seen)[: now - base] == list(range(base + 1, now + 1)), "a fresh GM saw a gap"
    stored = dict(log.events)
    for seq, event in seen.items():
        assert stored[seq] == event, f"event {seq} differs between the log and the wire"

    # every bot: no gap, no repeat; what it holds is the log's (the GM's, unredacted)
    problems = stream_problems(bots)
    assert not problems, problems
    for bot in bots:
        for seq, event in bot.stream.events.items():
            assert event["$type"] == stored[seq]["$type"], (bot.name, seq)
            if bot.name == "gm":
                assert event == stored[seq], seq
    assert sorted(bots[0].stream.events)[:now] == list(range(1, now + 1))

    # acked once, logged once, under its own ack; nothing logged that was not acked
    by_cid = {key.rsplit("\x1f", 1)[1]: span for key, span in log.commands.items()}
    acked = {cid: ack for bot in bots for cid, ack in bot.acks.items()}
    for cid, ack in acked.items():
        assert by_cid.get(cid) == (ack.first_seq, ack.last_seq), (cid, ack, by_cid.get(cid))
    ours = {sent.cid for bot in bots for sent in bot.sent}
    logged_unacked = sorted(cid for cid in by_cid if cid in ours and cid not in acked)
    assert not logged_unacked, f"in the log but never acked: {logged_unacked}"
    spans = sorted((a.first_seq, a.last_seq) for a in acked.values())
    for (_, last), (first, _) in itertools.pairwise(spans):
        assert first > last, "two acks name the same events"
    unanswered = [s.cid for b in bots for s in b.sent if s.tries and not s.answers]
    assert not unanswered, f"never answered: {unanswered}"

    # the log replayed from the start is the state the live server shows
    replayed = log.replayed(now)
    assert gm_view_of(replayed) == shot.view, "replaying the log does not give the live state"
    assert replayed.version == now

    sent = {s.cid: s for b in bots for s in b.sent}
    for kill in kills:
        # a command in flight either got its answer from the dying server (it was in the
        # socket's buffers), or its connection dropped and it was sent again
        for cid in kill.in_flight:
            assert sent[cid].answers, cid
        retried = [c for c in kill.in_flight if sent[c].dropped]
        logged = [c for c in retried if by_cid.get(c, (0, kill.version + 1))[1] <= kill.version]
        applied_after = [c for c in retried if c not in logged and c in acked]
        refused = [
            f"{sent[c].command['type']} {getattr(sent[c].final, 'code', '')}"
            for c in retried
            if c not in acked
        ]
        lines.append(
            f"kill {kill.number}: {kill.acked} commands acked before it, log at seq "
            f"{kill.version}; {len(kill.in_flight)} in flight: "
            f"{len(kill.in_flight) - len(retried)} answered by the dying server, "
            f"{len(retried)} sent again ({len(logged)} already in the log, answered with "
            f"the logged ack; {len(applied_after)} applied after the restart"
            + "".join(f"; {r}" for r in refused)
            + "); restarted in "
            f"{kill.restart:.2f} s, every bot back {kill.back:.2f} s after the kill"
        )
    counts = answer_counts(bots)
    lines.append(
        f"{len(sent)} commands sent, answers: "
        + ", ".join(f"{n} {what}" for what, n in counts.most_common())
    )
    lines.append(
        "a fresh GM resuming from 0 got "
        + (f"a snapshot at {base} (the room had saved its state) and " if base else "")
        + f"{len(seen)} events, as the log has them"
    )
    lines.append(
        f"{now} events in the log, no gap; {len(acked)} acked cids each logged once; "
        f"replayed state hash {replayed.state_hash()[:16]} (GM view {view_digest(shot.view)[:16]})"
        ": the live server shows the same view"
    )
    for bot in bots:
        lines.append(
            f"{bot.name}: {bot.connections} connections, {len(bot.stream.events)} events, "
            f"no gap or repeat, {bot.resumed_with_snapshot} resumes by snapshot; reconnected "
            + ", ".join(f"{s:.2f}" for s in bot.reconnect_seconds)
            + " s after its connection dropped"
        )
    lines.append(latency_line("command latency, all bots", [s for b in bots for s in b.latencies]))
    assert await settle(server.url, 0) == 0, "connections still counted after all closed"
