"""Typed words read against the choices the server offers now: a grammar of no rule system.

Each option of a seat's choices (`protocol.table.Choice`) is an engine command, or a
part of a declaration, with holes; the server has checked that it would take it. A
typed line names one by its `key`, in words (`attack:longsword` is `attack`, and
`longsword` may follow anywhere; `hold_attack:spear` is `hold` then `attack`;
`withdraw2` is `withdraw`, and `2` may follow), and fills its holes in order with the
words after it: a hole option's value as typed (`g1`, `defensive`, `4`), a
combatant's name for its id (`goblin`, when only one is called so), a cell as `x,y`
(a move's whole path, or only where it ends), a whole number for a number hole, or
words of an option's label (`down 2` for "Down 2 levels"). Words the option already
holds (a counter's target), `at`, `with`, `to` and `turn` may be typed and change
nothing. A hole left out takes its only option, or a weapon the first one offered (the
one in hand, as the server lists them); any other is asked for.

Of the options a line fits, the one that fills fewest holes by itself and leaves
fewest of its key's words untyped wins, then the one offered first (`attack g1` is
the first weapon offered, as the engine's own default is the weapon in hand). A line
that fits none is refused with what is offered: `no 'g9' to attack: targets are g1,
g2`. Pure: nothing is sent from here.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clients.lines import CommandError

Data = dict[str, Any]
FILLERS = frozenset({"at", "with", "to", "turn"})
"""Words that may be typed between others and say nothing (`cast Ember Spray at bandit`,
`withdraw turn 2`)."""
SHOWN = 10
"""How many of a hole's values a refusal lists."""
MOST_WORDS = 40
"""The longest line read (a move's every step included): a longer one is refused."""
_NAME = re.compile(r"[a-z][a-z'_-]*")
_CELL = re.compile(r"\(?(-?\d+),\s*(-?\d+)\)?")


def tokens(text: str) -> list[str]:
    """A line's words, lowercased, with quoted names and `ascend-attack` made words."""
    try:
        words = shlex.split(text.replace(";", " ; "))
    except ValueError as error:
        raise CommandError("bad_quotes", f"cannot read the line: {error}") from None
    return [word for typed in words for part in typed.split() for word in words_of(part)]


def words_of(text: str) -> list[str]:
    """`Magic Missile` -> magic missile; `on_guard`, `ascend-attack` -> two words."""
    found = []
    for word in str(text).lower().split():
        word = word.strip(".,!?\"'()") if not _CELL.fullmatch(word) else word
        named = _NAME.fullmatch(word)
        found += word.replace("-", " ").replace("_", " ").split() if named else [word]
    return found


@dataclass(frozen=True)
class Spelling:
    """How an option's key is typed: `head[0]` first, the rest of `head` anywhere after
    it, `tail` may be typed or not."""

    head: tuple[str, ...]
    tail: tuple[str, ...]

    @property
    def verb(self) -> str:
        return " ".join(self.head)


def spelling(key: str) -> Spelling:
    head, _, tail = key.partition(":")
    counted = re.fullmatch(r"(.*[a-z])(\d+)", head)  # withdraw2: the second of them
    number = (counted.group(2),) if counted else ()
    head = counted.group(1) if counted else head
    return Spelling(tuple(words_of(head)), (*number, *words_of(tail.replace(":", " "))))


@dataclass(frozen=True)
class Found:
    option: Data
    values: tuple[Any, ...]
    cost: tuple[int, int, int]


@dataclass(frozen=True)
class Miss:
    reach: int
    code: str
    message: str


def read(
    words: Sequence[str], options: Sequence[Data], names: Mapping[str, str]
) -> Found | Miss | None:
    """The option `words` fit best, with the value of each of its holes; else why the
    nearest one does not fit; None when no option's key starts with the first word."""
    if len(words) > MOST_WORDS:
        return Miss(MOST_WORDS, "too_many_arguments", f"a line of {MOST_WORDS} words at most")
    found: list[Found] = []
    misses: list[Miss] = []
    for index, option in enumerate(options):
        spell = spelling(option["key"])
        if not _starts(option, words):
            continue
        walk = _Walk(words, option, spell, names)
        walk.step(1, 0, list(spell.head[1:]), 0, ())
        found += [Found(option, values, (*cost, index)) for values, cost in walk.found]
        misses += walk.misses
    if found:
        return min(found, key=lambda f: f.cost)
    miss = max(misses, key=lambda m: m.reach) if misses else None
    tails = [" ".join(spelling(o["key"]).tail) for o in options if _starts(o, words)]
    if miss is not None and miss.code == "too_many_arguments" and len(tails) > 1 and all(tails):
        return Miss(miss.reach, miss.code, f"{miss.message} (of {', '.join(tails)})")
    if miss is not None and miss.code == "missing_word":  # `hold`: hold what?
        said = [m.message for m in misses if m.code == "missing_word"]
        listed = ", ".join(dict.fromkeys(said))
        return Miss(miss.reach, "missing_argument", f"{words[0]} what? {listed}")
    return miss


