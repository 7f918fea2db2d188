"""The optional critical tables (V5) and the GM's row override (ChooseCriticalRow)."""

from __future__ import annotations

import pytest

from server.engine import CommandRefused, Encounter, Event, decide, execute, replay
from server.engine.records import evolve
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.rulesets.verse.combatant import Condition
from server.engine.rulesets.verse.conditions import (
    AbilityDamaged,
    ConditionGained,
    ItemBroken,
    WeaponDropped,
)
from server.engine.rulesets.verse.criticals import (
    ChooseCriticalRow,
    CriticalRowChosen,
    CriticalTableRolled,
)
from server.engine.rulesets.verse.damage import ARMOUR, DamageDealt
from server.engine.rulesets.verse.sheet import VerseSheet, Weapon, WeaponKind
from server.engine.rulesets.verse.turns import EndTurn, TurnStarted
from server.engine.state import Phase, Settings
from tests.engine.verse.builders import LONGSWORD, SHORTBOW, fighter, in_combat, sheet

TABLES_ON = Settings(critical_tables=True)
CLAWS = Weapon("claws", "", "unarmed", kind=WeaponKind.NATURAL)


def table_on(
    *dice: int, gob_sheet: VerseSheet | None = None, ayla_sheet: VerseSheet | None = None
) -> Encounter:
    """Ayla (Strength 3, longsword Training 2) next to Gob (PD 12, PR 2, health 20)."""
    return in_combat(
        fighter("ayla", "pc", sheet_=ayla_sheet),
        fighter("gob", "gm", x=1, sheet_=gob_sheet),
        dice=dice,
        settings=TABLES_ON,
    )


def critical_hit(
    row: int, *more: int, gob_sheet: VerseSheet | None = None
) -> tuple[Encounter, list[Event]]:
    """Natural 20, longsword 1d8 shows 5 (x2 + 2 = 12 damage), then the table's d20."""
    state = table_on(20, 5, row, *more, gob_sheet=gob_sheet)
    after, events = execute(state, Attack("ayla", "gob", "longsword"))
    attack, damage, rolled = events[:3]
    assert isinstance(attack, AttackRolled) and attack.outcome == "critical_hit"
    assert isinstance(damage, DamageDealt) and damage.amount == 12
    assert isinstance(rolled, CriticalTableRolled)
    assert (rolled.table, rolled.combatant, rolled.row) == ("critical_hit", "gob", row)
    assert rolled.roll.natural == row
    return after, events[3:]


def critical_fail(
    row: int, *more: int, weapon: str = "longsword", ayla_sheet: VerseSheet | None = None
) -> tuple[Encounter, list[Event]]:
    """Natural 1, then the critical-fail table's d20 (instead of V6's fixed effects)."""
    state = table_on(1, row, *more, ayla_sheet=ayla_sheet)
    after, events = execute(state, Attack("ayla", "gob", weapon))
    attack, rolled = events[:2]
    assert isinstance(attack, AttackRolled) and attack.outcome == "critical_fail"
    assert isinstance(rolled, CriticalTableRolled)
    assert (rolled.table, rolled.combatant, rolled.row) == ("critical_fail", "ayla", row)
    return after, events[2:]


# --- the setting --------------------------------------------------------------------


def test_tables_off_a_critical_hit_rolls_no_table() -> None:
    # Only two dice are scripted: a table roll would exhaust the script.
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1), dice=(20, 5))
    _, events = execute(state, Attack("ayla", "gob", "longsword"))
    assert [type(e) for e in events] == [AttackRolled, DamageDealt]


def test_tables_off_a_critical_fail_keeps_the_fixed_v6_effect() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1), dice=(1,))
    _, events = execute(state, Attack("ayla", "gob", "longsword"))
    assert [type(e) for e in events] == [AttackRolled, WeaponDropped]


def test_table_row_is_logged_with_the_rule_text() -> None:
    state = table_on(20, 5, 4)
    _, events = execute(state, Attack("ayla", "gob", "longsword"))
    rolled = events[2]
    assert isinstance(rolled, CriticalTableRolled)
    assert rolled.text == "The target is staggered by the blow and are Stunned for one round"
    assert rolled.roll.describe() == "d20 4 = 4"


