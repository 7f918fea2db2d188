"""The log each audience reads: an event as a line, its rolls as roll cards.

Every line here is made as the server makes it: the engine's own events, turned into
each audience's data by the views (`event_view`), told with that audience's table
(`table_view`). Every event type of both rulesets reads in words, never as its raw
fields; the roll cards show a foe's numbers only as the room's `roll_visibility`
allows (R77). Each ruleset's own events are read line by line in
`test_verse_narration.py` and `test_tael_narration.py`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import pytest

import server.engine  # noqa: F401  (registers every ruleset)
from protocol.table import LogLine
from server.engine import execute
from server.engine.core import RULESETS, Event
from server.engine.dice import DiceResult, Roll
from server.engine.records import evolve, from_data, to_data
from server.engine.rulesets.tael.attacks import AttackAction, HitChecked
from server.engine.rulesets.tael.preparations import Prepare
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.defences import DefenceRolled
from server.engine.rulesets.verse.live import DeclarationMade
from server.engine.rulesets.verse.sheet import Spell
from server.engine.rulesets.verse.spells import CastSpell, SpellAttackRolled, SpellTargetResult
from server.engine.stack import Answer, PassWindow
from server.engine.state import Encounter, Settings
from server.engine.turns import EndTurn, StartCombat
from server.engine.views import GM_AUDIENCE, SPECTATORS, Audience, event_view, player_audience
from server.table.log import CARDS, Teller, found_cards, log_line, roll_cards, tell_all
from server.table.narration import TELLINGS, compact, describe_roll, narrate, narrated
from server.table.view import table_view
from tests.engine.tael import builders as tael
from tests.engine.test_views import MARKED, full_story, marked_story, marks
from tests.engine.verse.builders import encounter, fighter, in_combat, sheet
from tests.support.fights import (
    GM_STORY,
    PLAYED,
    doc_events,
    every_event_type,
    play,
    record,
    the_pass,
)
from tests.support.fights import window_id as tael_window

VISIBILITIES = ("open", "faces", "hidden")
NAMES = {"ayla": "Ayla", "g1": "Goblin (g1)", "bram": "Bram", "corvin": "Corvin"}
NAMES |= {"kaelen": "Kaelen"}


def names(combatant: str) -> str:
    return NAMES.get(combatant, combatant)


def d20(face: int, *modifiers: tuple[str, int]) -> Roll:
    return Roll((DiceResult(20, (face,)),), modifiers, face + sum(v for _, v in modifiers))


def valid(line: dict[str, Any]) -> dict[str, Any]:
    """The line as the contract reads it (it fails on any field it does not allow)."""
    LogLine.model_validate(line)
    return line


# --- the words ----------------------------------------------------------------------------


def test_rolls_read_as_at_the_table() -> None:
    roll = to_data(d20(14, ("Strength", 3), ("Training", 2)))
    assert describe_roll(roll) == "d20 14 + Strength 3 + Training 2 = 19"
    two = to_data(Roll((DiceResult(6, (3, 5)),), (("Training", 1), ("Firing", -2)), 7, 2))
    assert describe_roll(two) == "2x(2d6 3+5) + Training 1 - Firing 2 = 7"


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


def test_hidden_things_read_as_hidden_and_unknown_ones_compactly() -> None:
    hidden = {"$type": "DeclarationMade", "combatant": "g1", "slot": 0, "actions": []}
    assert narrate(hidden, names) == "Goblin (g1) declares (hidden until revealed)"
    redacted = {"$type": "HealthSet", "combatant": "g1", "health_state": "bloodied"}
    assert narrate(redacted, names) == "The GM changes Goblin (g1)'s health: now bloodied"
    event = {"$type": "Levitated", "combatant": "ayla", "feet": 10, "note": "very high"}
    assert narrate(event, names) == "Levitated combatant=ayla, feet=10, note='very high'"
    assert narrate({"$type": "AttackRolled", "attacker": "g1"}, names) == (
        "AttackRolled attacker=g1"
    )


def test_a_combatant_sharing_its_name_reads_with_its_id() -> None:
    """The names come from the audience's table: of two goblins, g1 reads "Goblin (g1)",
    in its attacks and its turns alike; Ayla, whose name no other card has, alone."""
    state = in_combat(
        fighter("ayla", "pc", sheet_=sheet("Ayla")),
        fighter("g1", "gm", x=1, sheet_=sheet("Goblin")),
        fighter("g2", "gm", x=2, sheet_=sheet("Goblin")),
        dice=(7, 6),
    )
    after, (attack, _) = execute(state, Attack("ayla", "g1", "longsword"))
    line = log_line(1, to_data(attack), table_view(after, GM_AUDIENCE))
    assert line["text"] == (
        "Ayla attacks Goblin (g1) with longsword: "
        "d20 7 + Strength 3 + Training 2 = 12 vs PD 12: hit"
    )
    ended, turn_ended = execute(after, EndTurn("ayla"))
    table = table_view(ended, GM_AUDIENCE)
    assert [log_line(2, to_data(e), table)["text"] for e in turn_ended][:2] == [
        "Ayla ends the turn",
        "Goblin (g1)'s turn",
    ]


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


def test_a_gm_override_reads_whole_to_the_gm() -> None:
    whole = {"$type": "HealthSet", "combatant": "g1", "health": 5, "previous": 12}
    assert narrate(whole, names) == "The GM sets Goblin (g1)'s health to 5 (was 12)"


def test_damage_reads_without_what_is_left() -> None:
    """A damage line says what the hit did, not the health and armour left, which
    another side may not know: an audience that may sees them on the target's card."""
    state = in_combat(
        fighter("ayla", "pc", sheet_=sheet("Ayla")),
        fighter("g1", "gm", x=1, sheet_=sheet("Goblin")),
        fighter("g2", "gm", x=2, sheet_=sheet("Goblin")),
        dice=(7, 6),
    )
    after, (_, damage) = execute(state, Attack("ayla", "g1", "longsword"))
    line = log_line(2, to_data(damage), table_view(after, GM_AUDIENCE))
    assert line["text"] == (
        "Goblin (g1) takes d8 6 + Training 2 = 8; 8 damage vs PR 2: 6 to health, 2 to armour"
    )