def _starts(option: Data, words: Sequence[str]) -> bool:
    head = spelling(option["key"]).head
    return bool(words) and bool(head) and head[0] == words[0]


class _Walk:
    """Every way `words` fill one option: each word is a word of its key, one it holds
    already, a filler, or (with those after it) the value of the next hole."""

    def __init__(
        self, words: Sequence[str], option: Data, spell: Spelling, names: Mapping[str, str]
    ) -> None:
        self.words = words
        self.option = option
        self.spell = spell
        self.names = names
        self.holes: list[Data] = list(option.get("holes") or [])
        self.held = set(words_of(" ".join(_strings(option.get("command") or option.get("part")))))
        self.found: list[tuple[tuple[Any, ...], tuple[int, int]]] = []
        self.misses: list[Miss] = []

    def step(self, i: int, h: int, needed: list[str], typed: int, values: tuple[Any, ...]) -> None:
        words, spell = self.words, self.spell
        if i == len(words):
            self.end(i, h, needed, typed, values)
            return
        word = words[i]
        if word in needed:
            self.step(i + 1, h, [w for w in needed if w != word], typed, values)
        if word in spell.tail:
            self.step(i + 1, h, needed, typed + 1, values)
        elif word in self.held or word in FILLERS:
            self.step(i + 1, h, needed, typed, values)
        if h < len(self.holes):
            for j in range(i + 1, len(words) + 1):
                value = self.value(self.holes[h], words[i:j], i)
                if value is not _NONE:
                    self.step(j, h + 1, needed, typed, (*values, value))
            if not any(m.reach >= i for m in self.misses):
                self.misses.append(Miss(i, "no_such_choice", self.unknown(word, self.holes[h])))
        elif word not in needed and word not in spell.tail:
            what = f"{spell.verb} takes nothing more:" if not self.holes else f"no {word!r} to"
            self.misses.append(Miss(i, "too_many_arguments", f"{what} {self.usage()}"))

    def end(self, i: int, h: int, needed: list[str], typed: int, values: tuple[Any, ...]) -> None:
        if needed:
            self.misses.append(Miss(i, "missing_word", self.usage()))
            return
        filled = list(values)
        for hole in self.holes[h:]:
            options = hole.get("options") or []
            if (
                options
                and hole.get("kind") != "number"
                and (len(options) == 1 or hole["label"] == "weapon")
            ):
                filled.append(options[0]["value"])
                continue
            self.misses.append(Miss(i, "missing_argument", f"{self.spell.verb}: {ask(hole)}"))
            return
        cost = (len(filled) - len(values), len(self.spell.tail) - typed)
        self.found.append((tuple(filled), cost))

    def value(self, hole: Data, run: Sequence[str], at: int) -> Any:
        """The value `run` gives `hole`, or `_NONE`; an ambiguous name is a miss."""
        if hole.get("kind") == "number":
            return _number(hole, run, at, self)
        options = hole.get("options") or []
        said = " ".join(run)
        exact = [o["value"] for o in options if said in forms(o["value"], self.names)]
        if not exact:
            path = _path(run)
            ends = [o["value"] for o in options if path and _ends(o["value"], path[-1])]
            if path and len(path) > 1 and ends:
                return path  # the way typed, to a cell offered: the server checks each step
            exact = [o["value"] for o in options if set(run) <= set(words_of(o["label"]))]
        if len(exact) == 1:
            return exact[0]
        if exact:
            listed = ", ".join(o["label"] for o in options if o["value"] in exact)
            self.misses.append(Miss(at + len(run), "ambiguous", f"{said!r} is any of {listed}"))
        return _NONE

    def unknown(self, word: str, hole: Data) -> str:
        label = hole["label"]
        return f"no {word!r} to {self.spell.verb}: {label}s are {values_of(hole, self.names)}"

    def usage(self) -> str:
        holes = " ".join(f"<{hole['label']}>" for hole in self.holes)
        return " ".join(filter(None, (self.spell.verb, holes)))


