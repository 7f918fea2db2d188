"""Dice expressions and rolls with their full breakdown.

Every roll the engine makes is recorded as a `Roll`: each die face, each named
modifier, the critical multiplier and the total. Events carry these records so that
a client can print "d20 14 + Strength 3 + Training 2 = 19 vs PD 15: hit" and a log
replays without rolling again (ARCHITECTURE, "apply never rolls").
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from server.engine.records import record
from server.engine.rng import DiceSource, SeededDice, stream_words

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

    Speed (the engine's budget is a fraction of a microsecond per roll): from a
    `SeededDice` the cup keeps the block of raw words it is drawing from
    (`rng.stream_words`, words `lo..hi` counted in faces this cup has used) and reads
    each face straight from it; crossing a block boundary loads the next block. Each
    expression is compiled once into straight-line code for its dice (`_compile`).
    Other sources (`ScriptedDice`) are read face by face through `DiceSource.faces`.
    Every roll draws fresh faces; only immutable pieces (a die's `DiceResult` for each
    face) are shared between rolls.
    """

    __slots__ = ("_hi", "_lo", "_used", "_words", "source")

    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self._used = 0
        self._words: tuple[int, ...] = ()  # raw words of a SeededDice, see `_load`
        self._lo = 0  # `_words[0]` is the word of face `_lo` (counted like `used`)
        self._hi = 0  # faces below `_hi` are in `_words`; 0 until a SeededDice is loaded

    @property
    def used(self) -> int:
        """How many faces this cup has drawn: `apply` advances the source by as many."""
        return self._used

    def _load(self, end: int) -> bool:
        """Load the words of faces `used .. end-1` from a `SeededDice`; False for others."""
        source = self.source
        if source.__class__ is not SeededDice:
            return False
        assert isinstance(source, SeededDice)
        position = source.position
        first = (position + self._used) >> 3
        last = (position + end - 1) >> 3
        self._words = stream_words(source.seed, first, last)
        self._lo = (first << 3) - position
        self._hi = ((last + 1) << 3) - position
        return True

    def roll(
        self,
        expression: str | DiceExpression,
        modifiers: tuple[tuple[str, int], ...] = (),
        multiplier: int = 1,
    ) -> Roll:
        """Roll `expression`; the dice (not the modifiers) are multiplied (Verse V4)."""
        roller = _ROLLERS.get(expression)
        if roller is None:
            roller = _roller(expression)
        return roller(self, modifiers, multiplier)

    def _roll_slowly(
        self,
        expr: DiceExpression,
        roller: _Roller,
        modifiers: tuple[tuple[str, int], ...],
        multiplier: int,
    ) -> Roll:
        """A roll whose faces are not in the loaded block: load them, or ask the source."""
        if self._load(self._used + expr.dice_count):
            return roller(self, modifiers, multiplier)
        mods = expr.flat_modifiers + modifiers if expr.flat else modifiers
        results = []
        dice_total = 0
        for group in expr.groups:
            faces = self.source.faces(group.sides, group.count, self._used)
            self._used += group.count
            results.append(DiceResult(group.sides, faces, group.negative))
            dice_total += -sum(faces) if group.negative else sum(faces)
        total = multiplier * dice_total
        for _, value in mods:
            total += value
        return Roll(tuple(results), mods, total, multiplier, expr.dice_count)

    def d20(self, modifiers: tuple[tuple[str, int], ...] = ()) -> Roll:
        """A d20 check or attack: the commonest roll, without parsing."""
        n = self._used
        if n < self._hi or self._load(n + 1):
            x = self._words[n - self._lo] % 20  # the face less one
        else:
            x = self.source.face(20, n) - 1
        self._used = n + 1
        total = x + 1
        for _, value in modifiers:
            total += value
        made: Any = _new(Roll)  # Roll's own fields, without its __init__: see `_compile`
        made.dice = _D20[x]
        made.modifiers = modifiers
        made.total = total
        made.multiplier = 1
        made.dice_used = 1
        roll: Roll = made
        return roll


_Roller = Callable[[DiceCup, tuple[tuple[str, int], ...], int], Roll]
_ROLLERS: dict[str | DiceExpression, _Roller] = {}
_ROLLERS_KEPT = 4096
_UNROLLED = 16  # groups of up to this many dice get one line per die
_new = object.__new__

# The compiled rollers build records without calling their __init__ (a third of a
# roll's cost): they set exactly these fields, so a new field must be added there too.
assert [f.name for f in dataclasses.fields(Roll)] == [
    "dice",
    "modifiers",
    "total",
    "multiplier",
    "dice_used",
]
assert [f.name for f in dataclasses.fields(DiceResult)] == ["sides", "faces", "negative"]