def test_a_window_answer_reads_in_the_rooms_own_words() -> None:
    verse = {"$type": "Answered", "window": 3, "combatant": "ayla", "option": "dodge"}
    tael = {"$type": "Answered", "window": 5, "combatant": "kaelen", "option": "Riposte"}
    assert narrate(verse, names, "verse") == "Ayla answers with dodge"
    assert narrate(tael, names, "tael") == "Kaelen uses the prepared move Riposte"
    assert narrate(tael, names) == "Kaelen uses the prepared move Riposte"  # room not said


def test_a_ruleset_without_words_reads_its_events_as_fields_and_shared_ones_as_ever() -> None:
    attack = {"$type": "AttackRolled", "attacker": "g1", "target": "ayla", "outcome": "miss"}
    assert narrate(attack, names, "starfall") == (
        "AttackRolled attacker=g1, target=ayla, outcome=miss"
    )
    assert narrate({"$type": "RoundStarted", "round": 2}, names, "starfall") == "Round 2"
    assert narrate({"$type": "TurnStarted", "combatant": "ayla"}, names, "starfall") == (
        "Ayla's turn"
    )


# --- the table gives the story its names, turns and secrets ----------------------------


def verse_table(visibility: str = "faces") -> Encounter:
    """Ayla (side pc) against two goblins (side gm) in round 1, Ayla acting."""
    return in_combat(
        fighter("ayla", "pc", 0, 0, sheet_=sheet("Ayla")),
        fighter("g1", "gm", 1, 0, sheet_=sheet("Goblin")),
        fighter("g2", "gm", 2, 0, sheet_=sheet("Goblin")),
        settings=Settings(roll_visibility=visibility),
    )


def audiences(state: Encounter) -> dict[str, Audience]:
    return {
        "gm": GM_AUDIENCE,
        "ayla's side": player_audience(["ayla"], state),
        "goblins' side": player_audience(["g1"], state),
        "spectator": SPECTATORS,
    }


def line_for(event: Event, state: Encounter, audience: Audience, seq: int = 1) -> dict[str, Any]:
    view = event_view(event, state, audience)
    return valid(log_line(seq, view, table_view(state, audience)))


def test_names_come_from_the_table_and_share_a_name_by_id() -> None:
    state = verse_table()
    attack = AttackRolled("g2", "ayla", "scimitar", "melee", "standard", d20(3), "PD", 12, "miss")
    line = line_for(attack, state, SPECTATORS, seq=7)
    assert line["seq"] == 7 and line["kind"] == "AttackRolled"
    assert line["text"].startswith("Goblin (g2) attacks Ayla with scimitar: d20 3")


