"""Random conditions tables for the property machines (V27, TR40): every entry one the
ruleset's words allow, so the machines lay and clear conditions that really do things
(change numbers, take actions away, bleed, drain, end on a save) and keep their
invariants. Now and then an entry is at the edge of what is allowed (R82): factors of
10 twenty times over, values of ±1000, 100 dice of damage, a drain of 100, DCs of 1 and
100, so a number past what an event can carry is found wherever it would come from."""

from __future__ import annotations

from typing import Any

import msgpack
from hypothesis import strategies as st

from server.engine.effects import (
    ADD,
    DOWNGRADE,
    MAX_CHANGES,
    MAX_DC,
    MAX_DRAIN,
    MAX_FACTOR,
    MAX_ROUND_DICE,
    MAX_VALUE,
    MULTIPLY,
    OVERRIDE,
    UPGRADE,
    Change,
    ConditionRule,
    SaveEnds,
    rule_problems,
    vocabulary,
)
from server.engine.records import to_data


def packs(value: Any) -> None:
    """`value` (an event, a state) goes on the wire: msgpack carries every number of it
    (whole numbers in 64 bits, R82). The engine never imports msgpack; the tests do."""
    try:
        msgpack.packb(to_data(value))
    except (OverflowError, ValueError, TypeError) as error:
        raise AssertionError(f"{type(value).__name__} does not pack: {error}: {value}") from None


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
    extreme = draw(st.integers(0, 9), label="extreme?") == 0  # at the edge of R82's bounds
    if key in roll_keys:
        most = MAX_VALUE if extreme else 5
        return Change(
            key, ADD, draw(st.sampled_from([-most, most]) if extreme else st.integers(-5, 5))
        )
    mode = draw(st.sampled_from([MULTIPLY, ADD, DOWNGRADE, UPGRADE, OVERRIDE]))
    if mode == MULTIPLY:
        factors = [0, 1.16, MAX_FACTOR, 10.0] if extreme else [0, 0.5, 1, 1.5, 2]
        return Change(key, mode, draw(st.sampled_from(factors)))
    if mode == ADD:
        if extreme:
            return Change(key, mode, draw(st.sampled_from([-MAX_VALUE, MAX_VALUE])))
        return Change(key, mode, draw(st.integers(-10, 10)))
    if extreme:
        return Change(key, mode, draw(st.sampled_from([-MAX_VALUE, MAX_VALUE])))
    return Change(key, mode, draw(st.integers(0, 40)))


@st.composite
def changes(draw: Any, ruleset: str) -> list[Change]:
    """A few changes, or now and then one change as many times as an entry holds."""
    if draw(st.integers(0, 9), label="full?") == 0:
        return [draw(change(ruleset))] * MAX_CHANGES
    return draw(st.lists(change(ruleset), max_size=3))


GROWN = ("defence.pd", "defence.sd", "defence.dv", "resistance.pr", "speed", "sight")
"""The numbers an entry at the edge multiplies: each read by the fights the machines
play."""


@st.composite
def edge(draw: Any, ruleset: str) -> list[Change]:
    """Twenty factors of 10 on one number the fights read (10**20 times it: past 64
    bits but for R82's bounds), or twenty bonuses of ±1000 to a roll."""
    words = vocabulary(ruleset)
    if draw(st.integers(0, 3), label="bonuses?") == 0:
        key = draw(st.sampled_from(["attack", "save"]))
        return [Change(key, ADD, draw(st.sampled_from([-MAX_VALUE, MAX_VALUE])))] * MAX_CHANGES
    key = draw(st.sampled_from([k for k in GROWN if k in words.value_keys]))
    return [Change(key, MULTIPLY, draw(st.sampled_from([MAX_FACTOR, 10.0])))] * MAX_CHANGES


@st.composite
def rule(draw: Any, ruleset: str, name: str | None = None, at_edge: bool = False) -> ConditionRule:
    """An entry the ruleset's words allow; one in five (or `at_edge`) at the edge of
    what an entry may say (`edge`)."""
    words = vocabulary(ruleset)
    biggest = f"{MAX_ROUND_DICE}d1000+1000"  # the most damage a round may roll
    drained = draw(st.sampled_from(["1", "1", str(MAX_DRAIN), "1d100"]))
    dcs = st.sampled_from([1, MAX_DC]) if draw(st.integers(0, 9)) == 0 else st.integers(5, 20)
    at_edge = at_edge or draw(st.integers(0, 4), label="at the edge?") == 0
    made = ConditionRule(
        name or draw(st.sampled_from(NAMES[ruleset]), label="rule name"),
        tuple(draw(edge(ruleset) if at_edge else changes(ruleset))),
        tuple(draw(st.lists(st.sampled_from(words.losses), max_size=2, unique=True))),
        draw(st.sampled_from(["", "", "", "1", "1d4", biggest])),
        (("constitution", drained),) if words.drains and draw(st.integers(0, 5)) == 0 else (),
        draw(st.integers(0, 3)) if words.durations else 0,
        0,
        SaveEnds(draw(st.sampled_from(SAVES[ruleset])), draw(dcs)) if draw(st.booleans()) else None,
    )
    assert rule_problems(words, made) == [], made
    return made


@st.composite
def table(draw: Any, ruleset: str) -> tuple[ConditionRule, ...]:
    names = draw(st.lists(st.sampled_from(NAMES[ruleset]), max_size=4, unique=True))
    return tuple(draw(rule(ruleset, name)) for name in names)
