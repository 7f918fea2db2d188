"""Conditions tables in encounter files (Verse V27, World of Tael TR40).

An encounter's `conditions` is a table with one entry per condition, keyed by its name
(docs/conditions.md); in a file on disk it may instead be the path of
a table file, relative to the encounter file (`server/samples/conditions/` holds one
for each ruleset, as house rules a GM starts from). The shape is checked here with
pydantic, then every entry by the engine's own checks (`effects.table_problems`, with
the ruleset's words), the same that check the GM's `SetConditionRule`, so a file and an
override agree on what is allowed. Every problem is listed with its place
(`conditions.Prone.changes[0].mode: ...`).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from server.engine.effects import (
    MAX_CHANGES,
    MAX_RULES,
    ConditionRule,
    SaveEnds,
    table_problems,
    vocabulary,
)
from server.engine.effects import (
    Change as EngineChange,
)

Short = Annotated[str, StringConstraints(max_length=200)]


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


class ChangeSpec(_Spec):
    key: Short
    mode: Short = "add"
    value: Any  # a number: the engine's checks say so (pydantic would name its types)


class SaveSpec(_Spec):
    ability: Short
    dc: int


class RuleSpec(_Spec):
    text: Annotated[str, StringConstraints(max_length=2000)] = ""
    changes: Annotated[list[ChangeSpec], Field(max_length=MAX_CHANGES * 5)] = []
    loses: Annotated[list[Short], Field(max_length=20)] = []
    damage: Any = ""  # dice or a whole number, checked by the engine
    drain: dict[Short, Any] = {}
    rounds: int = 0
    turns: int = 0
    save: SaveSpec | None = None


Table = Annotated[dict[Short, RuleSpec], Field(max_length=MAX_RULES * 5)]


def rules_of(table: dict[str, RuleSpec]) -> tuple[ConditionRule, ...]:
    """The engine's entries for a table whose shape pydantic has checked."""
    return tuple(
        ConditionRule(
            name=name,
            changes=tuple(EngineChange(c.key, c.mode, c.value) for c in spec.changes),
            loses=tuple(spec.loses),
            damage=_dice(spec.damage),
            drain=tuple((ability, _dice(dice)) for ability, dice in spec.drain.items()),
            rounds=spec.rounds,
            turns=spec.turns,
            save=SaveEnds(spec.save.ability, spec.save.dc) if spec.save is not None else None,
            text=spec.text,
        )
        for name, spec in table.items()
    )


def _dice(value: Any) -> Any:
    """A whole number of damage is the dice expression of that number (`2` is `"2"`);
    anything else, and a number too long to write out, goes to the engine's checks as
    it is (they refuse it with its bounds)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() <= 64:
        return str(value)
    return value


def problems_of(ruleset: str, rules: tuple[ConditionRule, ...]) -> list[str]:
    """Every problem of a table for `ruleset`, each as `<condition>.<field>: reason`."""
    try:
        words = vocabulary(ruleset)
    except KeyError:
        return [f"(table): {ruleset} has no conditions table"] if rules else []
    return table_problems(words, rules)