def test_an_empty_declaration_is_a_pass_to_its_side_and_hidden_to_the_others() -> None:
    """V20: the goblins' side sees its own declaration; Ayla's cannot tell a pass from
    a hidden one. `knows` is read from the table: the cards with numbers of health."""
    state = verse_table()
    empty = DeclarationMade("g1", 1, ())
    assert line_for(empty, state, player_audience(["g2"], state))["text"] == (
        "Goblin (g1) declares nothing for the turn: it passes"
    )
    assert line_for(empty, state, GM_AUDIENCE)["text"].endswith("it passes")
    for audience in (player_audience(["ayla"], state), SPECTATORS):
        assert line_for(empty, state, audience)["text"] == (
            "Goblin (g1) declares (hidden until revealed)"
        )


def test_a_fast_combatants_turns_come_from_the_tables_order() -> None:
    """V16: Corvin's two turns in the order read as turn 1 and turn 2."""
    table = {
        "ruleset": "verse",
        "mode": "live",
        "order": [{"combatant": "corvin"}, {"combatant": "g1"}, {"combatant": "corvin"}],
        "combatants": {"corvin": {"name": "Corvin", "health": {"now": 9, "max": 9}}},
    }
    declared = to_data(DeclarationMade("corvin", 2, ()))
    assert log_line(3, declared, table)["text"] == "Corvin declares nothing for turn 2: it passes"
    teller = Teller(table, knows=lambda combatant: False)
    assert teller.line(3, declared)["text"] == "Corvin declares for turn 2 (hidden until revealed)"


# --- roll cards -------------------------------------------------------------------------


def cards_seen(event: Event, visibility: str) -> dict[str, list[dict[str, Any]]]:
    state = verse_table(visibility)
    return {who: line_for(event, state, a)["rolls"] for who, a in audiences(state).items()}


def whole(card: dict[str, Any]) -> bool:
    return card["dice"] is not None and card["total"] is not None


@pytest.mark.parametrize("visibility", VISIBILITIES)
def test_a_verse_attack_card_shows_the_roller_its_roll_and_another_side_what_the_room_allows(
    visibility: str,
) -> None:
    """Ayla hits goblin g1 (PD 12): the GM and Ayla's side read her roll whole; the
    GM and the goblins' side read the PD. Another side reads her modifiers and total
    only at an open table, her die unless the room shows outcomes only (R77)."""
    hit = AttackRolled(
        "ayla", "g1", "longsword", "melee", "standard", d20(14, ("Strength", 3)), "PD", 12, "hit"
    )
    seen = cards_seen(hit, visibility)
    gm = seen["gm"]
    assert gm == [
        {
            "label": "attack",
            "by": "ayla",
            "dice": [{"sides": 20, "faces": [14], "negative": False}],
            "multiplier": 1,
            "modifiers": [{"name": "Strength", "value": 3}],
            "total": 17,
            "against": {"name": "PD", "value": 12},
            "outcome": "hit",
        }
    ]
    pd = 12 if visibility == "open" else None
    assert seen["ayla's side"][0] == {**gm[0], "against": {"name": "PD", "value": pd}}
    assert seen["goblins' side"][0]["against"] == {"name": "PD", "value": 12}
    assert all(cards[0]["outcome"] == "hit" for cards in seen.values())
    for foe in ("goblins' side", "spectator"):
        card = seen[foe][0]
        if visibility == "open":
            assert whole(card) and card["modifiers"] == gm[0]["modifiers"]
            continue
        assert card["modifiers"] is None and card["total"] is None
        assert card["dice"] == (gm[0]["dice"] if visibility == "faces" else None)
    if visibility != "open":
        assert seen["spectator"][0]["against"] == {"name": "PD", "value": None}


def test_a_miss_and_a_critical_read_as_the_table_hears_them() -> None:
    miss = AttackRolled("g1", "ayla", "scimitar", "melee", "standard", d20(2), "PD", 12, "miss")
    crit = evolve(miss, roll=d20(20), outcome="critical_hit")
    fumble = evolve(miss, roll=d20(1), outcome="critical_fail")
    state = verse_table()
    outcomes = [line_for(e, state, SPECTATORS)["rolls"][0]["outcome"] for e in (miss, crit, fumble)]
    assert outcomes == ["miss", "critical", "critical fail"]
    assert line_for(miss, state, SPECTATORS)["rolls"][0]["by"] == "g1"


