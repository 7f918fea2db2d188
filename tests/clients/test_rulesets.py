"""The ruleset table: the program's shared parts look a room's ruleset up, never compare
its name, and a ruleset the program does not know still plays through `raw` commands.

The issue for the second ruleset: "adding Tael must not add a single `if ruleset ==
...` to shared code". The shared modules are read as source and searched for such a
comparison; the searcher is itself shown to find one.
"""

from __future__ import annotations

import ast
import asyncio
import io
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.typing import Subprotocol

from clients.client import Client
from clients.commands import Command, CommandError, Context, ShowHelp, help_text, parse
from clients.console import Console
from clients.rulesets import RULESETS, known, words_for
from clients.screen import Screen
from protocol.codec import MSGPACK_SUBPROTOCOL, decode, pack
from protocol.messages import Hello, Send
from tests.clients.support import Typed
from tests.support.server import wait_for
from tests.support.waiting import within

CLIENTS = Path(__file__).resolve().parents[2] / "clients"
UNKNOWN = "starfall"  # a rule system this program has no words for
# --- no ruleset name comparison in shared code ----------------------------------------


def own_modules() -> set[str]:
    """Each rule system's own modules (`<name>_*.py`: its grammar, its sheets)."""
    return {p.name for name in RULESETS for p in CLIENTS.glob(f"{name}_*.py")}


def name_comparisons(source: str) -> list[str]:
    """Every comparison in `source` with a ruleset's name, or of a `ruleset` by equality."""

    def names_a_ruleset(node: ast.expr) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in RULESETS
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(names_a_ruleset(e) for e in node.elts)
        return False

    def is_ruleset(node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id == "ruleset") or (
            isinstance(node, ast.Attribute) and node.attr == "ruleset"
        )

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            by_equality = any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops)
            if any(names_a_ruleset(o) for o in operands) or (
                by_equality and any(is_ruleset(o) for o in operands)
            ):
                found.append(ast.unparse(node))
        elif isinstance(node, ast.MatchValue) and names_a_ruleset(node.value):
            found.append(ast.unparse(node.value))
    return found


def test_the_searcher_finds_a_ruleset_name_comparison() -> None:
    assert name_comparisons('if context.ruleset == "tael":\n    pass\n') == [
        "context.ruleset == 'tael'"
    ]
    assert name_comparisons('tael = verb in ("verse", "x")\n') == ["verb in ('verse', 'x')"]
    assert name_comparisons("same = ruleset != other\n") == ["ruleset != other"]
    assert name_comparisons("words = RULESETS.get(ruleset)\nthere = ruleset in RULESETS\n") == []


def test_shared_modules_compare_no_ruleset_name() -> None:
    shared = sorted(p for p in CLIENTS.glob("*.py") if p.name not in own_modules())
    assert {"commands.py", "console.py", "lines.py"} <= {p.name for p in shared}
    found = {p.name: name_comparisons(p.read_text()) for p in shared}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_each_ruleset_has_its_own_modules_and_its_entry_under_its_name() -> None:
    assert sorted(RULESETS) == ["tael", "verse"]
    for name, words in RULESETS.items():
        assert words.name == name
        assert known(name)
        assert words_for(name) is words
    assert own_modules() >= {f"{name}_words.py" for name in RULESETS}


# --- the room's ruleset picks the words -----------------------------------------------


def test_the_help_is_the_room_s_own() -> None:
    assert "quick knock <item>" in help_text("player", "verse")
    assert "use <move> [with <weapon>]" in help_text("player", "tael")
    assert "quick knock" not in help_text("player", "tael")
    assert "status <combatant> <status> <turns>" in help_text("gm", "tael")
    assert "condition <combatant> <condition> [rounds]" in help_text("gm", "verse")


# --- a ruleset this program does not know ---------------------------------------------

GLIMMER = {"type": "Glimmer", "actor": "ayla"}
SEAT = {
    "combatant": "ayla",
    "window": None,
    "compose": None,
    "options": [
        {"key": "glimmer", "label": "Glimmer", "command": GLIMMER},
        {
            "key": "strike:sling",
            "label": "Strike with sling",
            "command": {"type": "Strike", "actor": "ayla", "target": None, "weapon": "sling"},
            "holes": [
                {"path": "/target", "label": "target", "options": [{"value": "g1", "label": "G"}]}
            ],
        },
    ],
}
PLAYER = Context("player", ("ayla",), ruleset=UNKNOWN, choices={"ayla": SEAT})
GM = Context("gm", ruleset=UNKNOWN)


def test_an_unknown_ruleset_takes_raw_commands() -> None:
    line = 'raw {"type": "Brace", "actor": "ayla"}'
    assert parse(line, PLAYER) == Command({"type": "Brace", "actor": "ayla"})
    assert parse(line, GM) == Command({"type": "Brace", "actor": "ayla"})


def test_an_unknown_ruleset_takes_the_words_of_its_choices() -> None:
    """No word table, no rule: the options' own keys and hole values are its words."""
    assert parse("glimmer", PLAYER) == Command(GLIMMER)
    strike = {"type": "Strike", "actor": "ayla", "target": "g1", "weapon": "sling"}
    assert parse("strike g1", PLAYER) == Command(strike)
    assert parse("strike sling g1", PLAYER) == Command(strike)
    assert parse("start", GM) == Command({"type": "StartCombat"})  # the room's own
    console = {"combatant": "gm", "options": [{**SEAT["options"][1], "key": "smite"}]}
    smite = {**strike, "actor": "ayla"}
    assert parse("smite g1", replace(GM, choices={"gm": console})) == Command(smite)


