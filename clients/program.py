"""How to run `combat` from here: the start of every join line that is printed.

The server's first start and `combat create`, `renew` and `rooms` print commands for
other terminals. A line that says `combat gm ...` fails where `combat` is not on the
PATH (it lives in the virtual environment's `bin`, `.venv/bin/combat` from the
repository), so the lines name the program by its path instead: the one that runs now
(`combat create` typed as `.venv/bin/combat create`), or else the `combat` script
beside the Python that runs (the server's). The path is relative when it lies under the
working directory (`.venv/bin/combat`, run from where the first command was typed),
plain `combat` when the PATH finds that very script, and absolute otherwise. With no
such script (a checkout run as `python -m server`), `PYTHON -m clients.cli`.

With the web app on, each person also gets a link that opens the same seat in a
browser (`join_link`: the code travels in the link's fragment, so it reaches no server
log), and the host one to the page that creates fights (`create_link`). Standard
library only, so the server can print the same lines (`server/join_lines.py`).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from urllib.parse import quote

PROGRAM = "combat"


def combat_program(
    running: str | None = None, *, python: str | None = None, cwd: Path | None = None
) -> str:
    """The shell words that start `combat`, from the working directory `cwd`.

    `running` is the path of the program running now, if it is `combat` (its
    `sys.argv[0]`); `python` the interpreter whose `bin` holds the script (default:
    this one)."""
    here = Path.cwd() if cwd is None else cwd
    if running and Path(running).name == PROGRAM and _runnable(Path(running)):
        return _shown(Path(running), here)
    interpreter = Path(python or sys.executable)
    script = interpreter.parent / PROGRAM
    if _runnable(script):
        return _shown(script, here)
    return f"{_shown(interpreter, here)} -m clients.cli"


def this_program() -> str:
    """This program (when it is `combat`) as a shell word that runs it from here."""
    return combat_program(sys.argv[0] if sys.argv else None)


def join_lines(
    server: str,
    gm: str,
    players: Mapping[str, str],
    spectator: str,
    *,
    gm_plays: Sequence[str] = (),
    program: str | None = None,
) -> list[str]:
    """One command per person, each joining with its token or invite code: the GM's
    (naming the combatants the GM plays, `--plays`, to be prompted for them), each
    seat's, the spectators'. A person with no code or token ("") gets no line."""
    combat = program or this_program()
    plays = f" --plays {','.join(gm_plays)}" if gm_plays else ""
    lines = []
    if gm:
        lines.append(f"  GM:        {combat} gm --server {server} --token {gm}{plays}")
    for seat, code in players.items():
        lines.append(f"  {seat + ':':<10} {combat} play --server {server} --token {code}")
    if spectator:
        lines.append(f"  spectator: {combat} watch --server {server} --token {spectator}")
    return lines


def join_link(page: str, credential: str) -> str:
    """The link to the web app at `page` (`http://host:port/`) that joins with an invite
    code or a join token; the face (player, GM, spectator) is the role the server's
    `welcome` gives it."""
    return f"{page}#join={quote(credential, safe='')}"


def create_link(page: str, host_token: str) -> str:
    """The link to the web app's page that creates fights with the host token."""
    return f"{page}#host={quote(host_token, safe='')}"


def browser_lines(page: str, gm: str, players: Mapping[str, str], spectator: str) -> list[str]:
    """One link per person, labelled as the join commands are: the GM's, each seat's,
    the spectators'. A person with no code or token ("") gets no line."""
    people = [("GM", gm), *players.items(), ("spectator", spectator)]
    return [f"  {who + ':':<10} {join_link(page, code)}" for who, code in people if code]


def _runnable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _shown(path: Path, here: Path) -> str:
    """`path` as a shell word that runs it from `here`."""
    absolute = Path(os.path.abspath(here / path))
    try:
        relative = absolute.relative_to(os.path.abspath(here))
    except ValueError:
        found = shutil.which(absolute.name)
        if found is not None and os.path.samefile(found, absolute):
            return absolute.name
        return shlex.quote(str(absolute))
    text = str(relative)
    return shlex.quote(text if os.sep in text else f".{os.sep}{text}")


__all__ = ["PROGRAM", "combat_program", "join_lines", "this_program"]
