"""`combat`: create encounters, play a seat, run the fight as GM, or watch it.

    combat create ENCOUNTER.toml --server URL --token-file DATA_DIR/host-token
    combat renew ENCOUNTER.toml --room ROOM --server URL --token-file DATA_DIR/host-token
    combat rooms --server URL --token-file DATA_DIR/host-token   the rooms, how to join
    combat play  --server URL --token CODE      a player's seat
    combat gm    --server URL --token CODE [--plays ID,ID]   the GM
    combat watch --server URL --token CODE      a spectator (read-only)

`--token` takes the invite code printed for you (`K7QM4XPR2W`) or the long token.

`--server` defaults to $COMBAT_SERVER, else ws://127.0.0.1:8765/ws; `--token` to
$COMBAT_TOKEN. Several addresses of one service (the processes of a cluster) may be
given, `--server URL --server URL` or `--server URL,URL`: the program joins the first
that answers, and when its server goes away it reconnects to any live one in turn
(with a growing pause between rounds), resuming where it was. `--json` speaks the JSON
subprotocol instead of msgpack (for looking at the frames). The program is
line-oriented: it prints the fight as it happens and reads commands from stdin (`help`
lists them), so it works in any terminal and can be driven by a script. A dropped
connection is resumed by itself from the last event held.
`--plays` names the GM's own combatants (those no seat plays), so that the GM is
prompted for them as a player is for its own; `create` and `renew` print it. Without
it the GM is prompted for every combatant (`plays g1 g2` in the program says which).

Exit codes: 0 done, 1 the server refused or the connection ended, 2 a usage error
or an encounter file that cannot be read.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import TextIO

from pydantic import ValidationError

from clients.client import Client, Encoding, JoinError
from clients.console import Console, Mode
from clients.encounters import EncounterFileError, gm_combatants, read_encounter, seats_of
from clients.program import browser_lines, join_lines, this_program
from clients.screen import Screen
from clients.terminal import Terminal, interactive
from protocol.messages import Created, InviteCodes, Listed

DEFAULT_SERVER = "ws://127.0.0.1:8765/ws"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="combat", description="Play, run or watch a fight on a combat server."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    def connection(sub: argparse.ArgumentParser, token_file: bool = False) -> None:
        sub.add_argument(
            "--server",
            action="append",
            metavar="URL[,URL]",
            help="the server's websocket URL; several of one service, repeated or "
            f"comma-separated, are tried in turn (default: $COMBAT_SERVER or {DEFAULT_SERVER})",
        )
        tokens = sub.add_mutually_exclusive_group()
        tokens.add_argument(
            "--token",
            default=os.environ.get("COMBAT_TOKEN"),
            help="the invite code or token you were given (default: $COMBAT_TOKEN)",
        )
        if token_file:
            tokens.add_argument("--token-file", type=Path, help="a file holding the token")
        sub.add_argument("--json", action="store_true", help="use the JSON subprotocol")

    create = commands.add_parser("create", help="create an encounter from a file")
    create.add_argument("file", type=Path, help="an encounter file (TOML or JSON)")
    connection(create, token_file=True)
    renew = commands.add_parser("renew", help="fresh tokens for an existing room")
    renew.add_argument("file", type=Path, help="the encounter file it was created from")
    renew.add_argument("--room", required=True, help="the room's id, as 'create' printed it")
    connection(renew, token_file=True)
    rooms = commands.add_parser("rooms", help="the server's rooms and how to join each")
    connection(rooms, token_file=True)
    for name, text in (
        ("play", "play a seat"),
        ("gm", "run the fight as the GM"),
        ("watch", "watch the fight"),
    ):
        sub = commands.add_parser(name, help=text)
        connection(sub, token_file=True)
        if name == "gm":
            sub.add_argument(
                "--plays",
                metavar="ID,ID",
                help="the GM's own combatants (no seat plays them), to be prompted for; "
                "default: every combatant",
            )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit:
        return int(exit.code or 0)
    try:
        token = _token(args)
        args.server = ",".join(servers(args.server or [os.environ.get("COMBAT_SERVER", "")]))
    except ValueError as error:
        print(f"combat: {error}", file=sys.stderr)
        return 2
    encoding: Encoding = "json" if args.json else "msgpack"
    try:
        if args.command == "create":
            return asyncio.run(create(args.file, args.server, token, encoding, sys.stdout))
        if args.command == "renew":
            return asyncio.run(
                renew(args.file, args.room, args.server, token, encoding, sys.stdout)
            )
        if args.command == "rooms":
            return asyncio.run(rooms(args.server, token, encoding, sys.stdout))
        mode: Mode = args.command
        plays = _ids(getattr(args, "plays", None))
        # A person at a terminal gets an input line the fight never overwrites
        # (`terminal.py`); a pipe or a file, the lines of stdin.
        terminal = Terminal() if interactive() else None
        lines = terminal.lines() if terminal is not None else _stdin_lines()
        return asyncio.run(
            join(
                mode,
                args.server,
                token,
                encoding,
                lines,
                sys.stdout,
                plays=plays,
                terminal=terminal,
            )
        )
    except KeyboardInterrupt:
        return 130


def servers(given: str | Sequence[str]) -> list[str]:
    """The server URLs `--server` names: each given (repeated, or comma-separated in one);
    none given: the default. A comma-separated string stands for several throughout."""
    texts = [given] if isinstance(given, str) else list(given)
    urls = [url.strip() for text in texts for url in text.split(",") if url.strip()]
    return urls or [DEFAULT_SERVER]


def _ids(text: str | None) -> list[str] | None:
    """`--plays g1,g2` as ids; None when not given (`--plays ""`: none)."""
    if text is None:
        return None
    return [part.strip() for part in text.split(",") if part.strip()]


def _token(args: argparse.Namespace) -> str:
    token_file: Path | None = getattr(args, "token_file", None)
    if token_file is not None:
        try:
            token = token_file.read_text(encoding="utf-8").strip()
        except OSError as error:
            raise ValueError(f"cannot read {token_file}: {error.strerror}") from None
    else:
        token = (args.token or "").strip()
    if not token:
        raise ValueError(NO_HOST_TOKEN if args.command in HOST_COMMANDS else NO_TOKEN)
    return token


HOST_COMMANDS = ("create", "renew", "rooms")
NO_HOST_TOKEN = (
    "a host token is needed: --token-file DATA_DIR/host-token (the server writes it "
    "there at every start; DATA_DIR is the server's --data-dir, ./combat-data unless "
    "it was given one), or --token TOKEN"
)
NO_TOKEN = (
    "a token is needed: --token TOKEN (or --token-file FILE), as printed by the "
    "server's first start or by 'combat create'"
)


async def create(file: Path, server: str, token: str, encoding: Encoding, out: TextIO) -> int:
    """`combat create`: send the encounter, print how everyone joins it."""
    try:
        encounter = read_encounter(file)
    except EncounterFileError as error:
        for problem in error.problems:
            print(f"combat create: {problem}", file=sys.stderr)
        return 2
    client = await _host_client("create", server, token, encoding)
    if client is None:
        return 1
    web = _web_of(client)
    async with client:
        try:
            answer = await client.create(encounter, timeout=30)
        except ValidationError as error:  # a value msgpack/JSON cannot carry (a TOML date)
            print(f"combat create: {file.name}: {error.errors()[0]['msg']}", file=sys.stderr)
            return 2
    if answer.type == "refused":
        print(f"combat create: refused ({answer.code}):", file=sys.stderr)
        for problem in answer.message.split("; "):
            print(f"  {problem}", file=sys.stderr)
        return 1
    plays = gm_combatants(encounter)
    out.write(join_instructions(server, answer, gm_plays=plays, web=web) + "\n")
    return 0


async def _host_client(what: str, server: str, token: str, encoding: Encoding) -> Client | None:
    """A connection with a host token, or None after saying why not."""
    try:
        client = await Client.connect(servers(server), token, encoding=encoding, events=False)
    except JoinError as error:
        print(f"combat {what}: {error}", file=sys.stderr)
        return None
    if client.role != "host":
        await client.close()
        problem = "not a host token (the server writes one to DATA_DIR/host-token)"
        print(f"combat {what}: {problem}", file=sys.stderr)
        return None
    return client


def _web_of(client: Client) -> str:
    """The web app the server told a host of (`welcome.web`), "" when none."""
    return client.welcome.web if client.welcome is not None else ""


async def renew(
    file: Path, room: str, server: str, token: str, encoding: Encoding, out: TextIO
) -> int:
    """`combat renew`: fresh tokens for room `room`, for the seats of its encounter file
    (a fight prepared weeks ago, a GM whose token expired); older tokens stay valid."""
    try:
        encounter = read_encounter(file)
        seats = seats_of(encounter)
    except EncounterFileError as error:
        for problem in error.problems:
            print(f"combat renew: {problem}", file=sys.stderr)
        return 2
    client = await _host_client("renew", server, token, encoding)
    if client is None:
        return 1
    web = _web_of(client)
    async with client:
        answer = await client.renew(room, seats, timeout=30)
    if answer.type == "refused":
        print(f"combat renew: refused ({answer.code}): {answer.message}", file=sys.stderr)
        return 1
    plays = gm_combatants(encounter)
    out.write(join_instructions(server, answer, verb="Renewed", gm_plays=plays, web=web) + "\n")
    return 0


async def rooms(server: str, token: str, encoding: Encoding, out: TextIO) -> int:
    """`combat rooms`: every room the server knows, with the commands that join it."""
    client = await _host_client("rooms", server, token, encoding)
    if client is None:
        return 1
    web = _web_of(client)
    async with client:
        answer = await client.rooms(timeout=30)
    if answer.type == "refused":
        print(f"combat rooms: refused ({answer.code}): {answer.message}", file=sys.stderr)
        return 1
    out.write(rooms_text(server, answer.rooms, web=web) + "\n")
    return 0


def rooms_text(
    server: str, listed: Sequence[Listed], program: str | None = None, web: str = ""
) -> str:
    """The rooms as `combat rooms` prints them: a title line each, then the lines that
    join it with its invite codes (or how to give it codes, when it has none), and with
    the server's web app at `web`, a link a piece that opens the seat in a browser."""
    combat = program or this_program()
    if not listed:
        return f"No rooms on {server} yet: {combat} create ENCOUNTER.toml makes one."
    count = "1 room" if len(listed) == 1 else f"{len(listed)} rooms"
    lines = [f"{count} on {server}:"]
    for room in listed:
        name = f"{room.name!r} " if room.name else ""
        seats = ", ".join(room.seats) or "none"
        lines += ["", f"{room.room}: {name}({room.ruleset}, {room.mode}), player seats: {seats}"]
        codes = room.codes
        players = {seat: codes.players[seat] for seat in room.seats if seat in codes.players}
        joins = join_lines(
            server, codes.gm, players, codes.spectator, gm_plays=room.gm_plays, program=combat
        )
        lines += joins
        if web:
            lines += browser_lines(web, codes.gm, players, codes.spectator)
        if len(joins) < len(room.seats) + 2:
            lines.append(
                f"  (codes missing: {combat} renew ENCOUNTER.toml --room {room.room} "
                f"--server {server} --token-file DATA_DIR/host-token gives them)"
            )
    return "\n".join(lines)


