"""The README's Python walkthrough runs as written (a newcomer copies it first)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_walkthrough_runs_in_order(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(README.parent)  # the snippets load sample sheets by relative path
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) >= 2
    namespace: dict[str, Any] = {}
    for block in blocks:
        exec(block, namespace)
    assert namespace["window"] is not None
    assert "reaction" in capsys.readouterr().out
