"""A tiny run of the log-append benchmark (`bench/log_append.py`): it checks the harness
end to end (the declarations' events appended by several rooms at once, each with its
key), never a speed."""

from __future__ import annotations

import re

import pytest

from bench import log_append


def test_a_figure_per_run_and_their_median_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    log_append.main(["--rooms", "3", "--rounds", "4", "--runs", "2"])
    out = capsys.readouterr().out

    found = re.search(
        r"3 rooms x 4 rounds, \[(.+)\] events .*\(us\): (\d+) / (\d+); median (\d+)", out
    )
    assert found is not None, out
    assert all(int(n) >= 1 for n in found.group(1).split(", "))  # a declaration logs events
    runs, median = [int(found.group(2)), int(found.group(3))], int(found.group(4))
    assert min(runs) <= median <= max(runs)
