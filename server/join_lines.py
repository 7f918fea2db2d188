"""What a start prints for people: the demo's join commands, how to create a fight.

Each line runs as printed from where the server was started: it names `combat` by its
path (`clients/program.py`: `.venv/bin/combat` from the repository), not by a name the
PATH may not know.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from clients.program import combat_program, join_lines
from server.encounters import read_file
from server.gateway.tokens import JoinTokens

DEMO_ENCOUNTER = Path(__file__).parent / "samples" / "encounters" / "demo.toml"
HOST_TOKEN_FILE = "host-token"


def join_instructions(
    url: str, tokens: JoinTokens, data_dir: Path, program: str | None = None
) -> str:
    """What a first start prints: the exact commands to join the demo encounter, each
    with its short invite code (the long token where the store kept no code). The GM's
    names the combatants no seat plays (`--plays`), so the GM is prompted for them."""
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
        create_instructions(url, data_dir, combat),
    ]
    return "\n".join(lines)


def create_instructions(url: str, data_dir: Path, program: str | None = None) -> str:
    """What the host token in the data dir does, printed at every start: make a fight
    on this server, and list its rooms with the commands that join each (for a GM who
    lost the lines a first start printed)."""
    combat = program or combat_program()
    host_token = shlex.quote(str(data_dir / HOST_TOKEN_FILE))
    return (
        "Create your own encounter: "
        f"{combat} create ENCOUNTER.toml --server {url} --token-file {host_token}\n"
        "Find the rooms and how to join them: "
        f"{combat} rooms --server {url} --token-file {host_token}"
    )


__all__ = ["DEMO_ENCOUNTER", "HOST_TOKEN_FILE", "create_instructions", "join_instructions"]