@pytest.mark.parametrize("visibility", VISIBILITIES)
def test_damage_is_the_dealers_roll_against_the_targets_resistance(visibility: str) -> None:
    """Ayla's 7 damage against the goblin's PR 2: the damage is her roll; the PR the
    goblin's number, hidden from her side unless the table is open."""
    damage = Roll((DiceResult(8, (5,)),), (("Training", 2),), 7)
    dealt = DamageDealt("g1", "ayla", 7, "PR", 2, 5, 2, damage)
    seen = cards_seen(dealt, visibility)
    assert seen["gm"] == [
        {
            "label": "damage",
            "by": "ayla",
            "dice": [{"sides": 8, "faces": [5], "negative": False}],
            "multiplier": 1,
            "modifiers": [{"name": "Training", "value": 2}],
            "total": 7,
            "against": {"name": "PR", "value": 2},
            "outcome": "",
        }
    ]
    assert whole(seen["ayla's side"][0])
    pr = seen["ayla's side"][0]["against"]["value"]
    assert pr == (2 if visibility == "open" else None)
    assert seen["goblins' side"][0]["against"] == {"name": "PR", "value": 2}
    foe = seen["goblins' side"][0]
    assert whole(foe) == (visibility == "open")
    assert (foe["dice"] is None) == (visibility == "hidden")


@pytest.mark.parametrize("visibility", VISIBILITIES)
def test_a_dodge_is_a_dexterity_save_against_the_attacks_total(visibility: str) -> None:
    """V22: Ayla dodges the goblin's 16: her save is hers, the 16 the goblin's."""
    dodge = DefenceRolled("ayla", "g1", "dodge", d20(15, ("Dexterity", 2)), 16, True)
    seen = cards_seen(dodge, visibility)
    mine = seen["ayla's side"][0]
    assert mine["label"] == "Dexterity save" and mine["by"] == "ayla"
    assert mine["outcome"] == "success" and whole(mine)
    assert mine["against"] == {"name": "attack", "value": 16 if visibility == "open" else None}
    assert seen["gm"][0]["against"] == {"name": "attack", "value": 16}
    assert seen["goblins' side"][0]["against"] == {"name": "attack", "value": 16}
    spectator = seen["spectator"][0]
    assert spectator["outcome"] == "success"
    assert (spectator["total"] is None) == (visibility != "open")
    assert (spectator["dice"] is None) == (visibility == "hidden")


@pytest.mark.parametrize("visibility", VISIBILITIES)
def test_a_tael_hit_check_is_against_the_targets_dv(visibility: str) -> None:
    """T3: Kaelen's check against the bandit's DV 12, seen by each audience."""
    state = tael.in_combat(
        tael.fighter("kaelen", "party", 0, 0, tael.sheet("Kaelen")),
        tael.fighter("bandit", "outlaws", 1, 0, tael.sheet("Bandit")),
        settings=Settings(roll_visibility=visibility),
    )
    check = HitChecked(
        "kaelen",
        "bandit",
        "sword",
        "weapon",
        "action",
        d20(11, ("Martial Combat", 3)),
        None,
        (("Armour", 12),),
        12,
        True,
    )
    seen = {
        who: line_for(check, state, a)["rolls"]
        for who, a in {
            "gm": GM_AUDIENCE,
            "party": player_audience(["kaelen"], state),
            "outlaws": player_audience(["bandit"], state),
            "spectator": SPECTATORS,
        }.items()
    }
    gm = seen["gm"][0]
    assert gm["label"] == "attack" and gm["by"] == "kaelen" and gm["outcome"] == "hit"
    assert gm["total"] == 14 and gm["against"] == {"name": "DV", "value": 12}
    assert seen["party"][0] == {
        **gm,
        "against": {"name": "DV", "value": 12 if visibility == "open" else None},
    }
    assert seen["outlaws"][0]["against"] == {"name": "DV", "value": 12}
    for foe in ("outlaws", "spectator"):
        card = seen[foe][0]
        assert whole(card) == (visibility == "open")
        assert (card["dice"] is None) == (visibility == "hidden")


