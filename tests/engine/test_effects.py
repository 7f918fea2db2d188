"""The conditions table as data (Verse V27, World of Tael TR40): how an entry's changes
make a number, and the checks that list every problem of an entry."""

from __future__ import annotations

import pytest

from server.engine.effects import (
    MAX_NUMBER,
    Change,
    ConditionRule,
    SaveEnds,
    changed_value,
    greatest_value,
    immune,
    losing,
    roll_bonuses,
    rule_problems,
    table_problems,
    vocabulary,
    with_rule,
    without_rule,
)

PRONE = ConditionRule(
    "Prone",
    (
        Change("attack", "add", -2),
        Change("attack.melee", "add", -1),
        Change("defence.pd", "add", -2),
        Change("speed", "multiply", 0.5),
    ),
)
SLOWED = ConditionRule("Slowed", (Change("speed", "add", -10), Change("speed", "upgrade", 10)))
ROOTED = ConditionRule("Rooted", (Change("speed", "override", 0),), loses=("move",))
TABLE = (PRONE, SLOWED, ROOTED)


def test_a_roll_bonus_names_each_condition_with_the_sum_of_its_changes() -> None:
    assert roll_bonuses(TABLE, ["Prone"], ("attack", "attack.melee")) == (("Prone", -3),)
    assert roll_bonuses(TABLE, ["Prone"], ("attack", "attack.ranged")) == (("Prone", -2),)
    assert roll_bonuses(TABLE, ["Slowed", "Shaken"], ("attack",)) == ()
    assert roll_bonuses((), ["Prone"], ("attack",)) == ()


def test_names_match_whatever_their_case_and_a_condition_counts_once() -> None:
    assert roll_bonuses(TABLE, ["prone", "PRONE"], ("attack",)) == (("prone", -2),)


def test_modes_apply_in_foundrys_order_whatever_the_order_of_the_conditions() -> None:
    """Multiply (rounded down), then add, then downgrade and upgrade, then override."""
    assert changed_value(TABLE, ["Slowed", "Prone"], ("speed",), 25) == (
        10,
        (("Slowed", -2), ("Prone", -13)),
    )  # 25 * 0.5 = 12 (rounded down), -10 = 2, at least 10: Slowed -10 + 8
    # 30 * 0.5 = 15, then -10 = 5, at least 10 = 10, then exactly 0: each condition is
    # named with what its own changes did, in the order the combatant gained them.
    assert changed_value(TABLE, ["Prone", "Rooted", "Slowed"], ("speed",), 30) == (
        0,
        (("Prone", -15), ("Rooted", -10), ("Slowed", -5)),
    )


@pytest.mark.parametrize(
    ("base", "value", "made"),
    [(25, 1.16, 29), (100, 1.1, 110), (10, 0.7, 7), (3, 0.1, 0), (7, 2.5, 17), (13, 0.5, 6)],
)
def test_a_factor_multiplies_exactly_as_written_then_rounds_down(
    base: int, value: float, made: int
) -> None:
    """R82: 25 x 1.16 is 29 (a binary float makes it 28.999... and rounds it to 28)."""
    table = (ConditionRule("Grown", (Change("speed", "multiply", value),)),)
    assert changed_value(table, ["Grown"], ("speed",), base) == (made, (("Grown", made - base),))


def test_a_number_no_condition_changes_stays_and_names_nobody() -> None:
    assert changed_value(TABLE, ["Prone"], ("defence.sd",), 12) == (12, ())
    assert changed_value(TABLE, [], ("speed",), 30) == (30, ())
    assert changed_value(TABLE, ["Prone"], ("defence.pd",), 12) == (10, (("Prone", -2),))


def stacked(prefix: str, count: int, *changes: Change) -> tuple[ConditionRule, ...]:
    """`count` conditions, each with `changes`: the most a valid table can stack."""
    return tuple(ConditionRule(f"{prefix}{i}", changes) for i in range(count))


def test_stacked_changes_make_no_number_past_a_million() -> None:
    """R82: a hundred conditions each multiplying a PD by 10 twenty times would make
    10**2000; the number stops at 1,000,000, the first condition named with all of it.
    Each step is kept in the range, so what follows starts from there."""
    giants = stacked("Giant", 100, *(Change("defence.pd", "multiply", 10),) * 20)
    names = [rule.name for rule in giants]
    assert changed_value(giants, names, ("defence.pd",), 12) == (1_000_000, (("Giant0", 999_988),))
    sinking = stacked("Sink", 100, *(Change("defence.pd", "add", -1000),) * 20)
    value, changes = changed_value(sinking, [r.name for r in sinking], ("defence.pd",), 12)
    assert value == -MAX_NUMBER
    assert sum(by for _, by in changes) == -MAX_NUMBER - 12
    shrunk = (*giants, ConditionRule("Small", (Change("defence.pd", "add", -5),)))
    assert changed_value(shrunk, [*names, "Small"], ("defence.pd",), 12)[0] == 999_995


def test_the_bonuses_to_one_roll_add_up_to_a_million_at_most() -> None:
    """R82: a hundred conditions of twenty +1000 each (2,000,000 in all): the first
    fifty are named with +20,000 each, the rest with nothing."""
    blessed = stacked("Blessed", 100, *(Change("attack", "add", 1000),) * 20)
    bonuses = roll_bonuses(blessed, [rule.name for rule in blessed], ("attack",))
    assert bonuses == tuple((f"Blessed{i}", 20_000) for i in range(50))
    cursed = stacked("Cursed", 100, *(Change("attack", "add", -1000),) * 20)
    assert sum(v for _, v in roll_bonuses(cursed, [r.name for r in cursed], ("attack",))) == (
        -MAX_NUMBER
    )