def join_instructions(
    server: str,
    created: Created,
    verb: str = "Created",
    gm_plays: Sequence[str] = (),
    program: str | None = None,
    web: str = "",
) -> str:
    """The exact commands to join, one per person, as the server's first start prints:
    each with its invite code (the token where the server gave no code). The GM's names
    its own combatants (`--plays`), to be prompted for them. They run as printed from
    here: `program` (default: this program as it was typed). With the server's web app
    at `web`, a link per person too, that opens the same seat in a browser."""
    combat = program or this_program()
    expires = time.strftime("%Y-%m-%d %H:%M", time.localtime(created.expires_at))
    name, room = created.name, created.room
    title = f"{name!r}, room {room}" if name else f"room {room}"
    codes = created.codes
    gm = codes.gm or created.gm
    players = {seat: codes.players.get(seat) or token for seat, token in created.players.items()}
    spectator = codes.spectator or created.spectator
    given = [gm, spectator, *players.values()]
    valid = []
    if any(code in _code_values(codes) for code in given):
        valid.append("codes valid until the GM revokes them")
    if not all(code in _code_values(codes) for code in given):
        valid.append(f"tokens valid until {expires}")
    lines = [
        f"{verb} {title} ({', '.join(valid)}).",
        "Join it from other terminals:",
        *join_lines(server, gm, players, spectator, gm_plays=gm_plays, program=combat),
    ]
    if web:
        lines += ["Or open them in a browser:", *browser_lines(web, gm, players, spectator)]
    return "\n".join(lines)


