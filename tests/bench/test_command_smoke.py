"""A tiny run of the command benchmark (`bench/command.py`): the load table's
declarations read and decided. It checks the harness end to end, never a speed."""

from __future__ import annotations

import re

import pytest

from bench import command


def test_read_and_decide_are_timed(capsys: pytest.CaptureFixture[str]) -> None:
    command.main(["--repeats", "3", "--runs", "3"])
    out = capsys.readouterr().out

    found = re.search(r"median of 3 runs: read ([\d.]+) us, decide ([\d.]+) us", out)
    assert found is not None, out
    assert float(found.group(1)) > 0 and float(found.group(2)) > 0