# --- the critical-hit table: conditions on the target ------------------------------


@pytest.mark.parametrize(
    ("row", "condition", "rounds"),
    [
        (2, "Bleed", None),
        (4, "Stunned", 1),
        (5, "Prone", None),
        (6, "Shaken", 1),
        (12, "Exhausted", None),
        (13, "Knocked Out", 1),
        (15, "Armour Fragile", None),
    ],
)
def test_hit_table_condition_rows(row: int, condition: str, rounds: int | None) -> None:
    after, effects = critical_hit(row)
    assert effects == [
        ConditionGained("gob", condition, rounds, reason=f"critical hit table row {row}")
    ]
    assert Condition(condition, rounds) in after.combatant("gob").conditions


def test_hit_table_stun_for_one_round_costs_the_target_its_turn_this_round() -> None:
    after, _ = critical_hit(4)
    assert not after.combatant("gob").active
    after, events = execute(after, EndTurn("ayla"))
    # Gob's turn is skipped; the round ends, the stun runs out, Ayla starts round 2.
    assert [e.combatant for e in events if isinstance(e, TurnStarted)] == ["ayla"]
    assert after.round == 2 and after.current == "ayla"
    assert after.combatant("gob").active


def test_hit_table_row_20_kills_outright() -> None:
    after, effects = critical_hit(20)
    assert effects == [ConditionGained("gob", "Dead", reason="critical hit table row 20")]
    gob = after.combatant("gob")
    assert not gob.alive and gob.health == 10  # killed, not damaged


@pytest.mark.parametrize(
    ("row", "ability"),
    [(7, "dexterity"), (16, "sanity"), (17, "empathy"), (18, "intellect"), (19, "strength")],
)
def test_hit_table_ability_damage_rows_roll_1d4(row: int, ability: str) -> None:
    before = getattr(sheet().abilities, ability)
    after, effects = critical_hit(row, 3)
    (damaged,) = effects
    assert isinstance(damaged, AbilityDamaged)
    assert (damaged.combatant, damaged.ability, damaged.amount) == ("gob", ability, 3)
    assert damaged.roll is not None and damaged.roll.describe() == "d4 3 = 3"
    assert getattr(after.combatant("gob").abilities, ability) == before - 3


def test_hit_table_row_11_constitution_damage_and_bleed() -> None:
    # Gob's Constitution 3, 1d4 shows 2: Constitution 1, still conscious, bleeding.
    after, effects = critical_hit(11, 2)
    assert [type(e) for e in effects] == [AbilityDamaged, ConditionGained]
    gob = after.combatant("gob")
    assert gob.abilities.constitution == 1 and gob.has("Bleed") and gob.active


@pytest.mark.parametrize(("face", "condition"), [(3, "Unconscious"), (4, "Dead")])
def test_hit_table_constitution_to_zero_or_below_follows_v10(face: int, condition: str) -> None:
    after, effects = critical_hit(11, face)
    assert ConditionGained("gob", condition, reason="critical hit table row 11") in effects
    gob = after.combatant("gob")
    assert gob.abilities.constitution == 3 - face
    assert gob.has(condition) and not gob.active


def test_hit_table_row_9_breaks_the_armour_as_damage_does() -> None:
    after, effects = critical_hit(9)
    assert effects == [ItemBroken("gob", ARMOUR, reason="critical hit table row 9")]
    gob = after.combatant("gob")
    assert gob.broken == ("armour",)
    assert gob.armour_durability == 8  # the durability is not touched, only the condition


def test_hit_table_row_10_breaks_the_targets_weapon() -> None:
    after, effects = critical_hit(10)
    assert effects == [ItemBroken("gob", "longsword", reason="critical hit table row 10")]
    gob_turn = evolve(after, turn=1)
    with pytest.raises(CommandRefused) as refused:
        decide(gob_turn, Attack("gob", "ayla", "longsword"))
    assert refused.value.code == "weapon_unusable"


