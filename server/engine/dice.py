"""Dice expressions and rolls with their full breakdown.

Every roll the engine makes is recorded as a `Roll`: each die face, each named
modifier, the critical multiplier and the total. Events carry these records so that
a client can print "d20 14 + Strength 3 + Training 2 = 19 vs PD 15: hit" and a log
replays without rolling again (ARCHITECTURE, "apply never rolls").
"""

from __future__ import annotations

import re

from server.engine.records import record
from server.engine.rng import DiceSource

_TERM = re.compile(r"\s*([+-])?\s*(?:(\d*)\s*[dD]\s*(\d+)|(\d+))\s*")
MAX_DICE = 1000
MAX_SIDES = 1000


class DiceExpressionError(ValueError):
    """A dice expression that cannot be read, such as `1d` or `2x6`."""


@record
class DiceGroup:
    """`count` dice of `sides` sides, added (or subtracted when `negative`)."""

    count: int
    sides: int
    negative: bool = False


@record
class DiceExpression:
    """A parsed expression such as `2d6+3`: dice groups plus a flat bonus."""

    text: str
    groups: tuple[DiceGroup, ...]
    flat: int

    dice_count: int = 0  # how many dice in all: `parse` fills it in
    single_die: int = 0  # the sides when the expression is exactly one die, else 0
    flat_modifiers: tuple[tuple[str, int], ...] = ()  # `(("bonus", flat),)` unless 0

    def scaled(self, count: int) -> DiceExpression:
        """The same dice `count` times over (`1d4` scaled by 3 is `3d4`): Spell Dice."""
        groups = tuple(DiceGroup(g.count * count, g.sides, g.negative) for g in self.groups)
        return _expression(_render(groups, self.flat * count), groups, self.flat * count)


def _expression(text: str, groups: tuple[DiceGroup, ...], flat: int) -> DiceExpression:
    single = groups[0].sides if len(groups) == 1 and groups[0].count == 1 else 0
    if groups and groups[0].negative:
        single = 0
    return DiceExpression(
        text,
        groups,
        flat,
        sum(g.count for g in groups),
        single,
        (("bonus", flat),) if flat else (),
    )


def _render(groups: tuple[DiceGroup, ...], flat: int) -> str:
    parts = []
    for g in groups:
        parts.append(("-" if g.negative else "+") + f"{g.count}d{g.sides}")
    if flat:
        parts.append(f"{flat:+d}")
    text = "".join(parts)
    return text[1:] if text.startswith("+") else text


_PARSED: dict[str, DiceExpression] = {}
_PARSED_KEPT = 4096


def parse(text: str) -> DiceExpression:
    """Read `NdS` terms and whole numbers joined by `+` and `-` (`1d20+5`, `2d6-1+1d4`)."""
    found = _PARSED.get(text)
    if found is None:
        if len(_PARSED) >= _PARSED_KEPT:
            _PARSED.clear()
        found = _PARSED[text] = _parse(text)
    return found


def _parse(text: str) -> DiceExpression:
    pos = 0
    groups: list[DiceGroup] = []
    flat = 0
    first = True
    source = text.strip()
    if not source:
        raise DiceExpressionError("empty dice expression")
    while pos < len(source):
        match = _TERM.match(source, pos)
        if not match or match.end() == pos or (not first and not match.group(1)):
            raise DiceExpressionError(f"cannot read dice expression {text!r} at {source[pos:]!r}")
        sign, count, sides, number = match.groups()
        negative = sign == "-"
        if sides is not None:
            n = int(count) if count else 1
            s = int(sides)
            if not 1 <= n <= MAX_DICE or not 1 <= s <= MAX_SIDES:
                raise DiceExpressionError(
                    f"dice expression {text!r}: {n}d{s} is outside 1..{MAX_DICE} dice "
                    f"of 1..{MAX_SIDES} sides"
                )
            groups.append(DiceGroup(n, s, negative))
        else:
            flat += -int(number) if negative else int(number)
        pos = match.end()
        first = False
    return _expression(text, tuple(groups), flat)


@record
class DiceResult:
    """The faces one group of dice showed."""

    sides: int
    faces: tuple[int, ...]
    negative: bool = False


@record
class Roll:
    """One roll with its breakdown: `multiplier * dice + modifiers = total` (Verse V4).

    `modifiers` are named (`("Strength", 3)`), so the breakdown reads like the rule.
    """

    dice: tuple[DiceResult, ...]
    modifiers: tuple[tuple[str, int], ...]
    total: int
    multiplier: int = 1
    dice_used: int = 1  # how many faces the roll drew from the dice source

    @property
    def natural(self) -> int:
        """The first face rolled: the natural d20 of a check."""
        return self.dice[0].faces[0]

    def describe(self) -> str:
        """`d20 14 + Strength 3 + Training 2 = 19`; `2x(2d6 3+5) + Training 1 = 17`."""
        parts: list[str] = []
        for d in self.dice:
            name = f"d{d.sides}" if len(d.faces) == 1 else f"{len(d.faces)}d{d.sides}"
            faces = "+".join(str(f) for f in d.faces)
            parts.append(("- " if d.negative and parts else "") + f"{name} {faces}")
        dice_text = " + ".join(parts) if parts else "0"
        if self.multiplier != 1:
            dice_text = f"{self.multiplier}x({dice_text})"
        for name, value in self.modifiers:
            dice_text += f" {'-' if value < 0 else '+'} {name} {abs(value)}"
        return f"{dice_text} = {self.total}"


class DiceCup:
    """Rolls dice during one `decide` call, counting the faces it has drawn.

    The cup never changes the source it was given; events record every face, and
    `apply` advances the encounter's source by the faces each event records.
    """

    __slots__ = ("source", "used")

    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self.used = 0

    def roll(
        self,
        expression: str | DiceExpression,
        modifiers: tuple[tuple[str, int], ...] = (),
        multiplier: int = 1,
    ) -> Roll:
        """Roll `expression`; the dice (not the modifiers) are multiplied (Verse V4)."""
        expr = parse(expression) if expression.__class__ is str else expression
        assert isinstance(expr, DiceExpression)
        mods = expr.flat_modifiers + modifiers if expr.flat else modifiers
        sides = expr.single_die
        if sides:
            # One die (a weapon's Damage Die): the common case, without the loop.
            face = self.source.face(sides, self.used)
            self.used += 1
            total = multiplier * face
            for _, value in mods:
                total += value
            return Roll((_single(sides, face),), mods, total, multiplier, 1)
        results = []
        dice_total = 0
        for group in expr.groups:
            faces = self.source.faces(group.sides, group.count, self.used)
            self.used += group.count
            results.append(DiceResult(group.sides, faces, group.negative))
            dice_total += -sum(faces) if group.negative else sum(faces)
        total = multiplier * dice_total
        for _, value in mods:
            total += value
        return Roll(tuple(results), mods, total, multiplier, expr.dice_count)

    def d20(self, modifiers: tuple[tuple[str, int], ...] = ()) -> Roll:
        """A d20 check or attack: the commonest roll, without parsing."""
        face = self.source.face(20, self.used)
        self.used += 1
        total = face
        for _, value in modifiers:
            total += value
        return Roll((_single(20, face),), modifiers, total, 1, 1)


_SINGLES: dict[tuple[int, int], DiceResult] = {}


def _single(sides: int, face: int) -> DiceResult:
    """The result of one die: immutable, so each `(sides, face)` is built only once."""
    key = (sides, face)
    found = _SINGLES.get(key)
    if found is None:
        found = _SINGLES[key] = DiceResult(sides, (face,))
    return found
