"""The table a thin client holds: whole tables, patched updates, the log and the choices.

The messages are written by hand here and checked against the contract's models
(`protocol/table.py`), so the samples say only what a server may send.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import BaseModel

from clients.table import LOG_LINES, HeldTable, OutOfStep
from protocol.messages import Choices, Log, Table, Update

Data = dict[str, Any]


def kept(model: type[BaseModel], message: Data) -> Data:
    """`message`, once the contract's model has read it without complaint."""
    model.model_validate(message)
    return message


def card(cid: str, name: str, side: str, x: int, y: int, **fields: Any) -> Data:
    return {"id": cid, "name": name, "side": side, "position": [x, y], **fields}


def hp(now: int, most: int) -> Data:
    return {"now": now, "max": most}


def gm_view(ruleset: str = "verse") -> Data:
    """A fight as the GM sees it: every number."""
    return {
        "ruleset": ruleset,
        "mode": "live",
        "phase": "combat",
        "round": 2,
        "turn": "ayla",
        "order": [
            {"combatant": "ayla", "initiative": 17},
            {"combatant": "g1", "initiative": 12},
            {"combatant": "bram", "initiative": 9},
        ],
        "grid": {"kind": "square"},
        "combatants": {
            "ayla": card(
                "ayla",
                "Ayla",
                "heroes",
                3,
                4,
                health=hp(12, 20),
                health_word="wounded",
                mana=hp(5, 8),
                conditions=[{"name": "prone", "rounds_left": 2}, {"name": "blessed"}],
                hands=["longsword", "shield"],
                notes=["holding"],
            ),
            "bram": card("bram", "Bram", "heroes", 4, 4, health=hp(18, 18), health_word="unhurt"),
            "g1": card(
                "g1",
                "Goblin",
                "goblins",
                6,
                5,
                ascension=10,
                health=hp(3, 9),
                health_word="bloodied",
            ),
        },
    }


def table(seq: int = 10, view: Data | None = None) -> Data:
    return kept(Table, {"type": "table", "seq": seq, "view": view or gm_view()})


def line(seq: int, text: str = "", **fields: Any) -> Data:
    return {"seq": seq, "kind": "Narrated", "text": text or f"event {seq}", **fields}


def update(from_seq: int, seq: int, *patch: Data, log: list[Data] | None = None) -> Data:
    message = {"type": "update", "from_seq": from_seq, "seq": seq, "patch": list(patch)}
    return kept(Update, {**message, "log": log or []})


def held_at(seq: int = 10, view: Data | None = None) -> HeldTable:
    held = HeldTable()
    held.take(table(seq, view))
    return held


# --- whole tables and patches -------------------------------------------------------------


def test_a_table_replaces_the_view_and_sets_the_event_it_is_at() -> None:
    held = HeldTable()
    assert held.view == {} and held.seq is None
    held.take(table(10))
    held.take(table(25, gm_view("tael")))
    assert held.seq == 25
    assert held.view["ruleset"] == "tael"


def test_an_update_adds_removes_and_replaces_and_moves_the_table_on() -> None:
    held = held_at(10)
    held.take(
        update(
            10,
            12,
            {"op": "replace", "path": "/combatants/g1/health", "value": hp(0, 9)},
            {"op": "replace", "path": "/combatants/g1/health_word", "value": "down"},
            {"op": "add", "path": "/combatants/g1/active", "value": False},
            {"op": "remove", "path": "/combatants/bram"},
            {"op": "add", "path": "/paused_by", "value": "bram"},
            {"op": "replace", "path": "/order", "value": [{"combatant": "ayla"}]},
        )
    )
    assert held.seq == 12
    goblin = held.combatant("g1")
    assert (goblin["health"], goblin["health_word"], goblin["active"]) == (hp(0, 9), "down", False)
    assert "bram" not in held.view["combatants"]
    assert held.view["paused_by"] == "bram"
    assert held.view["order"] == [{"combatant": "ayla"}]