def _code_values(codes: InviteCodes) -> set[str]:
    return {code for code in (codes.gm, codes.spectator, *codes.players.values()) if code}


async def join(
    mode: Mode,
    server: str,
    token: str,
    encoding: Encoding,
    lines: AsyncIterator[str],
    out: TextIO,
    *,
    plays: Sequence[str] | None = None,
    terminal: Terminal | None = None,
) -> int:
    """`combat play|gm|watch`: follow the fight and send what is typed; on a `terminal`
    (`clients/terminal.py`) its screen shows the fight and it completes from the console."""
    try:
        client = await Client.connect(
            servers(server),
            token,
            encoding=encoding,
            auto_reconnect=True,
            events=False,  # the table, the log and the choices are all it draws
        )
    except JoinError as error:
        print(f"combat {mode}: {error}", file=sys.stderr)
        return 1
    async with client:
        expected = {"play": "player", "gm": "gm", "watch": "spectator"}[mode]
        if client.role != expected:
            print(
                f"combat {mode}: this token is a {client.role}'s; "
                f"use 'combat {_mode_of(client.role)}'",
                file=sys.stderr,
            )
            return 1
        screen = terminal.screen if terminal is not None else Screen(out)
        console = Console(client, screen, mode, plays=plays)
        if terminal is not None:
            terminal.attach(console)
        return await console.run(lines)


def _mode_of(role: str) -> str:
    return {"player": "play", "gm": "gm", "spectator": "watch", "host": "create FILE"}[role]


async def _stdin_lines() -> AsyncIterator[str]:
    """Lines typed on stdin, read by a daemon thread so that a blocked read never
    keeps the program from exiting."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def pump() -> None:
        try:
            for line in sys.stdin:
                loop.call_soon_threadsafe(queue.put_nowait, line.rstrip("\n"))
            loop.call_soon_threadsafe(queue.put_nowait, None)
        except RuntimeError:  # the loop is gone: the program is ending
            return

    threading.Thread(target=pump, name="stdin", daemon=True).start()
    while (line := await queue.get()) is not None:
        yield line


if __name__ == "__main__":
    sys.exit(main())
