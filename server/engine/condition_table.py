"""The conditions table in play (Verse V27, World of Tael TR40), for every ruleset.

The table itself and how an entry changes numbers are `effects.py`'s; what each
ruleset's rules do with it is in `rulesets/verse/condition_rules.py` and
`rulesets/tael/condition_rules.py`. Here are the records both rulesets share, known on
the wire by name:

* `SetConditionRule` and `RemoveConditionRule`: the GM adds an entry to the table,
  replaces the entry of the same name (whatever its case) or takes one out, mid-fight
  or before it, paused or not; `ConditionRuleChanged` records the entry before and
  after, so the log, a replay and a rewind find the table as it was at every step. An
  entry is checked as an encounter file's is (`effects.rule_problems`, with the room's
  ruleset's words): a bad one is refused with every problem in the message and changes
  nothing. A change applies from the next number the rules compute; a condition already
  laid keeps the duration it was given.
* `ConditionWarded`: a rule would have laid a condition its target's sheet is immune
  to (`immunities`: a spell's condition or status, a critical-table row, a fall from a
  ride, an empty Mana Pool); nothing is laid, and the log says why (Verse R81, Tael
  TR41). The GM's own overrides lay a condition whatever the sheet says.
* `ConditionSaveRolled`: the save an entry gives (`save = { ability, dc }`), rolled
  when the ruleset's upkeep comes round (Verse: at the end of each round; Tael: at the
  start of the bearer's turn); meeting the DC ends the condition (the ruleset's own
  event follows: Verse `ConditionLost`, Tael `StatusEnded`).
"""

from __future__ import annotations

from typing import ClassVar

from server.engine.core import COMMON, Command, Event
from server.engine.dice import DiceCup, Roll
from server.engine.effects import (
    MAX_RULES,
    Change,
    ConditionRule,
    SaveEnds,
    name_problem,
    rule_named,
    rule_problems,
    vocabulary,
    with_rule,
    without_rule,
)
from server.engine.errors import INVALID_COMMAND, CommandRefused, quoted
from server.engine.records import evolve, record
from server.engine.state import Encounter


@record
class SetConditionRule(Command):
    """The GM adds `rule` to the conditions table, or puts it in place of the entry of
    the same name (V27, TR40)."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})
    while_paused: ClassVar[bool] = True
    rule: ConditionRule


@record
class RemoveConditionRule(Command):
    """The GM takes the entry for condition `name` out of the conditions table: the
    condition does nothing the rules do not define from then on."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})
    while_paused: ClassVar[bool] = True
    name: str


@record
class ConditionRuleChanged(Event):
    """The conditions table's entry for `name` is now `rule` (None: taken out); it was
    `previous` (None: there was none)."""

    name: str
    rule: ConditionRule | None
    previous: ConditionRule | None


@record
class ConditionSaveRolled(Event):
    """`combatant` rolls the save its `condition`'s entry gives, in `ability`: `roll`
    (d20 + the ability, and its conditions' save bonuses) against `dc`; a success ends
    it. A World of Tael save in Willpower shows another side no number (TR33)."""

    combatant: str
    condition: str
    roll: Roll
    dc: int
    success: bool
    ability: str = ""  # the entry's `save.ability` ("" in logs from before it was kept)

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)

    def describe(self) -> str:
        result = "ends it" if self.success else "fails"
        return f"{self.condition} save: {self.roll.describe()} vs DC {self.dc}: {result}"


@record
class ConditionWarded(Event):
    """`combatant` is immune to `condition` (its sheet's `immunities`): what would have
    laid it (`reason`) lays nothing."""

    combatant: str
    condition: str
    reason: str = ""


@COMMON.applies(ConditionWarded)
def apply_condition_warded(state: Encounter, event: ConditionWarded) -> Encounter:
    return state


@COMMON.applies(ConditionSaveRolled)
def apply_condition_save_rolled(state: Encounter, event: ConditionSaveRolled) -> Encounter:
    return state  # the ruleset's own event that follows a success ends the condition


# --- the GM's changes to the table -------------------------------------------------------


def _malformed(rule: object) -> str:
    """Why `rule` is not even shaped like an entry (a command built by hand), or ""."""
    if not isinstance(rule, ConditionRule):
        return "rule is a ConditionRule"
    fields = (
        (rule.changes, Change),
        (rule.loses, str),
        (rule.drain, tuple),
    )
    for values, kind in fields:
        if not isinstance(values, tuple) or not all(isinstance(v, kind) for v in values):
            return "changes, loses and drain are lists of changes, words and pairs"
    if any(len(pair) != 2 or not all(isinstance(x, str) for x in pair) for pair in rule.drain):
        return "drain is (ability, dice) pairs"
    if rule.save is not None and not isinstance(rule.save, SaveEnds):
        return "save is an ability and a DC"
    if not isinstance(rule.damage, str) or not isinstance(rule.text, str):
        return "damage and text are text"
    return ""


@COMMON.decides(SetConditionRule)
def decide_set_condition_rule(
    state: Encounter, command: SetConditionRule, cup: DiceCup
) -> list[Event]:
    rule = command.rule
    wrong = _malformed(rule)
    if wrong:
        raise CommandRefused(INVALID_COMMAND, wrong)
    try:
        words = vocabulary(state.ruleset)
    except KeyError:
        raise CommandRefused(INVALID_COMMAND, f"{state.ruleset} has no conditions table") from None
    problems = rule_problems(words, rule)
    previous = rule_named(state.condition_rules, rule.name) if not problems else None
    if not problems and previous is None and len(state.condition_rules) >= MAX_RULES:
        problems.append(f"the table holds at most {MAX_RULES} conditions")
    if problems:
        raise CommandRefused(INVALID_COMMAND, f"{quoted(rule.name)}: " + "; ".join(problems))
    return [ConditionRuleChanged(rule.name, rule, previous)]


@COMMON.decides(RemoveConditionRule)
def decide_remove_condition_rule(
    state: Encounter, command: RemoveConditionRule, cup: DiceCup
) -> list[Event]:
    wrong = name_problem(command.name)
    if wrong:
        raise CommandRefused(INVALID_COMMAND, wrong)
    previous = rule_named(state.condition_rules, command.name)
    if previous is None:
        known = ", ".join(r.name for r in state.condition_rules) or "none"
        raise CommandRefused(
            INVALID_COMMAND,
            f"the conditions table has no entry for {quoted(command.name)} (it has: {known})",
        )
    return [ConditionRuleChanged(previous.name, None, previous)]


@COMMON.applies(ConditionRuleChanged)
def apply_condition_rule_changed(state: Encounter, event: ConditionRuleChanged) -> Encounter:
    if event.rule is None:
        rules = without_rule(state.condition_rules, event.name)
    else:
        rules = with_rule(state.condition_rules, event.rule)
    return evolve(state, condition_rules=rules)
