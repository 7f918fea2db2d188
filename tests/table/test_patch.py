"""The table's patches are RFC 6902: any JSON Patch library turns the old table into the
new one with them (here `jsonpatch`, which clients use too)."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
from hypothesis import given, settings
from hypothesis import strategies as st

from server.table.patch import diff, pointer

keys = st.sampled_from(["a", "b", "g1", "x/y", "~t", "", "health"])
leaves = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3)
values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)
tables = st.dictionaries(keys, values, max_size=5)


def applied(before: dict[str, Any], ops: list[dict[str, Any]]) -> Any:
    return jsonpatch.apply_patch(copy.deepcopy(before), ops)


@settings(max_examples=300, deadline=None)
@given(tables, tables)
def test_a_patch_turns_the_old_table_into_the_new_one(
    before: dict[str, Any], after: dict[str, Any]
) -> None:
    snapshot = copy.deepcopy(before), copy.deepcopy(after)
    ops = diff(before, after)
    assert applied(before, ops) == after
    assert (before, after) == snapshot  # neither table is changed


def test_only_what_changed_is_sent() -> None:
    card = {"name": "Goblin", "health_word": "unhurt", "position": [1, 2]}
    before = {"round": 1, "combatants": {"g1": card, "ayla": {"name": "Ayla"}}}
    after = {
        "round": 2,
        "combatants": {
            "g1": {**card, "health_word": "wounded"},
            "ayla": before["combatants"]["ayla"],
        },
    }
    assert diff(before, after) == [
        {"op": "replace", "path": "/round", "value": 2},
        {"op": "replace", "path": "/combatants/g1/health_word", "value": "wounded"},
    ]


def test_lists_are_replaced_whole_and_keys_escaped() -> None:
    before = {"order": [{"combatant": "a"}, {"combatant": "b"}], "c": {"a/b": 1, "~": 2}}
    after = {"order": [{"combatant": "b"}], "c": {"~": 3}}
    ops = diff(before, after)
    assert ops == [
        {"op": "replace", "path": "/order", "value": [{"combatant": "b"}]},
        {"op": "remove", "path": "/c/a~1b"},
        {"op": "replace", "path": "/c/~0", "value": 3},
    ]
    assert applied(before, ops) == after


def test_a_number_that_becomes_a_flag_is_replaced() -> None:
    assert diff({"n": 1}, {"n": True}) == [{"op": "replace", "path": "/n", "value": True}]
    assert diff({"n": 1}, {"n": 1.0}) == [{"op": "replace", "path": "/n", "value": 1.0}]


def test_pointer() -> None:
    assert pointer("combatants", "g/1", "~x") == "/combatants/g~11/~0x"
