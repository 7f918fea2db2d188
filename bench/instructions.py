"""Big battles counted in instructions: what `execute` costs a command, 8 to 64 combatants.

    .venv/bin/python -m bench.instructions [--rounds 4] [--sizes 8,64]

Why: issue "Capacity", target 2 asks that the engine's cost per command grow by at
most 1.3 times from 8 to 64 combatants. `bench.battle` times it, and on a shared
machine its ratio moved from 1.13 to 1.44 between runs of the same tree minutes
apart (the machine's speed changed within a run). Valgrind's callgrind counts the
instructions a process runs, which do not depend on what else the machine does: the
same tree gives the same count to within a few hundred thousand, a tenth of a percent.

How: `bench.live`'s fight (as `bench.battle`'s) is played once for `--rounds` rounds
in this process and its commands saved with the state they start from. Then, for each
size, two children run under callgrind (`PYTHONHASHSEED=0`, so that sets iterate
alike): one loads the saved fight and stops (`load`), the other loads it and replays
every command with `execute` (`replay`). Their difference, divided by the commands,
is the engine's instructions per command: the bots, the imports and the start-up are
left out. Each child takes about half a minute (two at a time).

Instructions are not time (a cache miss costs more than an add), but they rise and fall
with the work the rules do, and a scan over every combatant shows in them as it does in
the time. Needs `valgrind` (Debian's package).
"""

from __future__ import annotations

import argparse
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.live import Bots, live_encounter
from server.engine.core import execute
from server.engine.state import Encounter
from server.engine.turns import StartCombat

ROOT = Path(__file__).resolve().parent.parent
SIZES = (8, 64)
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def record(path: Path, combatants: int, rounds: int) -> int:
    """Play `rounds` rounds of `combatants` and save the start and the commands to
    `path`; the number of commands."""
    state, _ = execute(live_encounter(seed=11, pairs=combatants // 2), StartCombat())
    start, bots, commands = state, Bots(), []
    last = state.round + rounds
    while state.round < last:
        _, command = bots.next(state)
        commands.append(command)
        state, _ = execute(state, command)
    path.write_bytes(pickle.dumps((start, commands, state)))
    return len(commands)


def replay(path: Path) -> tuple[Encounter, Encounter]:
    """Every saved command again with `execute`: where it ended, and where the
    recording did (compared by the caller, not in the counted child)."""
    state, commands, end = pickle.loads(path.read_bytes())
    for command in commands:
        state, _ = execute(state, command)
    return state, end


def counted(mode: str, path: Path) -> int:
    """Instructions callgrind counts in a child that does `mode` ("load" or "replay")
    on the fight saved at `path`."""
    argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    argv += [sys.executable, "-m", "bench.instructions", f"--{mode}", str(path)]
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    found = _REFS.search(done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no count:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--load", type=Path, help=argparse.SUPPRESS)  # a child's part
    parser.add_argument("--replay", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.load is not None:
        pickle.loads(options.load.read_bytes())
        return
    if options.replay is not None:
        replay(options.replay)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("bench.instructions needs valgrind (apt-get install valgrind)")
    sizes = [int(size) for size in options.sizes.split(",")]
    per: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as folder, ThreadPoolExecutor(2) as pool:
        for size in sizes:
            path = Path(folder) / f"fight-{size}.pickle"
            commands = record(path, size, options.rounds)
            load, played = pool.map(counted, ("load", "replay"), (path, path))
            per[size] = (played - load) / commands
            print(
                f"  {size:3d} combatants: {commands:5d} commands, "
                f"{per[size]:,.0f} instructions per command",
                flush=True,
            )
    first, last = per[sizes[0]], per[sizes[-1]]
    print(f"  {sizes[-1]} / {sizes[0]}: {last / first:.3f} (instructions per command)")


if __name__ == "__main__":
    main()
