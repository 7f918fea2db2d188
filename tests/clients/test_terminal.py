"""The input line on a terminal (`clients/terminal.py`), driven without one: keys come
from a pipe, and what the terminal would show is read twice: the stream written to it
(the fight printed above the prompt) and the screen prompt_toolkit last drew (the
input line and the toolbar under it)."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from clients.console import Console
from clients.screen import Screen
from clients.table import HeldTable
from clients.terminal import Terminal, command_words, completions, interactive
from protocol.messages import Welcome
from tests.support.waiting import until, within

ROWS, COLUMNS = 24, 100
ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

VIEW: dict[str, Any] = {
    "ruleset": "verse",
    "mode": "live",
    "phase": "combat",
    "round": 1,
    "combatants": {
        "ayla": {"id": "ayla", "name": "Ayla", "side": "heroes", "position": [0, 0]},
        "g1": {"id": "g1", "name": "Goblin", "side": "goblins", "position": [2, 0]},
        "o1": {"id": "o1", "name": "Orc", "side": "goblins", "position": [3, 0]},
    },
}
AYLA_MAY = {
    "combatant": "ayla",
    "window": 7,
    "options": [
        {"key": "dodge", "label": "Dodge", "command": {"type": "Answer"}},
        {
            "key": "attack",
            "label": "Attack",
            "command": {"type": "Attack", "target": ""},
            "holes": [
                {
                    "path": "/target",
                    "label": "target",
                    "options": [
                        {"value": "g1", "label": "Goblin (g1)"},
                        {"value": "o1", "label": "Orc (o1)"},
                    ],
                }
            ],
        },
        {"key": "pass", "label": "Pass", "command": {"type": "Pass"}},
    ],
}


class Seat:
    """What a `Console` reads of its `Client` for completion, with no server behind it:
    the table held and the welcome."""

    def __init__(self, role: str, controls: Iterable[str] = ()) -> None:
        self.table = HeldTable()
        self.table.take({"type": "table", "seq": 4, "view": VIEW})
        self.window = None
        self.welcome = Welcome(
            room="r-1",
            role=role,  # type: ignore[arg-type]
            seat="seat" if role == "player" else "",
            controls=list(controls),
            ruleset="verse",
            seq=4,
        )

    @property
    def role(self) -> str:
        return self.welcome.role

    @property
    def controls(self) -> list[str]:
        return list(self.welcome.controls)


def console_of(seat: Seat, screen: Screen | None = None) -> Console:
    mode = "gm" if seat.role == "gm" else "play"
    return Console(seat, screen or Screen(io.StringIO()), mode)  # type: ignore[arg-type]


@dataclass
class Keyboard:
    """A terminal without a terminal: `keys` typed into it, `shown` the stream it was
    written, `terminal` the input line on it."""

    keys: PipeInput
    written: io.StringIO
    terminal: Terminal

    @property
    def shown(self) -> str:
        """What was written to the terminal, its escape codes left out."""
        return ESCAPE.sub("", self.written.getvalue())

    @property
    def drawn(self) -> list[str]:
        """The rows prompt_toolkit last drew at the bottom: the input line, the toolbar."""
        screen = self.terminal.session.app.renderer.last_rendered_screen
        if screen is None:
            return []
        rows = []
        for y in range(screen.height):
            row = screen.data_buffer[y]
            rows.append("".join(row[x].char for x in range(COLUMNS)).rstrip())
        return rows

    @property
    def typed(self) -> str:
        return self.terminal.session.default_buffer.text


class Tty(io.StringIO):
    """The stream a terminal shows, answering where its cursor is as a terminal does
    (`ESC [ 6 n` asks; the answer comes back as typed input): only then does
    prompt_toolkit know the rows below the prompt and draw its toolbar there."""

    def __init__(self, keys: PipeInput) -> None:
        super().__init__()
        self.keys = keys

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        for _ in range(text.count("\x1b[6n")):
            self.keys.send_text("\x1b[1;1R")  # row 1: the whole screen below
        return super().write(text)


@contextmanager
def keyboard() -> Iterator[Keyboard]:
    with create_pipe_input() as keys:
        written = Tty(keys)
        output = Vt100_Output(written, lambda: Size(rows=ROWS, columns=COLUMNS), term="xterm")
        with create_app_session(input=keys, output=output):
            yield Keyboard(keys, written, Terminal(refresh=0.05))


@pytest.fixture
async def gm() -> AsyncIterator[Keyboard]:
    """The GM's terminal, its console attached, reading lines."""
    with keyboard() as board:
        board.terminal.attach(console_of(Seat("gm"), board.terminal.screen))
        yield board


async def next_line(lines: AsyncIterator[str]) -> str:
    return await within(anext(lines), 5, "the next typed line")


async def test_a_half_typed_answer_survives_the_fight_printed_meanwhile(gm: Keyboard) -> None:
    lines = gm.terminal.lines()
    typed = asyncio.ensure_future(next_line(lines))
    gm.keys.send_text("as g1 do")
    await until(lambda: gm.typed == "as g1 do", what="the half-typed line")
    screen = gm.terminal.screen
    screen.line("[5] Ayla attacks Goblin with her longsword")
    screen.status("  ~ window 7 (attack): 8s left; waiting for g1")
    screen.line("[6] A window opens for Goblin\n    (dodge, block or pass)")
    await until(lambda: "(dodge, block or pass)" in gm.shown, what="the fight printed")

    shown = gm.shown
    assert shown.index("[5] Ayla attacks Goblin") < shown.index("[6] A window opens")
    assert "> as g1 do" in shown[shown.index("(dodge, block or pass)") :]  # drawn again below
    assert gm.typed == "as g1 do"
    gm.keys.send_text("dge\r")
    assert await typed == "as g1 dodge"

    second = asyncio.ensure_future(next_line(lines))
    gm.keys.send_text("look\r")
    assert await second == "look"


