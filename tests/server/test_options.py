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


def test_the_web_app_has_its_own_port_from_the_option_or_the_environment() -> None:
    assert parse([], {}).web_port == 8780
    assert parse([], {"COMBAT_WEB_PORT": "9100"}).web_port == 9100
    assert parse(["--web-port", "0"], {"COMBAT_WEB_PORT": "9100"}).web_port == 0


def test_the_web_app_can_be_turned_off() -> None:
    assert parse(["--no-web"], {}).web_port is None
    assert parse(["--web-port", "off"], {}).web_port is None
    assert parse([], {"COMBAT_WEB_PORT": "off"}).web_port is None


@pytest.mark.parametrize(
    ("argv", "env", "said"),
    [
        (["--web-port", "http"], {}, "not a port number or 'off': 'http'"),
        ([], {"COMBAT_WEB_PORT": "70000"}, "not a port number (0-65535): 70000"),
        (["--port", "9000", "--web-port", "9000"], {}, "is the websocket's --port"),
    ],
)
def test_a_bad_web_port_is_a_usage_error(
    argv: list[str], env: dict[str, str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        parse(argv, env)

    assert exit.value.code == 2
    assert said in capsys.readouterr().err


def test_a_taken_web_port_says_how_to_choose_another_and_frees_the_websockets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken, socket.socket() as free:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        free.bind(("127.0.0.1", 0))
        port, ws_port = taken.getsockname()[1], free.getsockname()[1]
        free.close()  # a port nothing holds, for the websocket

        code = main(["--port", str(ws_port), "--web-port", str(port), "--data-dir", str(tmp_path)])

    assert code == 1
    err = capsys.readouterr().err
    assert f"the web app's port {port} is in use by another program" in err
    assert "choose one with --web-port (or COMBAT_WEB_PORT)" in err
    with socket.socket() as again:  # the websocket's port was let go
        again.bind(("127.0.0.1", ws_port))


def test_the_new_connections_per_address_come_from_the_option_or_the_environment(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A rate a second, bursts of five seconds' worth; 0 turns the limit off."""
    default = parse([], {}).limits()
    from_env = parse([], {"COMBAT_CONNECTIONS_PER_ADDRESS": "4"}).limits()
    off = parse(["--connections-per-address", "0"], {"COMBAT_CONNECTIONS_PER_ADDRESS": "4"})

    assert (default.address_connections_per_second, default.address_connection_burst) == (20, 100)
    assert (from_env.address_connections_per_second, from_env.address_connection_burst) == (4, 20)
    assert off.limits().address_connections_per_second == 0
    with pytest.raises(SystemExit):
        parse(["--connections-per-address", "-1"], {})
    assert "--connections-per-address must be 0" in capsys.readouterr().err