@pytest.mark.parametrize(
    ("line", "code", "message"),
    [
        ("declare strike g1", "not_offered", "nothing to declare now: ayla may glimmer or strike"),
        ("dance", "not_offered", "no 'dance' now: ayla may glimmer or strike"),
        ("strike g2", "no_such_choice", "no 'g2' to strike: targets are g1"),
        ("glimmer twice", "too_many_arguments", "glimmer takes nothing more: glimmer"),
    ],
)
def test_an_unknown_ruleset_refuses_what_is_not_offered_and_says_what_is(
    line: str, code: str, message: str
) -> None:
    with pytest.raises(CommandError) as refused:
        parse(line, PLAYER)
    assert (refused.value.code, refused.value.message) == (code, message)


def test_an_unknown_ruleset_s_help_lists_the_choices_words() -> None:
    shown = parse("help", PLAYER)
    assert isinstance(shown, ShowHelp)
    assert "  ayla: glimmer | strike [sling] <target>\n" in shown.text
    assert "raw <json command>" in shown.text
    assert "declare" not in shown.text  # nothing to compose is offered
    spectator = parse("help", Context("spectator", ruleset=UNKNOWN))
    assert isinstance(spectator, ShowHelp) and spectator.text.startswith("You are watching")


# --- the console in a room of an unknown ruleset, against a scripted server -----------

WELCOME: dict[str, Any] = {
    "type": "welcome",
    "protocol": 2,
    "room": "r-1",
    "ruleset": UNKNOWN,
    "role": "player",
    "seat": "ayla",
    "controls": ["ayla"],
    "seq": 1,
}
AYLA = {"id": "ayla", "name": "Ayla", "side": "party", "position": [0, 0], "health_word": "wounded"}
TABLE = {
    "type": "table",
    "seq": 1,
    "view": {
        "ruleset": UNKNOWN,
        "mode": "live",
        "phase": "combat",
        "round": 0,
        "grid": {"kind": "square"},
        "combatants": {"ayla": AYLA},
    },
}
UPDATE = {
    "type": "update",
    "from_seq": 1,
    "seq": 3,
    "patch": [{"op": "replace", "path": "/round", "value": 1}],
    "log": [
        {"seq": 2, "kind": "RoundStarted", "text": "Round 1"},
        {"seq": 3, "kind": "Glimmered", "text": "Ayla glimmers twice"},
    ],
}
CHOICES = {
    "type": "choices",
    "seq": 3,
    "seats": [
        {
            "combatant": "ayla",
            "options": [{"key": "glimmer", "label": "Glimmer", "command": GLIMMER}],
        }
    ],
}


@pytest.fixture
async def starfall_server() -> AsyncIterator[tuple[str, list[Send]]]:
    """A server of a room in the unknown ruleset: it welcomes, sends the table with
    Ayla, an update of two log lines and Ayla's one choice, and refuses each command
    it is sent, keeping it."""
    received: list[Send] = []

    async def handler(ws: ServerConnection) -> None:
        assert isinstance(decode(await within(ws.recv(), what="the client's hello")), Hello)
        for message in (WELCOME, TABLE, UPDATE, CHOICES):
            await ws.send(pack(message))
        async for frame in ws:
            sent = decode(frame)
            assert isinstance(sent, Send)
            received.append(sent)
            refusal = {"type": "refused", "cid": sent.cid, "code": "not_your_turn"}
            await ws.send(pack({**refusal, "message": "wait"}))

    offered = [Subprotocol(MSGPACK_SUBPROTOCOL)]
    server = await serve(handler, "127.0.0.1", 0, subprotocols=offered)
    try:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}/ws", received
    finally:
        server.close()  # its connections too: each handler's loop ends
        await within(server.wait_closed(), what="the scripted server to close")


async def test_the_console_plays_an_unknown_ruleset_through_its_choices(
    starfall_server: tuple[str, list[Send]],
) -> None:
    url, received = starfall_server
    out = io.StringIO()
    lines = Typed()

    async def shows(text: str) -> None:
        try:
            await wait_for(lambda: text in out.getvalue())
        except TimeoutError:
            raise AssertionError(f"{text!r} never showed in:\n{out.getvalue()}") from None

    async with await Client.connect(url, "token") as client:
        console = Console(client, Screen(out), "play", tick=10.0)
        task = asyncio.create_task(console.run(lines))
        await shows(f"Room r-1 ({UNKNOWN}) as player (seat ayla, plays ayla); type 'help'")
        await shows(f"! this program does not know the words of the '{UNKNOWN}' rules")
        await shows("* Ayla (ayla)  party  (0, 0)  health wounded\n")  # as the server drew it
        await shows("[2] Round 1\n[3] Ayla glimmers twice\n")
        await shows(">>> Ayla (ayla):\n  1. Glimmer\n")  # the choices need no words
        lines.type("look")
        await shows("Fight after event 3:\n  Round 1  combat  live\n")
        lines.type("declare attack g1")
        await shows("? nothing to declare now: ayla may glimmer (not_offered)")
        assert received == []  # a refused line sends nothing
        lines.type("1")
        await shows("! refused: not_your_turn: wait")
        lines.type("glimmer")  # the choice's own word
        await wait_for(lambda: len(received) == 2)
        lines.type('raw {"type": "Glimmer", "actor": "ayla", "twice": true}')
        await wait_for(lambda: len(received) == 3)
        assert [s.command for s in received] == [GLIMMER, GLIMMER, {**GLIMMER, "twice": True}]
        lines.type("quit")
        assert await asyncio.wait_for(task, 5) == 0
