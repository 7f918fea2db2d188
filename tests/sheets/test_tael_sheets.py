"""Tael character sheets from TOML and JSON files (issue item 1; docs/sheets.md, "Tael").

The samples load; every field of every sheet record goes through the file form and
back; every mistake is refused with the file, the field's path and the reason, like
Verse sheets.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from server.engine.grid import Cell
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.sheet import (
    ActionKind,
    Armour,
    Attribute,
    PreparationMove,
    Stance,
    StatusEffect,
    TaelClass,
    TaelSheet,
    TaelSpell,
    TaelWeapon,
    Trigger,
    WeaponKind,
)
from server.sheets import SheetError
from server.sheets.tael import SCHEMA, load_sheet, load_sheet_text, sheet_from_data, sheet_to_data

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "server" / "samples" / "tael"
DOCS = ROOT / "docs" / "sheets.md"


def mira_data() -> dict[str, Any]:
    return tomllib.loads((SAMPLES / "mira.toml").read_text())


def problems_of(data: dict[str, Any], name: str = "mira.toml") -> list[str]:
    """The error lines for `data` (the sheet must be refused)."""
    with pytest.raises(SheetError) as refused:
        sheet_from_data(data, name)
    return str(refused.value).splitlines()


# --- the samples --------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def test_every_sample_loads(path: Path) -> None:
    assert isinstance(load_sheet(path), TaelSheet)


def test_three_player_characters_of_different_classes_and_two_foes() -> None:
    sheets = {p.stem: load_sheet(p) for p in SAMPLES.glob("*.toml")}
    classes = {sheets[pc].classes[0].name for pc in ("kaelen", "mira", "tobin")}
    assert classes == {"Blade Warrior", "Wizard", "Ranger"}
    assert {"bandit", "cultist"} <= set(sheets)


def test_the_wizard_sample_reads_like_its_file() -> None:
    mira = load_sheet(SAMPLES / "mira.toml")
    assert mira.attribute("intelligence") == Attribute("intelligence", 17, 3)
    assert mira.actions == (ActionKind.UNIVERSAL, ActionKind.SPELL)
    assert mira.bonus_actions == 1
    ignite = mira.spell("Ignite")
    assert ignite is not None and ignite.status == StatusEffect(
        "Burning", "agility", dc=10, turns=2, damage="1d4"
    )
    assert mira.armour == Armour("robes", defensive_value=11)
    assert mira.skill("persuasion") == 2 and mira.skill("stealth") == 0


def test_a_combatant_is_made_from_a_sheet_like_a_verse_one() -> None:
    """`TaelCombatant.from_sheet(id, side, sheet, cell, facing=...)`: the encounter
    loader's call for either ruleset."""
    kaelen = load_sheet(SAMPLES / "kaelen.toml")
    c = TaelCombatant.from_sheet("kaelen", "heroes", kaelen, Cell(2, 3), facing=4)
    assert (c.hit_points, c.position, c.facing, c.stance) == (24, Cell(2, 3), 4, "dodging")
    assert c.hands == ("longsword", "parrying dagger")


def test_toml_and_json_give_the_same_sheet(tmp_path: Path) -> None:
    path = tmp_path / "mira.json"
    path.write_text(json.dumps(mira_data()))
    assert load_sheet(path) == load_sheet(SAMPLES / "mira.toml")


# --- every field ----------------------------------------------------------------------------


