"""How typed words are read against the options the server offers (`clients/matching.py`):
a key's words, hole values by id, name, cell, number or label, the option a line fits
best, and what is said when it fits none; and the console's wait for choices a line
typed as a turn began may have come before."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from clients.lines import CommandError
from clients.matching import Found, Miss, read, spelling, tokens
from tests.clients.support import Desk, opened
from tests.clients.test_answer_timing import fight
from tests.support.waiting import until, within

NAMES = {"g1": "Goblin", "g2": "Goblin", "s1": "Goblin Shaman", "ayla": "Ayla"}


def cell(x: int, y: int) -> dict[str, Any]:
    return {"$type": "Cell", "x": x, "y": y}


def option(key: str, *holes: dict[str, Any], **command: Any) -> dict[str, Any]:
    return {"key": key, "label": key, "command": {"type": "T", **command}, "holes": list(holes)}


def pick(label: str, *values: Any, labels: tuple[str, ...] = ()) -> dict[str, Any]:
    shown = labels or tuple(str(v) for v in values)
    options = [{"value": v, "label": t} for v, t in zip(values, shown, strict=True)]
    return {"path": f"/{label}", "label": label, "options": options}


def number(label: str, least: int | None = 0, most: int | None = None) -> dict[str, Any]:
    return {
        "path": f"/{label}",
        "label": label,
        "options": [],
        "kind": "number",
        "least": least,
        "most": most,
    }


TARGET = pick("target", "g1", "g2", "s1")
ATTACKS = [
    option("attack:longsword", TARGET, weapon="longsword"),
    option("attack:short bow", TARGET, weapon="short bow"),
]


def fits(line: str, options: list[dict[str, Any]]) -> Found:
    found = read(tokens(line), options, NAMES)
    assert isinstance(found, Found), found
    return found


def misses(line: str, options: list[dict[str, Any]]) -> tuple[str, str]:
    miss = read(tokens(line), options, NAMES)
    assert isinstance(miss, Miss), miss
    return miss.code, miss.message


def test_a_key_is_spelled_by_its_words() -> None:
    assert spelling("attack:longsword").head == ("attack",)
    assert spelling("attack:longsword").tail == ("longsword",)
    assert spelling("hold_attack:short bow").head == ("hold", "attack")
    assert spelling("withdraw2").head == ("withdraw",) and spelling("withdraw2").tail == ("2",)
    assert spelling("remove_condition:g2:Knocked Out").tail == ("g2", "knocked", "out")
    assert spelling("Covering Shot").head == ("covering", "shot")


def test_a_line_is_lowercased_words_with_quoted_names_and_cells_kept() -> None:
    assert tokens('Attack "Short Bow" g1') == ["attack", "short", "bow", "g1"]
    assert tokens("ascend-attack g1; move -1,0") == ["ascend", "attack", "g1", ";", "move", "-1,0"]
    with pytest.raises(CommandError) as error:
        tokens('cast "Magic')
    assert error.value.code == "bad_quotes"


def test_the_option_whose_words_are_typed_wins_else_the_first_offered() -> None:
    assert fits("attack g1", ATTACKS).option["key"] == "attack:longsword"
    assert fits("attack g1 short bow", ATTACKS).option["key"] == "attack:short bow"
    assert fits("attack short bow g1", ATTACKS).values == ("g1",)
    assert fits("attack at g1 with short bow", ATTACKS).option["key"] == "attack:short bow"
    assert read(tokens("dodge"), ATTACKS, NAMES) is None  # no key starts with it


def test_a_combatant_is_typed_by_its_id_or_a_name_only_it_has() -> None:
    assert fits("attack goblin shaman", ATTACKS).values == ("s1",)
    assert misses("attack goblin", ATTACKS) == ("ambiguous", "'goblin' is any of g1, g2")
    assert misses("attack g9", ATTACKS) == (
        "no_such_choice",
        "no 'g9' to attack: targets are g1, g2, s1",
    )
    assert misses("attack", ATTACKS) == ("missing_argument", "attack: target? g1, g2, s1")


def test_a_move_names_where_it_ends_the_whole_way_or_another_way_there() -> None:
    ways = [[cell(1, 0)], [cell(1, 0), cell(2, 0)]]
    move = [option("move", pick("cell", *ways, labels=("Move to (1, 0)", "Move to (2, 0)")))]
    assert fits("move 2,0", move).values == (ways[1],)
    assert fits("move 1,0 2,0", move).values == (ways[1],)
    assert fits("move 1,1 2,0", move).values == ([cell(1, 1), cell(2, 0)],)  # checked by the server
    assert misses("move 3,0", move) == ("no_such_choice", "no '3,0' to move: cells are 1,0, 2,0")


def test_numbers_and_labels() -> None:
    health = [option("set_health", pick("combatant", "g1"), number("health", 0, 20))]
    assert fits("set health g1 5", health).values == ("g1", 5)
    assert misses("set health g1 21", health) == (
        "no_such_choice",
        "health: health? a whole number from 0 to 20",
    )
    assert misses("set health g1 lots", health) == (
        "bad_number",
        "health must be a whole number, not 'lots'",
    )
    levels = pick("levels", 1, -1, 2, labels=("Up 1 level", "Down 1 level", "Up 2 levels"))
    assert fits("ascension down 1", [option("ascension", levels)]).values == (-1,)
    assert fits("ascension 2", [option("ascension", levels)]).values == (2,)


def test_a_hole_with_one_option_or_a_weapon_fills_itself() -> None:
    strike = option("riposte", pick("weapon", "longsword", "dagger"), target="bandit")
    assert fits("riposte", [strike]).values == ("longsword",)
    assert fits("riposte bandit with dagger", [strike]).values == ("dagger",)  # bandit: held
    lone = option("prepare", pick("move", "Riposte"))
    assert fits("prepare", [lone]).values == ("Riposte",)


def test_a_verb_of_several_keys_asks_which() -> None:
    held = [option("hold_attack:longsword", TARGET), option("hold_move", pick("cell", "x"))]
    assert misses("hold", held) == (
        "missing_argument",
        "hold what? hold attack <target>, hold move <cell>",
    )
    assert misses("dash twice", [option("dash")]) == (
        "too_many_arguments",
        "dash takes nothing more: dash",
    )
    pasted = "move " + " ".join(f"{x},0" for x in range(60))
    assert misses(pasted, [option("move", pick("cell", [cell(1, 0)]))]) == (
        "too_many_arguments",
        "a line of 40 words at most",
    )


async def test_a_line_typed_before_its_choices_is_read_when_they_come() -> None:
    """A turn begins and its player types at once: the line may come before the turn's
    choices. The console reads it again when they come, within its grace."""
    desk = Desk(fight(), role="player", controls=["ayla"])
    desk.choices()  # nothing offered yet
    typed = asyncio.create_task(desk.console.handle_line("dodge"))
    await until(lambda: not desk.console._offered.is_set(), what="the line waiting")
    desk.events(opened(4, "reaction", {"ayla": ["dodge", "block"]}, about="g1"))
    assert await within(typed) is True
    assert desk.client.sent == [
        {"type": "Answer", "actor": "ayla", "window": 4, "option": "dodge", "action": None}
    ]
    desk.console.grace = 0.05
    assert await within(desk.console.handle_line("juggle")) is True  # nothing comes: refused
    assert "? no 'juggle' now: ayla may dodge, block or pass (not_offered)" in desk.text
