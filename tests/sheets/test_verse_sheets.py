"""Verse sheet files: the samples, both formats, every field, and every kind of bad input."""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from pathlib import Path
from typing import Any, get_type_hints

import pytest

from server.engine.rulesets.verse.sheet import (
    Abilities,
    AccessLevel,
    ActionType,
    BuildPoints,
    Defences,
    Feat,
    FeatKind,
    Item,
    SheetCondition,
    Speeds,
    Spell,
    SpellOption,
    SpellRange,
    SpellShape,
    VerseSheet,
    Weapon,
    WeaponKind,
)
from server.sheets import SheetError, load_sheet, load_sheet_text, sheet_from_data, sheet_to_data
from server.sheets.verse import CONSTRAINTS, SCHEMA, UNBOUNDED

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "server" / "samples"
DOCS = ROOT / "docs" / "sheets.md"


def ayla_data() -> dict[str, Any]:
    return tomllib.loads((SAMPLES / "ayla.toml").read_text())


def problems_of(data: dict[str, Any], tmp_path: Path, name: str = "ayla.json") -> list[str]:
    """The error lines for `data` written as a JSON file (the file must be refused)."""
    path = tmp_path / name
    path.write_text(json.dumps(data))
    with pytest.raises(SheetError) as refused:
        load_sheet(path)
    lines = str(refused.value).splitlines()
    assert all(line.startswith(f"{path}: ") for line in lines)
    return [line.removeprefix(f"{path}: ") for line in lines]


# --- the samples --------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def test_every_sample_loads(path: Path) -> None:
    assert isinstance(load_sheet(path), VerseSheet)


def test_the_four_samples_of_the_live_combat_cast_exist() -> None:
    assert {p.stem for p in SAMPLES.glob("*.toml")} >= {"ayla", "bram", "corvin", "goblin"}


def test_ayla_is_a_dex_fighter_with_longsword_shortbow_and_a_counter_feat() -> None:
    ayla = load_sheet(SAMPLES / "ayla.toml")
    assert ayla.abilities.dexterity == 4
    assert ayla.weapon("longsword") == Weapon("longsword", "1d8", "one_handed")
    shortbow = ayla.weapon("shortbow")
    assert shortbow is not None and shortbow.kind == WeaponKind.RANGED and shortbow.range_ft > 0
    assert ayla.training == (("one_handed", 2), ("ranged", 2))
    assert ayla.training_in("ranged") == 2
    assert ayla.has_feat(FeatKind.COUNTER)


def test_bram_knows_magic_missile_mana_rain_and_acute_senses() -> None:
    bram = load_sheet(SAMPLES / "bram.toml")
    missile = bram.spell("Magic Missile")
    assert missile is not None
    assert (missile.min_mc, missile.uses_spell_die, missile.base_spell_dice) == (2, True, 1)
    assert missile.range == SpellRange.CLOSE
    rain = bram.spell("Mana Rain")
    assert rain is not None and rain.shape == SpellShape.AREA
    assert rain.options == (SpellOption("diameter_ft", mc=1, amount=5, base=5),)
    assert bram.spell("Acute Senses") is not None


def test_corvin_has_quick_response_and_60_ft_speed() -> None:
    corvin = load_sheet(SAMPLES / "corvin.toml")
    assert corvin.speeds.land == 60
    assert corvin.has_feat(FeatKind.QUICK_RESPONSE)


def test_the_goblin_keeps_a_hidden_gm_value_in_its_notes() -> None:
    goblin = load_sheet(SAMPLES / "goblin.toml")
    assert "GM only" in goblin.notes and "Skrix" in goblin.notes


# --- formats and coverage ---------------------------------------------------------------


def test_toml_and_json_give_the_same_sheet(tmp_path: Path) -> None:
    path = tmp_path / "ayla.json"
    path.write_text(json.dumps(ayla_data()))
    assert load_sheet(path) == load_sheet(SAMPLES / "ayla.toml")
    text = (SAMPLES / "ayla.toml").read_text()
    assert load_sheet_text(text, "toml", "ayla") == load_sheet_text(
        json.dumps(ayla_data()), "json", "ayla"
    )