def test_no_message_is_changed_and_a_view_drawn_before_stays_as_it_was() -> None:
    whole = table(10)
    whole_before = copy.deepcopy(whole)
    held = HeldTable()
    held.take(whole)
    drawn = held.view
    value = hp(1, 20)
    change = update(10, 11, {"op": "replace", "path": "/combatants/ayla/health", "value": value})
    change_before = copy.deepcopy(change)
    held.take(change)
    held.take(
        update(
            11,
            12,
            {"op": "replace", "path": "/combatants/ayla/health/now", "value": 0},
            {"op": "replace", "path": "/combatants/ayla/hands/1", "value": "buckler"},
        )
    )
    assert whole == whole_before and change == change_before
    assert drawn["combatants"]["ayla"]["health"] == hp(12, 20)
    assert held.combatant("ayla")["health"] == hp(0, 20)
    assert drawn["combatants"]["ayla"]["hands"] == ["longsword", "shield"]
    assert held.combatant("ayla")["hands"] == ["longsword", "buckler"]
    # only what changed was copied: the other combatants are the very cards held before
    assert held.combatant("g1") is drawn["combatants"]["g1"]
    assert held.combatant("ayla")["conditions"] is drawn["combatants"]["ayla"]["conditions"]


def test_keys_with_a_slash_or_a_tilde_are_escaped_in_paths() -> None:
    view = gm_view()
    view["combatants"] = {"g/1": card("g/1", "Goblin", "goblins", 1, 1, health_word="unhurt")}
    held = held_at(10, kept(Table, {"type": "table", "seq": 10, "view": view})["view"])
    held.take(
        update(
            10,
            11,
            {"op": "replace", "path": "/combatants/g~11/health_word", "value": "wounded"},
            {"op": "add", "path": "/combatants/x~0y", "value": card("x~y", "Wisp", "", 2, 2)},
            {"op": "add", "path": "/settings", "value": {"a~/b": 1}},
            {"op": "replace", "path": "/settings/a~0~1b", "value": 2},
        )
    )
    assert held.combatant("g/1")["health_word"] == "wounded"
    assert held.name_of("x~y") == "Wisp"
    assert held.view["settings"] == {"a~/b": 2}


def test_an_update_that_does_not_follow_the_held_table_asks_for_a_resume() -> None:
    fresh = HeldTable()
    with pytest.raises(OutOfStep, match="does not follow no table"):
        fresh.take(update(0, 1))
    held = held_at(10)
    before = held.view
    with pytest.raises(OutOfStep, match="from event 11 does not follow the table at event 10"):
        held.take(update(11, 12, {"op": "replace", "path": "/round", "value": 3}, log=[line(12)]))
    assert (held.view, held.seq, list(held.log)) == (before, 10, [])


def test_a_patch_that_does_not_apply_leaves_the_table_whole() -> None:
    held = held_at(10)
    before = copy.deepcopy(held.view)
    bad = update(
        10,
        11,
        {"op": "replace", "path": "/combatants/ayla/health/now", "value": 1},
        {"op": "remove", "path": "/combatants/nobody"},
        log=[line(11)],
    )
    with pytest.raises(OutOfStep, match="does not apply to the table at event 10"):
        held.take(bad)
    assert held.view == before and held.seq == 10 and not held.log
    with pytest.raises(OutOfStep):
        held.take({**bad, "patch": [{"op": "move", "from": "/turn", "path": "/result"}]})
    assert held.view == before


# --- the log ----------------------------------------------------------------------------


def test_the_log_keeps_history_then_each_updates_lines_and_only_the_latest() -> None:
    held = HeldTable()
    held.take(kept(Log, {"type": "log", "lines": [line(seq) for seq in range(1, 9)]}))
    held.take(table(8))
    held.take(update(8, 10, log=[line(9), line(10)]))
    assert [each["seq"] for each in held.log] == list(range(1, 11))
    # a resume sends history the client has already: it is not kept twice
    held.take(kept(Log, {"type": "log", "lines": [line(seq) for seq in range(5, 12)]}))
    assert [each["seq"] for each in held.log] == list(range(1, 12))
    held.take(table(11))
    for seq in range(12, 12 + LOG_LINES):
        held.take(update(seq - 1, seq, log=[line(seq)]))
    assert len(held.log) == LOG_LINES
    assert held.log[0]["seq"] == 12 and held.log[-1]["seq"] == 11 + LOG_LINES


# --- choices and what a drawing asks --------------------------------------------------------