async def test_ctrl_d_ends_the_lines_and_ctrl_c_quits(gm: Keyboard) -> None:
    lines = gm.terminal.lines()
    gm.keys.send_text("pause\r\x04")
    assert await next_line(lines) == "pause"
    with pytest.raises(StopAsyncIteration):
        await next_line(lines)

    lines = gm.terminal.lines()
    gm.keys.send_text("as g1 dod\x03")  # a half-typed line is dropped
    assert await next_line(lines) == "quit"
    with pytest.raises(StopAsyncIteration):
        await next_line(lines)


async def test_tab_completes_a_combatant_id_from_its_id_or_its_name(gm: Keyboard) -> None:
    lines = gm.terminal.lines()
    reading = asyncio.ensure_future(next_line(lines))
    gm.keys.send_text("as g\t")  # only g1's id starts so: Tab puts it in
    await until(lambda: gm.typed == "as g1", what="g completed")
    gm.keys.send_text("\r")
    assert await reading == "as g1"

    reading = asyncio.ensure_future(next_line(lines))
    gm.keys.send_text("health orc\t")  # by the name: o1, the only one, is put in
    await until(lambda: gm.typed == "health o1", what="orc completed")
    gm.keys.send_text(" 3\r")
    assert await reading == "health o1 3"


async def test_the_countdown_shows_in_the_toolbar_under_the_input_line(gm: Keyboard) -> None:
    lines = gm.terminal.lines()
    reading = asyncio.ensure_future(next_line(lines))
    gm.keys.send_text("as g1 bl")
    await until(lambda: any("as g1 bl" in row for row in gm.drawn), what="the prompt drawn")
    gm.terminal.screen.status("  ~ window 7 (attack): 8s left; waiting for g1")
    await until(
        lambda: any("window 7 (attack): 8s left" in row for row in gm.drawn),
        what="the status in the toolbar",
    )
    gm.terminal.screen.status("  ~ window 7 (attack): 7s left; waiting for g1")
    await until(lambda: any("7s left" in row for row in gm.drawn), what="the status updated")
    rows = gm.drawn
    prompt = next(n for n, row in enumerate(rows) if "as g1 bl" in row)
    toolbar = next(n for n, row in enumerate(rows) if "7s left" in row)
    assert prompt < toolbar
    assert "window 7" not in gm.shown.split("> as g1 bl")[0]  # never printed as a fight line

    gm.terminal.screen.status(None)
    await until(lambda: not any("window 7" in row for row in gm.drawn), what="the status gone")
    gm.keys.send_text("ock\r")
    assert await reading == "as g1 block"


def offered(console: Console, before: str) -> list[tuple[str, str]]:
    """What Tab offers after `before`: each completion's text and the label beside it."""
    return [(found.text, found.display_meta_text) for found in completions(console, before)]


def test_a_player_is_offered_the_numbers_of_the_choices_and_of_a_holes_options() -> None:
    seat = Seat("player", controls=["ayla"])
    seat.table.take({"type": "choices", "seq": 4, "seats": [AYLA_MAY]})
    console = console_of(seat)

    assert offered(console, "") == [("1", "Dodge"), ("2", "Attack"), ("3", "Pass")]
    assert offered(console, "2 ") == [("1", "Goblin (g1)"), ("2", "Orc (o1)")]
    assert offered(console, "2 or") == [("2", "Orc (o1)")]
    assert offered(console, "as ") == [("ayla", "Ayla")]  # a player speaks for its own
    assert offered(console, "as ayla 2 ") == [("1", "Goblin (g1)"), ("2", "Orc (o1)")]
    assert offered(console, "d") == [("dodge", ""), ("descend", "")]  # nothing to declare
    assert offered(console, "a") == [("attack", ""), ("adapt", ""), ("ascend", ""), ("as", "")]
    assert offered(console, "declare attack go") == [("g1", "Goblin")]


def test_the_command_words_are_those_help_lists_for_the_role_and_the_choices() -> None:
    gm_words = command_words(console_of(Seat("gm")))
    ayla = Seat("player", controls=["ayla"])
    player_words = command_words(console_of(ayla))
    assert {"start", "close", "health", "rewind", "plays", "as", "look", "quit"} <= set(gm_words)
    assert {"pause", "look", "help"} <= set(player_words)
    assert not {"rewind", "dodge", "attack"} & set(player_words)  # nothing offered yet
    ayla.table.take({"type": "choices", "seq": 4, "seats": [AYLA_MAY]})
    assert {"dodge", "attack", "pass"} <= set(command_words(console_of(ayla)))
    assert command_words(console_of(Seat("spectator"))) == ["look", "help", "quit"]


def test_only_a_terminal_at_both_ends_gets_the_input_line() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert interactive(Tty(), Tty())
    assert not interactive(io.StringIO(), Tty())  # lines piped in: a script
    assert not interactive(Tty(), io.StringIO())  # the fight written to a file
