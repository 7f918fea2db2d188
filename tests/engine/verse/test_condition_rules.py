"""Conditions as data (V27): what the encounter's conditions table makes a condition
do, named wherever it changes a number, and nothing without a table."""

from __future__ import annotations

from typing import Any

from server.engine import execute
from server.engine.effects import Change, ConditionRule
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.sheet import SheetCondition
from server.engine.rulesets.verse.spells import CastSpell, SpellAttackRolled
from tests.engine.verse.builders import fighter, in_combat, sheet
from tests.engine.verse.test_spells import foe, mage

PRONE = ConditionRule(
    "Prone",
    (
        Change("attack", "add", -2),
        Change("attack.ranged", "add", -1),
        Change("defence.pd", "add", -2),
    ),
)
BLINDED = ConditionRule(
    "Blinded", (Change("attack.spell", "add", -5), Change("defence.sd", "add", -3))
)
TABLE = (PRONE, BLINDED)


def down(c: VerseCombatant, *names: str) -> VerseCombatant:
    for name in names:
        c = c.with_condition(name)
    return c


def fight(*combatants: VerseCombatant, dice: tuple[int, ...], **kw: Any) -> Any:
    return in_combat(*combatants, dice=dice, condition_rules=TABLE, **kw)


# --- attack rolls and defences ---------------------------------------------------------


def test_a_prone_attacker_takes_the_tables_penalty_named_in_its_roll() -> None:
    """d20 9 + Strength 3 + Training 2 = 14 would meet PD 12; Prone's -2 makes it 12."""
    state = fight(down(fighter("ayla", "pc"), "Prone"), fighter("gob", "gm", x=1), dice=(9, 4))
    _, events = execute(state, Attack("ayla", "gob", "longsword"))
    attack = events[0]
    assert isinstance(attack, AttackRolled)
    assert attack.describe() == "d20 9 + Strength 3 + Training 2 - Prone 2 = 12 vs PD 12: hit"


def test_a_change_to_one_kind_of_attack_leaves_the_others() -> None:
    """Prone's `attack.ranged` -1 adds to its `attack` -2 for a bow, named once."""
    state = fight(down(fighter("ayla", "pc"), "Prone"), fighter("gob", "gm", x=3), dice=(9,))
    _, events = execute(state, Attack("ayla", "gob", "shortbow"))
    assert events[0].roll.modifiers == (("Dexterity", 2), ("Training", 1), ("Prone", -3))


def test_a_prone_target_is_easier_to_hit_and_the_breakdown_says_why() -> None:
    """d20 7 + 5 = 12 meets PD 12 anyway; against a Prone goblin it meets PD 10, and the
    event names Prone beside the defence."""
    state = fight(fighter("ayla", "pc"), down(fighter("gob", "gm", x=1), "Prone"), dice=(5, 3))
    _, events = execute(state, Attack("ayla", "gob", "longsword"))
    attack = events[0]
    assert (attack.defence, attack.defence_changes, attack.outcome) == (10, (("Prone", -2),), "hit")
    assert attack.describe() == "d20 5 + Strength 3 + Training 2 = 10 vs PD 10 (Prone -2): hit"


def test_without_a_table_or_an_entry_a_condition_changes_nothing() -> None:
    """V27: "and nothing when it says nothing"."""
    shaken = down(fighter("ayla", "pc"), "Shaken")
    prone_foe = down(fighter("gob", "gm", x=1), "Prone")
    for state in (
        in_combat(down(fighter("ayla", "pc"), "Prone"), prone_foe, dice=(9, 1)),
        fight(shaken, fighter("gob", "gm", x=1), dice=(9, 1)),
    ):
        _, events = execute(state, Attack("ayla", "gob", "longsword"))
        assert events[0].roll.modifiers == (("Strength", 3), ("Training", 2))
        assert (events[0].defence, events[0].defence_changes) == (12, ())


def test_a_condition_laid_in_another_case_is_the_same_condition() -> None:
    state = fight(down(fighter("ayla", "pc"), "prone"), fighter("gob", "gm", x=1), dice=(9, 1))
    _, events = execute(state, Attack("ayla", "gob", "longsword"))
    assert events[0].roll.modifiers[-1] == ("prone", -2)


def test_a_blinded_caster_and_a_blinded_target_of_a_spell() -> None:
    """d20 12 + Sanity 2 + Spell Attack Training 1 - Blinded 5 = 10 against SD 11 - 3."""
    state = fight(
        mage(conditions=()).with_condition("Blinded"),
        foe("gob", 3).with_condition("Blinded"),
        dice=(12, 2),
    )
    _, events = execute(state, CastSpell("ayla", "Magic Missile", targets=("gob",)))
    attack = next(e for e in events if isinstance(e, SpellAttackRolled))
    assert attack.describe() == (
        "Magic Missile: d20 12 + Sanity 2 + Spell Attack Training 1 - Blinded 5 = 10 "
        "vs gob SD 8 (Blinded -3) hit"
    )


def test_a_condition_from_the_sheet_counts_like_any_other() -> None:
    ayla = fighter("ayla", "pc", sheet_=sheet("ayla", conditions=(SheetCondition("Prone"),)))
    state = fight(ayla, fighter("gob", "gm", x=1), dice=(9, 1))
    _, events = execute(state, Attack("ayla", "gob", "longsword"))
    assert events[0].roll.modifiers[-1] == ("Prone", -2)
