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
