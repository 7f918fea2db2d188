"""What the server prints at a start: the demo's join commands and links, or how to create
a fight; each runs (or opens) as printed, from where the server was started."""

from __future__ import annotations

import asyncio
import re
import shlex
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.program import combat_program
from server.app import create_instructions, join_instructions
from server.join_lines import WebLinks
from tests.support.server import JOIN_LINE, JOIN_LINES, ROOT, WEB_LINE, ServerProcess

URL = "ws://127.0.0.1:8765/ws"
WEB = WebLinks("http://127.0.0.1:8780/", "host.jwt-token_x")
TOKENS = {
    "room": "goblin-ambush-abc123",
    "gm": "gm-token",
    "players": {"ayla": "a-token", "bram": "b-token"},
    "spectator": "s-token",
}


def test_the_demos_gm_line_names_the_goblins_the_gm_plays() -> None:
    lines = join_instructions(URL, TOKENS, Path("combat-data"), "combat").splitlines()  # type: ignore[arg-type]
    assert lines[2] == f"  GM:        combat gm --server {URL} --token gm-token --plays g1,g2"
    assert lines[3] == f"  ayla:      combat play --server {URL} --token a-token"
    assert lines[-2:] == create_instructions(URL, Path("combat-data"), "combat").splitlines()


def test_the_lines_give_the_short_codes_where_the_room_has_them() -> None:
    codes = {"gm": "GMCODE2345", "players": {"ayla": "AYLA234567"}, "spectator": ""}
    tokens = {**TOKENS, "codes": codes}

    lines = join_instructions(URL, tokens, Path("combat-data"), "combat").splitlines()  # type: ignore[arg-type]

    assert lines[2] == f"  GM:        combat gm --server {URL} --token GMCODE2345 --plays g1,g2"
    assert lines[3] == f"  ayla:      combat play --server {URL} --token AYLA234567"
    assert (
        lines[4] == f"  bram:      combat play --server {URL} --token b-token"
    )  # no code: the token
    assert lines[5] == f"  spectator: combat watch --server {URL} --token s-token"


def test_with_the_web_app_each_person_also_gets_a_link_with_the_same_code() -> None:
    codes = {"gm": "GMCODE2345", "players": {"ayla": "AYLA234567"}, "spectator": ""}
    tokens = {**TOKENS, "codes": codes}

    lines = join_instructions(URL, tokens, Path("combat-data"), "combat", web=WEB).splitlines()  # type: ignore[arg-type]

    assert lines[6:12] == [
        "Or open them in a browser:",
        "  GM:        http://127.0.0.1:8780/#join=GMCODE2345",
        "  ayla:      http://127.0.0.1:8780/#join=AYLA234567",
        "  bram:      http://127.0.0.1:8780/#join=b-token",
        "  spectator: http://127.0.0.1:8780/#join=s-token",
        f"Create your own encounter: combat create ENCOUNTER.toml --server {URL} "
        "--token-file combat-data/host-token",
    ]
    assert lines[-1] == "Or create one in a browser: http://127.0.0.1:8780/#host=host.jwt-token_x"
    assert lines[-3:] == create_instructions(
        URL, Path("combat-data"), "combat", web=WEB, first=True
    ).split("\n")
    later = create_instructions(URL, Path("combat-data"), "combat", web=WEB).split("\n")
    assert later[:2] == lines[-3:-1]  # every start says how to create and list rooms
    assert later[2] == (  # the host token stays in its file after the first start
        "Or create one in a browser: http://127.0.0.1:8780/#host= followed by the token in "
        "combat-data/host-token"
    )


def test_a_start_without_the_demo_says_how_to_create_a_fight_and_find_the_rooms() -> None:
    assert create_instructions(URL, Path("combat-data"), "combat").splitlines() == [
        "Create your own encounter: combat create ENCOUNTER.toml "
        f"--server {URL} --token-file combat-data/host-token",
        "Find the rooms and how to join them: combat rooms "
        f"--server {URL} --token-file combat-data/host-token",
    ]


def test_the_lines_name_the_program_beside_the_servers_python() -> None:
    lines = join_instructions(URL, TOKENS, Path("combat-data")).splitlines()  # type: ignore[arg-type]
    assert lines[3] == f"  ayla:      {combat_program()} play --server {URL} --token a-token"