def _roller(expression: str | DiceExpression) -> _Roller:
    """The compiled roller of `expression`, made on first use and then kept."""
    found = _ROLLERS.get(expression)
    if found is None:
        expr = parse(expression) if isinstance(expression, str) else expression
        if len(_ROLLERS) >= _ROLLERS_KEPT:
            _ROLLERS.clear()
        found = _ROLLERS[expression] = _compile(expr)
    return found


def _compile(expr: DiceExpression) -> _Roller:
    """Straight-line code that rolls `expr` from the cup's loaded block.

    For `1d8+1d6+2` it reads two words `w[o]`, `w[o + 1]`, takes each modulo its
    die's sides, and builds the `Roll` with the shared one-die results `d8 x`,
    `d6 y`: no loop over groups, no parsing, no tuple built twice. Faces are
    exactly those of `SeededDice.faces` (word `% sides + 1`); when the block does
    not hold them, or the source is not a `SeededDice`, `DiceCup._roll_slowly` runs.
    """
    count = expr.dice_count
    namespace: dict[str, Any] = {"expr": expr, "new": _new, "Roll": Roll, "Result": DiceResult}
    body: list[str] = []
    results: list[str] = []
    adds: list[str] = []
    subs: list[str] = []
    ones = 0  # the `+ 1` of every die read as `word % sides`
    j = 0  # the offset of the group's first die in the block
    for i, group in enumerate(expr.groups):
        c, sides, negative = group.count, group.sides, group.negative
        sign = -1 if negative else 1
        terms = subs if negative else adds
        if c == 1:
            table = f"S{sides}{'n' if negative else ''}"
            namespace[table] = _singles(sides, negative)
            body.append(f"x{j} = w[o + {j}] % {sides}")
            results.append(f"{table}[x{j}]")
            terms.append(f"x{j}")
            ones += sign
        elif c <= _UNROLLED:
            names = [f"x{j + k}" for k in range(c)]
            body += [f"{name} = w[o + {j + k}] % {sides}" for k, name in enumerate(names)]
            body += [
                f"r{i} = new(Result)",
                f"r{i}.sides = {sides}",
                f"r{i}.faces = ({', '.join(f'{name} + 1' for name in names)},)",
                f"r{i}.negative = {negative}",
            ]
            results.append(f"r{i}")
            terms += names
            ones += sign * c
        else:
            body += [
                f"f{i} = tuple([v % {sides} + 1 for v in w[o + {j}:o + {j + c}]])",
                f"r{i} = new(Result)",
                f"r{i}.sides = {sides}",
                f"r{i}.faces = f{i}",
                f"r{i}.negative = {negative}",
            ]
            results.append(f"r{i}")
            terms.append(f"sum(f{i})")
        j += c
    dice_sum = " + ".join(adds) or "0"
    if subs:
        dice_sum += " - " + " - ".join(subs)
    lines = ["def roll(cup, modifiers, multiplier):", "    n = cup._used"]
    if count:
        lines += [
            f"    if n + {count} > cup._hi:",
            "        return cup._roll_slowly(expr, roll, modifiers, multiplier)",
            "    w = cup._words",
            "    o = n - cup._lo",
            f"    cup._used = n + {count}",
        ]
        lines += [f"    {line}" for line in body]
    mods = "modifiers"
    if expr.flat:
        namespace["FLAT"] = expr.flat_modifiers
        mods = "FLAT + modifiers"
    lines += [
        f"    total = multiplier * ({dice_sum} + {ones}) + {expr.flat}",
        "    if modifiers:",
        "        for _, value in modifiers:",
        "            total += value",
        "    made = new(Roll)",
        f"    made.dice = ({''.join(r + ', ' for r in results)})",
        f"    made.modifiers = {mods}",
        "    made.total = total",
        "    made.multiplier = multiplier",
        f"    made.dice_used = {count}",
        "    return made",
    ]
    exec("\n".join(lines), namespace)
    roller: _Roller = namespace["roll"]
    return roller


_SINGLES: dict[tuple[int, bool], tuple[DiceResult, ...]] = {}


def _singles(sides: int, negative: bool = False) -> tuple[DiceResult, ...]:
    """The result of one die for each face (`[face - 1]`): immutable, so shared by rolls."""
    key = (sides, negative)
    found = _SINGLES.get(key)
    if found is None:
        found = _SINGLES[key] = tuple(
            DiceResult(sides, (face,), negative) for face in range(1, sides + 1)
        )
    return found


_D20 = tuple((result,) for result in _singles(20))  # `[face - 1]`: a d20 roll's `dice`
