"""Verse character sheets as human-editable TOML or JSON files (format: docs/sheets.md).

A file becomes the engine's own `VerseSheet` record. The schema is the record itself
(`server.sheets.schema` derives it from the record's fields, types and defaults); this
module adds what the rules bound and how a person writes a few fields:

* `training` is a table of ranks per weapon category, `{one_handed = 2}`;
* bounds: ability scores, defences, mana, Build Points and ranks are never negative,
  health and level are at least 1, a critical multiplier is at least x2 (V4), a
  Damage Die parses as a dice expression;
* checks across fields that the rules imply: only natural weapons may leave the
  Damage Die empty (they use the Unarmed Die), ranged and thrown weapons need a range,
  weapon and spell names are unique (commands name them); each spell must pass the
  engine's `spell_costs.spell_problems` (its minimum Mana Cost pays for the Spell Dice
  it includes, V11: 2 MC each; ...), the same check `DecipherSpell` makes.

Readings where the text is open: `perception` and `stealth` are check modifiers and
may be negative; `reach_ft = 0` is allowed and means the standard 5 ft reach, as in the
engine.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, Field, StrictInt, StrictStr, ValidationError

from server.engine.dice import DiceExpressionError, parse
from server.engine.rulesets.verse.sheet import (
    Abilities,
    BuildPoints,
    Defences,
    Feat,
    Item,
    SheetCondition,
    Speeds,
    Spell,
    SpellOption,
    VerseSheet,
    Weapon,
    WeaponKind,
)
from server.engine.rulesets.verse.spell_costs import spell_problems
from server.sheets.files import SheetError, format_of, parse_text, read_text
from server.sheets.schema import FileField, Problem, SheetSchema


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be empty")
    return text


def _dice_expression(text: str) -> str:
    """A Damage Die such as `1d8` or `2d6+1`; empty only for natural weapons (checked later)."""
    if text.strip():
        try:
            parse(text)
        except DiceExpressionError as error:
            raise ValueError(str(error)) from None
    return text


def at_least(minimum: int) -> tuple[Any, ...]:
    return (Field(ge=minimum),)


NON_NEGATIVE = at_least(0)
NAME = (AfterValidator(_not_blank),)
DICE = (AfterValidator(_dice_expression),)


def _every(cls: type, constraint: tuple[Any, ...]) -> dict[str, tuple[Any, ...]]:
    return {f.name: constraint for f in dataclasses.fields(cls)}


# The bounds of every number (and the checks of every name) in a sheet file.
CONSTRAINTS: dict[type, dict[str, tuple[Any, ...]]] = {
    VerseSheet: {
        "name": NAME,
        "level": at_least(1),
        "health": at_least(1),
        "mana": NON_NEGATIVE,
        "armour_durability": NON_NEGATIVE,
        "spell_attack_training": NON_NEGATIVE,
        "visual_range_ft": NON_NEGATIVE,
    },
    Abilities: _every(Abilities, NON_NEGATIVE),
    Defences: _every(Defences, NON_NEGATIVE),
    Speeds: _every(Speeds, NON_NEGATIVE),
    BuildPoints: _every(BuildPoints, NON_NEGATIVE),
    Weapon: {
        "name": NAME,
        "damage": DICE,
        "category": NAME,
        "critical_multiplier": at_least(2),  # V4: x2, or the weapon's x3
        "reach_ft": NON_NEGATIVE,
        "range_ft": NON_NEGATIVE,
        "weight_lb": NON_NEGATIVE,
    },
    SpellOption: {"name": NAME, "mc": at_least(1), "amount": at_least(1), "base": NON_NEGATIVE},
    Spell: {
        "name": NAME,
        "min_mc": NON_NEGATIVE,
        "base_spell_dice": NON_NEGATIVE,
        "condition_rounds": NON_NEGATIVE,
    },
    Feat: {"name": NAME},
    Item: {"name": NAME, "heal": DICE},
    SheetCondition: {"name": NAME, "rounds": at_least(1)},
}

# Numbers deliberately left unbounded: check modifiers, which penalties can make negative.
UNBOUNDED = frozenset({(VerseSheet, "perception"), (VerseSheet, "stealth")})

TRAINING = FileField(
    type=dict[Annotated[StrictStr, AfterValidator(_not_blank)], Annotated[StrictInt, Field(ge=0)]],
    to_record=lambda ranks: tuple(ranks.items()),
    to_file=dict,
)

SCHEMA = SheetSchema(VerseSheet, CONSTRAINTS, {(VerseSheet, "training"): TRAINING})


# --- checks across fields ---------------------------------------------------------------


def rule_problems(sheet: VerseSheet) -> list[Problem]:
    """What the rules forbid across fields of an otherwise well-formed sheet."""
    problems = _duplicates("weapons", [w.name for w in sheet.weapons])
    problems += _duplicates("spells", [s.name for s in sheet.spells])
    for i, weapon in enumerate(sheet.weapons):
        if not weapon.damage.strip() and weapon.kind != WeaponKind.NATURAL:
            reason = f"a {weapon.kind} weapon needs a Damage Die (only natural weapons use the UD)"
            problems.append(Problem(f"weapons[{i}].damage", reason))
        if weapon.kind in (WeaponKind.RANGED, WeaponKind.THROWN) and weapon.range_ft <= 0:
            problems.append(
                Problem(f"weapons[{i}].range_ft", f"a {weapon.kind} weapon needs a range above 0")
            )
    for i, spell in enumerate(sheet.spells):
        # The engine's own spell rules (also applied to a spell learnt by DecipherSpell).
        found = spell_problems(spell, f"spells[{i}].")
        problems += [Problem(path, reason) for path, reason in found]
    return problems


def _duplicates(array: str, names: list[str]) -> list[Problem]:
    counts = Counter(names)
    first: dict[str, int] = {}
    problems = []
    for i, name in enumerate(names):
        if counts[name] > 1 and name in first:
            reason = f"{name!r} is already the name of {array}[{first[name]}]"
            problems.append(Problem(f"{array}[{i}].name", reason))
        first.setdefault(name, i)
    return problems


# --- loading ----------------------------------------------------------------------------


def sheet_from_data(data: Any, source_name: str = "<sheet>") -> VerseSheet:
    """The sheet for already-parsed file data, or `SheetError` listing every problem."""
    try:
        sheet: VerseSheet = SCHEMA.validate(data)
    except ValidationError as error:
        raise SheetError(source_name, SCHEMA.problems(error)) from None
    problems = rule_problems(sheet)
    if problems:
        raise SheetError(source_name, problems)
    return sheet


def load_sheet_text(text: str, format: str, source_name: str = "<sheet>") -> VerseSheet:
    """The sheet written in `text`, `format` "toml" or "json"; `source_name` names it in errors."""
    return sheet_from_data(parse_text(text, format, source_name), source_name)


def load_sheet(path: str | Path) -> VerseSheet:
    """The sheet in a `.toml` or `.json` file."""
    path = Path(path)
    format = format_of(path)  # before reading: a `.yaml` file is refused for its name
    return load_sheet_text(read_text(path), format, str(path))


def sheet_to_data(sheet: VerseSheet, *, defaults: bool = False) -> dict[str, Any]:
    """The file form of a sheet as plain data (`json.dumps` it to write a JSON sheet)."""
    data: dict[str, Any] = SCHEMA.to_file_data(sheet, defaults=defaults)
    return data
