"""Dice expressions, dice sources and the roll breakdown."""

from __future__ import annotations

import hashlib
import struct
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine.dice import (
    MAX_DICE,
    MAX_FLAT,
    MAX_SIDES,
    MAX_TERMS,
    MAX_TEXT,
    DiceCup,
    DiceExpressionError,
    DiceResult,
    parse,
)
from server.engine.records import from_data, to_data
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


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "1" * 5000,
            "dice expression '" + "1" * 60 + "'... is 5000 characters long: at most 100",
        ),
        (
            "+".join(["1d4"] * 3000),
            "dice expression '" + ("1d4+" * 15) + "'... is 11999 characters long: at most 100",
        ),
        (
            "+".join(["1"] * 21),
            "dice expression '" + "+".join(["1"] * 21) + "' has more than 20 terms",
        ),
        ("1000d6+1d6", "dice expression '1000d6+1d6' rolls more than 1000 dice"),
        ("1001d6", "dice expression '1001d6': 1001d6 is outside 1..1000 dice of 1..1000 sides"),
        ("1d1001", "dice expression '1d1001': 1d1001 is outside 1..1000 dice of 1..1000 sides"),
        (
            "1" + "0" * 30,
            "dice expression '1" + "0" * 30 + "': 1" + "0" * 30 + " is more than 1000",
        ),
        ("1d4-1001", "dice expression '1d4-1001': 1001 is more than 1000"),
    ],
    ids=[
        "5000 digits",
        "3000 terms",
        "21 terms",
        "1001 dice",
        "a group of 1001",
        "1001 sides",
        "10**30",
        "-1001",
    ],
)
def test_an_expression_past_its_bounds_is_refused_saying_which(text: str, message: str) -> None:
    """R82: a text of any length or shape is read at once or refused with what is wrong
    (a DiceExpressionError), never a ValueError of Python's own or a RecursionError."""
    with pytest.raises(DiceExpressionError) as refused:
        parse(text)
    assert str(refused.value) == message


def test_an_expression_at_its_bounds_is_read_and_rolled() -> None:
    """100 characters, 20 terms, 1000 dice of 1000 sides, whole numbers of 1000."""
    widest = "500d1000+500d1000" + "+1000" * 16
    assert len(widest) <= MAX_TEXT
    expr = parse(widest)
    assert (len(expr.groups), expr.dice_count, expr.flat) == (2, MAX_DICE, 16 * MAX_FLAT)
    roll = DiceCup(SeededDice(3)).roll(widest)
    assert roll.dice_used == MAX_DICE
    assert MAX_DICE + 16_000 <= roll.total <= MAX_DICE * MAX_SIDES + 16_000
    many = "+".join(["16d4"] * MAX_TERMS)  # 20 groups of 16 dice: the longest rolled line
    assert DiceCup(SeededDice(3)).roll(many).dice_used == 320
    assert len(parse("  1d4  ").groups) == 1


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789dD+- x", max_size=300))
def test_any_text_is_read_or_refused_never_failing_otherwise(text: str) -> None:
    try:
        expr = parse(text)
    except DiceExpressionError:
        return
    assert len(text) <= MAX_TEXT and expr.dice_count <= MAX_DICE
    assert len(expr.groups) <= MAX_TERMS and abs(expr.flat) <= MAX_TERMS * MAX_FLAT
    DiceCup(SeededDice(1)).roll(text)


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


def _spec_faces(seed: int, sides: int, start: int, count: int) -> tuple[int, ...]:
    """`SeededDice` as its docstring defines it, computed from scratch with hashlib."""
    faces = []
    for n in range(start, start + count):
        digest = hashlib.blake2b(struct.pack("<QQ", seed & (2**64 - 1), n // 16)).digest()
        faces.append(struct.unpack("<16L", digest)[n % 16] % sides + 1)
    return tuple(faces)


def test_seeded_faces_follow_the_documented_stream_forever() -> None:
    """Same seed and position, same faces: pinned, so a change to the stream fails here."""
    assert SeededDice(7).faces(20, 8) == (4, 17, 6, 8, 6, 4, 2, 17)
    assert SeededDice(7, 10**6).faces(6, 5) == (6, 6, 1, 2, 5)
    for seed, position in [(7, 0), (1, 13), (2**70, 3), (-5, 250)]:
        source = SeededDice(seed, position)
        assert source.faces(20, 40) == _spec_faces(seed, 20, position, 40)
        assert source.faces(1000, 3, 17) == _spec_faces(seed, 1000, position + 17, 3)
        assert source.face(8, 21) == _spec_faces(seed, 8, position + 21, 1)[0]


def test_seeded_faces_are_uniform() -> None:
    """Pearson's chi-square against a fair die stays below its 0.1% critical value."""
    for seed, sides, rolls, critical in [(1, 6, 60_000, 20.5), (2, 20, 100_000, 43.8)]:
        counts = Counter(SeededDice(seed).faces(sides, rolls))
        assert sorted(counts) == list(range(1, sides + 1))
        expected = rolls / sides
        assert sum((n - expected) ** 2 / expected for n in counts.values()) < critical


ROLLED = ["1d20+5", "2d6+3", "1d8+1d6+2", "4d6", "3d4-1", "2d6-1d4", "-1d6+3", "-2d6+1d3-1",
          "20d6", "17d3+1d100-2", "2d65", "1d1", "1000d1000", "5", "1d8-1d8"]  # fmt: skip


@pytest.mark.parametrize("position", [0, 15, 16, 250])
def test_a_cup_rolls_the_faces_its_source_gives(position: int) -> None:
    """Faces read from the cup's loaded blocks are the source's faces, roll after roll."""
    source = SeededDice(9, position)
    cup = DiceCup(source)
    for i in range(300):  # long enough to cross many blocks and load several at once
        text = ROLLED[i % len(ROLLED)]
        expr = parse(text)
        before = cup.used
        roll = cup.roll(text if i % 2 else expr, (("Training", 2),), 1 + i % 3)
        drawn = before
        for group, result in zip(expr.groups, roll.dice, strict=True):
            assert result == DiceResult(
                group.sides, source.faces(group.sides, group.count, drawn), group.negative
            )
            drawn += group.count
        dice = sum(-sum(r.faces) if r.negative else sum(r.faces) for r in roll.dice)
        assert roll.total == (1 + i % 3) * dice + expr.flat + 2
        assert cup.used == drawn == before + roll.dice_used
        d20 = cup.d20()
        assert d20.natural == d20.total == source.face(20, drawn)
    assert source == SeededDice(9, position)


def test_a_seeded_roll_equals_the_same_faces_scripted() -> None:
    """The compiled fast path and the face-by-face path build equal records."""
    for text in ROLLED:
        expr = parse(text)
        seeded = DiceCup(SeededDice(3, 14)).roll(text, (("Strength", 3),), 2)
        script = tuple(face for result in seeded.dice for face in result.faces)
        scripted = DiceCup(ScriptedDice(script)).roll(expr, (("Strength", 3),), 2)
        assert seeded == scripted
        assert seeded.describe() == scripted.describe()
        assert from_data(to_data(seeded)) == seeded


def test_an_expression_scaled_by_zero_rolls_no_dice() -> None:
    cup = DiceCup(SeededDice(4))
    roll = cup.roll(parse("2d6+1").scaled(0))
    assert roll.dice == (DiceResult(6, ()),)
    assert (roll.total, roll.dice_used, cup.used) == (0, 0, 0)
