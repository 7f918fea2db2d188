"""Narration: events as sentences, and a compact fallback for event types it does not know."""

from __future__ import annotations

from server.engine import Event, execute
from server.engine.records import record
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.conditions import ConditionGained, WeaponDropped
from server.engine.rulesets.verse.turns import EndTurn
from server.narration import narrate
from tests.engine.verse.builders import fighter, in_combat, sheet


@record
class NarrationTestEvent(Event):
    caster: str
    spell: str
    mc: int
    targets: tuple[str, ...] = ()


def test_names_come_from_sheets_and_tell_apart_combatants_sharing_one() -> None:
    state = in_combat(
        fighter("ayla", "pc", sheet_=sheet("Ayla")),
        fighter("g1", "gm", x=1, sheet_=sheet("Goblin")),
        fighter("g2", "gm", x=2, sheet_=sheet("Goblin")),
        dice=(7, 6),
    )
    after, (attack, damage) = execute(state, Attack("ayla", "g1", "longsword"))
    assert narrate(attack, after) == (
        "Ayla attacks Goblin (g1) with longsword: "
        "d20 7 + Strength 3 + Training 2 = 12 vs PD 12: hit"
    )
    assert narrate(damage, after) == (
        "Goblin (g1) takes d8 6 + Training 2 = 8; 8 damage vs PR 2: 6 to health, "
        "2 to armour [health 14, armour 8 left]"
    )
    _, ended = execute(after, EndTurn("ayla"))
    assert [narrate(e, after) for e in ended][:2] == ["Ayla ends the turn", "Goblin (g1)'s turn"]


def test_conditions_and_items() -> None:
    state = in_combat(fighter("ayla", "pc", sheet_=sheet("Ayla")))
    assert narrate(ConditionGained("ayla", "Dead", reason="health 0"), state) == (
        "Ayla dies (health 0)"
    )
    assert narrate(ConditionGained("ayla", "Shaken", rounds=1), state) == (
        "Ayla gains Shaken for 1 round"
    )
    assert narrate(WeaponDropped("ayla", "longsword", reason="critical fail"), state) == (
        "Ayla drops the longsword (critical fail)"
    )


def test_an_unknown_event_prints_its_type_and_fields_compactly() -> None:
    state = in_combat(fighter("ayla", "pc"))
    event = NarrationTestEvent("bram", "Magic Missile", 4, ("g1", "g2"))
    assert narrate(event, state) == (
        "NarrationTestEvent caster=bram, spell='Magic Missile', mc=4, targets=[g1, g2]"
    )
