"""Random conditions tables for the property machines (V27, TR40): every entry one the
ruleset's words allow, so the machines lay and clear conditions that really do things
(change numbers, take actions away, bleed, drain, end on a save) and keep their
invariants."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from server.engine.effects import (
    ADD,
    DOWNGRADE,
    MULTIPLY,
    OVERRIDE,
    UPGRADE,
    Change,
    ConditionRule,
    SaveEnds,
    rule_problems,
    vocabulary,
)

NAMES = {
    "verse": ("Bleed", "Prone", "Shaken", "Exhausted", "Blinded", "Stunned", "Dazed"),
    "tael": ("Burning", "Frozen", "Stunned", "Dread", "Prone", "Dazed"),
}
"""The conditions a table may rule, per ruleset (Stunned is also one the rules define)."""
SAVES = {"verse": ("constitution", "dexterity", "strength"), "tael": ("agility", "willpower")}


@st.composite
def change(draw: Any, ruleset: str) -> Change:
    words = vocabulary(ruleset)
    roll_keys = [*words.roll_keys, *(f"{p}agility" for p in words.roll_prefixes)]
    # Half the time a key every fight reads (attacks, the defence, speed), so the
    # machines see conditions change numbers often, not only now and then.
    common = [
        k
        for k in ("attack", "defence.pd", "defence.dv", "speed")
        if k in words.value_keys or k in roll_keys
    ]
    key = draw(st.sampled_from(common if draw(st.booleans()) else [*roll_keys, *words.value_keys]))
    if key in roll_keys:
        return Change(key, ADD, draw(st.integers(-5, 5)))
    mode = draw(st.sampled_from([MULTIPLY, ADD, DOWNGRADE, UPGRADE, OVERRIDE]))
    if mode == MULTIPLY:
        return Change(key, mode, draw(st.sampled_from([0, 0.5, 1, 1.5, 2])))
    if mode == ADD:
        return Change(key, mode, draw(st.integers(-10, 10)))
    return Change(key, mode, draw(st.integers(0, 40)))


@st.composite
def rule(draw: Any, ruleset: str, name: str | None = None) -> ConditionRule:
    words = vocabulary(ruleset)
    made = ConditionRule(
        name or draw(st.sampled_from(NAMES[ruleset]), label="rule name"),
        tuple(draw(st.lists(change(ruleset), max_size=3))),
        tuple(draw(st.lists(st.sampled_from(words.losses), max_size=2, unique=True))),
        draw(st.sampled_from(["", "", "1", "1d4"])),
        (("constitution", "1"),) if words.drains and draw(st.integers(0, 5)) == 0 else (),
        draw(st.integers(0, 3)) if words.durations else 0,
        0,
        SaveEnds(draw(st.sampled_from(SAVES[ruleset])), draw(st.integers(5, 20)))
        if draw(st.booleans())
        else None,
    )
    assert rule_problems(words, made) == [], made
    return made


@st.composite
def table(draw: Any, ruleset: str) -> tuple[ConditionRule, ...]:
    names = draw(st.lists(st.sampled_from(NAMES[ruleset]), max_size=4, unique=True))
    return tuple(draw(rule(ruleset, name)) for name in names)
