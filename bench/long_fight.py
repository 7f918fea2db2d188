"""Long fights: how fast a room whose log holds 20,000 events comes back.

    .venv/bin/python -m bench.long_fight [--events 20000] [--runs 5] [--lease-ttl 5]

Issue "Capacity", target 3: a room whose log holds 20,000 events starts (a restart, a
takeover, a rewind to the first event and to the last) in under 0.5 s, and the first
client's table arrives within that time.

The log is made by playing `bench.live`'s Live rounds (eight fighters, scripted bots)
through a `Room` on the SQLite log the embedded server uses, saving snapshots as the
server does (`Host.snapshot_every`). Then, for each run, a fresh host and gateway on
that data serve a GM who connects cold, and the bench prints (medians):

- **restart**: from the GM's `hello` to its `table` on a server just started (the
  room loads its latest snapshot and the events after it; the feed tells the recent
  log, the table and the choices);
- **rewind to the last event** and **to the first event**: from the GM's `send` of
  `Rewind` to the `update` that shows it (the room rebuilds the state from the log).

Then the same rounds are played into a Redis log (a private `redis-server`), and a
cluster's takeover of the room is timed (`bench.takeover`): the process running it is
killed, and a surviving process with a GM at the table takes it over once its lease
expires. Printed: the **follower's table** (that GM's `hello` to `table` on the
surviving process, before the kill), the **lease wait** (the kill to the lease's
expiry: the `--lease-ttl` setting, not the target's), and the **takeover** (the
lease's expiry to the ack of the GM's command sent at the kill), split into noticing
the free lease, rebuilding the room from Redis, and the command's ack.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bench.live import play_into, processor
from bench.served import served
from bench.takeover import takeovers
from server.app import Options
from server.eventlog.sqlite import SqliteEventLog
from server.hosting import Host

ROOM = "long-fight"
TARGET = 0.5


async def make_log(path: Path, events: int, snapshot_every: int) -> int:
    """Play Live rounds into the SQLite log at `path` until it holds `events` events;
    the log's last seq."""
    log = SqliteEventLog(path)
    try:
        return await play_into(log, ROOM, events, snapshot_every)
    finally:
        await log.close()


async def first_batch_end(path: Path) -> int:
    """The seq of the first event that ends a command's batch: the first event a
    rewind may go back to."""
    log = SqliteEventLog(path)
    try:
        entries = await log.read(ROOM)
        return next(entry.seq for entry in entries if entry.ends_batch)
    finally:
        await log.close()


async def one_run(path: Path, first: int) -> dict[str, float]:
    """A cold host on the log at `path`: a GM joins, rewinds to the last event, then to
    `first`; seconds each took."""
    figures: dict[str, float] = {}
    async with served(path, ROOM) as gm:
        start = time.perf_counter()
        table = await gm.hello()
        figures["restart"] = time.perf_counter() - start
        for name, version in (("rewind to the last", table["seq"]), ("rewind to the first", first)):
            start = time.perf_counter()
            await gm.send(name, {"type": "Rewind", "to_version": version}, answer="update")
            figures[name] = time.perf_counter() - start
    return figures


async def main_async(events: int, runs: int, lease_ttl: float) -> None:
    snapshot_every = Host.__init__.__kwdefaults__["snapshot_every"]  # as the server does
    with tempfile.TemporaryDirectory() as work:
        made = time.perf_counter()
        for run in range(runs):
            # each run rewinds, so each gets a fresh copy of the same long log
            path = Path(work) / f"log-{run}.sqlite3"
            if run == 0:
                last = await make_log(path, events, snapshot_every)
                print(f"log: {last} events in {time.perf_counter() - made:.1f} s of play")
                source = path.read_bytes()
            else:
                path.write_bytes(source)
        first = await first_batch_end(Path(work) / "log-0.sqlite3")
        results = [await one_run(Path(work) / f"log-{run}.sqlite3", first) for run in range(runs)]
        taken = await takeovers(Path(work), ROOM, events, snapshot_every, runs, lease_ttl)
    print(f"processor: {processor()}; {runs} runs, medians:")
    for name in results[0]:
        line(name, [r[name] for r in results], TARGET)
    print(f"takeover in a cluster (lease time to live {lease_ttl:g} s):")
    line("follower's table", [t["follower's table"] for t in taken], TARGET)
    line("lease wait", [t["lease wait"] for t in taken], None)
    line("takeover", [t["takeover"] for t in taken], TARGET)
    for name in ("noticed", "rebuild", "first ack"):
        line(f"  {name}", [t[name] for t in taken], None)


def line(name: str, values: list[float], target: float | None) -> None:
    """A figure's median over the runs (min, max; and against `target`, if any)."""
    median = statistics.median(values)
    against = ""
    if target is not None:
        against = f"; target {target * 1000:.0f} ms: {'met' if median < target else 'NOT met'}"
    print(
        f"  {name:22s} {median * 1000:7.1f} ms  (min {min(values) * 1000:.1f}, "
        f"max {max(values) * 1000:.1f}{against})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.long_fight")
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--lease-ttl",
        type=float,
        default=Options.lease_ttl,
        help="the cluster's --lease-ttl (default: the server's)",
    )
    args = parser.parse_args(argv)
    asyncio.run(main_async(args.events, args.runs, args.lease_ttl))


if __name__ == "__main__":
    main()
