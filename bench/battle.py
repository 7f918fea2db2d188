"""Big battles: what a command costs as a Live fight grows from 8 to 64 combatants.

    .venv/bin/python -m bench.battle [--runs 5] [--rounds 6]

Issue "Capacity", target 2: from 8 to 64 combatants the engine's cost per command may
grow by at most 1.3 times, and in a 64-combatant round played through the server (the
room, the SQLite log, the feed building every audience's table, log and choices) no
player waits more than 50 ms for any one command's answer.

The fight is `bench.live`'s: pairs of fighters side by side, everyone attacks its
partner, dodges and counters when it may, one holder. Printed:

- **engine**: medians over `--runs` runs of microseconds per command (`execute`
  alone) for 8, 16, 32 and 64 combatants, and the ratio of 64 to 8. On a shared
  machine that ratio swings by a quarter between runs of one tree (its speed changes
  within a run): `bench.instructions` counts the same work in instructions, which
  it does not disturb;
- **through the server**: one round of 64 combatants on a fresh embedded server with
  its SQLite log, commands sent by a GM connection (the GM plays every combatant, so
  its feed builds choices for all 64: the worst case), each timed from `send` to
  `ack`; the round's time, the median and the slowest answer. The garbage collector is
  settled as the `combat-server` program settles it (`app.settle_garbage_collector`).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.live import Bots, engine_rounds, live_encounter, processor
from bench.served import served
from server.app import settle_garbage_collector
from server.engine.records import evolve
from server.eventlog.sqlite import SqliteEventLog
from server.gateway.connection import Limits
from server.table.choices import wire

SIZES = (8, 16, 32, 64)
GROWTH = 1.3
WAIT = 0.050


def engine_costs(runs: int, rounds: int) -> dict[int, float]:
    """Median microseconds per command of `execute` for each size."""
    costs: dict[int, list[float]] = {size: [] for size in SIZES}
    for _ in range(runs):
        for size in SIZES:  # sizes interleaved, so a noisy moment hits all of them
            tally = engine_rounds(seed=11, rounds=rounds, pairs=size // 2)
            costs[size].append(tally.seconds / tally.commands * 1e6)
    return {size: statistics.median(values) for size, values in costs.items()}


async def served_round(work: Path, size: int) -> list[float]:
    """One Live round of `size` combatants through a fresh server: seconds from each
    command's `send` to its `ack`."""
    path, room = work / f"battle-{size}.sqlite3", f"battle-{size}"
    initial = live_encounter(seed=11, pairs=size // 2)
    # windows long enough that none closes on its own while a slow machine plays
    slow = evolve(initial.settings, planning_seconds=600.0, reaction_seconds=600.0)
    log = SqliteEventLog(path)
    await log.save_initial(room, evolve(initial, settings=slow))
    await log.close()
    # one connection speaks for every player here, so it may send as fast as they all do
    unlimited = Limits(
        commands_per_second=1e6, command_burst=10**6, frames_per_second=1e6, frame_burst=10**6
    )
    waits: list[float] = []
    async with served(path, room, unlimited) as gm:
        await gm.hello()
        # as `combat-server` once it serves: without it, full collections of 50-150 ms
        # were most of the slowest answers, in a process the real server never is
        settle_garbage_collector()
        hosted = await gm.host.get(room)
        assert hosted is not None
        runner: Any = hosted.runner
        bots = Bots()

        async def send(command: dict[str, Any]) -> None:
            start = time.perf_counter()
            await gm.send(f"c{len(waits)}", command)
            waits.append(time.perf_counter() - start)

        await send({"type": "StartCombat"})
        first = runner.state.round
        while runner.state.round == first:
            _, command = bots.next(runner.state)
            await send(wire(command))
    return waits


async def main_async(runs: int, rounds: int) -> None:
    costs = engine_costs(runs, rounds)
    print(f"processor: {processor()}")
    print(f"engine, µs per command (medians of {runs} runs of {rounds} rounds):")
    for size, cost in costs.items():
        print(f"  {size:3d} combatants  {cost:7.1f} µs  ({cost / costs[SIZES[0]]:.2f}x of 8)")
    growth = costs[SIZES[-1]] / costs[SIZES[0]]
    mark = "met" if growth <= GROWTH else "NOT met"
    print(f"  64 / 8: {growth:.2f} (target at most {GROWTH}: {mark})")
    with tempfile.TemporaryDirectory() as work:
        started = time.perf_counter()
        waits = await served_round(Path(work), SIZES[-1])
        spent = time.perf_counter() - started
    slowest = max(waits)
    mark = "met" if slowest <= WAIT else "NOT met"
    cuts = statistics.quantiles(waits, n=100)
    over = sum(1 for w in waits if w > WAIT)
    print(
        f"through the server, one round of 64: {len(waits)} commands in {spent:.2f} s; "
        f"answers p50 {cuts[49] * 1000:.1f} ms, p90 {cuts[89] * 1000:.1f} ms, "
        f"p99 {cuts[98] * 1000:.1f} ms, slowest {slowest * 1000:.1f} ms, {over} over "
        f"{WAIT * 1000:.0f} ms (target: none; {mark})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.battle")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args(argv)
    asyncio.run(main_async(args.runs, args.rounds))


if __name__ == "__main__":
    main()