@pytest.fixture
def first_start(tmp_path: Path) -> Iterator[tuple[ServerProcess, list[str]]]:
    server = ServerProcess(tmp_path / "data")
    server.start()
    try:
        yield server, server.read_output(JOIN_LINES)
    finally:
        server.stop()


def run_as_printed(line: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """A printed command, pasted into a shell in the server's directory: its words as
    the shell splits them, run with nothing added to the PATH."""
    return subprocess.run(
        shlex.split(line),
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


async def test_a_printed_join_line_runs_as_printed(
    first_start: tuple[ServerProcess, list[str]],
) -> None:
    server, lines = first_start
    ayla = next(line for line in lines if line.lstrip().startswith("ayla:"))
    found = JOIN_LINE.match(ayla)
    assert found and re.fullmatch("[A-Z0-9]{10}", found.group(2)), lines  # a short code
    command = ayla.split(":", 1)[1].strip()

    done = await asyncio.to_thread(run_as_printed, command)  # stdin ends: the player leaves

    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("Room goblin-ambush-")
    assert "as player (seat ayla, plays ayla)" in done.stdout
    assert server.url in command


async def test_the_printed_create_line_runs_as_printed(
    first_start: tuple[ServerProcess, list[str]],
) -> None:
    server, lines = first_start
    create = printed(lines, "Create your own encounter: ")
    demo = "server/samples/encounters/demo.toml"

    done = await asyncio.to_thread(run_as_printed, create.replace("ENCOUNTER.toml", demo))

    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0].startswith("Created 'Goblin ambush', room goblin-ambush-")
    joins = [m for line in out[2:7] if (m := JOIN_LINE.match(line))]
    assert out[7] == "Or open them in a browser:", done.stdout
    links = [m for line in out[8:] if (m := WEB_LINE.match(line))]
    # the same people with the same codes, each on the server's web app
    assert [(m.group(1).strip(), m.group(2)) for m in joins] == [
        (m.group(1).strip(), m.group(3)) for m in links
    ], done.stdout
    assert len(links) == 5 and all(m.group(2).startswith(server.web_url) for m in links)


async def test_the_printed_rooms_line_runs_as_printed_and_joins_again(
    first_start: tuple[ServerProcess, list[str]],
) -> None:
    server, lines = first_start
    rooms = printed(lines, "Find the rooms and how to join them: ")

    done = await asyncio.to_thread(run_as_printed, rooms)

    assert done.returncode == 0, done.stderr
    listed = done.stdout.splitlines()
    assert listed[0] == f"1 room on {server.url}:"
    assert listed[2].startswith("goblin-ambush-")
    assert listed[2].endswith(": 'Goblin ambush' (verse, live), player seats: ayla, bram, corvin")
    assert listed[3:8] == [line.rstrip("\n") for line in lines[2:7]]  # as the start printed
    assert listed[8:13] == [line.rstrip("\n") for line in lines[8:13]]  # and its links


def test_the_printed_links_open_the_web_app_with_the_codes_of_the_join_lines(
    first_start: tuple[ServerProcess, list[str]],
) -> None:
    server, lines = first_start
    codes = {m.group(1).strip(): m.group(2) for line in lines if (m := JOIN_LINE.match(line))}
    links = {m.group(1).strip(): m for line in lines if (m := WEB_LINE.match(line.rstrip("\n")))}

    assert {who: link.group(3) for who, link in links.items()} == codes, lines
    assert server.web_url and all(
        link.group(2).startswith(server.web_url) for link in links.values()
    )
    page = links["ayla"].group(2)  # the browser sends no fragment: the page, then the config
    with urllib.request.urlopen(page.split("#")[0] + "config.json", timeout=10) as answer:
        assert answer.read() == f'{{"ws_port": {server.port}, "ws_path": "/ws"}}'.encode()
    create = printed(lines, "Or create one in a browser: ")
    assert create == f"{server.web_url}#host={server.host_token}"


def printed(lines: list[str], prefix: str) -> str:
    """The one printed line that starts with `prefix`, without it."""
    [line] = [line.rstrip("\n") for line in lines if line.startswith(prefix)]
    return line.removeprefix(prefix)