def test_the_most_a_table_could_make_of_a_number_stays_in_range() -> None:
    """R78 counts the most a table could make of a speed (`greatest_value`): every
    factor above 1 and every bonus, exactly and within 1,000,000 (R82)."""
    fast = [Change("speed", "multiply", 10.0)] * 2000
    assert greatest_value(fast, 30) == 1_000_000
    assert greatest_value([*fast, Change("speed", "override", 1000)], 30) == 1_000_000
    assert greatest_value([Change("speed", "multiply", 1.5), Change("speed", "add", 5)], 30) == 50
    assert greatest_value([], 2_000_000) == 2_000_000  # a number no change touches stays


@pytest.mark.parametrize("mode", ["multiply", "add", "override"])
@pytest.mark.parametrize("value", [10**400, -(10**400), 2**63, 1e300])
def test_a_value_of_any_size_is_refused_with_its_bounds_not_a_crash(
    mode: str, value: float
) -> None:
    problems = rule_problems(
        vocabulary("verse"), ConditionRule("X", (Change("speed", mode, value),))
    )
    bounds = "a factor from 0 to 10" if mode == "multiply" else "from -1000 to 1000"
    assert problems == [f"changes[0].value: {bounds}"]


def test_a_lost_action_names_its_condition() -> None:
    assert losing(TABLE, ["Prone", "Rooted"], "move") == "Rooted"
    assert losing(TABLE, ["Prone"], "move") == ""


def test_immunities_match_whatever_the_case() -> None:
    assert immune(("poisoned", "Prone"), "Poisoned")
    assert not immune(("Prone",), "Bleed")


def test_the_gm_replaces_an_entry_in_place_or_adds_it_and_takes_it_out() -> None:
    shaken = ConditionRule("shaken", (Change("attack", "add", -1),))
    assert with_rule(TABLE, ConditionRule("slowed")) == (PRONE, ConditionRule("slowed"), ROOTED)
    assert with_rule(TABLE, shaken) == (*TABLE, shaken)
    assert without_rule(TABLE, "SLOWED") == (PRONE, ROOTED)


def test_a_good_entry_of_each_ruleset_has_no_problem() -> None:
    verse = ConditionRule(
        "Bleed",
        (Change("resistance.pr", "multiply", 0.5), Change("save.constitution", "add", -1)),
        loses=("swift", "reactions"),
        damage="1d4",
        drain=(("constitution", "1"),),
        rounds=3,
        save=SaveEnds("constitution", 12),
        text="bleeds",
    )
    assert rule_problems(vocabulary("verse"), verse) == []
    tael = ConditionRule(
        "Burning",
        (Change("save.agility", "add", 1), Change("defence.dv", "downgrade", 10)),
        loses=("turn",),
        damage="2",
        save=SaveEnds("agility", 12),
    )
    assert rule_problems(vocabulary("tael"), tael) == []


def test_every_problem_of_an_entry_is_listed_with_its_place() -> None:
    bad = ConditionRule(
        " Prone",
        (
            Change("defence.dv", "add", -2),
            Change("attack", "multiply", 2),
            Change("speed", "times", 2),
            Change("speed", "add", 0.5),
            Change("speed", "multiply", -1),
            Change("sight", "override", True),
        ),
        loses=("turn", "swift", "swift"),
        damage="1d",
        drain=(("luck", "1"), ("strength", "-1")),
        rounds=2,
        turns=1,
        save=SaveEnds("willpower", 0),
    )
    assert rule_problems(vocabulary("verse"), bad) == [
        "name: a condition's name has no spaces at its ends",
        "changes[0].key: 'defence.dv' is not a Verse key; the keys are attack, attack.melee, "
        "attack.natural, attack.ranged, attack.thrown, attack.spell, save, save.strength, "
        "save.dexterity, save.constitution, save.sanity, save.intellect, save.empathy, "
        "perception, defence.pd, defence.sd, resistance.pr, resistance.sr, speed, sight",
        "changes[1].mode: attack is a bonus to a roll: its mode is add",
        "changes[2].mode: 'times' is not one of multiply, add, downgrade, upgrade, override",
        "changes[3].value: a whole number (only multiply takes a fraction)",
        "changes[4].value: a factor from 0 to 10",
        "changes[5].value: a number",
        "loses[0]: 'turn' is not one of standard, move, swift, reactions",
        "loses[2]: 'swift' is named twice",
        "damage: cannot read dice expression '1d' at 'd'",
        "drain.luck: not one of strength, dexterity, constitution, sanity, intellect, empathy",
        "drain.strength: '-1': no negative terms (it is an amount lost)",
        "turns: give rounds or turns, not both",
        "save.ability: 'willpower' is not one of strength, dexterity, constitution, sanity, "
        "intellect, empathy",
        "save.dc: a whole number from 1 to 100",
    ]


def test_a_tael_table_gives_no_duration_and_drains_nothing() -> None:
    bad = ConditionRule("Frozen", drain=(("strength", "1"),), turns=2, loses=("standard",))
    assert rule_problems(vocabulary("tael"), bad) == [
        "loses[0]: 'standard' is not one of turn, action, bonus, preparation",
        "drain.strength: World of Tael has no ability damage",
        "turns: a World of Tael status lasts the turns its spell or the GM gives it; "
        "a table cannot give it a duration",
    ]


@pytest.mark.parametrize("name", ["", "x" * 61, "Bleed\n"])
def test_a_condition_needs_a_name(name: str) -> None:
    assert rule_problems(vocabulary("verse"), ConditionRule(name))[0].startswith("name: ")


def test_a_table_names_each_condition_once() -> None:
    problems = table_problems(vocabulary("verse"), (PRONE, ConditionRule("PRONE")))
    assert problems == ["PRONE: the same condition as 'Prone'"]