def choices(seq: int, *seats: Data) -> Data:
    return kept(Choices, {"type": "choices", "seq": seq, "seats": list(seats)})


def seat(cid: str, *keys: str, window: int | None = None) -> Data:
    options = [{"key": key, "label": key.title(), "command": {"type": key}} for key in keys]
    return {"combatant": cid, "window": window, "options": options}


def test_choices_are_replaced_whole_and_found_by_combatant() -> None:
    held = held_at(10)
    held.take(choices(10, seat("ayla", "dodge", "block", window=4), seat("bram", "pass")))
    assert held.choices_for("ayla") == seat("ayla", "dodge", "block", window=4)
    held.take(choices(11, seat("bram", "attack")))
    assert held.choices_seq == 11
    assert held.choices_for("ayla") is None
    assert [o["key"] for o in held.choices_for("bram")["options"]] == ["attack"]  # type: ignore[index]


def changed(
    seq: int, *seats: Data, gone: tuple[str, ...] = (), order: list[str] | None = None
) -> Data:
    message = {"type": "choices", "seq": seq, "whole": False, "seats": list(seats)}
    return kept(Choices, {**message, "gone": list(gone), "order": order})


def test_choices_that_are_not_whole_change_only_the_seats_they_name() -> None:
    held = held_at(10)
    held.take(choices(10, seat("gm", "pause"), seat("g1", "pass"), seat("g2", "pass")))
    held.take(changed(11, seat("g2", "dodge")))  # replaced where it stands
    assert [s["combatant"] for s in held.choices] == ["gm", "g1", "g2"]
    assert held.choices_for("g2") == seat("g2", "dodge")
    assert held.choices_for("g1") == seat("g1", "pass")
    held.take(changed(12, gone=("g1",)))
    assert [s["combatant"] for s in held.choices] == ["gm", "g2"]
    held.take(changed(13, seat("g1", "block"), gone=("g2",), order=["g1", "gm"]))
    assert held.choices == [seat("g1", "block"), seat("gm", "pause")]
    assert held.choices_seq == 13
    held.take(choices(14, seat("gm", "resume")))  # a whole one again (after a resume)
    assert held.choices == [seat("gm", "resume")]


def test_names_and_whom_the_window_waits_on() -> None:
    view = gm_view()
    view["window"] = {
        "id": 4,
        "kind": "reaction",
        "about": "g1",
        "asked": ["ayla", "bram", "g1"],
        "answered": ["g1"],
        "seconds": 8.0,
    }
    held = held_at(10, kept(Table, {"type": "table", "seq": 10, "view": view})["view"])
    assert held.waiting_on() == ["Ayla", "Bram"]
    assert (held.name_of("g1"), held.name_of("gm"), held.name_of("zed")) == (
        "Goblin",
        "the GM",
        "zed",
    )
    held.take(update(10, 11, {"op": "remove", "path": "/window"}))
    assert held.waiting_on() == []


def test_messages_that_are_not_the_tables_are_left_alone() -> None:
    held = held_at(10)
    before = held.view
    held.take({"type": "welcome", "seq": 99})
    held.take({"type": "window", "seq": 99, "window": 4})
    assert held.view is before and held.seq == 10


def test_a_table_whose_log_went_back_keeps_the_lines_up_to_it_and_takes_the_log_s_after() -> None:
    """`went_back` to event 3 (the log lost 4 and 5): the lines of 4 and 5 go; the
    recent lines that follow, the log's, bring its own 4; its table replaces the view."""
    held = held_at(5)
    held.take(kept(Log, {"type": "log", "lines": [line(n) for n in range(1, 6)]}))
    held.went_back(3)
    assert [entry["text"] for entry in held.log] == ["event 1", "event 2", "event 3"]
    assert held.seq is None and held.choices == []
    lines = [line(n) for n in range(1, 4)] + [line(4, "the surviving event 4")]
    held.take(kept(Log, {"type": "log", "lines": lines}))
    held.take(table(4))
    assert [entry["text"] for entry in held.log][-2:] == ["event 3", "the surviving event 4"]
    assert held.seq == 4
    held.take(update(4, 5, log=[line(5, "the next")]))  # and it goes on from the log's
    assert held.seq == 5
