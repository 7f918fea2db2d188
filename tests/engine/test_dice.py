"""Dice expressions, dice sources and the roll breakdown."""

from __future__ import annotations

import pytest

from server.engine.dice import DiceCup, DiceExpressionError, parse
from server.engine.rng import DiceScriptError, ScriptedDice, SeededDice


@pytest.mark.parametrize(
    ("text", "groups", "flat"),
    [
        ("1d20+5", [(1, 20, False)], 5),
        ("2d6+3", [(2, 6, False)], 3),
        ("d20", [(1, 20, False)], 0),
        ("3d4-1", [(3, 4, False)], -1),
        ("1d8 + 1d6 - 2", [(1, 8, False), (1, 6, False)], -2),
        ("2d6-1d4", [(2, 6, False), (1, 4, True)], 0),
    ],
)
def test_parse_reads_dice_and_flat_bonus(
    text: str, groups: list[tuple[int, int, bool]], flat: int
) -> None:
    expr = parse(text)
    assert [(g.count, g.sides, g.negative) for g in expr.groups] == groups
    assert expr.flat == flat


@pytest.mark.parametrize("text", ["", "1d", "2x6", "1d20+", "d0", "1d20 5", "abc"])
def test_unreadable_expressions_are_refused(text: str) -> None:
    with pytest.raises(DiceExpressionError):
        parse(text)


def test_roll_breakdown_names_every_face_and_modifier() -> None:
    cup = DiceCup(ScriptedDice((14,)))
    roll = cup.d20((("Strength", 3), ("Training", 2)))
    assert roll.total == 19
    assert roll.describe() == "d20 14 + Strength 3 + Training 2 = 19"


def test_critical_multiplies_the_dice_not_the_bonuses() -> None:
    """V4: mult * dice + flat."""
    cup = DiceCup(ScriptedDice((3, 5)))
    roll = cup.roll("2d6+5", (("Training", 1),), multiplier=3)
    assert roll.total == 3 * (3 + 5) + 5 + 1
    assert roll.describe() == "3x(2d6 3+5) + bonus 5 + Training 1 = 30"


def test_seeded_dice_replay_the_same_faces_and_stay_in_range() -> None:
    a = SeededDice(7).faces(6, 1000)
    assert a == SeededDice(7).faces(6, 1000)
    assert set(a) == {1, 2, 3, 4, 5, 6}
    assert SeededDice(8).faces(6, 50) != SeededDice(7).faces(6, 50)


def test_advancing_a_source_continues_its_sequence() -> None:
    source = SeededDice(3)
    assert source.advanced(4).faces(20, 3) == source.faces(20, 7)[4:]


def test_a_cup_reads_without_changing_its_source() -> None:
    source = SeededDice(11)
    cup = DiceCup(source)
    first = cup.roll("3d6")
    assert source.position == 0
    assert cup.used == 3
    assert first.dice[0].faces == source.faces(6, 3)


def test_script_refuses_impossible_faces_and_running_out() -> None:
    with pytest.raises(DiceScriptError):
        DiceCup(ScriptedDice((7,))).roll("1d6")
    with pytest.raises(DiceScriptError):
        DiceCup(ScriptedDice((1,))).roll("2d6")
