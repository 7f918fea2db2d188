"""The CPU time of one append to the SQLite event log, as a saturated server makes them.

    .venv/bin/python -m bench.log_append [--rooms 100] [--rounds 200] [--runs 5]

Why: in `bench.load --mode saturate` the log's writer thread shares the server's one
core with the event loop, so every microsecond an append costs it is one the fan-out
does not get. The load table's own declarations (`bench.load_encounter`, decided by
the engine: the events a player's `Declare` makes) are appended, each with a command
key, by `--rooms` rooms at once, round after round, to a fresh log file in a temporary
directory, so the group commit takes many rooms' appends together, as in the
saturated server. Printed: the CPU time of the whole process (`time.process_time`: the
loop and the writer thread, not other processes) per append, for each run, and their
median. Time it against an older commit alternately, on one machine.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.fanout import SEATS, batches
from bench.load_encounter import encounter
from server.encounters import build
from server.engine.core import Event, execute
from server.engine.turns import StartCombat
from server.eventlog.sqlite import SqliteEventLog


def declarations() -> list[list[Event]]:
    """Each player's declaration's events, as the engine makes them."""
    state, _ = execute(build(encounter(0), "log").encounter, StartCombat())
    return [[entry.event for entry in batch] for batch in batches(state, len(SEATS), 0)]


async def run(rooms: int, rounds: int, made: list[list[Event]]) -> float:
    """Microseconds of CPU per append over `rounds` rounds of `rooms` appends."""
    with tempfile.TemporaryDirectory() as folder:
        log = SqliteEventLog(Path(folder) / "events.sqlite3")
        versions = dict.fromkeys((f"room-{n:03d}" for n in range(rooms)), 0)

        async def one(room: str, turn: int) -> None:
            events = made[turn % len(made)]
            key = f"player\x1f{SEATS[turn % len(SEATS)]}\x1f\x1fcid-{turn}"
            versions[room] = await log.append(room, events, versions[room], key)

        try:
            began = time.process_time()
            for turn in range(rounds):
                await asyncio.gather(*(one(room, turn) for room in versions))
            return (time.process_time() - began) / (rooms * rounds) * 1e6
        finally:
            await log.close()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.log_append", description=__doc__)
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args(argv)
    made = declarations()
    sizes = [len(events) for events in made]
    spent = [asyncio.run(run(options.rooms, options.rounds, made)) for _ in range(options.runs)]
    print(
        f"bench.log_append: {options.rooms} rooms x {options.rounds} rounds, "
        f"{sizes} events a declaration; CPU per append (us): "
        + " / ".join(f"{s:.0f}" for s in spent)
        + f"; median {statistics.median(spent):.0f}"
    )


if __name__ == "__main__":
    main()