def test_defaults_fill_what_a_sheet_leaves_out() -> None:
    ayla = load_sheet(SAMPLES / "ayla.toml")
    assert ayla.speeds == Speeds()
    assert ayla.build_points == BuildPoints()
    assert ayla.spells == () and ayla.bloodline == ""
    longsword = ayla.weapon("longsword")
    assert longsword is not None
    assert (longsword.kind, longsword.critical_multiplier, longsword.reach_ft) == ("melee", 2, 5)


def _every_field_set() -> VerseSheet:
    """A sheet in which every field, at every depth, differs from its default."""
    return VerseSheet(
        name="Full",
        level=3,
        abilities=Abilities(1, 2, 3, 4, 5, 6),
        defences=Defences(11, 2, 12, 3),
        health=30,
        mana=12,
        armour_durability=9,
        build_points=BuildPoints(unarmed_die=5, spell_die=10, spell_access=15),
        training=(("one_handed", 2), ("thrown", 1)),
        spell_attack_training=2,
        speeds=Speeds(land=35, swim=10, fly=60, burrow=5),
        visual_range_ft=90,
        perception=-1,
        stealth=4,
        initiative_bonus=-2,
        weapons=(
            Weapon(
                "net",
                "1d4+1",
                "thrown",
                kind=WeaponKind.THROWN,
                critical_multiplier=3,
                reach_ft=10,
                range_ft=15,
                weight_lb=2.5,
                fragile=True,
            ),
        ),
        spells=(
            Spell(
                "Mana Rain",
                min_mc=3,
                access_level=AccessLevel.UNCOMMON,
                uses_spell_die=True,
                base_spell_dice=1,
                range=SpellRange.LONG,
                shape=SpellShape.AREA,
                cast_action=ActionType.FULL_ROUND,
                options=(SpellOption("diameter_ft", mc=1, amount=5, base=5),),
                rarity=AccessLevel.RARE,
                condition="Shaken",
                condition_rounds=2,
            ),
        ),
        feats=(Feat("Riposte", FeatKind.COUNTER),),
        conditions=(SheetCondition("Bleed", rounds=3),),
        bloodline="shadow",
        is_ride=True,
        shield="buckler",
        immunities=("Prone",),
        notes="secret",
        items=(Item("healing potion", heal="2d4+2"),),
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
    assert covered == set(SCHEMA.records)  # every record type of the schema is exercised
    for record in _records_in(full):
        for field in dataclasses.fields(record):
            assert getattr(record, field.name) != field.default, (type(record), field.name)
    data = sheet_to_data(full)
    assert isinstance(data["training"], dict)  # the friendly form, not pairs
    assert data["weapons"][0]["kind"] == "thrown"  # enums as their string values
    assert load_sheet_text(json.dumps(data), "json", "full.json") == full


def test_every_number_in_a_sheet_has_a_bound_or_is_knowingly_unbounded() -> None:
    for cls in SCHEMA.records:
        hints = get_type_hints(cls)
        for field in dataclasses.fields(cls):
            if cls is VerseSheet and field.name == "training":
                continue  # ranks bounded by its file field (>= 0), tested below
            if {int, float} & {hints[field.name], *getattr(hints[field.name], "__args__", ())}:
                bounded = field.name in CONSTRAINTS.get(cls, {})
                assert bounded or (cls, field.name) in UNBOUNDED, (cls.__name__, field.name)


def test_the_documentation_lists_every_field() -> None:
    text = DOCS.read_text()
    for cls in SCHEMA.records:
        for field in dataclasses.fields(cls):
            assert f"`{field.name}`" in text, (cls.__name__, field.name)


def test_the_full_example_in_the_documentation_loads() -> None:
    text = DOCS.read_text()
    toml_example = re.findall(r"```toml\n(.*?)```", text, re.S)[-1]
    json_example = re.findall(r"```json\n(.*?)```", text, re.S)[-1]
    sheet = load_sheet_text(toml_example, "toml", "docs/sheets.md")
    assert sheet.weapon("fist") is not None and sheet.spell("Mana Rain") is not None
    assert load_sheet_text(json_example, "json", "docs/sheets.md").name == "Ayla"


# --- bad input: each names the file, the field and the reason ----------------------------


def _set(path: str, value: Any) -> Any:
    def change(data: dict[str, Any]) -> None:
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        target: Any = data
        for step in parents:
            target = target[step]
        target[last] = value

    return change


def _drop(path: str) -> Any:
    def change(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = data
        for step in parents:
            target = target[step]
        del target[last]

    return change


BAD = [
    # (change, expected line)
    (_drop("health"), "health: required field is missing"),
    (_drop("abilities.dexterity"), "abilities.dexterity: required field is missing"),
    (_set("level", 0), "level: must be at least 1, got 0"),
    (_set("health", 0), "health: must be at least 1, got 0"),
    (_set("mana", -1), "mana: must be at least 0, got -1"),
    (_set("abilities.strength", -2), "abilities.strength: must be at least 0, got -2"),
    (_set("abilities.strength", "3"), "abilities.strength: must be a whole number, got '3'"),
    (_set("abilities.strength", 2.5), "abilities.strength: must be a whole number, got 2.5"),
    (_set("level", True), "level: must be a whole number, got True"),
    (_set("initiative_bonus", 1.5), "initiative_bonus: must be a whole number, got 1.5"),
    (_set("name", 7), "name: must be text, got 7"),
    (_set("name", "  "), "name: must not be empty"),
    (_set("training.ranged", -1), "training.ranged: must be at least 0, got -1"),
    (_set("training", [["ranged", 1]]), "training: expected a table, got an array"),
    (_set("weapons", {"name": "x"}), "weapons: expected an array, got a table"),
    (_set("defences", 15), "defences: expected a table, got 15"),
    (
        _set("weapons.1.damage", "1x8"),
        "weapons[1].damage: cannot read dice expression '1x8' at 'x8'",
    ),
    (
        _set("weapons.1.damage", "1" * 5000),
        "weapons[1].damage: dice expression '" + "1" * 60 + "'... is 5000 characters long: "
        "at most 100",
    ),
    (
        _set("items", [{"name": "potion", "heal": "+".join(["1"] * 21)}]),
        "items[0].heal: dice expression '" + "+".join(["1"] * 21) + "' has more than 20 terms",
    ),
    (
        _set("weapons.1.kind", "bow"),
        "weapons[1].kind: must be one of 'melee', 'natural', 'ranged' or 'thrown', got 'bow'",
    ),
    (
        _set("weapons.0.critical_multiplier", 1),
        "weapons[0].critical_multiplier: must be at least 2, got 1",
    ),
    (_set("weapons.1.fragile", "yes"), "weapons[1].fragile: must be true or false, got 'yes'"),
    (
        _set("feats.0.kind", "parry"),
        "feats[0].kind: must be one of 'counter', 'quick_response', 'defensive' or 'other', "
        "got 'parry'",
    ),
    (
        _set("conditions", [{"name": "Shaken", "rounds": 0}]),
        "conditions[0].rounds: must be at least 1, got 0",
    ),
    (_set("trainin", {}), "trainin: unknown field 'trainin' (did you mean 'training'?)"),
    (
        _set("abilities.luck", 3),
        "abilities.luck: unknown field 'luck'; allowed here: strength, dexterity, constitution, "
        "sanity, intellect, empathy",
    ),
    (_set("weapons.0.dmg", "1d8"), "weapons[0].dmg: unknown field 'dmg' (did you mean 'damage'?)"),
    # checks across fields
    (_set("weapons.1.range_ft", 0), "weapons[1].range_ft: a ranged weapon needs a range above 0"),
    (
        _set("weapons.0.damage", ""),
        "weapons[0].damage: a melee weapon needs a Damage Die (only natural weapons use the UD)",
    ),
    (
        _set("weapons.1.name", "longsword"),
        "weapons[1].name: 'longsword' is already the name of weapons[0]",
    ),
    (
        _set("spells", [{"name": "Magic Missile", "min_mc": 2, "base_spell_dice": 1}]),
        "spells[0].base_spell_dice: a spell with base Spell Dice must set uses_spell_die = true",
    ),
    (
        _set(
            "spells",
            [{"name": "Magic Missile", "min_mc": 1, "uses_spell_die": True, "base_spell_dice": 1}],
        ),
        "spells[0].min_mc: 1 Spell Dice cost at least 2 MC (V11: 2 MC each)",
    ),
    (
        _set("spells", [{"name": "Fright", "min_mc": 1, "condition_rounds": 2}]),
        "spells[0].condition_rounds: condition_rounds needs a condition",
    ),
    (
        _set(
            "spells",
            [
                {
                    "name": "Mana Rain",
                    "min_mc": 3,
                    "options": [{"name": "diameter_ft", "mc": 0, "amount": 5}],
                }
            ],
        ),
        "spells[0].options[0].mc: must be at least 1, got 0",
    ),
]


@pytest.mark.parametrize(("change", "expected"), BAD, ids=[line for _, line in BAD])
def test_a_bad_sheet_names_file_field_and_reason(
    change: Any, expected: str, tmp_path: Path
) -> None:
    data = ayla_data()
    change(data)
    assert problems_of(data, tmp_path) == [expected]


def test_every_problem_gets_its_own_line(tmp_path: Path) -> None:
    data = ayla_data()
    data["level"] = 0
    data["weapons"][1]["damage"] = "d"
    data["abilities"]["luck"] = 1
    lines = problems_of(data, tmp_path)
    assert len(lines) == 3
    assert lines[0] == "level: must be at least 1, got 0"
    assert lines[1].startswith("abilities.luck: unknown field 'luck'")
    assert lines[2].startswith("weapons[1].damage: ")


def test_the_error_keeps_the_problems_as_data(tmp_path: Path) -> None:
    data = ayla_data()
    data["mana"] = -3
    with pytest.raises(SheetError) as refused:
        sheet_from_data(data, "ayla.toml")
    assert refused.value.source == "ayla.toml"
    assert [(p.path, p.reason) for p in refused.value.problems] == [
        ("mana", "must be at least 0, got -3")
    ]


def test_a_toml_sheet_reports_its_own_file_name(tmp_path: Path) -> None:
    text = (SAMPLES / "ayla.toml").read_text().replace('damage = "1d6"', 'damage = "1d6+"')
    path = tmp_path / "ayla.toml"
    path.write_text(text)
    with pytest.raises(SheetError) as refused:
        load_sheet(path)
    assert str(refused.value).startswith(f"{path}: weapons[1].damage: cannot read dice expression")


def test_toml_syntax_errors_name_the_file_and_the_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text('name = "Ayla"\nlevel = \n')
    with pytest.raises(SheetError) as refused:
        load_sheet(path)
    message = str(refused.value)
    assert message.startswith(f"{path}: not valid TOML: ") and "line 2" in message


def test_json_syntax_errors_and_non_tables_are_refused() -> None:
    with pytest.raises(SheetError, match=r"^bram\.json: not valid JSON: .*line 1"):
        load_sheet_text("{", "json", "bram.json")
    with pytest.raises(SheetError, match=r"^bram\.json: a sheet must be a table"):
        load_sheet_text("[1, 2]", "json", "bram.json")


def test_unknown_formats_and_missing_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SheetError, match=r"ayla\.yaml: unknown sheet format '\.yaml'"):
        load_sheet(tmp_path / "ayla.yaml")
    with pytest.raises(SheetError, match=r"nobody\.toml: cannot read the file"):
        load_sheet(tmp_path / "nobody.toml")
    with pytest.raises(SheetError, match=r"^x: unknown sheet format 'yaml'"):
        load_sheet_text("name: x", "yaml", "x")


def test_immunities_name_conditions_once_each(tmp_path: Path) -> None:
    """R81: a sheet's immunities are condition names, each once whatever its case."""
    data = {**ayla_data(), "immunities": ["Prone", "", "prone", "Shaken"]}
    assert problems_of(data, tmp_path) == [
        "immunities[1]: a condition is a name of 1 to 60 characters",
        "immunities[2]: 'prone' is already immunities[0]",
    ]
    good = {**ayla_data(), "immunities": ["Prone", "Knocked Out"]}
    assert sheet_from_data(good, "ayla").immunities == ("Prone", "Knocked Out")
