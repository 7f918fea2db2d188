"""Encounter files: validated whole, every problem named with its place."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from server.app import DEMO_ENCOUNTER
from server.encounters import EncounterError, build, read_file
from server.engine.grid import Cell
from server.engine.rng import SeededDice

DEMO = read_file(DEMO_ENCOUNTER)


def problems(data: Any) -> list[str]:
    with pytest.raises(EncounterError) as error:
        build(data)
    return error.value.problems


def test_the_demo_encounter_builds_with_three_player_seats_and_the_gms_goblins() -> None:
    built = build(DEMO)
    state = built.encounter

    assert built.seats == {"ayla": ("ayla",), "bram": ("bram",), "corvin": ("corvin",)}
    assert set(state.combatants) == {"ayla", "bram", "corvin", "g1", "g2"}
    assert state.combatants["g2"].position == Cell(1, 2)
    assert state.combatants["g1"].sheet.name == "Goblin"
    assert (state.mode, state.ruleset, state.settings.planning_seconds) == ("live", "verse", 45)
    assert state.id.startswith("goblin-ambush-")


def test_a_seed_makes_the_dice_and_a_room_id_names_the_room() -> None:
    built = build({**DEMO, "seed": 42}, room_id="r-1")

    assert built.encounter.dice == SeededDice(42)
    assert built.encounter.id == "r-1"


def test_every_problem_is_listed_with_its_place() -> None:
    data = copy.deepcopy(DEMO)
    data["combatants"][0]["sheet"]["health"] = "lots"
    data["combatants"][1]["id"] = "ayla"
    data["combatants"][3]["at"] = [0, 1]  # corvin's cell

    found = problems(data)

    assert found == [
        "combatants[0].sheet (ayla.toml): health: must be a whole number, got 'lots'",
        "combatants[1].id: 'ayla' is used twice",
        "combatants[3].at: [0, 1] is corvin's cell too",
    ]


@pytest.mark.parametrize(
    ("change", "place"),
    [
        ({"mode": "chaos"}, "mode"),
        ({"ruleset": "chess"}, "ruleset"),
        ({"combatants": []}, "combatants"),
        ({"settings": {"planning_seconds": -1}}, "settings.planning_seconds"),
        ({"teleporters": True}, "teleporters"),
    ],
)
def test_a_bad_encounter_field_is_refused(change: dict[str, Any], place: str) -> None:
    found = problems({**DEMO, **change})

    assert len(found) == 1 and found[0].startswith(f"{place}:"), found


def test_sheet_paths_are_read_relative_to_the_encounter_file(tmp_path: Path) -> None:
    (tmp_path / "sheets").mkdir()
    sheet = copy.deepcopy(DEMO["combatants"][3]["sheet"])
    (tmp_path / "sheets" / "orc.json").write_text(json.dumps(sheet))
    (tmp_path / "fight.toml").write_text(
        'name = "Orc"\n[[combatants]]\nid = "o1"\nside = "orcs"\nsheet = "sheets/orc.json"\n'
    )

    data = read_file(tmp_path / "fight.toml")

    assert data["combatants"][0]["sheet"] == sheet
    assert data["combatants"][0]["source"] == "orc.json"
    assert build(data).encounter.combatants["o1"].side == "orcs"


def test_a_missing_sheet_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "fight.toml").write_text(
        '[[combatants]]\nid = "o1"\nside = "orcs"\nsheet = "x.toml"\n'
    )

    with pytest.raises(EncounterError) as error:
        read_file(tmp_path / "fight.toml")

    assert error.value.problems[0].startswith("combatants[0].sheet: x.toml: cannot read")


def test_a_tael_encounter_builds_turn_based_from_tael_sheets() -> None:
    built = build(read_file(DEMO_ENCOUNTER.parent / "tael-ambush.toml"))

    assert built.encounter.ruleset == "tael"
    assert built.encounter.mode == "turn_based"
    assert built.seats == {"kaelen": ("kaelen",), "mira": ("mira",), "tobin": ("tobin",)}
    assert type(built.encounter.combatants["bandit"]).__name__ == "TaelCombatant"


def test_a_mode_the_ruleset_does_not_play_is_refused() -> None:
    data = read_file(DEMO_ENCOUNTER.parent / "tael-ambush.toml")

    assert problems({**data, "mode": "live"}) == ["mode: tael plays turn_based, not live"]
    assert build({**DEMO, "mode": None}).encounter.mode == "live"  # Verse's first mode


def test_a_wrong_mode_is_listed_with_the_other_problems() -> None:
    data = read_file(DEMO_ENCOUNTER.parent / "tael-ambush.toml")
    first, second = data["combatants"][0], data["combatants"][1]
    crowded = [first, {**second, "at": first["at"]}, *data["combatants"][2:]]
    found = problems({**data, "mode": "live", "combatants": crowded})
    assert found[0] == "mode: tael plays turn_based, not live"
    assert len(found) == 2 and found[1].startswith("combatants[1].at:")


# --- conditions tables (V27, TR40) ---------------------------------------------------------

CONDITIONS = DEMO_ENCOUNTER.parent.parent / "conditions"


def test_without_a_table_conditions_do_nothing_but_what_the_rules_define() -> None:
    assert build(DEMO).encounter.condition_rules == ()


@pytest.mark.parametrize(
    ("encounter", "table", "names"),
    [
        (
            "demo.toml",
            "verse.toml",
            [
                "Bleed",
                "Prone",
                "Shaken",
                "Exhausted",
                "Blinded",
                "Stunned",
                "Paranoid Insanity",
                "Armour Fragile",
            ],
        ),
        (
            "tael-ambush.toml",
            "tael.toml",
            ["Burning", "Frozen", "Dread", "Prone", "Blinded", "Stunned"],
        ),
    ],
)
def test_the_sample_tables_are_house_rules_that_build_with_the_sample_encounters(
    encounter: str, table: str, names: list[str]
) -> None:
    text = (CONDITIONS / table).read_text()
    assert text.startswith("# HOUSE RULES")
    data = read_file(DEMO_ENCOUNTER.parent / encounter)

    rules = build({**data, "conditions": tomllib.loads(text)}).encounter.condition_rules

    assert [rule.name for rule in rules] == names


def test_a_table_file_is_read_relative_to_the_encounter_file(tmp_path: Path) -> None:
    (tmp_path / "house").mkdir()
    (tmp_path / "house" / "rules.toml").write_text(
        '[Prone]\nchanges = [{ key = "defence.pd", mode = "add", value = -2 }]\n'
    )
    (tmp_path / "fight.json").write_text(json.dumps({**DEMO, "conditions": "house/rules.toml"}))

    state = build(read_file(tmp_path / "fight.json")).encounter

    (prone,) = state.condition_rules
    assert (prone.name, prone.changes[0].key, prone.changes[0].value) == ("Prone", "defence.pd", -2)


def test_every_problem_of_a_table_is_listed_with_its_place_and_its_file(tmp_path: Path) -> None:
    (tmp_path / "rules.toml").write_text(
        "[Prone]\n"
        'changes = [{ key = "defence.dv", mode = "add", value = -2 },'
        ' { key = "speed", mode = "halve", value = 1 }]\n'
        'loses = ["turn"]\n'
        "[Bleed]\n"
        'damage = "lots"\n'
        "rounds = -1\n"
        "colour = 'red'\n"
    )
    data = read_file(DEMO_ENCOUNTER)
    data["conditions"] = "rules.toml"
    (tmp_path / "fight.json").write_text(json.dumps(data))

    found = problems(read_file(tmp_path / "fight.json"))

    assert found == ["conditions.Bleed.colour: Extra inputs are not permitted"]
    del data["conditions"]
    (tmp_path / "fight.json").write_text(json.dumps({**data, "conditions": "rules.toml"}))
    fixed = read_file(tmp_path / "fight.json")
    del fixed["conditions"]["Bleed"]["colour"]
    found = problems(fixed)
    assert found[0].startswith(
        "conditions (rules.toml).Prone.changes[0].key: 'defence.dv' is not a Verse key"
    )
    assert found[1:] == [
        "conditions (rules.toml).Prone.changes[1].mode: 'halve' is not one of multiply, add, "
        "downgrade, upgrade, override",
        "conditions (rules.toml).Prone.loses[0]: 'turn' is not one of standard, move, swift, "
        "reactions",
        "conditions (rules.toml).Bleed.damage: cannot read dice expression 'lots' at 'lots'",
        "conditions (rules.toml).Bleed.rounds: a whole number from 0 to 1000",
    ]


def test_a_table_past_its_bounds_is_refused_with_every_problem_never_failing() -> None:
    """R82: texts of any length and numbers of any size are refused each with its
    bounds and place; the quoted input, and a name in a place, is cut short."""
    table = {
        "Bleed": {"damage": "1" * 5000, "drain": {"strength": "1" + "0" * 30}},
        "Rot": {"damage": "+".join(["1d4"] * 3000), "drain": {"constitution": 10**5000}},
        "Vast": {"changes": [{"key": "speed", "mode": "multiply", "value": 10**400}]},
        "M" * 100: {"text": "a name a little too long"},
    }
    found = problems({**DEMO, "conditions": table})
    assert found == [
        "conditions.Bleed.damage: dice expression '" + "1" * 60 + "'... is 5000 characters "
        "long: at most 100",
        "conditions.Bleed.drain.strength: dice expression '1"
        + "0" * 30
        + "': 1"
        + "0" * 30
        + " is more than 1000",
        "conditions.Rot.damage: dice expression '" + "1d4+" * 15 + "'... is 11999 characters "
        "long: at most 100",
        "conditions.Rot.drain.constitution: a whole number up to 1000, or dice such as 1d4",
        "conditions.Vast.changes[0].value: a factor from 0 to 10",
        "conditions." + "M" * 60 + "....name: a condition is a name of 1 to 60 characters",
    ]
    # The long name fails the file's own shape first, named by its start too.
    too_long = problems({**DEMO, "conditions": {"N" * 40_000: {"text": "a name too long"}}})
    assert too_long == [
        "conditions." + "N" * 60 + "....[key]: String should have at most 200 characters"
    ]


def test_a_table_file_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    (tmp_path / "fight.json").write_text(json.dumps({**DEMO, "conditions": "gone.toml"}))

    with pytest.raises(EncounterError) as error:
        read_file(tmp_path / "fight.json")

    assert error.value.problems[0].startswith("conditions: gone.toml: cannot read")
