"""`combat` on the command line: create, and what it says when it cannot go on."""

from __future__ import annotations

import io
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients import cli
from protocol.messages import Created, InviteCodes
from tests.clients.support import DEMO, demo_encounter
from tests.support.server import Served, ServerProcess


@pytest.fixture
def server_process(tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path / "data")
    process.start()
    try:
        yield process
    finally:
        process.stop()


def test_combat_create_as_a_newcomer_types_it(
    server_process: ServerProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    url, token_file = server_process.url, server_process.data_dir / "host-token"
    code = cli.main(["create", str(DEMO), "--server", url, "--token-file", str(token_file)])
    assert code == 0
    out = capsys.readouterr().out
    assert "Join it from other terminals:" in out
    assert f"{cli.this_program()} watch --server {url} --token " in out


async def test_create_prints_the_commands_to_join(server: Served) -> None:
    out = io.StringIO()
    code = await cli.create(DEMO, server.url, server.host_token, "msgpack", out)
    assert code == 0
    lines = out.getvalue().splitlines()
    combat = cli.this_program()  # by its path, as it was typed: `.venv/bin/combat`
    assert lines[0].startswith("Created 'Goblin ambush', room goblin-ambush-")
    assert lines[0].endswith(" (codes valid until the GM revokes them).")
    assert lines[1] == "Join it from other terminals:"
    code = "[23456789ABCDEFGHJKMNPQRSTVWXYZ]{10}"  # the short invite code, not the token
    gm, plays = lines[2].rsplit(" --plays ", 1)
    assert plays == "g1,g2"  # the GM is prompted for the goblins it plays
    assert re.fullmatch(f"  GM:        {combat} gm --server {server.url} --token {code}", gm)
    assert [line.split()[0] for line in lines[3:]] == ["ayla:", "bram:", "corvin:", "spectator:"]
    assert re.fullmatch(
        f"  ayla:      {combat} play --server {server.url} --token {code}", lines[3]
    )
    assert re.fullmatch(
        f"  spectator: {combat} watch --server {server.url} --token {code}", lines[6]
    )


def test_without_codes_the_lines_give_the_tokens_and_their_expiry() -> None:
    created = Created(
        cid="c",
        room="duel-1",
        ruleset="verse",
        gm="gm-token",
        players={"ayla": "a-token"},
        spectator="s-token",
        expires_at=1_800_000_000,
        codes=InviteCodes(players={"ayla": "K7QM4XPR2W"}),
    )

    lines = cli.join_instructions("ws://x/ws", created, program="combat").splitlines()

    day = time.strftime("%Y-%m-%d", time.localtime(1_800_000_000))
    assert lines[0].startswith("Created room duel-1 (codes valid until the GM revokes them, ")
    assert f"tokens valid until {day} " in lines[0]
    assert lines[2] == "  GM:        combat gm --server ws://x/ws --token gm-token"
    assert lines[3] == "  ayla:      combat play --server ws://x/ws --token K7QM4XPR2W"


async def test_create_lists_the_servers_objections(
    server: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    encounter = demo_encounter()
    encounter["combatants"][1]["at"] = [0, 0]  # Bram on Ayla's cell
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(encounter))
    code = await cli.create(broken, server.url, server.host_token, "json", io.StringIO())
    assert code == 1
    err = capsys.readouterr().err
    assert "refused (invalid_encounter)" in err
    assert "combatants[1].at: [0, 0] is ayla's cell too" in err


async def test_create_with_a_join_token_is_turned_away(
    server: Served, room: Created, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await cli.create(DEMO, server.url, room.gm, "msgpack", io.StringIO()) == 1
    assert "not a host token" in capsys.readouterr().err


def test_usage_errors_exit_with_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["play", "--server", "ws://127.0.0.1:9/ws", "--token", ""]) == 2
    assert "a token is needed: --token TOKEN" in capsys.readouterr().err
    missing = tmp_path / "nope"
    assert cli.main(["create", "x.toml", "--token-file", str(missing)]) == 2
    assert f"cannot read {missing}" in capsys.readouterr().err
    assert cli.main(["dance"]) == 2


def test_create_without_a_token_says_where_the_host_token_is(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COMBAT_TOKEN", raising=False)
    assert cli.main(["create", "x.toml", "--server", "ws://127.0.0.1:9/ws"]) == 2
    error = capsys.readouterr().err
    assert "a host token is needed: --token-file DATA_DIR/host-token" in error
    assert "./combat-data" in error


def test_an_unreadable_encounter_file_exits_with_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "fight.toml").write_text('[[combatants]]\nid = "a"\nsheet = "missing.toml"\n')
    code = cli.main(["create", str(tmp_path / "fight.toml"), "--token", "t"])
    assert code == 2
    assert "combatants[0].sheet: missing.toml: cannot read" in capsys.readouterr().err


def test_no_server_exits_with_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["watch", "--server", "ws://127.0.0.1:9/ws", "--token", "t"]) == 1
    assert "connection_failed" in capsys.readouterr().err
    assert cli.main(["gm", "--server", "not a url", "--token", "t"]) == 1
    assert "combat gm: connection_failed: cannot open not a url" in capsys.readouterr().err


async def test_renew_prints_fresh_commands_for_the_same_room_and_seats(
    server: Served, room: Created
) -> None:
    out = io.StringIO()
    code = await cli.renew(DEMO, room.room, server.url, server.host_token, "msgpack", out)

    assert code == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == f"Renewed room {room.room} (codes valid until the GM revokes them)."
    assert lines[2].endswith(" --plays g1,g2")
    assert [line.split()[0] for line in lines[3:]] == ["ayla:", "bram:", "corvin:", "spectator:"]
    assert f"--token {room.codes.gm} --plays" in lines[2]  # the code the table knows


async def test_renew_for_a_room_the_server_does_not_have_is_refused(
    server: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    code = await cli.renew(DEMO, "nowhere", server.url, server.host_token, "msgpack", io.StringIO())

    assert code == 1
    assert "refused (invalid_encounter): no room 'nowhere'" in capsys.readouterr().err


def test_the_gm_says_which_combatants_it_plays() -> None:
    args = cli.build_parser().parse_args(["gm", "--token", "t", "--plays", "g1, g2"])
    assert cli._ids(args.plays) == ["g1", "g2"]
    assert cli._ids(cli.build_parser().parse_args(["gm", "--token", "t"]).plays) is None