_NONE = object()


def _number(hole: Data, run: Sequence[str], at: int, walk: _Walk) -> Any:
    if len(run) != 1:
        return _NONE
    try:
        value = int(run[0])
    except ValueError:
        said = f"{hole['label']} must be a whole number, not {run[0]!r}"
        walk.misses.append(Miss(at, "bad_number", said))
        return _NONE
    least, most = hole.get("least"), hole.get("most")
    if (least is not None and value < least) or (most is not None and value > most):
        walk.misses.append(Miss(at + 1, "no_such_choice", f"{hole['label']}: {ask(hole)}"))
        return _NONE
    return value


def forms(value: Any, names: Mapping[str, str]) -> set[str]:
    """How a hole option's value may be typed (lowercased words joined by spaces)."""
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, int):
        return {str(value)}
    if isinstance(value, str):
        said = {" ".join(words_of(value))}
        return said | ({" ".join(words_of(names[value]))} if value in names else set())
    if isinstance(value, Mapping) and "x" in value and "y" in value:
        return {f"{value['x']},{value['y']}"}
    if isinstance(value, list) and len(value) == 1:
        return forms(value[0], names)
    if isinstance(value, list) and value and all(isinstance(c, Mapping) for c in value):
        steps = [f"{c.get('x')},{c.get('y')}" for c in value]
        return {" ".join(steps), steps[-1]}
    return set()


def _path(run: Sequence[str]) -> list[Data]:
    cells = [_CELL.fullmatch(word) for word in run]
    if not all(cells):
        return []
    return [{"$type": "Cell", "x": int(c.group(1)), "y": int(c.group(2))} for c in cells if c]


def _ends(value: Any, cell: Data) -> bool:
    last = value[-1] if isinstance(value, list) and value else None
    return isinstance(last, Mapping) and (last.get("x"), last.get("y")) == (cell["x"], cell["y"])


def _strings(data: Any) -> Iterable[str]:
    """The words a command already holds (its target, its option), not its type nor
    who acts (who is no target of a line of its own)."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, Mapping):
        for key, value in data.items():
            if key not in ("type", "$type", "actor"):
                yield from _strings(value)
    elif isinstance(data, list):
        for item in data:
            yield from _strings(item)


def ask(hole: Data) -> str:
    """`target? g1, g2, bram`: what a hole takes."""
    if hole.get("kind") == "number":
        least, most = hole.get("least"), hole.get("most")
        span = f" from {least}" if least is not None else ""
        span += f" to {most}" if most is not None else ""
        return f"{hole['label']}? a whole number{span}"
    return f"{hole['label']}? {values_of(hole, {})}"


def values_of(hole: Data, names: Mapping[str, str]) -> str:
    """A hole's values as they are typed, the first `SHOWN` of them."""
    said = []
    for option in hole.get("options") or []:
        typed = sorted(forms(option["value"], {}) - {""}, key=len)
        said.append(typed[0] if typed else option["label"])
    more = f" ... ({len(said)} in all)" if len(said) > SHOWN else ""
    return ", ".join(said[:SHOWN]) + more if said else "none now"


def said_as(option: Data, aliases: Mapping[str, str]) -> tuple[str, str]:
    """How an option is typed: its verb (an alias's phrase where one spells it) and the
    rest (`[longsword]`, `<target>`)."""
    spell = spelling(option["key"])
    verb = spell.verb
    spoken = {" ".join(words_of(meant)): phrase for phrase, meant in [*aliases.items()][::-1]}
    if verb in spoken:
        verb = spoken[verb]
    elif spell.head[0] in spoken:  # `skill bonus` is typed `check ... bonus`
        verb = " ".join((spoken[spell.head[0]], *spell.head[1:]))
    tail = f"[{' '.join(spell.tail)}]" if spell.tail and not spell.tail[0].isdigit() else ""
    holes = " ".join(f"<{hole['label']}>" for hole in option.get("holes") or [])
    return verb, " ".join(filter(None, (tail, holes)))
