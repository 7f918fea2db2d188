"""What a start prints for people: the demo's join commands, how to create a fight.

Each line runs as printed from where the server was started: it names `combat` by its
path (`clients/program.py`: `.venv/bin/combat` from the repository), not by a name the
PATH may not know. With the web app on, each person also gets a link that opens the
same seat in a browser (`clients/program.py`: the code travels in the link's fragment), and
the host a link to the page that creates fights.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from clients.program import browser_lines, combat_program, create_link, join_lines
from server.encounters import read_file
from server.gateway.tokens import JoinTokens

DEMO_ENCOUNTER = Path(__file__).parent / "samples" / "encounters" / "demo.toml"
HOST_TOKEN_FILE = "host-token"


@dataclass(frozen=True)
class WebLinks:
    """The web app's address (`http://host:port/`) and the host token its create link
    carries."""

    page: str
    host_token: str


def join_instructions(
    url: str,
    tokens: JoinTokens,
    data_dir: Path,
    program: str | None = None,
    *,
    web: WebLinks | None = None,
) -> str:
    """What a first start prints: the exact commands to join the demo encounter, each
    with its short invite code (the long token where the store kept no code), and with
    `web` the links that open the same seats in a browser. The GM's command names the
    combatants no seat plays (`--plays`), so the GM is prompted for them."""
    combat = program or combat_program()
    codes = tokens.get("codes")
    gm, spectator = tokens["gm"], tokens["spectator"]
    players = dict(tokens["players"])
    if codes is not None:
        gm, spectator = codes["gm"] or gm, codes["spectator"] or spectator
        players = {seat: codes["players"].get(seat) or token for seat, token in players.items()}
    gm_plays = [
        entry["id"] for entry in read_file(DEMO_ENCOUNTER)["combatants"] if not entry.get("seat")
    ]
    lines = [
        f"No encounters yet: created the demo encounter, room {tokens['room']}.",
        "Join it from other terminals:",
        *join_lines(url, gm, players, spectator, gm_plays=gm_plays, program=combat),
    ]
    if web is not None:
        lines += ["Or open them in a browser:", *browser_lines(web.page, gm, players, spectator)]
    lines.append(create_instructions(url, data_dir, combat, web=web, first=True))
    return "\n".join(lines)


def create_instructions(
    url: str,
    data_dir: Path,
    program: str | None = None,
    *,
    web: WebLinks | None = None,
    first: bool = False,
) -> str:
    """What the host token in the data dir does, printed at every start: make a fight
    on this server (from a terminal, or with `web` in a browser), and list its rooms
    with the commands that join each (for a GM who lost the lines a first start
    printed).

    The browser's create link carries the host token itself, which opens every room's
    codes for 30 days: it is printed whole only at the `first` start (someone is
    watching the terminal that just made the data dir); a later start, whose output may
    go to a service's stored logs, says where the token is instead."""
    combat = program or combat_program()
    host_token = shlex.quote(str(data_dir / HOST_TOKEN_FILE))
    lines = [
        "Create your own encounter: "
        f"{combat} create ENCOUNTER.toml --server {url} --token-file {host_token}",
        "Find the rooms and how to join them: "
        f"{combat} rooms --server {url} --token-file {host_token}",
    ]
    if web is not None and first:
        lines.append(f"Or create one in a browser: {create_link(web.page, web.host_token)}")
    elif web is not None:
        lines.append(
            f"Or create one in a browser: {create_link(web.page, '')} followed by the "
            f"token in {host_token}"
        )
    return "\n".join(lines)


__all__ = [
    "DEMO_ENCOUNTER",
    "HOST_TOKEN_FILE",
    "WebLinks",
    "create_instructions",
    "join_instructions",
]
