"""Typed numbers pick from what the server offered (`clients/picking.py`): a choice, an
option of each of its holes, a number for a number hole within its bounds, parts of a
declaration by commas; the GM's console only when named (`as gm <number>`)."""

from __future__ import annotations

from typing import Any

import pytest

from clients.lines import CommandError, Context
from clients.picking import pick
from clients.table_screen import hole_line
from protocol.table import SeatChoices

AYLA: dict[str, Any] = {
    "combatant": "ayla",
    "window": 4,
    "compose": {
        "label": "Declare",
        "command": {"type": "Declare", "actor": "ayla", "actions": [], "turn": 0},
        "into": "/actions",
        "most": 2,
    },
    "options": [
        {
            "key": "attack",
            "label": "Attack with longsword",
            "command": None,
            "part": {"$type": "Attack", "actor": "ayla", "target": "", "weapon": "longsword"},
            "holes": [
                {
                    "path": "/target",
                    "label": "target",
                    "options": [
                        {"value": "g1", "label": "Goblin (g1)"},
                        {"value": "g2", "label": "Goblin (g2)"},
                    ],
                }
            ],
        },
        {
            "key": "pass",
            "label": "Pass",
            "command": {"type": "PassWindow", "actor": "ayla", "window": 4},
            "part": None,
            "holes": [],
        },
    ],
}
CONSOLE: dict[str, Any] = {
    "combatant": "gm",
    "window": None,
    "compose": None,
    "options": [
        {
            "key": "set_health",
            "label": "Set health",
            "command": {"type": "SetHealth", "combatant": "", "health": 0},
            "part": None,
            "holes": [
                {
                    "path": "/combatant",
                    "label": "combatant",
                    "options": [{"value": "g1", "label": "Goblin (g1)"}],
                },
                {"path": "/health", "label": "health", "options": [], "kind": "number", "least": 0},
            ],
        },
        {
            "key": "set_position",
            "label": "Place",
            "command": {"type": "SetPosition", "combatant": "g1", "cell": {"x": 0, "y": 0}},
            "part": None,
            "holes": [
                {"path": "/cell/x", "label": "x", "options": [], "kind": "number"},
                {"path": "/cell/y", "label": "y", "options": [], "kind": "number", "most": 9},
            ],
        },
    ],
}


def context(role: str, *seats: dict[str, Any], actor: str = "") -> Context:
    for seat in seats:
        SeatChoices.model_validate(seat)  # the samples keep to the protocol
    controls = ("ayla",) if role == "player" else ()
    choices = {seat["combatant"]: seat for seat in seats}
    return Context(role, controls, actor, choices=choices)  # type: ignore[arg-type]


def test_a_declaration_is_built_from_its_parts() -> None:
    made = pick("1 2, 1 1", context("player", AYLA))
    assert made["type"] == "Declare"
    assert [a["target"] for a in made["actions"]] == ["g2", "g1"]
    assert AYLA["compose"]["command"]["actions"] == []  # the offer is left as it was


def test_a_whole_command_goes_alone() -> None:
    assert pick("2", context("player", AYLA)) == AYLA["options"][1]["command"]
    with pytest.raises(CommandError) as refused:
        pick("2, 1 1", context("player", AYLA))
    assert refused.value.code == "bad_choice"


def test_a_number_hole_takes_the_number_typed_within_its_bounds() -> None:
    gm = context("gm", CONSOLE, actor="gm")
    assert pick("1 1 7", gm) == {"type": "SetHealth", "combatant": "g1", "health": 7}
    assert pick("2 -3 9", gm)["cell"] == {"x": -3, "y": 9}
    for line, code in (("1 1 -1", "no_such_choice"), ("2 0 10", "no_such_choice")):
        with pytest.raises(CommandError) as refused:
            pick(line, gm)
        assert refused.value.code == code
    with pytest.raises(CommandError) as missing:
        pick("1 1", gm)
    assert missing.value.message == "health? a number from 0"


def test_the_gms_console_is_picked_only_when_named() -> None:
    goblin = {**AYLA, "combatant": "g1"}
    goblin["options"] = [{**AYLA["options"][1], "command": {"type": "PassWindow", "actor": "g1"}}]
    gm = context("gm", CONSOLE, goblin)
    assert pick("1", gm) == {"type": "PassWindow", "actor": "g1"}  # not the console's first
    with pytest.raises(CommandError) as refused:
        pick("1", context("gm", CONSOLE))
    assert refused.value.code == "nothing_to_choose"


def test_a_number_hole_is_drawn_with_its_bounds() -> None:
    health, y = CONSOLE["options"][0]["holes"][1], CONSOLE["options"][1]["holes"][1]
    assert hole_line(health) == "health: a number from 0"
    assert hole_line(y) == "y: a number up to 9"