@pytest.mark.parametrize("visibility", VISIBILITIES)
def test_initiative_cards_are_each_combatants_own(visibility: str) -> None:
    """V16: a card per combatant; another side's initiative shows as the room allows."""
    state = encounter(
        fighter("ayla", "pc", 0, 0, sheet_=sheet("Ayla")),
        fighter("g1", "gm", 1, 0, sheet_=sheet("Goblin")),
        seed=5,
        settings=Settings(roll_visibility=visibility),
    )
    after, events = execute(state, StartCombat())
    rolled = next(e for e in events if type(e).__name__ == "InitiativeRolled")
    for who, audience in audiences(after).items():
        cards = line_for(rolled, after, audience)["rolls"]
        assert [c["label"] for c in cards][:2] == ["initiative", "initiative"]
        by = {c["by"]: c for c in cards if c["label"] == "initiative"}
        assert set(by) == {"ayla", "g1"}
        for cid, card in by.items():
            own = who == "gm" or (who == "ayla's side") == (cid == "ayla")
            if who == "spectator":
                own = False
            assert whole(card) == (own or visibility == "open"), (who, cid)
            assert (card["dice"] is None) == (not own and visibility == "hidden")
            assert card["against"] is None and card["outcome"] == ""


def test_a_spell_against_several_targets_gives_a_card_per_target_and_one_for_damage() -> None:
    burst = SpellAttackRolled(
        "ayla",
        "Burst",
        "area",
        d20(12, ("Sanity", 2)),
        "SD",
        "hit",
        (
            _target("g1", 11, "hit"),
            _target("g2", 15, "miss"),
        ),
        Roll((DiceResult(4, (3,)),), (), 3),
    )
    state = verse_table()
    cards = line_for(burst, state, GM_AUDIENCE)["rolls"]
    assert [(c["label"], c["against"], c["outcome"]) for c in cards] == [
        ("spell attack", {"name": "Goblin (g1)'s SD", "value": 11}, "hit"),
        ("spell attack", {"name": "Goblin (g2)'s SD", "value": 15}, "miss"),
        ("damage", None, ""),
    ]
    ayla = line_for(burst, state, player_audience(["ayla"], state))["rolls"]
    assert [c["against"]["value"] for c in ayla[:2]] == [None, None]


def _target(cid: str, defence: int, outcome: str) -> SpellTargetResult:
    return SpellTargetResult(cid, defence, outcome)


def test_a_real_spell_gives_its_attack_and_damage_cards() -> None:
    missile = Spell("Magic Missile", min_mc=2, uses_spell_die=True, base_spell_dice=1)
    mage = fighter("ayla", "pc", sheet_=sheet("Ayla", spells=(missile,), spell_attack_training=1))
    state = in_combat(mage, fighter("g1", "gm", x=3, sheet_=sheet("Goblin")), dice=(8, 3))
    after, events = execute(state, CastSpell("ayla", "Magic Missile", targets=("g1",)))
    attack = next(e for e in events if isinstance(e, SpellAttackRolled))
    cards = line_for(attack, after, GM_AUDIENCE)["rolls"]
    assert [(c["label"], c["total"], c["against"], c["outcome"]) for c in cards] == [
        ("spell attack", 11, {"name": "SD", "value": 11}, "hit"),
        ("damage", 4, None, ""),
    ]


def test_an_unknown_events_rolls_still_become_cards() -> None:
    roll = to_data(d20(9, ("Luck", 1)))
    event = {
        "$type": "Levitated",
        "combatant": "ayla",
        "roll": roll,
        "wind_roll": roll,
        "gusts": [{"$type": "Gust", "actor": "g1", "roll": roll}],
    }
    cards = valid(log_line(1, event, {"ruleset": "verse"}))["rolls"]
    assert [(c["label"], c["by"], c["total"]) for c in cards] == [
        ("roll", "ayla", 10),
        ("wind", "ayla", 10),
        ("gusts", "g1", 10),
    ]
    shaped = {"$type": "AttackRolled", "attacker": "g1", "roll": roll}  # no outcome
    assert [c["label"] for c in roll_cards(shaped)] == ["roll"]


# --- every event of both rulesets ---------------------------------------------------------


def test_both_rule_systems_are_checked() -> None:
    assert {"verse", "tael"} <= set(PLAYED) <= set(RULESETS)
    assert "CombatEnded" in every_event_type("verse")  # shared: the end of the fight


@pytest.mark.parametrize("ruleset", PLAYED)
def test_every_event_type_has_a_narrator(ruleset: str) -> None:
    missing = set(every_event_type(ruleset)) - narrated(ruleset)
    assert missing == set(), f"{ruleset}: no words for {sorted(missing)}"