def _every_field_set() -> TaelSheet:
    """A sheet in which every field, at every depth, differs from its default."""
    return TaelSheet(
        name="Full",
        attributes=(
            Attribute("strength", 14, 2),
            Attribute("agility", 12, 1),
            Attribute("intelligence", 9, -1),
            Attribute("wisdom", 11, 0),
        ),
        hit_points=30,
        classes=(
            TaelClass(
                "Spellblade",
                actions=(ActionKind.ATTACK, ActionKind.SPELL),
                bonus_actions=1,
                weapon_damage_bonus=1,
                spell_damage_bonus=2,
            ),
        ),
        martial_combat=3,
        precision=-1,
        magic=2,
        dodging=1,
        initiative=2,
        willpower=-2,
        movement=6,
        armour=Armour("chain", defensive_value=14, dodge_penalty=2),
        weapon_skills=("swords",),
        magic_schools=("frost",),
        weapons=(
            TaelWeapon(
                "crossbow",
                "1d10+1",
                skill="crossbows",
                scale="agility",
                kind=WeaponKind.RANGED,
                hands=2,
                reach=9,
            ),
        ),
        main_hand="crossbow",
        off_hand="",
        spells=(
            TaelSpell(
                "Frost Bind",
                school="frost",
                damage="1d4",
                reach=4,
                targets=2,
                status=StatusEffect(
                    "Frozen", "strength", dc=11, turns=2, damage="1", skips_turn=True
                ),
                scroll=True,
            ),
        ),
        preparations=(
            PreparationMove(
                "Parry",
                Trigger.ATTACKED,
                prevents_damage=True,
                strikes_back=True,
                defensive_bonus=2,
            ),
        ),
        skills=(("persuasion", 3),),
        stance=Stance.DODGING,
        shares_tiles=True,
        immunities=("Frozen",),
        notes="secret",
    )


def _records_in(value: Any) -> list[Any]:
    found = [value]
    for field in dataclasses.fields(value):
        inner = getattr(value, field.name)
        items = inner if isinstance(inner, tuple) else (inner,)
        found += [r for item in items if dataclasses.is_dataclass(item) for r in _records_in(item)]
    return found


def test_every_field_of_every_sheet_record_survives_the_file_form() -> None:
    full = _every_field_set()
    covered = {type(r) for r in _records_in(full)}
    # Attributes are written as a table of their own (`ATTRIBUTES`), not as a record.
    assert covered == {*SCHEMA.records, Attribute}
    for record in _records_in(full):
        for field in dataclasses.fields(record):
            if (type(record), field.name) == (TaelSheet, "off_hand"):
                continue  # a two-handed weapon leaves the off hand at its default
            assert getattr(record, field.name) != field.default, (type(record), field.name)
    data = sheet_to_data(full)
    assert data["attributes"]["strength"] == {"value": 14, "modifier": 2}
    assert data["skills"] == {"persuasion": 3}
    assert data["weapons"][0]["kind"] == "ranged"
    assert load_sheet_text(json.dumps(data), "json", "full.json") == full


def test_the_documentation_lists_every_field() -> None:
    text = DOCS.read_text()
    section = text[text.index("# Tael sheets") :]
    for cls in SCHEMA.records:
        for field in dataclasses.fields(cls):
            assert f"`{field.name}`" in section, (cls.__name__, field.name)


def test_the_documented_example_loads() -> None:
    section = DOCS.read_text()[DOCS.read_text().index("# Tael sheets") :]
    example = re.findall(r"```text\n(.*?)```", section, re.S)[-1]
    sheet = load_sheet_text(example, "toml", "docs/sheets.md")
    assert sheet.preparation("Riposte") is not None


# --- bad input: each names the file, the field and the reason ----------------------------


