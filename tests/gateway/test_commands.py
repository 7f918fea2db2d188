"""Commands off the wire: checked against the engine's own records, never by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from server.engine.core import RULESETS
from server.engine.errors import CommandRefused
from server.engine.grid import Cell
from server.engine.records import evolve, to_data
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.live import Declare
from server.engine.rulesets.verse.sheet import Weapon
from server.gateway.commands import CommandReader, commands_of
from server.sheets import load_sheet
from tests.protocol import command_reference as reference
from tests.protocol.test_docs import json_examples

READER = CommandReader(RULESETS["verse"])
ROOT = Path(__file__).resolve().parent.parent.parent


def refusal(data: dict[str, Any]) -> CommandRefused:
    with pytest.raises(CommandRefused) as refused:
        READER.read(data)
    return refused.value


def test_every_documented_command_example_reads_as_the_record_it_shows() -> None:
    examples = [e for e in json_examples() if e.get("type") in READER.commands]
    examples += [
        e["command"] for e in json_examples() if e.get("type") == "send"
    ]  # inside `send` messages
    checked = 0
    for example in examples:
        if example["type"] in reference.ABBREVIATED:
            continue
        assert READER.read(example) == reference.wire_to_record(example), example
        checked += 1
    assert checked >= len(READER.commands) - len(reference.ABBREVIATED)


def test_nested_records_and_commands_are_read_by_their_type_tag() -> None:
    declared = READER.read(
        {
            "type": "Declare",
            "actor": "ayla",
            "turn": 0,
            "actions": [{"$type": "Attack", "actor": "ayla", "target": "g1", "weapon": "sword"}],
        }
    )
    moved = READER.read(
        {"type": "Move", "actor": "ayla", "path": [{"$type": "Cell", "x": 1, "y": 2}]}
    )

    assert declared == Declare("ayla", (Attack("ayla", "g1", "sword"),), 0)
    assert moved.path == (Cell(1, 2),)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("data", "code", "says"),
    [
        ({"type": "Teleport", "actor": "ayla"}, "unknown_command", "'Teleport'"),
        ({"type": "WindowClosed", "window": 1}, "unknown_command", "WindowClosed"),  # an event
        ({"type": "Attack", "actor": 5, "target": "g1"}, "invalid_command", "actor"),
        ({"type": "Attack", "actor": "ayla"}, "invalid_command", "target"),
        ({"type": "Attack", "actor": "a", "target": "g1", "dmg": 99}, "invalid_command", "dmg"),
        ({"type": "Face", "actor": "ayla", "facing": "3"}, "invalid_command", "facing"),
        ({"type": "Face", "actor": "ayla", "facing": 3.0}, "invalid_command", "facing"),
        ({"type": "Face", "actor": "ayla", "facing": True}, "invalid_command", "facing"),
        ({"type": "Move", "actor": "a", "path": [{"x": 1, "y": 2}]}, "invalid_command", "path"),
        (
            {"type": "Declare", "actor": "a", "turn": 0, "actions": [{"$type": "Cell", "x": 1}]},
            "invalid_command",
            "actions.0",
        ),
        (
            {
                "type": "Declare",
                "actor": "a",
                "turn": 0,
                "actions": [{"$type": "Declare", "actor": "a", "turn": 0, "actions": []}],
            },
            "invalid_command",
            "actions.0",
        ),
    ],
)
def test_a_command_the_engine_could_not_have_made_is_refused_with_its_place(
    data: dict[str, Any], code: str, says: str
) -> None:
    refused = refusal(data)

    assert refused.code == code
    assert says in refused.message


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_command_of_every_ruleset_has_a_wire_form(ruleset: str) -> None:
    reader = CommandReader(RULESETS[ruleset])

    assert set(reader.commands) == set(commands_of(RULESETS[ruleset])) != set()


def goblin(**changes: Any) -> dict[str, Any]:
    """The sample goblin as a GM's client sends it in `AddCombatant`, sheet changed."""
    sheet = evolve(load_sheet(ROOT / "server" / "samples" / "goblin.toml"), **changes)
    return dict(to_data(VerseCombatant.from_sheet("g9", "goblins", sheet, Cell(7, 7))))


def test_a_combatant_added_over_the_wire_gets_the_sheet_files_checks() -> None:
    assert READER.read({"type": "AddCombatant", "combatant": goblin()})
    bad_weapon = Weapon("club", "1x6", "one_handed")
    refused = refusal({"type": "AddCombatant", "combatant": goblin(weapons=(bad_weapon,))})
    assert refused.code == "invalid_command"
    assert "sheet.weapons[0].damage" in refused.message and "1x6" in refused.message
