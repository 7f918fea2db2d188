"""A tiny run of the fan-out benchmark (`bench/fanout.py`): a room's batches through a
`Feed` whose choices are made by its own task, timed. It checks the harness end to end,
never a speed."""

from __future__ import annotations

import re

import pytest

from bench import fanout


def test_the_least_quarter_and_each_quarter_are_printed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fanout.main(["--commands", "40"])
    out = capsys.readouterr().out

    found = re.search(r"least ([\d.]+) us \(quarters: (\d+) (\d+) (\d+) (\d+) us\)", out)
    assert found is not None, out
    least, quarters = float(found.group(1)), [int(found.group(n)) for n in range(2, 6)]
    assert all(q > 0 for q in quarters)
    assert abs(least - min(quarters)) <= 0.5  # each printed to its own precision
