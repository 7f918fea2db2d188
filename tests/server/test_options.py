"""`combat-server`'s options: from the command line, else from the environment."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.app import main, parse


@pytest.fixture(autouse=True)
def _root_logging() -> Iterator[None]:
    """`parse` sets up the server's JSON logging on the root logger: undo it after."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_options_come_from_the_environment_unless_given() -> None:
    env = {"COMBAT_PORT": "9001", "COMBAT_DATA_DIR": "fights", "COMBAT_LOG_LEVEL": "WARNING"}

    from_env = parse([], env)
    given = parse(["--port", "9002", "--no-demo"], env)

    assert (from_env.port, from_env.data_dir, from_env.demo) == (9001, Path("fights"), True)
    assert (given.port, given.data_dir, given.demo) == (9002, Path("fights"), False)


def test_a_bad_log_level_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        parse(["--log-level", "bogus"], {})

    assert exit.value.code == 2
    assert "invalid choice: 'bogus'" in capsys.readouterr().err


def test_a_taken_port_says_how_to_choose_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        code = main(["--port", str(port), "--data-dir", str(tmp_path), "--no-demo"])

    assert code == 1
    assert "choose one with --port" in capsys.readouterr().err
