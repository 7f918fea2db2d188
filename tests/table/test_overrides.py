"""The GM's console as choices (`server/table/overrides.py`): every command offered is
one the engine takes, with its holes filled from their options or, for a number, with a
value in its bounds; what is offered follows the fight (start before it, pause and
resume, refusing a player's pause, closing the window, removing what is there)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from protocol.table import SeatChoices
from server.encounters import build, read_file
from server.engine import CommandRefused, decide, execute
from server.engine.commands import Pause
from server.engine.condition_table import SetConditionRule
from server.engine.effects import ConditionRule
from server.engine.state import Encounter
from server.engine.turns import StartCombat
from server.table.overrides import gm_seat
from tests.table.test_choices import filled, reader

SAMPLES = Path(__file__).resolve().parents[2] / "server" / "samples" / "encounters"
ENCOUNTERS = {"verse": "demo.toml", "tael": "tael-ambush.toml"}


def setup(ruleset: str) -> Encounter:
    spec = read_file(SAMPLES / ENCOUNTERS[ruleset]) | {"seed": 5}
    return build(spec).encounter


def fought(ruleset: str) -> Encounter:
    state, _ = execute(setup(ruleset), SetConditionRule(ConditionRule("Shaken")))
    state, _ = execute(state, StartCombat())
    return state


def keys(state: Encounter) -> set[str]:
    seat = gm_seat(state)
    assert seat is not None
    SeatChoices.model_validate(seat)
    return {option["key"].split(":")[0] for option in seat["options"]}


def sent(state: Encounter) -> list[tuple[str, dict[str, Any]]]:
    """Every command the console can send: each pick option in turn, numbers at their
    lower bound (or 1 where a number has none)."""
    seat = gm_seat(state)
    assert seat is not None
    made: list[tuple[str, dict[str, Any]]] = []
    for option in seat["options"]:
        commands = [option["command"]]
        for hole in option["holes"]:
            if hole.get("kind") == "number":
                value = hole["least"] if hole["least"] is not None else 1
                commands = [filled(c, hole["path"], value) for c in commands]
            else:
                choices = [o["value"] for o in hole["options"]]
                commands = [filled(c, hole["path"], v) for c in commands for v in choices]
        made += [(option["label"], c) for c in commands]
    return made


@pytest.mark.parametrize("ruleset", sorted(ENCOUNTERS))
def test_before_the_fight_the_gm_may_start_it(ruleset: str) -> None:
    assert "start" in keys(setup(ruleset))
    assert "resume" not in keys(setup(ruleset))


@pytest.mark.parametrize("ruleset", sorted(ENCOUNTERS))
def test_every_command_of_the_console_is_one_the_engine_takes(ruleset: str) -> None:
    state = fought(ruleset)
    offered = keys(state)
    assert "pause" in offered and "start" not in offered
    assert offered & {"end", "end_agreed"}
    assert ("set_health" if ruleset == "verse" else "set_hit_points") in offered
    assert ("set_condition" if ruleset == "verse" else "set_status") in offered
    commands = sent(state)
    assert len(commands) > len(state.combatants)
    for label, data in commands:
        command = reader(ruleset).read(json.loads(json.dumps(data)))
        try:
            decide(state, command)
        except CommandRefused as refused:
            if refused.code != "checks_passed":
                raise AssertionError(f"{label}: {data} refused: {refused}") from None


@pytest.mark.parametrize("ruleset", sorted(ENCOUNTERS))
def test_a_players_pause_may_be_refused_or_resumed(ruleset: str) -> None:
    state = fought(ruleset)
    player = next(iter(state.combatants))
    paused, _ = execute(state, Pause(by=player))
    offered = keys(paused)
    assert {"resume", "refuse_pause"} <= offered and "pause" not in offered


def test_a_condition_on_a_combatant_may_be_taken_off() -> None:
    state = fought("verse")
    seat = gm_seat(state)
    assert seat is not None
    lay = next(o for o in seat["options"] if o["key"] == "set_condition")
    data = filled(filled(lay["command"], "/combatant", "g1"), "/condition", "Shaken")
    state, _ = execute(state, reader("verse").read(data))
    after = gm_seat(state)
    assert after is not None
    removes = [o for o in after["options"] if o["key"].startswith("remove_condition")]
    assert [o["label"] for o in removes] == ["Remove Shaken from Goblin (g1)"]


def option(state: Encounter, key: str) -> dict[str, Any]:
    seat = gm_seat(state)
    assert seat is not None
    return next(o for o in seat["options"] if o["key"] == key)


def hole(option: dict[str, Any], path: str) -> dict[str, Any]:
    return next(h for h in option["holes"] if h["path"] == path)


def offered(option: dict[str, Any], path: str) -> list[Any]:
    return [o["value"] for o in hole(option, path)["options"]]


def test_the_conditions_the_text_names_are_offered_without_a_table() -> None:
    state = setup("verse")
    assert not state.condition_rules
    for key in ("set_condition", "set_condition_rounds"):
        assert offered(option(state, key), "/condition") == [
            "Armour Fragile",
            "Bleed",
            "Blinded",
            "Dead",
            "Exhausted",
            "Knocked Out",
            "Paranoid Insanity",
            "Prone",
            "Shaken",
            "Stunned",
            "Unconscious",
        ]


def test_the_tables_conditions_join_the_texts_once_each() -> None:
    state = setup("verse")
    for name in ("prone", "Dazed", "Bleed"):
        state, _ = execute(state, SetConditionRule(ConditionRule(name)))
    names = offered(option(state, "set_condition"), "/condition")
    assert names == sorted(names)
    assert "Dazed" in names and "Prone" in names and "prone" not in names
    assert names.count("Bleed") == 1


def lay(state: Encounter, key: str, **holes: Any) -> Encounter:
    """`state` after the GM sends the console's option `key` with its holes filled."""
    data = option(state, key)["command"]
    for path, value in holes.items():
        data = filled(data, f"/{path}", value)
    after, _ = execute(state, reader(state.ruleset).read(json.loads(json.dumps(data))))
    return after


