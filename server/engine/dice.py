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

from server.engine.errors import quoted
from server.engine.records import record
from server.engine.rng import BLOCK_SHIFT, DiceSource, SeededDice, block_words, stream_words

_TERM = re.compile(r"\s*([+-])?\s*(?:(\d*)\s*[dD]\s*(\d+)|(\d+))\s*")
# Bounds of an expression read from text (a sheet, a conditions table, the GM's status):
# nothing written in one can take long to read or roll, make a number an event cannot
# carry, or make a record too big to send (R82).
MAX_TEXT = 100  # characters
MAX_TERMS = 20  # dice groups and whole numbers
MAX_DICE = 1000  # dice in all
MAX_SIDES = 1000  # sides of a die
MAX_FLAT = 1000  # a whole number term


class DiceExpressionError(ValueError):
    """A dice expression that cannot be read, such as `1d` or `2x6`, or one past the
    bounds (`MAX_TEXT`, `MAX_TERMS`, `MAX_DICE`, `MAX_SIDES`, `MAX_FLAT`)."""


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
    """Read `NdS` terms and whole numbers joined by `+` and `-` (`1d20+5`, `2d6-1+1d4`).

    Within bounds (R82): at most `MAX_TEXT` characters and `MAX_TERMS` terms, `MAX_DICE`
    dice in all of at most `MAX_SIDES` sides, whole numbers up to `MAX_FLAT`; anything
    else is a `DiceExpressionError` that says what is wrong."""
    if not isinstance(text, str):
        raise DiceExpressionError("a dice expression is text, such as 1d4+1")
    found = _PARSED.get(text)
    if found is None:
        if len(_PARSED) >= _PARSED_KEPT:
            _PARSED.clear()
        found = _PARSED[text] = _parse(text)
    return found


def _parse(text: str) -> DiceExpression:
    if len(text) > MAX_TEXT:
        raise DiceExpressionError(
            f"dice expression {quoted(text)} is {len(text)} characters long: at most {MAX_TEXT}"
        )
    pos = 0
    groups: list[DiceGroup] = []
    flat = 0
    dice = 0
    terms = 0
    source = text.strip()
    if not source:
        raise DiceExpressionError("empty dice expression")
    while pos < len(source):
        match = _TERM.match(source, pos)
        if not match or match.end() == pos or (terms and not match.group(1)):
            raise DiceExpressionError(
                f"cannot read dice expression {quoted(text)} at {quoted(source[pos:])}"
            )
        terms += 1
        if terms > MAX_TERMS:
            raise DiceExpressionError(
                f"dice expression {quoted(text)} has more than {MAX_TERMS} terms"
            )
        sign, count, sides, number = match.groups()
        negative = sign == "-"
        if sides is not None:
            n = int(count) if count else 1
            s = int(sides)
            if not 1 <= n <= MAX_DICE or not 1 <= s <= MAX_SIDES:
                raise DiceExpressionError(
                    f"dice expression {quoted(text)}: {n}d{s} is outside 1..{MAX_DICE} dice "
                    f"of 1..{MAX_SIDES} sides"
                )
            dice += n
            if dice > MAX_DICE:
                raise DiceExpressionError(
                    f"dice expression {quoted(text)} rolls more than {MAX_DICE} dice"
                )
            groups.append(DiceGroup(n, s, negative))
        else:
            value = int(number)
            if value > MAX_FLAT:
                raise DiceExpressionError(
                    f"dice expression {quoted(text)}: {value} is more than {MAX_FLAT}"
                )
            flat += -value if negative else value
        pos = match.end()
    return _expression(text, tuple(groups), flat)


