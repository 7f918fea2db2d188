"""Encounter files: each sheet path replaced by the sheet's data, before `create`."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from clients.encounters import EncounterFileError, read_encounter

SAMPLES = Path(__file__).resolve().parents[2] / "server" / "samples"


def test_the_demo_file_gets_its_sheets_inlined_with_their_file_names() -> None:
    encounter = read_encounter(SAMPLES / "encounters" / "demo.toml")
    ayla = encounter["combatants"][0]
    assert ayla["sheet"] == tomllib.loads((SAMPLES / "ayla.toml").read_text())
    assert ayla["source"] == "ayla.toml"
    assert [c["source"] for c in encounter["combatants"]] == [
        "ayla.toml",
        "bram.toml",
        "corvin.toml",
        "goblin.toml",
        "goblin.toml",
    ]
    assert encounter["name"] == "Goblin ambush"
    assert encounter["settings"]["planning_seconds"] == 45


def test_paths_are_relative_to_the_encounter_file_and_json_works_too(tmp_path: Path) -> None:
    (tmp_path / "sheets").mkdir()
    (tmp_path / "sheets" / "rat.json").write_text(json.dumps({"name": "Rat", "level": 1}))
    (tmp_path / "fight.json").write_text(
        json.dumps(
            {
                "name": "Cellar",
                "combatants": [
                    {"id": "r1", "side": "rats", "sheet": "sheets/rat.json"},
                    {"id": "r2", "side": "rats", "sheet": {"name": "Inline"}, "at": [1, 0]},
                    {"id": "r3", "side": "rats", "sheet": "sheets/rat.json", "source": "mine"},
                ],
            }
        )
    )
    encounter = read_encounter(tmp_path / "fight.json")
    first, inline, named = encounter["combatants"]
    assert first["sheet"] == {"name": "Rat", "level": 1}
    assert first["source"] == "rat.json"
    assert inline == {"id": "r2", "side": "rats", "sheet": {"name": "Inline"}, "at": [1, 0]}
    assert named["source"] == "mine"  # the file's own choice stays


def test_every_sheet_that_cannot_be_read_is_listed_with_its_place(tmp_path: Path) -> None:
    (tmp_path / "broken.toml").write_text("name = ")
    (tmp_path / "fight.toml").write_text(
        '[[combatants]]\nid = "a"\nsheet = "missing.toml"\n'
        '[[combatants]]\nid = "b"\nsheet = "broken.toml"\n'
    )
    with pytest.raises(EncounterFileError) as error:
        read_encounter(tmp_path / "fight.toml")
    first, second = error.value.problems
    assert first.startswith("combatants[0].sheet: missing.toml: cannot read:")
    assert second.startswith("combatants[1].sheet: broken.toml: not valid TOML:")


def test_an_encounter_file_that_is_not_a_table_is_refused(tmp_path: Path) -> None:
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(EncounterFileError) as error:
        read_encounter(tmp_path / "list.json")
    assert error.value.problems == ["list.json: must hold a table (a map), not a list"]


def test_what_only_the_server_can_judge_is_left_to_it(tmp_path: Path) -> None:
    (tmp_path / "odd.toml").write_text('name = "No fighters"\n')
    assert read_encounter(tmp_path / "odd.toml") == {"name": "No fighters"}


def test_a_conditions_table_file_is_inlined_like_a_sheet(tmp_path: Path) -> None:
    """V27: `conditions = "house.toml"` is a table file relative to the encounter file."""
    (tmp_path / "house.toml").write_text('[Prone]\ntext = "down"\n')
    (tmp_path / "fight.toml").write_text(
        'conditions = "house.toml"\n[[combatants]]\nid = "r1"\nside = "rats"\nsheet = {}\n'
    )
    encounter = read_encounter(tmp_path / "fight.toml")
    assert encounter["conditions"] == {"Prone": {"text": "down"}}
    assert encounter["conditions_source"] == "house.toml"

    (tmp_path / "fight.toml").write_text('conditions = "gone.toml"\n')
    with pytest.raises(EncounterFileError) as error:
        read_encounter(tmp_path / "fight.toml")
    assert error.value.problems[0].startswith("conditions: gone.toml: cannot read")
