"""What a spell costs and how long it takes: pure arithmetic (Verse V11, V12, V13).

How a `Spell` record (sheet.py) is read:

* `min_mc` is the Spell List's ">N": the Mana Cost of the weakest form of the spell.
  It already pays for `base_spell_dice` Spell Dice (2 MC each, V11) and for every
  option at its `base` amount. Mana Rain, ">3", is `min_mc=3, base_spell_dice=1`
  with `SpellOption("diameter_ft", mc=1, amount=5, base=5)`: 1 MC for 5 ft of
  diameter plus 2 MC for its one Spell Die. Magic Missile, ">2", is `min_mc=2,
  base_spell_dice=1`. Acute Senses, ">1", is `min_mc=1` with
  `SpellOption("duration_hours", mc=1, amount=1, base=1)`.
* Every Spell Die past `base_spell_dice` adds 2 MC ("The Spell List & Casting Rules":
  "2 SD for Magic Missile cost 4 MC").
* `SpellOption(name, mc, amount, base)`: every further `amount` of `name` past `base`
  costs `mc` MC. A caster asks for the total amount it wants (`diameter_ft=10`);
  amounts below `base`, or that are not `base` plus whole steps of `amount`, are
  refused - the text sells sizes and durations in whole steps only.
* Options the engine reads: `diameter_ft` (Area of Effect size, 5 ft when the spell
  has none), `length_ft` (Cone and Line reach, the spell's range when it has none) and
  `duration_rounds` / `duration_minutes` / `duration_hours` (how long the spell's
  condition lasts; a round is 5 seconds, V17). Other options are recorded in the
  cast event for the GM and the clients.

`spell_problems` says what the rules forbid in a `Spell` record. Sheet files are
validated with it (server/sheets/verse.py, after the schema's types and bounds), and
so is the whole `Spell` a client sends with `DecipherSpell`, which no file check has
seen: wrong types and unknown enum values, negative numbers, option steps below 1,
Spell Dice the minimum cost does not pay for (V11) or that the spell does not use, a
duration without a condition, two options of one name.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from server.engine.rulesets.verse.sheet import (
    AccessLevel,
    ActionType,
    Spell,
    SpellOption,
    SpellRange,
    SpellShape,
)

MC_PER_SPELL_DIE = 2  # V11
MC_PER_ACTION = 10  # V12: "For every 10 MC spent on a spell the cast time is 1 Standard Action"
SPELL_DC_BASE = 10  # V13
DECIPHER_DC_BASE = 10  # V13
RARITY_SCORE = {  # V13, "Deciphering Spells"
    AccessLevel.COMMON: 5,
    AccessLevel.UNCOMMON: 10,
    AccessLevel.ABNORMAL: 20,
    AccessLevel.RARE: 25,
    AccessLevel.VERY_RARE: 30,
}
ROUNDS_PER_UNIT = {  # V17: a round is 5 seconds
    "duration_rounds": 1,
    "duration_minutes": 12,
    "duration_hours": 720,
}
DIAMETER = "diameter_ft"
LENGTH = "length_ft"
DEFAULT_DIAMETER_FT = 5


def _whole(value: object) -> bool:
    return type(value) is int


def _one_of(kind: type[StrEnum], value: object) -> bool:
    return isinstance(value, str) and value in {member.value for member in kind}


def _name(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _option_problems(option: object, where: str) -> list[tuple[str, str]]:
    if not isinstance(option, SpellOption):
        return [(where, "must be a spell option")]
    problems = []
    if not _name(option.name):
        problems.append((f"{where}.name", "must not be empty"))
    for field, minimum in (("mc", 1), ("amount", 1), ("base", 0)):
        value = getattr(option, field)
        if not _whole(value) or value < minimum:
            problems.append((f"{where}.{field}", f"must be a whole number of at least {minimum}"))
    return problems


def spell_problems(spell: Spell, where: str = "") -> list[tuple[str, str]]:
    """What the rules forbid in `spell`, as (field path, reason) pairs; [] when sound.

    `where` prefixes every path (`"spells[2]."` in a sheet file).
    """
    problems: list[tuple[str, str]] = []
    if not _name(spell.name):
        problems.append((f"{where}name", "must not be empty"))
    for field in ("min_mc", "base_spell_dice", "condition_rounds"):
        value = getattr(spell, field)
        if not _whole(value) or value < 0:
            problems.append((f"{where}{field}", "must be a whole number of at least 0"))
    enums: tuple[tuple[str, type[StrEnum]], ...] = (
        ("access_level", AccessLevel),
        ("rarity", AccessLevel),
        ("range", SpellRange),
        ("shape", SpellShape),
        ("cast_action", ActionType),
    )
    for field, kind in enums:
        if not _one_of(kind, getattr(spell, field)):
            allowed = ", ".join(member.value for member in kind)
            problems.append((f"{where}{field}", f"must be one of {allowed}"))
    if not isinstance(spell.uses_spell_die, bool):
        problems.append((f"{where}uses_spell_die", "must be true or false"))
    if not isinstance(spell.condition, str):
        problems.append((f"{where}condition", "must be a condition name"))
    if not isinstance(spell.options, tuple):
        problems.append((f"{where}options", "must be a list of spell options"))
    else:
        for i, option in enumerate(spell.options):
            problems += _option_problems(option, f"{where}options[{i}]")
    if problems:
        return problems  # the checks across fields need well-formed fields
    if spell.base_spell_dice and not spell.uses_spell_die:
        reason = "a spell with base Spell Dice must set uses_spell_die = true"
        problems.append((f"{where}base_spell_dice", reason))
    elif spell.min_mc < MC_PER_SPELL_DIE * spell.base_spell_dice:
        reason = (
            f"{spell.base_spell_dice} Spell Dice cost at least "
            f"{MC_PER_SPELL_DIE * spell.base_spell_dice} MC (V11: 2 MC each)"
        )
        problems.append((f"{where}min_mc", reason))
    if spell.condition_rounds and not spell.condition:
        problems.append((f"{where}condition_rounds", "condition_rounds needs a condition"))
    first: dict[str, int] = {}
    for i, option in enumerate(spell.options):
        if option.name in first:
            reason = f"{option.name!r} is already the name of {where}options[{first[option.name]}]"
            problems.append((f"{where}options[{i}].name", reason))
        first.setdefault(option.name, i)
    return problems


class SpellCostError(ValueError):
    """Spell Dice or options a spell cannot buy (the decider refuses the command)."""


def options_bought(
    spell: Spell, options: Mapping[str, int] | None = None
) -> tuple[tuple[str, int], ...]:
    """Every option of `spell` with the amount bought: asked amounts, else the base.

    V11: what extra MC buys is "as its description says": only the spell's own
    options, from their base upwards in whole steps.
    """
    asked = dict(options or {})
    known = {option.name for option in spell.options}
    unknown = sorted(set(asked) - known)
    if unknown:
        raise SpellCostError(f"{spell.name} has no option {unknown[0]!r}")
    bought = []
    for option in spell.options:
        amount = asked.get(option.name, option.base)
        extra = amount - option.base
        if extra < 0:
            raise SpellCostError(
                f"{spell.name}: {option.name} starts at {option.base}, not {amount}"
            )
        if option.amount <= 0 or extra % option.amount:
            raise SpellCostError(
                f"{spell.name}: {option.name} is bought in steps of {option.amount} "
                f"from {option.base}"
            )
        bought.append((option.name, amount))
    return tuple(bought)


def spell_mc(
    spell: Spell, spell_dice: int | None = None, options: Mapping[str, int] | None = None
) -> int:
    """V11: the minimum MC, plus 2 MC per Spell Die past the base, plus the options bought.

    `spell_dice` is the total number of Spell Dice (default: the spell's base);
    `options` maps option names to the total amount wanted (default: each base).
    """
    dice = spell.base_spell_dice if spell_dice is None else spell_dice
    if dice < spell.base_spell_dice:
        raise SpellCostError(
            f"{spell.name} has at least {spell.base_spell_dice} Spell Dice, not {dice}"
        )
    if dice > spell.base_spell_dice and not spell.uses_spell_die:
        raise SpellCostError(f"{spell.name} has no Spell Die to add")
    mc = spell.min_mc + MC_PER_SPELL_DIE * (dice - spell.base_spell_dice)
    amounts = dict(options_bought(spell, options))
    for option in spell.options:
        mc += option.mc * ((amounts[option.name] - option.base) // option.amount)
    return mc


def is_named_amounts(value: object) -> bool:
    """Is `value` a tuple of `(name, whole number)` pairs, the way a command carries
    options (`("diameter_ft", 10)`) and mana shares (`("bo", 4)`)? (Malformed input.)"""
    return isinstance(value, tuple) and all(
        isinstance(pair, tuple)
        and len(pair) == 2
        and isinstance(pair[0], str)
        and type(pair[1]) is int
        for pair in value
    )


def option_amount(bought: tuple[tuple[str, int], ...], name: str, default: int) -> int:
    for option, amount in bought:
        if option == name:
            return amount
    return default


def cast_time(mc: int) -> int:
    """V12: `ceil(MC / 10)` actions, at least 1 (a 20 MC spell takes 2 rounds alone)."""
    return max(1, -(-mc // MC_PER_ACTION))


def group_cast_time(shares: tuple[int, ...]) -> int:
    """V12: group casting takes as long as the largest share (10 + 10 MC: one turn)."""
    return cast_time(max(shares, default=0))


def spell_dc(mc: int, level: int) -> int:
    """V13, "Spell Dice Check": Spell DC = 10 + MC + Caster's Level."""
    return SPELL_DC_BASE + mc + level


def decipher_dc(rarity: str) -> int:
    """V13, "Deciphering Spells": 10 + the rarity score.

    The text gives no score for "cantrip", which is an access level and not a rarity;
    a spell marked so is read as Common, the lowest rarity listed.
    """
    return DECIPHER_DC_BASE + RARITY_SCORE.get(
        AccessLevel(rarity), RARITY_SCORE[AccessLevel.COMMON]
    )


def condition_rounds(spell: Spell, bought: tuple[tuple[str, int], ...]) -> int | None:
    """How many rounds the spell's condition lasts: a bought duration, else the sheet's
    `condition_rounds`; 0 there means "until removed" (None)."""
    for name, amount in bought:
        per_unit = ROUNDS_PER_UNIT.get(name)
        if per_unit is not None:
            return amount * per_unit
    return spell.condition_rounds or None
