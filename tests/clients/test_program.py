"""How printed join lines name `combat`: by a path that runs from where they are typed."""

from __future__ import annotations

from pathlib import Path

import pytest

from clients.program import combat_program


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_the_script_beside_python_relative_to_the_working_directory(tmp_path: Path) -> None:
    python = executable(tmp_path / ".venv" / "bin" / "python")
    executable(tmp_path / ".venv" / "bin" / "combat")

    assert combat_program(python=str(python), cwd=tmp_path) == ".venv/bin/combat"


def test_a_script_outside_the_working_directory_by_its_whole_path(tmp_path: Path) -> None:
    python = executable(tmp_path / "env with space" / "bin" / "python")
    script = executable(tmp_path / "env with space" / "bin" / "combat")
    (tmp_path / "elsewhere").mkdir()

    shown = combat_program(python=str(python), cwd=tmp_path / "elsewhere")

    assert shown == f"'{script}'"  # quoted for the shell


def test_the_program_running_now_as_it_lies(tmp_path: Path) -> None:
    running = executable(tmp_path / "tools" / "combat")
    executable(tmp_path / "bin" / "combat")

    shown = combat_program(str(running), python=str(tmp_path / "bin" / "python"), cwd=tmp_path)

    assert shown == "tools/combat"


def test_a_script_the_path_finds_by_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = executable(tmp_path / "usr" / "bin" / "python")
    executable(tmp_path / "usr" / "bin" / "combat")
    (tmp_path / "app").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "usr" / "bin"))

    assert combat_program(python=str(python), cwd=tmp_path / "app") == "combat"


def test_without_a_script_python_runs_the_module(tmp_path: Path) -> None:
    python = executable(tmp_path / "bin" / "python")

    assert combat_program(python=str(python), cwd=tmp_path) == "bin/python -m clients.cli"


def test_a_script_in_the_working_directory_itself_gets_a_dot(tmp_path: Path) -> None:
    python = executable(tmp_path / "python")
    executable(tmp_path / "combat")

    assert combat_program(python=str(python), cwd=tmp_path) == "./combat"