def test_no_event_type_is_told_by_two_rule_systems() -> None:
    """Without a room's ruleset an event finds its narrator in every known one: that
    holds only while record names are unique across rule systems."""
    shared = narrated("starfall")  # a ruleset without words adds nothing to the shared ones
    told = [set(telling.events) for telling in TELLINGS.values()]
    assert all(not (events & shared) for events in told)
    assert not (told[0] & told[1])
    assert narrated() == shared.union(*told)


def rolls_in(value: Any) -> int:
    """How many rolls `value` holds, anywhere."""
    if isinstance(value, dict):
        own = 1 if value.get("$type") == "Roll" else 0
        return own or sum(rolls_in(v) for v in value.values())
    if isinstance(value, list):
        return sum(rolls_in(v) for v in value)
    return 0


@pytest.mark.parametrize("visibility", VISIBILITIES)
@pytest.mark.parametrize("ruleset", PLAYED)
def test_every_event_gives_a_valid_line_in_words_with_every_roll_carded(
    ruleset: str, visibility: str
) -> None:
    """Each event type, every field filled, as the GM and a spectator receive it: a
    line the contract accepts, told in words (never the compact fallback: every type
    has a narrator), with a card for each roll it carries; a roll-carrying type has an
    entry of its own (its labels are not the fallback's)."""
    state = Encounter("seen", ruleset, {}, settings=Settings(roll_visibility=visibility))
    table = {"ruleset": ruleset, "mode": "live", "combatants": {}, "order": []}
    teller = Teller(table)
    rolling = set()
    for name, kind in sorted(every_event_type(ruleset).items()):
        assert name in narrated(ruleset)
        data = record(kind)
        if name == "Rewound":
            data["state"]["ruleset"] = ruleset
        for seen in (data, event_view(from_data(data), state, SPECTATORS)):
            line = valid(teller.line(9, seen))
            assert line["text"] != compact(seen) and "None" not in line["text"], name
            if name != "Rewound":  # a rewound state's rolls are the log's, not this line's
                assert len(line["rolls"]) == rolls_in(seen), name
        if rolls_in(data) and name != "Rewound":
            rolling.add(name)
    assert rolling <= set(CARDS), sorted(rolling - set(CARDS))


def test_every_event_with_rolls_is_in_the_cards_table() -> None:
    """Both rulesets: no roll-carrying event falls back to labels from field names."""
    for ruleset in PLAYED:
        for name, kind in every_event_type(ruleset).items():
            if name != "Rewound" and found_cards(record(kind)):
                assert name in CARDS, name


# --- a seeded fight, every audience -------------------------------------------------------


Pick = Callable[[Encounter], Audience]
"""Who reads the log, in the state after an event (a player's sides may change)."""


def the_gm(state: Encounter) -> Audience:
    return GM_AUDIENCE


def spectators(state: Encounter) -> Audience:
    return SPECTATORS


def side_of(combatant: str) -> Pick:
    def player(state: Encounter) -> Audience:
        return player_audience([combatant], state)

    return player


def lines(steps: Iterable[tuple[Event, Encounter]], audience_of: Pick) -> list[dict[str, Any]]:
    made = []
    for seq, (event, after) in enumerate(steps, 1):
        audience = audience_of(after)
        made.append(
            valid(log_line(seq, event_view(event, after, audience), table_view(after, audience)))
        )
    return made


def test_a_foes_hidden_numbers_never_reach_another_sides_log() -> None:
    """The goblin's Strength, Dexterity and Physical Dodge are numbers no roll can make
    (`MARKED`): under "faces" they are in no line Ayla's side or a spectator reads
    (text or card), though its attack, its dodge and its initiative are all there by
    their faces; the GM's lines hold every one."""
    steps = marked_story()
    gm = lines(steps, the_gm)
    assert set().union(*(marks(line) for line in gm)) == set(MARKED)
    for audience_of in (side_of("ayla"), spectators):
        seen = lines(steps, audience_of)
        assert all(not marks(line) for line in seen), [line for line in seen if marks(line)]
        goblins = [c for line in seen for c in line["rolls"] if c["by"] == "g1"]
        assert {c["label"] for c in goblins} >= {"initiative", "attack"}
        assert all(c["dice"] and c["total"] is None and c["modifiers"] is None for c in goblins)


