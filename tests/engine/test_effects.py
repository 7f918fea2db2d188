"""The conditions table as data (Verse V27, World of Tael TR40): how an entry's changes
make a number, and the checks that list every problem of an entry."""

from __future__ import annotations

import json

import msgpack
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
from server.engine.records import to_data

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


def test_a_conditions_dice_are_bounded_for_each_round() -> None:
    """R82: damage and each drain roll at most 100 dice a round (a dice text at most
    1000), a drain takes at most 100 points a round; each problem named in place."""
    verse = vocabulary("verse")
    good = ConditionRule("Bleed", damage="100d4+1000", drain=(("strength", "20d4+20"),))
    assert rule_problems(verse, good) == []
    bad = ConditionRule(
        "Bleed",
        damage="60d4+41d4",
        drain=(
            ("strength", "1" + "0" * 30),
            ("dexterity", "101"),
            ("sanity", "+".join(["1"] * 21)),
        ),
    )
    assert rule_problems(verse, bad) == [
        "damage: '60d4+41d4': at most 100 dice a round",
        "drain.strength: dice expression '1" + "0" * 30 + "': 1" + "0" * 30 + " is more than 1000",
        "drain.dexterity: '101' may drain 101 points: at most 100 a round",
        "drain.sanity: dice expression '" + "+".join(["1"] * 21) + "' has more than 20 terms",
    ]


def test_a_list_longer_than_the_words_it_may_name_is_one_problem() -> None:
    verse = vocabulary("verse")
    flood = ConditionRule(
        "Flood",
        loses=("move",) * 10_000,
        drain=tuple(("strength", "1") for _ in range(10_000)),
    )
    problems = rule_problems(verse, flood)
    assert problems[0] == "loses: at most 4 words, each once"
    assert "drain: at most 6 abilities, each once" in problems
    assert len(problems) < 20


def test_the_largest_table_allowed_stays_small_enough_to_send() -> None:
    """R82: a hundred entries, every field at its longest, make a table of well under
    a megabyte, so a snapshot or a `ConditionRuleChanged` always reaches its clients
    (whose frames may be 4 MiB, docs/protocol.md)."""
    verse = vocabulary("verse")
    table = tuple(
        ConditionRule(
            f"{i:03d}" + "é" * 57,
            tuple(Change("resistance.pr", "multiply", 0.123456789) for _ in range(20)),
            ("standard", "move", "swift", "reactions"),
            "+".join(["5d10"] * 19) + "+1",
            tuple((ability, "10d10") for ability in verse.drains),
            1000,
            0,
            SaveEnds("constitution", 100),
            "\U0001f409" * 500,
        )
        for i in range(100)
    )
    assert table_problems(verse, table) == []
    data = to_data(table)
    assert len(msgpack.packb(data)) < 1024 * 1024
    assert len(json.dumps(data).encode()) < 1024 * 1024


@pytest.mark.parametrize("name", ["", "x" * 61, "Bleed\n"])
def test_a_condition_needs_a_name(name: str) -> None:
    assert rule_problems(vocabulary("verse"), ConditionRule(name))[0].startswith("name: ")


def test_a_table_names_each_condition_once() -> None:
    problems = table_problems(vocabulary("verse"), (PRONE, ConditionRule("PRONE")))
    assert problems == ["PRONE: the same condition as 'Prone'"]
