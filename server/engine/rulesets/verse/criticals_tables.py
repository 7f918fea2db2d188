"""The rows of the optional critical-hit and critical-fail tables (Verse V5), as data.

"Basics & Combat" gives two d20 tables; each row is its text, word for word, and the
effects the engine applies for it (empty: the GM adjudicates the text). What the
effects mean and how they are applied: criticals.py, which rolls and chooses rows.
"""

from __future__ import annotations

from server.engine.records import record
from server.engine.rulesets.verse.combatant import (
    DEAD,
    EXHAUSTED,
    KNOCKED_OUT,
    PRONE,
    STUNNED,
)

BLEED = "Bleed"
SHAKEN = "Shaken"
BLINDED = "Blinded"
ARMOUR_FRAGILE = "Armour Fragile"
PARANOID_INSANITY = "Paranoid Insanity"


# --- the effects a row can have -------------------------------------------------


@record
class RowCondition:
    """The row's subject gains a condition, for `rounds` round ends (None: until removed)."""

    condition: str
    rounds: int | None = None


@record
class RowAbilityDamage:
    """The row's subject takes 1d4 damage to an ability score."""

    ability: str


@record
class RowArmourBroken:
    """The row's subject's armour gains the Broken condition."""


@record
class RowWeaponBroken:
    """The weapon (used, or the subject's) gains the Broken condition."""


@record
class RowWeaponThrown:
    """The weapon used leaves the wielder's hand (fail table)."""


@record
class RowHandsEmptied:
    """Everything the subject holds leaves its hands (hit row 8)."""


RowEffect = (
    RowCondition
    | RowAbilityDamage
    | RowArmourBroken
    | RowWeaponBroken
    | RowWeaponThrown
    | RowHandsEmptied
)


@record
class CriticalRow:
    number: int
    text: str
    effects: tuple[RowEffect, ...] = ()  # empty: the GM adjudicates the text


def _rows(*rows: tuple[str, tuple[RowEffect, ...]]) -> tuple[CriticalRow, ...]:
    return tuple(CriticalRow(n, text, effects) for n, (text, effects) in enumerate(rows, 1))


# "Basics & Combat", the critical-hit table: it acts on the target.
CRITICAL_HIT_ROWS = _rows(
    ("The attack ricochets and hits an adjacent enemy.", ()),
    ("The target gains the Bleed condition.", (RowCondition(BLEED),)),
    ("The target loses an appendage or limb", ()),
    (
        "The target is staggered by the blow and are Stunned for one round",
        (RowCondition(STUNNED, 1),),
    ),
    ("The target is knocked off their feet and falls Prone", (RowCondition(PRONE),)),
    (
        "The target becomes intimidated and fearful and Shaken for 1 round",
        (RowCondition(SHAKEN, 1),),
    ),
    ("The target begins to limp and takes 1d4 Dexterity damage", (RowAbilityDamage("dexterity"),)),
    (
        "The target loses their grip and any objects in their hands are thrown 1d4 spaces away.",
        (RowHandsEmptied(),),
    ),
    ("The target’s armor gains the Broken condition", (RowArmourBroken(),)),
    ("The target’s weapon gains the Broken condition", (RowWeaponBroken(),)),
    (
        "A vital organ of the target’s is struck and deals 1d4 Constitution to themselves "
        "and gain the Bleed condition",
        (RowAbilityDamage("constitution"), RowCondition(BLEED)),
    ),
    ("The target is beaten down and becomes Exhausted", (RowCondition(EXHAUSTED),)),
    ("The target is Knocked Out for 1 round", (RowCondition(KNOCKED_OUT, 1),)),
    ("The target is humiliated and runs away in shame", ()),
    ("The target’s armor cracks and becomes Fragile", (RowCondition(ARMOUR_FRAGILE),)),
    ("The target is traumatized and takes 1d4 Sanity damage", (RowAbilityDamage("sanity"),)),
    ("The target is disfigured and takes 1d4 Empathy damage", (RowAbilityDamage("empathy"),)),
    ("The target gains brain damage takes 1d4 Intellect damage", (RowAbilityDamage("intellect"),)),
    ("The target’s tendon is cut and takes 1d4 Strength damage", (RowAbilityDamage("strength"),)),
    ("The target is struck fatally and is immediately killed", (RowCondition(DEAD),)),
)

# "Basics & Combat", the critical-fail table: it acts on the attacker.
CRITICAL_FAIL_ROWS = _rows(
    ("The attack Critical Succeeds on an adjacent target to the intended target.", ()),
    ("The used weapon is thrown 1d4 spaces away.", (RowWeaponThrown(),)),
    ("The weapon has a major malfunction granting it the Broken condition", (RowWeaponBroken(),)),
    ("The Character loses balance and falls Prone", (RowCondition(PRONE),)),
    (
        "The Character exposes their body to a target within range granting them an "
        "immediate Attack of Opportunity",
        (),
    ),
    (
        "The Character’s armor or clothing has a malfunction and gains the Broken condition",
        (RowArmourBroken(),),
    ),
    (
        "The weapon rebounds off of the target, recoils for ranged weapons, or spells burst in "
        "the caster’s hand and hits the Character dealing 1d4 Intellect damage to them instead",
        (RowAbilityDamage("intellect"),),
    ),
    ("The Character over exerts themselves and becomes Exhausted", (RowCondition(EXHAUSTED),)),
    (
        "The Character pulls a muscle and takes 1d4 Dexterity Damage",
        (RowAbilityDamage("dexterity"),),
    ),
    (
        "Ya Su appears and humiliates the Character across all of Time and Space dealing 1d4 "
        "Empathy damage",
        (RowAbilityDamage("empathy"),),
    ),
    ("The Character loses the will to fight and flees combatant", ()),
    (
        "The Character is terrified of their opponent and gains the Shaken condition for 1 "
        "rounding",
        (RowCondition(SHAKEN, 1),),
    ),
    ("The Character hesitates and is Stunned for 1 round", (RowCondition(STUNNED, 1),)),
    (
        "The Character injures themselves in combat dealing 1d4 Constitution damage",
        (RowAbilityDamage("constitution"),),
    ),
    (
        "The Character dislocates a joint and takes 1d4 Strength damage",
        (RowAbilityDamage("strength"),),
    ),
    (
        "The Character is traumatized by the combat and gains the Paranoid Insanity for the "
        "remainder of the combat",
        (RowCondition(PARANOID_INSANITY),),
    ),
    (
        "The Character has a psychotic break and takes 1d4 Sanity Damage",
        (RowAbilityDamage("sanity"),),
    ),
    ("The Character’s bag rips open and drops 1d4 items onto an adjacent space", ()),
    (
        "The Character gets something in their eye and are blinded for 1 round",
        (RowCondition(BLINDED, 1),),
    ),
    (
        "An unknown entity has chosen the Character to be their mortal enemy and teleports them "
        "to another plane of existence for 1d4 rounds as they are replaced with a doppelganger "
        "and gain the Alien Possession Curse.",
        (),
    ),
)
