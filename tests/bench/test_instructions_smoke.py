"""The instruction-count benchmark's own parts (`bench/instructions.py`), without
valgrind: the saved fight replays to the state the recording ended in, and a child
run as the benchmark runs it (`--load`, `--replay`) ends cleanly. The counting itself
is valgrind's, half a minute a child: run by hand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench import instructions
from server.engine.records import digest


def test_a_saved_fight_replays_to_where_it_ended(tmp_path: Path) -> None:
    path = tmp_path / "fight.pickle"
    commands = instructions.record(path, combatants=8, rounds=1)

    assert commands > 8  # a round: every combatant declared, and the turns resolved
    replayed, recorded = instructions.replay(path)
    assert digest(replayed) == digest(recorded)


def test_the_counted_children_run_as_the_benchmark_runs_them(tmp_path: Path) -> None:
    path = tmp_path / "fight.pickle"
    instructions.record(path, combatants=8, rounds=1)
    for mode in ("--load", "--replay"):
        done = subprocess.run(
            [sys.executable, "-m", "bench.instructions", mode, str(path)],
            cwd=instructions.ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
