"""The CPU time of a command's own steps on the load table, without sockets or a log.

    .venv/bin/python -m bench.command [--repeats 2000] [--runs 7]

Why: in `bench.load --mode saturate` every player's declaration is read off the wire
and decided before anything is logged or sent; these are the parts of a command's cost
that no fan-out change touches. The load table (`bench.load_encounter`, fight started)
and each player's declaration as the bots send it:

* `read`: the command map into the engine's record (`CommandReader.read`: pydantic's
  validation and the record built from it);
* `decide`: the engine's `decide` of that record against the started table (the same
  state each time: a first declaration of the round).

Printed: microseconds of CPU (`time.process_time`) per command for each, the median of
`--runs` runs. Time it against an older commit alternately, on one machine.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.fanout import SEATS, _record
from bench.load_encounter import declare, encounter, weapons
from server.encounters import build
from server.engine.core import decide, execute
from server.engine.records import from_data
from server.engine.turns import StartCombat
from server.gateway.commands import reader_for


def timed(step: Callable[[Any], object], inputs: list[Any], repeats: int, runs: int) -> float:
    """The median over `runs` of the CPU microseconds `step` takes per input."""
    spent = []
    for _ in range(runs):
        began = time.process_time()
        for _ in range(repeats):
            for given in inputs:
                step(given)
        spent.append((time.process_time() - began) / (repeats * len(inputs)) * 1e6)
    return statistics.median(spent)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.command", description=__doc__)
    parser.add_argument("--repeats", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=7)
    options = parser.parse_args(argv)
    state, _ = execute(build(encounter(0), "command").encounter, StartCombat())
    arms = weapons()
    wire = [declare(seat, arms[seat]) for seat in SEATS]
    records = [from_data(_record(message)) for message in wire]
    reader = reader_for(state.ruleset)
    read = timed(reader.read, wire, options.repeats, options.runs)
    decided = timed(lambda command: decide(state, command), records, options.repeats, options.runs)
    print(
        f"bench.command: a declaration of the load table, median of {options.runs} runs: "
        f"read {read:.1f} us, decide {decided:.1f} us"
    )


if __name__ == "__main__":
    main()