@pytest.mark.parametrize("who", ["gm", "ayla's player", "goblin's player", "spectator"])
def test_a_whole_verse_round_reads_in_words_for_every_audience(who: str) -> None:
    """A Live Combat round and more (GM overrides, a newcomer, a rewind): every event
    reads as words to every audience, never as raw fields."""
    _, steps = full_story()
    pick = {
        "gm": the_gm,
        "ayla's player": side_of("ayla"),
        "goblin's player": side_of("g1"),
        "spectator": spectators,
    }[who]
    for line, (event, after) in zip(lines(steps, pick), steps, strict=True):
        assert line["text"] != compact(event_view(event, after, pick(after))), line


def test_a_whole_tael_fight_reads_in_words_for_every_audience() -> None:
    """World of Tael on scripted dice (the client's own case): the GM's lines are the
    client's story line for line; a side and a spectator read every event in words."""
    state, first = play(
        the_pass(), StartCombat(), EndTurn("bandit"), AttackAction("kaelen", "bandit")
    )
    state, passed = play(state, PassWindow("bandit", tael_window(state)))
    state, prepared = play(state, EndTurn("kaelen"), Prepare("kaelen", "Riposte"))
    state, second = play(state, EndTurn("tobin"), AttackAction("bandit", "kaelen"))
    window = tael_window(state)
    state, answered = play(state, Answer("kaelen", window, "Riposte"))
    state, resolved = play(state, PassWindow("tobin", window))
    steps = first + passed + prepared + second + answered + resolved
    gm = lines(steps, the_gm)
    assert [line["text"] for line in gm] == GM_STORY
    for audience_of in (side_of("tobin"), spectators):
        for line, (event, after) in zip(lines(steps, audience_of), steps, strict=True):
            assert line["text"] != compact(event_view(event, after, audience_of(after)))
    cards = {c["label"] for line in gm for c in line["rolls"]}
    assert {"initiative", "attack", "damage"} <= cards
    json.dumps(gm)  # plain data, ready to encode


def test_a_line_is_told_once_for_the_audiences_that_read_it_alike() -> None:
    """`tell_all` gives each audience the very line its own teller tells, through a
    whole round and more (declarations, windows, overrides, a newcomer, a rewind); a
    line is the same dict for audiences that read it alike (the GM and a side that
    both see a declaration whole), never for ones that do not (a side that sees it
    hidden)."""
    _, steps = full_story()
    picks = {
        "gm": the_gm,
        "ayla": side_of("ayla"),
        "goblin": side_of("g1"),
        "spectator": spectators,
    }
    shared = 0
    for seq, (event, after) in enumerate(steps, 1):
        audiences = {name: pick(after) for name, pick in picks.items()}
        views = {name: event_view(event, after, a) for name, a in audiences.items()}
        tellers = {name: Teller(table_view(after, a)) for name, a in audiences.items()}
        told = tell_all(seq, views, tellers)
        for name in picks:
            alone = Teller(table_view(after, audiences[name])).line(seq, views[name])
            assert told[name] == alone, (name, event)
        shared += len(picks) - len({id(line) for line in told.values()})
        if views["gm"] != views["spectator"]:
            assert told["gm"] is not told["spectator"]
    assert shared > len(steps)  # most lines are told fewer times than there are audiences


def test_a_teller_kept_through_a_story_tells_each_event_as_a_fresh_one_would() -> None:
    """One teller per audience kept from event to event while its table holds (as the
    feed keeps them) tells every line as a teller made for that event alone, repeated
    events included: a declaration made again reads as the first did, with its own
    seq."""
    _, steps = full_story()
    picks = {"gm": the_gm, "ayla": side_of("ayla"), "spectator": spectators}
    kept: dict[str, tuple[Any, Teller]] = {}
    for seq, (event, after) in enumerate(steps, 1):
        for name, pick in picks.items():
            audience = pick(after)
            table = table_view(after, audience)
            view = event_view(event, after, audience)
            held = kept.get(name)
            if held is None or held[0] != (table["combatants"], table["order"]):
                held = kept[name] = ((table["combatants"], table["order"]), Teller(table))
            line, _ = held[1].told(seq, view)
            assert line == Teller(table).line(seq, view), (name, event)
    teller = Teller(table_view(steps[-1][1], GM_AUDIENCE))
    event = event_view(steps[-1][0], steps[-1][1], GM_AUDIENCE)
    first, _ = teller.told(7, event)
    second, _ = teller.told(8, dict(event))
    assert second == {**first, "seq": 8}