def plus(first: DiceExpression, second: DiceExpression) -> DiceExpression:
    """`first` and `second` rolled as one (a natural weapon's Unarmed Die and its own
    dice, V2): the groups of each in order and their whole numbers summed, as the text
    `first+second` reads, without bounding the whole as a text is."""
    groups = first.groups + second.groups
    flat = first.flat + second.flat
    return _expression(_render(groups, flat), groups, flat)


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

    Speed (a roll costs well under a microsecond; `bench/engine.py` compares it with
    the `d20` package): from a `SeededDice` the cup keeps the raw words it is drawing
    from (`rng.block_words`/`rng.stream_words`; `_words[0]` is the word of face `_lo`,
    counted like `used`) and reads each face straight from them, loading the next
    blocks when a roll needs faces past `_hi`. Each expression is compiled once into
    straight-line code for its dice (`_compile`). Other sources (`ScriptedDice`) are
    read through `DiceSource.faces`. Every roll draws fresh faces and builds a fresh
    `Roll`; only immutable `DiceResult`s (one per die face, or per outcome of a small
    group such as 2d6) are shared between rolls. `used` is read-only: only the cup's
    own rolls advance it, which keeps the loaded words in step.
    """

    __slots__ = ("_hi", "_lo", "_loads", "_used", "_words", "source")

    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self._used = 0
        self._words: tuple[int, ...] = ()  # raw words of a SeededDice, see `_load`
        self._lo = 0  # `_words[0]` is the word of face `_lo` (counted like `used`)
        self._hi = 0  # faces below `_hi` are in `_words`; 0 until a SeededDice is loaded
        self._loads = 0

    @property
    def used(self) -> int:
        """How many faces this cup has drawn: `apply` advances the source by as many."""
        return self._used

    def _load(self, end: int) -> bool:
        """Load the words of faces `used .. end-1` from a `SeededDice`; False for others.

        A cup that keeps rolling (past its second load) loads more blocks at a time,
        doubling up to 16 (256 faces), so a long run of rolls pays for a load once per
        256 faces, not once per 16; a command's few rolls load only what they read.
        """
        source = self.source
        if type(source) is not SeededDice:
            return False
        position = source.position
        first = (position + self._used) >> BLOCK_SHIFT
        last = (position + end - 1) >> BLOCK_SHIFT
        loads = self._loads = self._loads + 1
        if loads > 2:
            last = max(last, first + min(15, (1 << (loads - 2)) - 1))
        if first == last:
            self._words = block_words(source.seed, first)
        else:
            self._words = stream_words(source.seed, first, last)
        self._lo = (first << BLOCK_SHIFT) - position
        self._hi = ((last + 1) << BLOCK_SHIFT) - position
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

    def _roll_from_source(
        self, expr: DiceExpression, modifiers: tuple[tuple[str, int], ...], multiplier: int
    ) -> Roll:
        """A roll read face by face through `DiceSource.faces`: any source but `SeededDice`."""
        mods = expr.flat_modifiers + modifiers if expr.flat else modifiers
        start = self._used
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
        return Roll(tuple(results), mods, total, multiplier, self._used - start)

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
_SHARED_GROUP_RESULTS = 4096  # groups with at most this many outcomes share results
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
    """Straight-line code that rolls `expr` from the cup's loaded words.

    For `1d8+1d6+2` it reads two words `w[o]`, `w[o + 1]`, takes each modulo its
    die's sides and builds the `Roll` with the shared one-die results: no loop over
    groups, no parsing, no `Roll.__init__` (the fields are set directly, a third of
    the cost of a roll). A group of up to 16 dice gets a line per die; one with at
    most 4096 outcomes (2d6, 4d6, 3d10) shares its `DiceResult` per outcome, made the
    first time that outcome is rolled. Faces are exactly those of `SeededDice.faces`
    (word `% sides + 1`); when the loaded words do not reach that far the cup loads
    more (`DiceCup._load`), and for other sources `DiceCup._roll_from_source` runs.
    """
    count = sum(group.count for group in expr.groups)
    flat = sum(value for _, value in expr.flat_modifiers) if expr.flat else 0
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
        if c <= 0:  # no dice (an expression scaled by 0): an empty result
            namespace[f"r{i}"] = DiceResult(sides, (), negative)
            results.append(f"r{i}")
        elif c == 1:
            table = f"S{sides}{'n' if negative else ''}"
            namespace[table] = _singles(sides, negative)
            body.append(f"x{j} = w[{_at(j)}] % {sides}")
            results.append(f"{table}[x{j}]")
            terms.append(f"x{j}")
            ones += sign
        elif c <= _UNROLLED:
            names = [f"x{j + k}" for k in range(c)]
            body += [f"{name} = w[{_at(j + k)}] % {sides}" for k, name in enumerate(names)]
            faces = f"({', '.join(f'{name} + 1' for name in names)})"
            if sides**c <= _SHARED_GROUP_RESULTS:
                # Few enough outcomes: share each one's result, made on first sight.
                namespace[f"T{i}"] = _group_results(sides, c, negative)
                index = names[0]
                for name in names[1:]:
                    index = f"{f'({index})' if '+' in index else index} * {sides} + {name}"
                body += [
                    f"k{i} = {index}",
                    f"r{i} = T{i}[k{i}]",
                    f"if r{i} is None:",
                    f"    r{i} = T{i}[k{i}] = Result({sides}, {faces}, {negative})",
                ]
            else:
                body += [
                    f"r{i} = new(Result)",
                    f"r{i}.sides = {sides}",
                    f"r{i}.faces = {faces}",
                    f"r{i}.negative = {negative}",
                ]
            results.append(f"r{i}")
            terms += names
            ones += sign * c
        else:
            body += [
                f"f{i} = tuple([v % {sides} + 1 for v in w[{_at(j)}:{_at(j + c)}]])",
                f"r{i} = new(Result)",
                f"r{i}.sides = {sides}",
                f"r{i}.faces = f{i}",
                f"r{i}.negative = {negative}",
            ]
            results.append(f"r{i}")
            terms.append(f"sum(f{i})")
        j += c
    dice_sum = " + ".join(adds)
    if subs:
        dice_sum = f"{dice_sum} - {' - '.join(subs)}" if adds else f"-{' - '.join(subs)}"
    if ones:
        dice_sum = f"{dice_sum} {'-' if ones < 0 else '+'} {abs(ones)}" if dice_sum else str(ones)
    total = f"multiplier * ({dice_sum})" if dice_sum else str(flat)
    if dice_sum and flat:
        total += f" {'-' if flat < 0 else '+'} {abs(flat)}"
    lines = ["def roll(cup, modifiers, multiplier):"]
    if count:
        lines += [
            "    n = cup._used",
            f"    if n + {count} > cup._hi and not cup._load(n + {count}):",
            "        return cup._roll_from_source(expr, modifiers, multiplier)",
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
        f"    total = {total}",
        "    if modifiers:",
        "        for _, value in modifiers:",
        "            total += value",
        "    made = new(Roll)",
        f"    made.dice = ({', '.join(results)}{',' if len(results) == 1 else ''})",
        f"    made.modifiers = {mods}",
        "    made.total = total",
        "    made.multiplier = multiplier",
        f"    made.dice_used = {count}",
        "    return made",
    ]
    exec("\n".join(lines), namespace)
    roller: _Roller = namespace["roll"]
    return roller


def _at(offset: int) -> str:
    """The index of the word `offset` faces into the roll: `o`, `o + 1`, ..."""
    return f"o + {offset}" if offset else "o"


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


_GROUPS: dict[tuple[int, int, bool], list[DiceResult | None]] = {}


def _group_results(sides: int, count: int, negative: bool) -> list[DiceResult | None]:
    """The result of `count` dice for each outcome, indexed by the faces as digits.

    Faces `(a, b, c)` of three d6 sit at `((a-1)*6 + (b-1))*6 + (c-1)`. Filled as
    outcomes occur: a result is immutable, so every roll with those faces shares it.
    Only groups of at most `_SHARED_GROUP_RESULTS` outcomes get a table, so there are
    a few hundred possible tables at most (2d2..2d64, 3d2..3d16, ...), each filled
    only with the outcomes actually rolled.
    """
    key = (sides, count, negative)
    found = _GROUPS.get(key)
    if found is None:
        found = _GROUPS[key] = [None] * sides**count
    return found


_D20 = tuple((result,) for result in _singles(20))  # `[face - 1]`: a d20 roll's `dice`