def test_hit_table_row_10_skips_natural_and_already_broken_weapons() -> None:
    armed = sheet("gob", weapons=(CLAWS, LONGSWORD, SHORTBOW))
    state = table_on(20, 5, 10, gob_sheet=armed)
    gob = state.combatant("gob")
    state = state.with_combatant(evolve(gob, broken=("longsword",)))
    _, events = execute(state, Attack("ayla", "gob", "longsword"))
    assert events[3:] == [ItemBroken("gob", "shortbow", reason="critical hit table row 10")]


def test_hit_table_row_8_empties_the_targets_hands() -> None:
    armed = sheet("gob", weapons=(CLAWS, LONGSWORD, SHORTBOW), shield="buckler")
    after, effects = critical_hit(8, gob_sheet=armed)
    assert [e.weapon for e in effects if isinstance(e, WeaponDropped)] == [
        "longsword",
        "shortbow",
        "buckler",
    ]
    assert len(effects) == 3
    assert after.combatant("gob").dropped == ("longsword", "shortbow", "buckler")


@pytest.mark.parametrize("row", [1, 3, 14])
def test_hit_table_gm_rows_are_logged_only(row: int) -> None:
    state = table_on(20, 5, row)
    after, events = execute(state, Attack("ayla", "gob", "longsword"))
    assert [type(e) for e in events] == [AttackRolled, DamageDealt, CriticalTableRolled]
    gob = after.combatant("gob")
    assert (gob.conditions, gob.broken, gob.dropped) == ((), (), ())
    assert gob.abilities == sheet().abilities


# --- the critical-fail table: effects on the attacker ------------------------------


@pytest.mark.parametrize(
    ("row", "condition", "rounds"),
    [
        (4, "Prone", None),
        (8, "Exhausted", None),
        (12, "Shaken", 1),
        (13, "Stunned", 1),
        (16, "Paranoid Insanity", None),
        (19, "Blinded", 1),
    ],
)
def test_fail_table_condition_rows(row: int, condition: str, rounds: int | None) -> None:
    after, effects = critical_fail(row)
    assert effects == [
        ConditionGained("ayla", condition, rounds, reason=f"critical fail table row {row}")
    ]
    ayla = after.combatant("ayla")
    assert Condition(condition, rounds) in ayla.conditions
    assert ayla.dropped == ()  # the table replaces V6: the sword stays in hand


@pytest.mark.parametrize(
    ("row", "ability"),
    [(7, "intellect"), (9, "dexterity"), (10, "empathy"), (15, "strength"), (17, "sanity")],
)
def test_fail_table_ability_damage_rows_roll_1d4(row: int, ability: str) -> None:
    before = getattr(sheet().abilities, ability)
    after, effects = critical_fail(row, 1)
    assert effects[0] == AbilityDamaged(
        "ayla", ability, 1, effects[0].roll, reason=f"critical fail table row {row}"
    )
    assert getattr(after.combatant("ayla").abilities, ability) == before - 1


def test_fail_table_row_14_constitution_to_zero_knocks_the_attacker_unconscious() -> None:
    after, effects = critical_fail(14, 3)
    assert [type(e) for e in effects] == [AbilityDamaged, ConditionGained]
    ayla = after.combatant("ayla")
    assert ayla.abilities.constitution == 0 and ayla.has("Unconscious")


def test_fail_table_row_2_throws_the_used_weapon() -> None:
    after, effects = critical_fail(2)
    assert effects == [WeaponDropped("ayla", "longsword", reason="critical fail table row 2")]
    assert after.combatant("ayla").dropped == ("longsword",)


def test_fail_table_row_3_breaks_the_used_weapon() -> None:
    after, effects = critical_fail(3, weapon="shortbow")
    assert effects == [ItemBroken("ayla", "shortbow", reason="critical fail table row 3")]
    assert after.combatant("ayla").broken == ("shortbow",)


def test_fail_table_row_6_breaks_the_attackers_armour() -> None:
    after, effects = critical_fail(6)
    assert effects == [ItemBroken("ayla", ARMOUR, reason="critical fail table row 6")]
    assert after.combatant("ayla").broken == ("armour",)