def _with(path: str, value: Any) -> dict[str, Any]:
    data = mira_data()
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    target: Any = data
    for step in parents:
        target = target[step]
    target[last] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "line"),
    [
        ("hit_points", 0, "mira.toml: hit_points: must be at least 1, got 0"),
        ("movement", -1, "mira.toml: movement: must be at least 0, got -1"),
        ("magic", "4", "mira.toml: magic: must be a whole number, got '4'"),
        (
            "stance",
            "aggressive",
            "mira.toml: stance: must be one of 'tanking' or 'dodging', got 'aggressive'",
        ),
        (
            "armour.defensive_value",
            -2,
            "mira.toml: armour.defensive_value: must be at least 0, got -2",
        ),
        (
            "weapons.0.damage",
            "1x6",
            "mira.toml: weapons[0].damage: cannot read dice expression '1x6' at 'x6'",
        ),
        (
            "weapons.0.damage",
            "1" + "0" * 30,
            "mira.toml: weapons[0].damage: dice expression '1"
            + "0" * 30
            + "': 1"
            + "0" * 30
            + " is more than 1000",
        ),
        (
            "weapons.0.hands",
            3,
            "mira.toml: weapons[0].hands: a weapon is held in 1 or 2 hands, got 3",
        ),
        ("weapons.0.reach", 0, "mira.toml: weapons[0].reach: must be at least 1, got 0"),
        ("spells.0.targets", 0, "mira.toml: spells[0].targets: must be at least 1, got 0"),
        (
            "spells.0.status.turns",
            0,
            "mira.toml: spells[0].status.turns: must be at least 1, got 0",
        ),
        (
            "classes.0.actions",
            ["bonus"],
            "mira.toml: classes[0].actions[0]: "
            "must be one of 'universal', 'attack' or 'spell', got 'bonus'",
        ),
        (
            "preparations.0.trigger",
            "moves",
            "mira.toml: preparations[0].trigger: must be one of 'melee_attack', "
            "'ranged_attack', 'spell', 'attacked' or 'ally_attacked', got 'moves'",
        ),
        (
            "attributes.agility",
            {"value": -1, "modifier": 0},
            "mira.toml: attributes.agility: value must be at least 0, got -1",
        ),
        ("attributes.agility", {"value": 12}, "mira.toml: attributes.agility: modifier is missing"),
        (
            "attributes.agility",
            {"value": 12, "modifier": 1, "bonus": 2},
            "mira.toml: attributes.agility: unknown field 'bonus'; allowed here: value, modifier",
        ),
        ("skills.persuasion", 1.5, "mira.toml: skills.persuasion: must be a whole number, got 1.5"),
    ],
)
def test_a_bad_value_is_refused_with_its_place(path: str, value: Any, line: str) -> None:
    assert line in problems_of(_with(path, value))


def test_rule_problems_across_fields() -> None:
    data = mira_data()
    del data["attributes"]["wisdom"]
    data["weapons"][0]["scale"] = "luck"
    data["weapons"].append(dict(data["weapons"][0]))
    data["off_hand"] = "nothing"
    lines = problems_of(data)
    assert "mira.toml: attributes: missing wisdom (the combat rules read them)" in lines
    assert "mira.toml: weapons[0].scale: 'luck' is not one of this sheet's attributes" in lines
    assert "mira.toml: weapons[1].name: 'quarterstaff' is already the name of weapons[0]" in lines
    assert "mira.toml: off_hand: 'nothing' is not one of this sheet's weapons" in lines


def test_hands_follow_the_weapons() -> None:
    data = mira_data()
    data["weapons"].append({"name": "knife", "damage": "1d4"})
    data["off_hand"] = "knife"  # the quarterstaff in the main hand is two-handed
    assert problems_of(data) == [
        "mira.toml: off_hand: quarterstaff is two-handed: the off hand is empty"
    ]
    data["main_hand"] = "knife"
    assert problems_of(data) == ["mira.toml: off_hand: 'knife' is already in the main hand"]


def test_an_attacking_weapon_needs_damage_dice() -> None:
    data = _with("weapons.0.damage", "")
    assert problems_of(data) == ["mira.toml: weapons[0].damage: a melee weapon needs damage dice"]


def test_unknown_fields_are_refused_with_a_hint() -> None:
    data = mira_data()
    data["hitpoints"] = 3
    assert (
        "mira.toml: hitpoints: unknown field 'hitpoints' (did you mean 'hit_points'?)"
        in problems_of(data)
    )


def test_a_file_that_is_not_a_sheet_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mira.yaml"
    path.write_text("name: Mira")
    with pytest.raises(SheetError) as refused:
        load_sheet(path)
    assert "unknown sheet format '.yaml'" in str(refused.value)
    with pytest.raises(SheetError):
        load_sheet_text("name = ", "toml", "broken.toml")
