"""Conditions as data: the encounter's conditions table (Verse V27, World of Tael TR40).

The rule texts name conditions they never define (Verse: Bleed, Prone, Shaken,
Exhausted, Blinded, Paranoid Insanity, Armour Fragile...; Tael leaves every status to
its spell, TR14). What such a condition does is what the encounter's conditions table
says, and nothing when it says nothing (V27). The table is data in the state
(`Encounter.condition_rules`), so it replays with the log, and the GM may add or change
an entry mid-fight (`SetConditionRule`, `RemoveConditionRule`: an override event like
any other).

An entry (`ConditionRule`) follows Foundry VTT's Active Effects for numbers: a list of
changes, each a *key* (what it changes), a *mode* and a *value*:

* keys that are a bonus to a roll (`attack`, `attack.melee`, `save`, ...) start at 0 and
  take `add` only: the roll names the condition as one of its modifiers
  (`d20 9 + Strength 3 - Prone 2 = 10`);
* keys that are a number of the combatant (`defence.pd`, `resistance.sr`, `speed`,
  `sight`, ...) start at its value and take any mode, applied in Foundry's order:
  `multiply` (rounded down), `add`, `downgrade` (at most the value), `upgrade` (at
  least the value), `override` (exactly the value). The event that uses the number
  names each condition that changed it with how much (`("Prone", -2)`).

Numbers are exact (R82): a factor is the decimal it is written as (`1.16` is 116/100,
so 25 x 1.16 is 29, not the 28 a binary float would give), and every number a change
makes, and the sum of the bonuses conditions add to one roll, lies within
`-MAX_NUMBER..MAX_NUMBER`: a table of factors of 10 stacked on every condition makes a
number of a million, never one past what an event can carry (64 bits).

Each ruleset says which keys, lost actions, drained abilities and save abilities it
knows (`Vocabulary`, registered by `verse/condition_rules.py` and
`tael/condition_rules.py`); the checks here give every problem of an entry with its
place, for encounter files (`server/conditions.py`) and the GM's override alike.

Beside numbers an entry may say which actions the condition takes away (`loses`),
damage dealt and abilities drained each round (`damage`, `drain`), how long it lasts
when it is laid without a duration (`rounds`, `turns`) and a save that ends it
(`save`). Names match whatever their case. A combatant's sheet may be immune to
conditions (`immunities`): they are kept off it (`ConditionWarded`).

Everything here is pure: functions take the table and a combatant's condition names,
never the state, so `state.py` can hold the records.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from server.engine.dice import MAX_FLAT, DiceExpression, DiceExpressionError, parse
from server.engine.errors import cut, quoted
from server.engine.records import record

MULTIPLY = "multiply"
ADD = "add"
DOWNGRADE = "downgrade"
UPGRADE = "upgrade"
OVERRIDE = "override"
MODES = (MULTIPLY, ADD, DOWNGRADE, UPGRADE, OVERRIDE)
"""Every mode, in the order changes are applied (Foundry's)."""
_ORDER = {mode: index for index, mode in enumerate(MODES)}

MAX_RULES = 100
MAX_CHANGES = 20
MAX_NAME = 60  # as a condition's name (verse/overrides.py: MAX_CONDITION_NAME)
MAX_TEXT = 500
MAX_VALUE = 1000  # the largest amount a change adds, sets, floors or caps
MAX_FACTOR = 10  # the largest factor of `multiply`
MAX_DURATION = 1000  # rounds or turns
MAX_DC = 100
MAX_ROUND_DICE = 100  # dice `damage` or one `drain` rolls each round
MAX_DRAIN = 100  # the most points one `drain` takes in a round
MAX_NUMBER = 1_000_000
"""Every number a change makes lies within -MAX_NUMBER..MAX_NUMBER (R82)."""

Modifiers = tuple[tuple[str, int], ...]


@record
class Change:
    """One change to one number: `key` (what), `mode` (how), `value` (by how much)."""

    key: str
    mode: str
    value: int | float


@record
class SaveEnds:
    """A save that ends the condition: `d20 + ability` meeting or beating `dc`."""

    ability: str
    dc: int


@record
class ConditionRule:
    """What one condition does (an entry of the conditions table).

    `changes`: numbers it changes; `loses`: actions it takes away (the ruleset's words,
    `Vocabulary.losses`); `damage`: dice dealt to its bearer each round; `drain`:
    `(ability, dice)` pairs lost each round; `rounds` / `turns`: how long it lasts when
    laid without a duration of its own (round ends, or its bearer's turn ends; 0: until
    removed); `save`: a save that ends it; `text`: the house rule in words, for players.
    """

    name: str
    changes: tuple[Change, ...] = ()
    loses: tuple[str, ...] = ()
    damage: str = ""
    drain: tuple[tuple[str, str], ...] = ()
    rounds: int = 0
    turns: int = 0
    save: SaveEnds | None = None
    text: str = ""


Rules = tuple[ConditionRule, ...]


# --- reading the table ------------------------------------------------------------------


def same_name(a: str, b: str) -> bool:
    """Condition names match whatever their case ("prone" is "Prone")."""
    return a.casefold() == b.casefold()


def rule_named(rules: Rules, name: str) -> ConditionRule | None:
    """The table's entry for condition `name`, if it has one."""
    folded = name.casefold()
    for rule in rules:
        if rule.name.casefold() == folded:
            return rule
    return None


def rules_for(rules: Rules, names: Iterable[str]) -> list[tuple[str, ConditionRule]]:
    """Each of `names` (a combatant's conditions, in order) that has an entry, with it.

    The name is the condition's own, as the combatant carries it: it is what a
    breakdown shows."""
    if not rules:
        return []
    found: list[tuple[str, ConditionRule]] = []
    seen: set[str] = set()
    for name in names:
        folded = name.casefold()
        if folded in seen:
            continue
        seen.add(folded)
        rule = rule_named(rules, name)
        if rule is not None:
            found.append((name, rule))
    return found


def roll_bonuses(rules: Rules, names: Iterable[str], keys: Sequence[str]) -> Modifiers:
    """The named modifiers the conditions add to a roll whose keys are `keys` (the
    general key first: `("attack", "attack.melee")`), one per condition, summed."""
    if not rules:
        return ()
    found: list[tuple[str, int]] = []
    summed = 0  # what the conditions named so far add: kept within MAX_NUMBER (R82)
    for name, rule in rules_for(rules, names):
        total = 0
        for change in rule.changes:
            if change.key in keys and change.mode == ADD:
                total += int(change.value)
        total = clamp(summed + total) - summed
        if total:
            found.append((name, total))
            summed += total
    return tuple(found)


def changed_value(
    rules: Rules, names: Iterable[str], keys: Sequence[str], base: int
) -> tuple[int, Modifiers]:
    """A number after the conditions' changes to it (`keys`), and what each condition
    changed it by, in the order the conditions were gained.

    The changes apply in Foundry's order of modes (`MODES`), then in the order of the
    conditions and of their changes; each condition is named with the sum of what its
    own changes did."""
    if not rules:
        return base, ()
    matching: list[tuple[int, int, str, Change]] = []
    for index, (name, rule) in enumerate(rules_for(rules, names)):
        for change in rule.changes:
            if change.key in keys:
                matching.append((_ORDER.get(change.mode, len(MODES)), index, name, change))
    if not matching:
        return base, ()
    matching.sort(key=lambda m: (m[0], m[1]))
    value = base
    deltas: dict[int, tuple[str, int]] = {}
    for _, index, name, change in matching:
        after = apply_change(value, change)
        _, before = deltas.get(index, (name, 0))
        deltas[index] = (name, before + after - value)
        value = after
    return value, tuple(deltas[i] for i in sorted(deltas) if deltas[i][1])


def apply_change(value: int, change: Change) -> int:
    """One change to a whole number, exactly (a `multiply` rounds down), within
    -MAX_NUMBER..MAX_NUMBER (R82)."""
    if change.mode == MULTIPLY:
        return clamp(math.floor(value * factor(change.value)))
    amount = int(change.value)
    if change.mode == ADD:
        return clamp(value + amount)
    if change.mode == DOWNGRADE:
        return clamp(min(value, amount))
    if change.mode == UPGRADE:
        return clamp(max(value, amount))
    if change.mode == OVERRIDE:
        return clamp(amount)
    return value


def greatest_value(changes: Iterable[Change], base: int) -> int:
    """The most `changes` to one number, of any conditions together, could make of
    `base`: every factor above 1 and every bonus, or the highest floor or value one
    sets; whatever lowers it is left out. Exact, and within MAX_NUMBER (R82)."""
    changes = list(changes)
    if not changes:
        return base
    grown: int | Fraction = max(base, 0)
    for change in changes:
        if change.mode == MULTIPLY and change.value > 1:
            grown = min(grown * factor(change.value), MAX_NUMBER)
    grown += sum(int(change.value) for change in changes if change.mode == ADD and change.value > 0)
    ceilings = [clamp(int(c.value)) for c in changes if c.mode in (UPGRADE, OVERRIDE)]
    return max(base, clamp(math.floor(grown)), *ceilings)


def clamp(number: int) -> int:
    """`number` within -MAX_NUMBER..MAX_NUMBER (R82)."""
    return -MAX_NUMBER if number < -MAX_NUMBER else MAX_NUMBER if number > MAX_NUMBER else number


def factor(value: int | float) -> int | Fraction:
    """A `multiply` value as the exact number it is written as: `0.5` is 1/2 and `1.16`
    is 116/100 (the decimal, not the binary float a little below it)."""
    if isinstance(value, float):
        return _decimal(value)
    return value


@lru_cache(maxsize=256)
def _decimal(value: float) -> Fraction:
    if not math.isfinite(value):  # the checks refuse it; a table built by hand keeps it
        return Fraction(1)  # as a change of nothing
    return Fraction(repr(value))


def losing(rules: Rules, names: Iterable[str], what: str) -> str:
    """The first of `names` whose entry takes away `what` (an action, a turn...), or ""."""
    for name, rule in rules_for(rules, names):
        if what in rule.loses:
            return name
    return ""


def immune(immunities: Iterable[str], name: str) -> bool:
    """Does a sheet's `immunities` list keep condition `name` off?"""
    return any(same_name(i, name) for i in immunities)


def describe_changes(changes: Modifiers) -> str:
    """`Prone -2, Shaken -1`: what a breakdown shows beside a changed number."""
    return ", ".join(f"{name} {value:+d}" for name, value in changes)


# --- what each ruleset's table may say ------------------------------------------------


@dataclass(frozen=True)
class Vocabulary:
    """The words one ruleset's conditions table may use.

    `roll_keys`: bonuses to rolls (`add` only); `roll_prefixes`: prefixes of further
    roll keys that name something of the sheet (`save.` and a Tael attribute);
    `value_keys`: numbers of the combatant (any mode); `losses`: what `loses` may name;
    `drains`: abilities `drain` may name (none: the ruleset has no ability damage);
    `save_abilities`: what `save.ability` may name (None: any word, the sheet's);
    `durations`: whether `rounds` and `turns` mean anything (Tael: a status always has
    its turns, TR14); `damage`: when `damage` is dealt, in words; `label`: the
    ruleset's name for people."""

    ruleset: str
    label: str
    roll_keys: tuple[str, ...]
    value_keys: tuple[str, ...]
    losses: tuple[str, ...]
    drains: tuple[str, ...]
    save_abilities: tuple[str, ...] | None
    durations: bool
    damage: str
    roll_prefixes: tuple[str, ...] = ()

    def is_roll_key(self, key: str) -> bool:
        if key in self.roll_keys:
            return True
        return any(key.startswith(p) and _word(key[len(p) :]) for p in self.roll_prefixes)

    def keys_text(self) -> str:
        extra = [f"{p}<attribute>" for p in self.roll_prefixes]
        return ", ".join((*self.roll_keys, *extra, *self.value_keys))


VOCABULARIES: dict[str, Vocabulary] = {}


def register_vocabulary(vocabulary: Vocabulary) -> Vocabulary:
    VOCABULARIES[vocabulary.ruleset] = vocabulary
    return vocabulary


def vocabulary(ruleset: str) -> Vocabulary:
    """The words of `ruleset`'s table (KeyError for a ruleset without conditions)."""
    return VOCABULARIES[ruleset]


def _word(text: str) -> bool:
    return bool(text) and len(text) <= 40 and all(ch.isalnum() or ch == "_" for ch in text)


def name_problem(name: object) -> str:
    """Why `name` cannot name a condition, or ""."""
    if type(name) is not str or not name.strip() or len(name) > MAX_NAME:
        return f"a condition is a name of 1 to {MAX_NAME} characters"
    if name != name.strip():
        return "a condition's name has no spaces at its ends"
    if not name.isprintable():
        return "a condition's name is printable text"
    return ""


def rule_problems(words: Vocabulary, rule: ConditionRule) -> list[str]:
    """Every problem of one entry, each as `field: reason` (empty: a good entry)."""
    problems: list[str] = []
    wrong = name_problem(rule.name)
    if wrong:
        problems.append(f"name: {wrong}")
    if len(rule.changes) > MAX_CHANGES:
        problems.append(f"changes: at most {MAX_CHANGES}")
    for index, change in enumerate(rule.changes[:MAX_CHANGES]):
        problems += [f"changes[{index}].{p}" for p in _change_problems(words, change)]
    seen: set[str] = set()
    if len(rule.loses) > len(words.losses):
        problems.append(f"loses: at most {len(words.losses)} words, each once")
    for index, what in enumerate(rule.loses[: len(words.losses)]):
        if what not in words.losses:
            problems.append(
                f"loses[{index}]: {quoted(what)} is not one of {', '.join(words.losses)}"
            )
        elif what in seen:
            problems.append(f"loses[{index}]: {quoted(what)} is named twice")
        seen.add(what)
    if rule.damage:
        wrong = _dice_problem(rule.damage)
        if wrong:
            problems.append(f"damage: {wrong}")
    drained: set[str] = set()
    if words.drains and len(rule.drain) > len(words.drains):
        problems.append(f"drain: at most {len(words.drains)} abilities, each once")
    for ability, dice in rule.drain[: max(len(words.drains), 1)]:
        place = f"drain.{cut(ability) if isinstance(ability, str) else quoted(ability)}"
        if not words.drains:
            problems.append(f"{place}: {words.label} has no ability damage")
            continue
        if ability not in words.drains:
            problems.append(f"{place}: not one of {', '.join(words.drains)}")
        elif ability in drained:
            problems.append(f"{place}: named twice")
        drained.add(ability)
        wrong = _dice_problem(dice, drained=True)
        if wrong:
            problems.append(f"{place}: {wrong}")
    for field, amount in (("rounds", rule.rounds), ("turns", rule.turns)):
        if type(amount) is not int or not 0 <= amount <= MAX_DURATION:
            problems.append(f"{field}: a whole number from 0 to {MAX_DURATION}")
        elif amount and not words.durations:
            problems.append(
                f"{field}: a {words.label} status lasts the turns its spell or the GM "
                "gives it; a table cannot give it a duration"
            )
    if rule.rounds and rule.turns and words.durations:
        problems.append("turns: give rounds or turns, not both")
    if rule.save is not None:
        problems += [f"save.{p}" for p in _save_problems(words, rule.save)]
    if type(rule.text) is not str or len(rule.text) > MAX_TEXT:
        problems.append(f"text: at most {MAX_TEXT} characters")
    return problems


def _change_problems(words: Vocabulary, change: Change) -> list[str]:
    problems: list[str] = []
    key, mode, value = change.key, change.mode, change.value
    roll = isinstance(key, str) and words.is_roll_key(key)
    if not roll and key not in words.value_keys:
        problems.append(
            f"key: {quoted(key)} is not a {words.label} key; the keys are {words.keys_text()}"
        )
    if mode not in MODES:
        problems.append(f"mode: {quoted(mode)} is not one of {', '.join(MODES)}")
    elif roll and mode != ADD:
        problems.append(f"mode: {key} is a bonus to a roll: its mode is add")
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not number or (isinstance(value, float) and not math.isfinite(value)):
        problems.append("value: a number")
    elif mode == MULTIPLY:
        if not 0 <= value <= MAX_FACTOR:
            problems.append(f"value: a factor from 0 to {MAX_FACTOR}")
    elif isinstance(value, float) and not value.is_integer():
        problems.append(f"value: a whole number (only {MULTIPLY} takes a fraction)")
    elif not -MAX_VALUE <= value <= MAX_VALUE:
        problems.append(f"value: from {-MAX_VALUE} to {MAX_VALUE}")
    return problems


def _save_problems(words: Vocabulary, save: SaveEnds) -> list[str]:
    problems: list[str] = []
    allowed = words.save_abilities
    if allowed is not None and save.ability not in allowed:
        problems.append(f"ability: {quoted(save.ability)} is not one of {', '.join(allowed)}")
    elif allowed is None and not (isinstance(save.ability, str) and _word(save.ability)):
        problems.append("ability: the name of an attribute of the sheet")
    if type(save.dc) is not int or not 1 <= save.dc <= MAX_DC:
        problems.append(f"dc: a whole number from 1 to {MAX_DC}")
    return problems


def _dice_problem(text: object, drained: bool = False) -> str:
    """Why `text` cannot be a condition's damage (or, `drained`, one drain) each round."""
    if type(text) is int:  # a whole number too large to be written as dice
        return f"a whole number up to {MAX_FLAT}, or dice such as 1d4"
    if type(text) is not str:
        return "dice such as 1d4 or a whole number"
    try:
        expression = parse(text)
    except DiceExpressionError as error:
        return str(error)
    if expression.flat < 0 or any(g.negative for g in expression.groups):
        return f"{quoted(text)}: no negative terms (it is an amount lost)"
    if expression.dice_count > MAX_ROUND_DICE:
        return f"{quoted(text)}: at most {MAX_ROUND_DICE} dice a round"
    if drained and most_of(expression) > MAX_DRAIN:
        return f"{quoted(text)} may drain {most_of(expression)} points: at most {MAX_DRAIN} a round"
    return ""


def most_of(expression: DiceExpression) -> int:
    """The most `expression` can roll (every die on its highest face)."""
    dice = sum(-g.count if g.negative else g.count * g.sides for g in expression.groups)
    return dice + expression.flat


def table_problems(words: Vocabulary, rules: Rules) -> list[str]:
    """Every problem of a whole table, each as `<condition>.<field>: reason`."""
    problems: list[str] = []
    if len(rules) > MAX_RULES:
        problems.append(f"(table): at most {MAX_RULES} conditions")
    seen: dict[str, str] = {}
    for rule in rules[:MAX_RULES]:
        place = cut(rule.name) if isinstance(rule.name, str) else "(condition)"
        problems += [f"{place}.{p}" for p in rule_problems(words, rule)]
        if isinstance(rule.name, str):
            folded = rule.name.casefold()
            if folded in seen:
                problems.append(f"{place}: the same condition as {quoted(seen[folded])}")
            seen.setdefault(folded, rule.name)
    return problems


def with_rule(rules: Rules, rule: ConditionRule) -> Rules:
    """The table with `rule` in place of the entry of the same name, else added last."""
    for index, old in enumerate(rules):
        if same_name(old.name, rule.name):
            return (*rules[:index], rule, *rules[index + 1 :])
    return (*rules, rule)


def without_rule(rules: Rules, name: str) -> Rules:
    return tuple(r for r in rules if not same_name(r.name, name))