def test_fail_table_replaces_the_ranged_jam() -> None:
    after, effects = critical_fail(4, weapon="shortbow")
    assert [type(e) for e in effects] == [ConditionGained]
    ayla = after.combatant("ayla")
    assert ayla.broken == () and ayla.has("Prone")


@pytest.mark.parametrize("row", [2, 3])
def test_fail_table_weapon_rows_do_nothing_to_a_natural_attack(row: int) -> None:
    after, effects = critical_fail(row, weapon="")
    assert effects == []
    ayla = after.combatant("ayla")
    assert (ayla.broken, ayla.dropped) == ((), ())


@pytest.mark.parametrize("row", [1, 5, 11, 18, 20])
def test_fail_table_gm_rows_are_logged_only(row: int) -> None:
    after, effects = critical_fail(row)
    assert effects == []
    ayla = after.combatant("ayla")
    assert (ayla.conditions, ayla.broken, ayla.dropped) == ((), (), ())
    # No extra attack: Gob is untouched.
    assert after.combatant("gob").health == 20


def test_table_rolls_replay_to_the_same_state() -> None:
    initial = table_on(20, 5, 11, 2)
    after, events = execute(initial, Attack("ayla", "gob", "longsword"))
    assert replay(initial, events).state_hash() == after.state_hash()


# --- the GM's override ---------------------------------------------------------------


def test_choose_row_applies_it_without_a_d20() -> None:
    # No dice scripted at all: a d20 would exhaust the script.
    state = table_on()
    after, events = execute(state, ChooseCriticalRow("critical_hit", "gob", 13))
    assert events == [
        CriticalRowChosen("critical_hit", "gob", 13, "The target is Knocked Out for 1 round"),
        ConditionGained("gob", "Knocked Out", 1, reason="critical hit table row 13"),
    ]
    assert not after.combatant("gob").active


def test_choose_row_still_rolls_the_rows_own_1d4() -> None:
    state = table_on(4)
    after, events = execute(state, ChooseCriticalRow("critical_fail", "ayla", 15))
    assert isinstance(events[1], AbilityDamaged) and events[1].amount == 4
    assert after.combatant("ayla").abilities.strength == 3 - 4
    assert replay(state, events).state_hash() == after.state_hash()


def test_choose_row_works_with_tables_off_and_out_of_turn() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1))
    after, _ = execute(state, ChooseCriticalRow("critical_fail", "gob", 6))
    assert after.combatant("gob").broken == ("armour",)


def test_choose_row_names_the_weapon_to_break() -> None:
    state = table_on()
    after, events = execute(state, ChooseCriticalRow("critical_hit", "gob", 10, "shortbow"))
    assert events[1:] == [ItemBroken("gob", "shortbow", reason="critical hit table row 10")]
    assert after.combatant("gob").broken == ("shortbow",)


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (ChooseCriticalRow("critical_miss", "gob", 4), "invalid_command"),
        (ChooseCriticalRow("critical_hit", "gob", 0), "invalid_command"),
        (ChooseCriticalRow("critical_fail", "gob", 21), "invalid_command"),
        (ChooseCriticalRow("critical_hit", "nobody", 4), "unknown_combatant"),
        (ChooseCriticalRow("critical_hit", "gob", 10, "halberd"), "unknown_weapon"),
    ],
)
def test_choose_row_refusals_change_nothing(command: ChooseCriticalRow, code: str) -> None:
    state = table_on(3)
    before = state.state_hash()
    with pytest.raises(CommandRefused) as refused:
        decide(state, command)
    assert refused.value.code == code
    assert state.state_hash() == before


def test_choose_row_is_refused_outside_combat() -> None:
    # A critical happens in a fight: before combat starts there is none to replace.
    setup = evolve(table_on(3), phase=Phase.SETUP, round=0, turn_order=())
    before = setup.state_hash()
    with pytest.raises(CommandRefused) as refused:
        decide(setup, ChooseCriticalRow("critical_hit", "gob", 5))
    assert refused.value.code == "wrong_phase"
    assert setup.state_hash() == before
