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

Readings where the text is open: `perception`, `stealth` and `initiative_bonus` (V16's
"+ bonuses", R76) are modifiers and may be negative; `reach_ft = 0` is allowed and
means the standard 5 ft reach, as in the engine.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

from pydantic import AfterValidator, Field, StrictInt, StrictStr

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
from server.sheets.loading import SheetFormat, duplicate_names, immunity_problems
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
UNBOUNDED = frozenset(
    {(VerseSheet, "perception"), (VerseSheet, "stealth"), (VerseSheet, "initiative_bonus")}
)

TRAINING = FileField(
    type=dict[Annotated[StrictStr, AfterValidator(_not_blank)], Annotated[StrictInt, Field(ge=0)]],
    to_record=lambda ranks: tuple(ranks.items()),
    to_file=dict,
)

SCHEMA = SheetSchema(VerseSheet, CONSTRAINTS, {(VerseSheet, "training"): TRAINING})


# --- checks across fields ---------------------------------------------------------------


def rule_problems(sheet: VerseSheet) -> list[Problem]:
    """What the rules forbid across fields of an otherwise well-formed sheet."""
    problems = duplicate_names("weapons", [w.name for w in sheet.weapons])
    problems += duplicate_names("spells", [s.name for s in sheet.spells])
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
    problems += immunity_problems(sheet.immunities)
    return problems


# --- loading ----------------------------------------------------------------------------

FORMAT = SheetFormat[VerseSheet](SCHEMA, rule_problems)
sheet_from_data = FORMAT.from_data
load_sheet_text = FORMAT.from_text
load_sheet = FORMAT.from_file
sheet_to_data = FORMAT.to_data
