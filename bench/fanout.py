"""The CPU time of one room's fan-out per command, without sockets, bots or a log.

    .venv/bin/python -m bench.fanout [--commands 8000]

The load benchmark's table (`bench.load_encounter`: the GM, four players and five
spectators; every player declares its attack again and again), its commands decided
first, then each batch handed to a `Feed` (`Feed._dispatch`: apply, the tables, their
patches, the log lines, the encoding; then the choices, which its own task makes)
whose listeners throw the frames away. Printed: the CPU time (`time.process_time`,
which other processes on the machine do not add to) a command's fan-out took, in
microseconds, for each quarter of the run and the least of them. The same file runs
against an older commit (the feed has kept the `_dispatch` and `join` it calls), so a
change can be timed against it on one machine, alternately, when the machine is too
busy for `bench.load` to say much.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Sequence
from typing import Any

from bench.load_encounter import declare, encounter, weapons
from server.encounters import build
from server.engine.core import execute
from server.engine.records import from_data
from server.engine.turns import StartCombat
from server.engine.views import GM_AUDIENCE, SPECTATORS, Audience, player_audience
from server.eventlog import Entry
from server.gateway.feed import Feed

SEATS = ("ayla", "bram", "corvin", "dara")
WARM_UP = 300


class Listener:
    """A connection that takes every frame and keeps none."""

    def __init__(self, audience: Audience, plays: tuple[str, ...]) -> None:
        self._audience, self._plays = audience, plays
        self.binary, self.events = True, False

    def audience(self, state: Any) -> Audience:
        return self._audience

    def plays(self, state: Any) -> tuple[str, ...]:
        return self._plays

    def push(self, frame: Any, *, catch_up: bool = False) -> None:
        pass


def batches(state: Any, count: int, seq: int) -> list[list[Entry]]:
    """`count` batches of the players' declarations in turn, decided from `state`."""
    arms = weapons()
    commands = [from_data(_record(declare(seat, arms[seat]))) for seat in SEATS]
    made: list[list[Entry]] = []
    for index in range(count):
        state, events = execute(state, commands[index % len(commands)])
        batch = []
        for n, event in enumerate(events):
            seq += 1
            batch.append(Entry(seq, event, n == len(events) - 1))
        made.append(batch)
    return made


def _record(message: dict[str, Any]) -> dict[str, Any]:
    """A command message as record data: its wire `type` is the record's `$type`."""
    data = dict(message)
    return {"$type": data.pop("type"), **data}


async def run(commands: int) -> list[float]:
    """Microseconds of CPU a command's fan-out took, for each quarter of `commands`:
    the batch's dispatch and the choices it has the feed's task make (awaited, as the
    server's loop runs it between other work)."""
    state, started = execute(build(encounter(0), "fanout").encounter, StartCombat())
    feed = Feed("fanout", None, None, state, lambda: None, now=time.monotonic)  # type: ignore[arg-type]
    feed.state, feed.seq = state, len(started)
    listeners = [Listener(GM_AUDIENCE, ("gm", "g1"))]
    listeners += [Listener(player_audience((seat,), state), (seat,)) for seat in SEATS]
    listeners += [Listener(SPECTATORS, ()) for _ in range(5)]
    for listener in listeners:
        feed.join(listener, None)
    made = batches(state, WARM_UP + commands, feed.seq)
    for batch in made[:WARM_UP]:
        await _fan_out(feed, batch)
    quarter = commands // 4
    spent: list[float] = []
    for part in range(4):
        chunk = made[WARM_UP + part * quarter : WARM_UP + (part + 1) * quarter]
        began = time.process_time()
        for batch in chunk:
            await _fan_out(feed, batch)
        spent.append((time.process_time() - began) / len(chunk) * 1e6)
    return spent


async def _fan_out(feed: Feed, batch: list[Entry]) -> None:
    feed._dispatch(batch)
    if feed._offering is not None:  # the choices the batch asked for
        await feed._offering


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.fanout", description=__doc__)
    parser.add_argument("--commands", type=int, default=8000)
    args = parser.parse_args(argv)
    spent = asyncio.run(run(max(4, args.commands)))
    quarters = " ".join(f"{us:.0f}" for us in spent)
    print(f"fan-out CPU a command: least {min(spent):.1f} us (quarters: {quarters} us)")


if __name__ == "__main__":
    main()
