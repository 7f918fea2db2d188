"""What the GM, a side and a spectator see of a Tael fight (ARCHITECTURE 8, T2).

The GM sees all; another side sees a coarse health state, never hit points, Willpower
or a preparation that has not triggered; a side's own announced preparation is hidden
from the other sides until it triggers.
"""

from __future__ import annotations

import dataclasses
import json

from server.engine.records import evolve, to_data
from server.engine.rulesets.tael import views as tael_views
from server.engine.rulesets.tael.attacks import AttackAction
from server.engine.rulesets.tael.combatant import Preparation, TaelCombatant
from server.engine.rulesets.tael.damage import DamageTaken
from server.engine.rulesets.tael.fainting import WillpowerChecked
from server.engine.rulesets.tael.preparations import PreparationAnnounced, Prepare
from server.engine.rulesets.tael.sheet import TaelSheet
from server.engine.stack import Answer, WindowOpened
from server.engine.turns import EndTurn
from server.engine.views import (
    GM_AUDIENCE,
    SPECTATORS,
    event_view,
    event_views,
    player_audience,
    state_view,
)
from tests.engine.tael.builders import RIPOSTE, Fight, fighter, in_combat, one, sheet

SECRET = "SECRET-b41d"


def table(dice: tuple[int, ...] = (), preparing: bool = True) -> Fight:
    """k (heroes, knows Riposte) and goblin g (foes, with the GM's note) side by side;
    g's turn first, so k's Preparation Phase is open."""
    k = evolve(
        fighter("k", "heroes", 0, 0, sheet_=sheet("Kaelen", preparations=(RIPOSTE,), willpower=7)),
        preparation=Preparation.OPEN if preparing else Preparation.NONE,
    )
    g = fighter("g", "foes", 1, 0, sheet_=sheet("Goblin", notes=SECRET))
    return Fight(in_combat(g, k, dice=dice))


def test_every_field_is_classified() -> None:
    """Fail closed: a new field must be listed as public or hidden."""
    fields = {f.name for f in dataclasses.fields(TaelCombatant)}
    assert fields == {*tael_views.PUBLIC_COMBATANT, *tael_views.HIDDEN_COMBATANT}
    sheet_fields = {f.name for f in dataclasses.fields(TaelSheet)}
    assert sheet_fields == {*tael_views.PUBLIC_SHEET, *tael_views.HIDDEN_SHEET}


def test_another_side_sees_a_coarse_health_state_and_no_numbers() -> None:
    fight = table()
    fight.state = evolve(
        fight.state,
        combatants={**fight.state.combatants, "k": evolve(fight.who("k"), hit_points=9)},
    )
    goblins = player_audience(["g"], fight.state)
    seen = state_view(fight.state, goblins)["combatants"]["k"]
    assert seen["health_state"] == "bloodied"
    assert "hit_points" not in seen and "willpower_dc" not in seen
    assert seen["sheet"] == {"$type": "TaelSheet", "name": "Kaelen"}
    heroes = player_audience(["k"], fight.state)
    assert state_view(fight.state, heroes)["combatants"]["k"]["hit_points"] == 9
    assert "notes" not in state_view(fight.state, goblins)["combatants"]["g"]["sheet"]
    gm = json.dumps(state_view(fight.state, GM_AUDIENCE))
    assert SECRET in gm
    for audience in (goblins, heroes, SPECTATORS):
        assert SECRET not in json.dumps(state_view(fight.state, audience))


def test_an_announced_preparation_stays_hidden_from_other_sides_until_it_triggers() -> None:
    """T2: "it may stay hidden from other players until it triggers"."""
    fight = table(dice=(14, 6, 15))
    announced = one(fight.do(Prepare("k", "Riposte")), PreparationAnnounced)
    goblins = player_audience(["g"], fight.state)
    heroes = player_audience(["k"], fight.state)
    assert event_view(announced, fight.state, goblins)["move"] == ""
    assert event_view(announced, fight.state, SPECTATORS)["move"] == ""
    assert event_view(announced, fight.state, heroes)["move"] == "Riposte"
    assert state_view(fight.state, goblins)["combatants"]["k"]["prepared"] == ""
    assert state_view(fight.state, heroes)["combatants"]["k"]["prepared"] == "Riposte"

    opened = one(fight.do(AttackAction("g", "k")), WindowOpened)
    assert event_view(opened, fight.state, goblins)["window"]["asked"] == [
        {"$type": "Ask", "combatant": "k", "options": []}
    ]
    assert event_view(opened, fight.state, heroes)["window"]["asked"][0]["options"] == ["Riposte"]

    fight.do(Answer("k", opened.window.id, "Riposte"))  # it triggers: now everyone may know
    assert state_view(fight.state, goblins)["combatants"]["k"]["prepared"] == "Riposte"


def test_damage_and_willpower_show_other_sides_no_numbers() -> None:
    fight = table(dice=(15, 5), preparing=False)
    taken = one(fight.do(AttackAction("g", "k")), DamageTaken)
    views = event_views(
        taken, fight.state, [GM_AUDIENCE, SPECTATORS, player_audience(["k"], fight.state)]
    )
    assert views[("gm",)] == to_data(taken)
    assert views[("side", "heroes")] == to_data(taken)
    assert views[("side",)]["health_state"] == "wounded" and "hit_points" not in views[("side",)]
    assert views[("side",)]["taken"] == 7  # the damage dealt is rolled in the open


def test_a_willpower_check_shows_other_sides_only_its_outcome() -> None:
    fight = table(dice=(3,))
    fight.state = evolve(
        fight.state,
        combatants={
            **fight.state.combatants,
            "k": evolve(fight.who("k"), fainted=True, hit_points=0),
        },
    )
    check = one(fight.do(EndTurn("g")), WillpowerChecked)
    seen = event_view(check, fight.state, SPECTATORS)
    assert seen == {
        "$type": "WillpowerChecked",
        "combatant": "k",
        "success": True,
        "stood_up": False,
        "failures": 0,
    }
    assert event_view(check, fight.state, player_audience(["k"], fight.state)) == to_data(check)
