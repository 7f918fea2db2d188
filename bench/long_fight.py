"""Long fights: how fast a room whose log holds 20,000 events comes back.

    .venv/bin/python -m bench.long_fight [--events 20000] [--runs 5]

Issue "Capacity", target 3: a room whose log holds 20,000 events starts (a restart,
a rewind to the first event and to the last) in under 0.5 s, and the first client's
table arrives within that time.

The log is made by playing `bench.live`'s Live rounds (eight fighters, scripted bots)
through a `Room` on the SQLite log the embedded server uses, saving snapshots as the
server does (`Host.snapshot_every`). Then, for each run, a fresh host and gateway on
that data serve a GM who connects cold, and the bench prints (medians):

- **restart**: from the GM's `hello` to its `table` on a server just started (the
  room loads its latest snapshot and the events after it; the feed tells the recent
  log, the table and the choices);
- **rewind to the last event** and **to the first event**: from the GM's `send` of
  `Rewind` to the `update` that shows it (the room rebuilds the state from the log).

A takeover in a cluster is a restart on another process: the same work, reading from
Redis instead of SQLite (`bench.cluster` measures the Redis side).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bench.live import Bots, live_encounter, processor
from bench.served import served
from server.bus.memory import MemoryBus
from server.engine.authority import Principal, Role
from server.engine.rulesets.verse.turns import StartCombat
from server.eventlog import Entry
from server.eventlog.sqlite import SqliteEventLog
from server.hosting import Host
from server.room import FakeClock, Room

ROOM = "long-fight"
TARGET = 0.5


async def make_log(path: Path, events: int, snapshot_every: int) -> int:
    """Play Live rounds into the SQLite log at `path` until it holds `events` events;
    the log's last seq."""
    log = SqliteEventLog(path)
    initial = live_encounter(seed=7)
    await log.save_initial(ROOM, initial)
    room = Room(
        ROOM,
        initial,
        log=log,
        bus=MemoryBus[Entry](),
        clock=FakeClock(),
        snapshot_every=snapshot_every,
    )
    await room.start()
    await room.submit(Principal(Role.GM, name="gm"), StartCombat())
    bots = Bots()
    while room.version < events:
        actor, command = bots.next(room.state)
        await room.submit(bots.principal(actor), command)
    version = room.version
    await room.stop()
    await log.close()
    return version


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


async def main_async(events: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as work:
        made = time.perf_counter()
        snapshot_every = Host.__init__.__kwdefaults__["snapshot_every"]  # as the server does
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
    print(f"processor: {processor()}; {runs} runs, medians:")
    for name in results[0]:
        values = [r[name] for r in results]
        median = statistics.median(values)
        mark = "met" if median < TARGET else "NOT met"
        print(
            f"  {name:22s} {median * 1000:7.1f} ms  (min {min(values) * 1000:.1f}, "
            f"max {max(values) * 1000:.1f}; target {TARGET * 1000:.0f} ms: {mark})"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.long_fight")
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    asyncio.run(main_async(args.events, args.runs))


if __name__ == "__main__":
    main()
