"""The client tells the fight from the wire's plain data, in the server's own words."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from clients.narration import describe_roll, narrate
from server.engine import execute
from server.engine.records import to_data
from server.engine.rulesets.verse.attacks import Attack
from server.narration import narrate as server_narrate
from tests.engine.verse.builders import fighter, in_combat, sheet

PROTOCOL_DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
NAMES = {"ayla": "Ayla", "g1": "Goblin (g1)", "bram": "Bram"}


def names(combatant: str) -> str:
    return NAMES.get(combatant, combatant)


def roll(faces: list[int], sides: int, modifiers: list[list[Any]], total: int) -> dict[str, Any]:
    return {
        "$type": "Roll",
        "dice": [{"$type": "DiceResult", "sides": sides, "faces": faces, "negative": False}],
        "modifiers": modifiers,
        "total": total,
        "multiplier": 1,
        "dice_used": len(faces),
    }


def doc_events() -> dict[str, dict[str, Any]]:
    """The events of docs/protocol.md's round, as a client receives them."""
    text = PROTOCOL_DOC.read_text(encoding="utf-8")
    section = text[text.index("### A round, event by event") : text.index("### Every event")]
    events = {}
    for block in re.findall(r"```json\n(.*?)\n```", section, re.S):
        data = json.loads(block)
        events.setdefault(data["$type"], data)
    return events


def test_rolls_read_as_at_the_table() -> None:
    assert describe_roll(roll([14], 20, [["Strength", 3], ["Training", 2]], 19)) == (
        "d20 14 + Strength 3 + Training 2 = 19"
    )
    two_dice = roll([3, 5], 6, [["Training", 1], ["Firing into combat", -2]], 7)
    two_dice["multiplier"] = 2
    assert describe_roll(two_dice) == "2x(2d6 3+5) + Training 1 - Firing into combat 2 = 7"


def test_the_documented_round_reads_as_a_story() -> None:
    events = doc_events()

    def said(kind: str) -> str:
        return narrate(events[kind], names)

    assert said("WindowOpened") == (
        "Window 1 opens (planning, 45s): Ayla may declare; Goblin (g1) may declare"
    )
    assert said("DeclarationMade") == "Goblin (g1) declares: attack Ayla with shortbow"
    assert said("DeclarationsRevealed") == (
        "Declarations revealed:\n"
        "  Goblin (g1): attack Ayla with shortbow\n"
        "  Ayla: attack Goblin (g1) with longsword"
    )
    assert said("Paused") == "Paused by Ayla: every timer stops"
    assert said("Answered") == "Ayla answers with dodge"
    assert said("AttackRolled") == (
        "Goblin (g1) attacks Ayla with shortbow: "
        "d20 10 + Dexterity 2 + Training 1 = 13 vs PD 12: hit"
    )
    assert said("DefenceRolled") == "Ayla tries to dodge: d20 4 + Dexterity 2 = 6 vs 13: fails"
    assert said("DamageDealt") == (
        "Ayla takes d6 3 + Training 1 = 4; 4 damage vs PR 2: 2 to health, 2 to armour"
    )
    assert said("ActionLost") == (
        "Ayla loses the action (attack Goblin (g1) with longsword) (no new action chosen in time)"
    )
    assert said("WindowClosed") == "Window 1 closes (answered)"


def test_a_redacted_declaration_says_it_is_hidden() -> None:
    hidden = {"$type": "DeclarationMade", "combatant": "g1", "slot": 0, "actions": []}
    assert narrate(hidden, names) == "Goblin (g1) declares (hidden until revealed)"


def test_another_sides_hidden_options_read_as_may_answer() -> None:
    window = {
        "$type": "Window",
        "id": 4,
        "kind": "reaction",
        "asked": [{"$type": "Ask", "combatant": "g1", "options": []}],
        "seconds": 8.0,
        "about": "ayla",
    }
    assert narrate({"$type": "WindowOpened", "window": window}, names) == (
        "Window 4 opens (reaction to Ayla, 8s): Goblin (g1) may answer"
    )


def test_pauses_name_the_gm_and_refusals() -> None:
    assert narrate({"$type": "Paused", "by": "gm"}, names) == "Paused by the GM: every timer stops"
    assert narrate({"$type": "Resumed", "by": "gm", "refused": True}, names) == (
        "The GM refuses the pause: the timers ran on as if it never happened"
    )


def test_a_gm_override_on_another_side_shows_no_numbers() -> None:
    redacted = {"$type": "HealthSet", "combatant": "g1", "health_state": "bloodied"}
    assert narrate(redacted, names) == "The GM changes Goblin (g1)'s health: now bloodied"
    whole = {"$type": "HealthSet", "combatant": "g1", "health": 5, "previous": 12}
    assert narrate(whole, names) == "The GM sets Goblin (g1)'s health to 5 (was 12)"


def test_an_unknown_event_still_prints_compactly() -> None:
    event = {"$type": "Levitated", "combatant": "ayla", "feet": 10, "note": "very high"}
    assert narrate(event, names) == "Levitated combatant=ayla, feet=10, note='very high'"


def test_an_event_of_an_unexpected_shape_falls_back_instead_of_failing() -> None:
    assert narrate({"$type": "AttackRolled", "attacker": "g1"}, names) == (
        "AttackRolled attacker=g1"
    )


def test_the_same_words_as_the_servers_narration() -> None:
    """Engine events, turned into wire data, read as the server reads them."""
    state = in_combat(
        fighter("ayla", "pc", sheet_=sheet("Ayla")),
        fighter("g1", "gm", x=1, sheet_=sheet("Goblin")),
        fighter("g2", "gm", x=2, sheet_=sheet("Goblin")),
        dice=(7, 6),
    )
    after, (attack, damage) = execute(state, Attack("ayla", "g1", "longsword"))
    wire_names = {"ayla": "Ayla", "g1": "Goblin (g1)", "g2": "Goblin (g2)"}.__getitem__
    assert narrate(to_data(attack), wire_names) == server_narrate(attack, after)
    server_text = server_narrate(damage, after)
    assert server_text is not None
    # The server adds what is left, which a client of another side may not know.
    assert server_text.startswith(narrate(to_data(damage), wire_names) + " [")