def test_a_condition_is_laid_until_removed_or_for_some_rounds() -> None:
    state = fought("verse")
    rounds = hole(option(state, "set_condition_rounds"), "/rounds")
    assert (rounds["kind"], rounds["least"], rounds["most"]) == ("number", 1, None)
    assert "/rounds" not in [h["path"] for h in option(state, "set_condition")["holes"]]
    state = lay(state, "set_condition_rounds", combatant="g1", condition="Prone", rounds=2)
    state = lay(state, "set_condition", combatant="g2", condition="Stunned")
    assert [(c.name, c.rounds) for c in state.combatants["g1"].conditions] == [("Prone", 2)]
    assert [(c.name, c.rounds) for c in state.combatants["g2"].conditions] == [("Stunned", None)]


def test_no_rounds_below_one_are_taken() -> None:
    state = fought("verse")
    with pytest.raises(CommandRefused) as refused:
        lay(state, "set_condition_rounds", combatant="g1", condition="Prone", rounds=0)
    assert refused.value.code == "invalid_command"


def test_a_status_comes_with_its_turns_damage_and_lost_turns() -> None:
    state = setup("tael")
    state, _ = execute(state, SetConditionRule(ConditionRule("Dread")))
    state, _ = execute(state, SetConditionRule(ConditionRule("burning")))
    status = option(state, "set_status")
    names = offered(status, "/status")
    assert "Burning" in names and "Dread" in names and "burning" not in names
    assert names == sorted(names)
    assert offered(status, "/damage")[:2] == ["", "1d4"]
    assert offered(status, "/skips_turn") == [False, True]
    turns = hole(status, "/turns")
    assert (turns["kind"], turns["least"]) == ("number", 1)
    who = next(iter(state.combatants))
    state = lay(
        state, "set_status", combatant=who, status="Dread", turns=2, damage="1d6", skips_turn=True
    )
    laid = state.combatants[who].statuses
    assert [(s.name, s.turns, s.damage, s.skips_turn) for s in laid] == [("Dread", 2, "1d6", True)]
