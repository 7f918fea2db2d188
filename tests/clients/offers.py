"""Contexts for typed lines made from the real server's choices, as a screen holds them.

The typed grammar reads a line against what the server offers (`clients/matching.py`),
so its tests ask the server's own choices (`server.table.choices.seat_choices`, the
GM's console `overrides.gm_seat`) and table (`table_view`) for a state reached by
commands, never a hand-made list that could drift from what the server sends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from clients.commands import Command, CommandError, Context, OpenWindow, Role, parse
from protocol.table import with_cells
from server.encounters import build, read_file
from server.engine import execute
from server.engine.core import RULESETS
from server.engine.core import Command as EngineCommand
from server.engine.flow import Mode
from server.engine.records import evolve
from server.engine.state import Encounter
from server.engine.views import GM_AUDIENCE
from server.gateway.commands import CommandReader
from server.table.choices import seat_choices
from server.table.overrides import gm_seat
from server.table.view import table_view

SAMPLES = Path(__file__).resolve().parents[2] / "server" / "samples" / "encounters"


def encounter(name: str, seed: int = 7, mode: Mode | None = None) -> Encounter:
    data = read_file(SAMPLES / name)
    data["seed"] = seed
    state = build(data).encounter
    return evolve(state, mode=mode) if mode is not None else state


def run(state: Encounter, *commands: EngineCommand) -> Encounter:
    for command in commands:
        state, _ = execute(state, command)
    return state


@dataclass(frozen=True)
class Screen:
    """A screen of `role` on `state`: every seat's choices the server works out for it
    (a player its own, the GM those of every combatant and its console)."""

    state: Encounter
    role: Role = "player"
    controls: tuple[str, ...] = ()
    actor: str = ""
    seen: Mapping[str, OpenWindow] = field(default_factory=dict)

    def context(self) -> Context:
        state = self.state
        mine = self.controls if self.role == "player" else tuple(state.combatants)
        # as a screen holds them: a move's short paths as cells (`HeldTable`)
        seats = {seat["combatant"]: with_cells(seat) for seat in seat_choices(state, mine)}
        console = gm_seat(state) if self.role == "gm" else None
        if console is not None:
            seats["gm"] = console
        window = None
        if state.window is not None:
            asked = {a.combatant: tuple(a.options) for a in state.window.asked}
            window = OpenWindow(state.window.id, str(state.window.kind), "", asked)
        view = table_view(state, GM_AUDIENCE)
        return Context(
            self.role, self.controls, self.actor, window, state.ruleset, view, self.seen, seats
        )

    def parse(self, text: str) -> Any:
        return parse(text, self.context())

    def command(self, text: str) -> dict[str, Any]:
        """The command `text` sends, read back by the server's reader of the room."""
        parsed = self.parse(text)
        assert isinstance(parsed, Command), parsed
        CommandReader(RULESETS[self.state.ruleset]).read(parsed.command)
        return parsed.command

    def refused(self, text: str) -> CommandError:
        try:
            parsed = self.parse(text)
        except CommandError as error:
            return error
        raise AssertionError(f"{text!r} was read as {parsed}")

    def acting(self, who: str) -> Screen:
        return replace(self, actor=who)

    def seeing(self, seen: Mapping[str, OpenWindow]) -> Screen:
        return replace(self, seen=seen)


def player(state: Encounter, *controls: str) -> Screen:
    return Screen(state, "player", tuple(controls))


def gm(state: Encounter, actor: str = "") -> Screen:
    return Screen(state, "gm", (), actor)


def keys(screen: Screen, who: str) -> list[str]:
    seat = screen.context().choices.get(who)
    return [option["key"] for option in seat["options"]] if seat else []


def first(options: Iterable[Any]) -> Any:
    return next(iter(options))
