"""World of Tael character sheets as TOML or JSON files (format: docs/sheets.md, "Tael").

The same file family as Verse sheets (`server/sheets/verse.py`): a file becomes the
engine's own `TaelSheet` record, its schema derived from the record
(`server.sheets.schema`), with what the rules bound and how a person writes a few
fields added here:

* `attributes` is a table of attributes, each `{value = 14, modifier = 2}`; it must
  hold the four the combat text reads (`strength`, `agility`, `intelligence`,
  `wisdom`), and may hold more. `skills` is a table of Roleplay skill modifiers,
  `{persuasion = 2}`.
* bounds: hit points and a weapon's or spell's reach at least 1, a spell's targets at
  least 1, a status at least one turn; Movement Speed, the armour's Defensive Value and
  dodge penalty, attribute values, DCs and class numbers never negative; a weapon is
  held in one hand or two. Modifiers (sub-attributes, Willpower, initiative, skills)
  may be negative.
* checks across fields: damage dice parse, and every weapon that attacks has some;
  weapon, spell, prepared move and class names are unique (commands name them); a
  weapon's Scale names one of the sheet's attributes; `main_hand` and `off_hand` name
  weapons of the sheet, two different ones, and a two-handed weapon leaves the off hand
  empty; a status effect's attribute is written like an attribute name.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, Field, StrictInt, StrictStr

from server.engine.dice import DiceExpressionError, parse
from server.engine.rulesets.tael.sheet import (
    ATTACKING_KINDS,
    REQUIRED_ATTRIBUTES,
    Armour,
    Attribute,
    PreparationMove,
    StatusEffect,
    TaelClass,
    TaelSheet,
    TaelSpell,
    TaelWeapon,
)
from server.sheets.loading import SheetFormat, duplicate_names, immunity_problems
from server.sheets.schema import FileField, Problem, SheetSchema

ATTRIBUTE_NAME = re.compile(r"[a-z][a-z_]*")


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be empty")
    return text


def _dice_expression(text: str) -> str:
    """Damage dice such as `1d8` or `2d6+1`; empty only where nothing is rolled."""
    if text.strip():
        try:
            parse(text)
        except DiceExpressionError as error:
            raise ValueError(str(error)) from None
    return text


def _attribute_name(text: str) -> str:
    if not ATTRIBUTE_NAME.fullmatch(text):
        raise ValueError(
            f"an attribute is named in lower case letters, like 'agility', not {text!r}"
        )
    return text


def _hands(count: int) -> int:
    if count not in (1, 2):
        raise ValueError(f"a weapon is held in 1 or 2 hands, got {count}")
    return count


def at_least(minimum: int) -> tuple[Any, ...]:
    return (Field(ge=minimum),)


NON_NEGATIVE = at_least(0)
NAME = (AfterValidator(_not_blank),)
DICE = (AfterValidator(_dice_expression),)
ATTRIBUTE = (AfterValidator(_attribute_name),)

CONSTRAINTS: dict[type, dict[str, tuple[Any, ...]]] = {
    TaelSheet: {"name": NAME, "hit_points": at_least(1), "movement": NON_NEGATIVE},
    TaelClass: {
        "name": NAME,
        "bonus_actions": NON_NEGATIVE,
        "weapon_damage_bonus": NON_NEGATIVE,
        "spell_damage_bonus": NON_NEGATIVE,
    },
    Armour: {"defensive_value": NON_NEGATIVE, "dodge_penalty": NON_NEGATIVE},
    TaelWeapon: {
        "name": NAME,
        "damage": DICE,
        "hands": (AfterValidator(_hands),),
        "reach": at_least(1),
    },
    TaelSpell: {
        "name": NAME,
        "school": NAME,
        "damage": DICE,
        "reach": at_least(1),
        "targets": at_least(1),
    },
    StatusEffect: {
        "name": NAME,
        "attribute": ATTRIBUTE,
        "dc": NON_NEGATIVE,
        "turns": at_least(1),
        "damage": DICE,
    },
    PreparationMove: {"name": NAME, "defensive_bonus": NON_NEGATIVE},
}

ATTRIBUTES = FileField(
    type=dict[
        Annotated[StrictStr, AfterValidator(_attribute_name)],
        Annotated[
            dict[str, Any],
            AfterValidator(lambda table: _attribute_table(table)),
        ],
    ],
    to_record=lambda table: tuple(
        Attribute(name, value["value"], value["modifier"]) for name, value in table.items()
    ),
    to_file=lambda attributes: {
        a.name: {"value": a.value, "modifier": a.modifier} for a in attributes
    },
)


def _attribute_table(table: dict[str, Any]) -> dict[str, Any]:
    """`{value = 14, modifier = 2}`: a value of at least 0 and a whole modifier."""
    unknown = sorted(set(table) - {"value", "modifier"})
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}; allowed here: value, modifier")
    for key in ("value", "modifier"):
        if key not in table:
            raise ValueError(f"{key} is missing")
        number = table[key]
        if not isinstance(number, int) or isinstance(number, bool):
            raise ValueError(f"{key} must be a whole number, got {number!r}")
    if table["value"] < 0:
        raise ValueError(f"value must be at least 0, got {table['value']}")
    return table


SKILLS = FileField(
    type=dict[Annotated[StrictStr, AfterValidator(_attribute_name)], StrictInt],
    to_record=lambda skills: tuple(skills.items()),
    to_file=dict,
)

SCHEMA = SheetSchema(
    TaelSheet,
    CONSTRAINTS,
    {(TaelSheet, "attributes"): ATTRIBUTES, (TaelSheet, "skills"): SKILLS},
)


# --- checks across fields ---------------------------------------------------------------


def rule_problems(sheet: TaelSheet) -> list[Problem]:
    """What the rules forbid across fields of an otherwise well-formed sheet."""
    problems = []
    missing = [a for a in REQUIRED_ATTRIBUTES if sheet.attribute(a) is None]
    if missing:
        problems.append(
            Problem("attributes", f"missing {', '.join(missing)} (the combat rules read them)")
        )
    problems += duplicate_names("weapons", [w.name for w in sheet.weapons])
    problems += duplicate_names("spells", [s.name for s in sheet.spells])
    problems += duplicate_names("preparations", [p.name for p in sheet.preparations])
    problems += duplicate_names("classes", [c.name for c in sheet.classes])
    for i, weapon in enumerate(sheet.weapons):
        if weapon.kind in ATTACKING_KINDS and not weapon.damage.strip():
            problems.append(
                Problem(f"weapons[{i}].damage", f"a {weapon.kind} weapon needs damage dice")
            )
        if weapon.scale and sheet.attribute(weapon.scale) is None:
            reason = f"{weapon.scale!r} is not one of this sheet's attributes"
            problems.append(Problem(f"weapons[{i}].scale", reason))
    problems += _hand_problems(sheet)
    problems += immunity_problems(sheet.immunities)
    return problems


def _hand_problems(sheet: TaelSheet) -> list[Problem]:
    problems = []
    held = {}
    for hand in ("main_hand", "off_hand"):
        name = getattr(sheet, hand)
        if not name:
            continue
        weapon = sheet.weapon(name)
        if weapon is None:
            problems.append(Problem(hand, f"{name!r} is not one of this sheet's weapons"))
        else:
            held[hand] = weapon
    if sheet.main_hand and sheet.main_hand == sheet.off_hand:
        problems.append(Problem("off_hand", f"{sheet.off_hand!r} is already in the main hand"))
    main, off = held.get("main_hand"), held.get("off_hand")
    if off is not None and off.hands == 2:
        problems.append(Problem("off_hand", f"{off.name} is two-handed: hold it in the main hand"))
    if main is not None and main.hands == 2 and sheet.off_hand:
        problems.append(Problem("off_hand", f"{main.name} is two-handed: the off hand is empty"))
    return problems


# --- loading ----------------------------------------------------------------------------

FORMAT = SheetFormat[TaelSheet](SCHEMA, rule_problems)
sheet_from_data = FORMAT.from_data
load_sheet_text = FORMAT.from_text
load_sheet = FORMAT.from_file
sheet_to_data = FORMAT.to_data
