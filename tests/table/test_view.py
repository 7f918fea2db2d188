"""The table each audience draws (`server.table.view`): the sample fights of both
rulesets, seen by the GM, a player and a spectator.

A foe carries a sentinel in its GM notes and numbers no sheet would have (health,
mana, abilities or attributes, Willpower), so a search of the bytes a player or a
spectator would be sent finds any of them that leaks; the GM's table holds them all,
which shows the search would find them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonpatch
import msgpack
import pytest

from protocol.table import TableView
from server.encounters import build, read_file
from server.engine import execute
from server.engine.records import evolve
from server.engine.rulesets.tael.overrides import SetHitPoints, SetStatus
from server.engine.rulesets.tael.sheet import Attribute
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.combatant import Charge
from server.engine.rulesets.verse.live import Declare
from server.engine.rulesets.verse.overrides import SetCondition, SetHealth
from server.engine.rulesets.verse.sheet import Abilities
from server.engine.state import Encounter, Phase
from server.engine.turns import StartCombat
from server.engine.views import GM_AUDIENCE, SPECTATORS, Audience, player_audience
from server.table.cards import minimal_card
from server.table.view import TableCache, table_view
from tests.engine.test_views import full_story

ENCOUNTERS = Path(__file__).resolve().parents[2] / "server" / "samples" / "encounters"
SECRET = "SECRET-table-5d1c"

# Numbers no sample sheet has: any of them in a player's bytes is a leak.
VERSE_HIDDEN = {"health": 7919, "sheet health": 7927, "mana": 6007, "sheet mana": 6011}
VERSE_ABILITIES = Abilities(4441, 4447, 4451, 4457, 4463, 4481)
TAEL_HIDDEN = {"hit points": 8111, "sheet hit points": 8117, "willpower": 3331}
TAEL_ATTRIBUTE = Attribute("strength", 5557, 4447)


def sample(name: str) -> Encounter:
    return build(read_file(ENCOUNTERS / name), room_id="table-test").encounter


def verse_fight() -> Encounter:
    """The demo (Ayla, Bram and Corvin against goblins g1 and g2, Live Combat); g1's
    sheet carries the GM's secret and numbers found nowhere else."""
    state = sample("demo.toml")
    g1 = state.combatants["g1"]
    sheet = evolve(
        g1.sheet,
        notes=SECRET,
        health=VERSE_HIDDEN["sheet health"],
        mana=VERSE_HIDDEN["sheet mana"],
        abilities=VERSE_ABILITIES,
    )
    g1 = evolve(
        g1,
        sheet=sheet,
        health=VERSE_HIDDEN["health"],
        mana=VERSE_HIDDEN["mana"],
        abilities=VERSE_ABILITIES,
    )
    return state.with_combatant(g1)


def tael_fight() -> Encounter:
    """The roadside ambush (Kaelen, Mira and Tobin against a bandit and a cultist); the
    bandit's sheet carries the GM's secret and numbers found nowhere else."""
    state = sample("tael-ambush.toml")
    bandit = state.combatants["bandit"]
    sheet = evolve(
        bandit.sheet,
        notes=SECRET,
        hit_points=TAEL_HIDDEN["sheet hit points"],
        willpower=TAEL_HIDDEN["willpower"],
        attributes=(TAEL_ATTRIBUTE, *bandit.sheet.attributes[1:]),
    )
    return state.with_combatant(evolve(bandit, sheet=sheet, hit_points=TAEL_HIDDEN["hit points"]))


FIGHTS = {
    "verse": (verse_fight, "ayla", "g1"),
    "tael": (tael_fight, "kaelen", "bandit"),
}


def hidden_numbers(ruleset: str) -> list[int]:
    if ruleset == "verse":
        return [*VERSE_HIDDEN.values(), VERSE_ABILITIES.strength, VERSE_ABILITIES.empathy]
    return [*TAEL_HIDDEN.values(), TAEL_ATTRIBUTE.value, TAEL_ATTRIBUTE.modifier]


def started(state: Encounter) -> Encounter:
    state, _ = execute(state, StartCombat())
    assert state.phase == Phase.COMBAT
    return state


def audiences(state: Encounter, own: str) -> dict[str, Audience]:
    return {
        "gm": GM_AUDIENCE,
        "player": player_audience([own], state),
        "spectator": SPECTATORS,
    }


def sent(table: dict[str, Any]) -> list[bytes]:
    """The table as the wire would carry it: msgpack, and JSON for good measure."""
    packed: bytes = msgpack.packb(table)
    return [packed, json.dumps(table).encode()]


def holds(table: dict[str, Any], *found: str | int) -> bool:
    """Does any of `found` appear in the table's bytes (a number as its digits)?"""
    text = json.dumps(table)
    packed = msgpack.packb(table)
    return any((str(x) in text) or (isinstance(x, str) and x.encode() in packed) for x in found)


# --- the contract ------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", FIGHTS)
@pytest.mark.parametrize("when", ["setup", "combat"])
def test_every_audience_gets_a_table_the_contract_accepts(ruleset: str, when: str) -> None:
    make, own, _ = FIGHTS[ruleset]
    state = make() if when == "setup" else started(make())
    for name, audience in audiences(state, own).items():
        table = table_view(state, audience)
        view = TableView.model_validate(table)
        assert view.ruleset == ruleset and view.phase == when, name
        assert set(view.combatants) == set(state.combatants)
        assert [slot.combatant for slot in view.order] == [s.combatant for s in state.turn_order]
        assert view.turn == (state.current or "")
        assert view.grid.kind == "square" and view.grid.directions == 8
        assert view.settings["roll_visibility"] == "faces"
        # msgpack and back gives the same table: nothing a codec could not carry.
        assert msgpack.unpackb(msgpack.packb(table)) == table


# --- what each audience sees of a combatant -------------------------------------------


@pytest.mark.parametrize("ruleset", FIGHTS)
def test_a_player_sees_its_own_numbers_and_sheet_and_a_foe_as_the_table_does(
    ruleset: str,
) -> None:
    make, own, foe = FIGHTS[ruleset]
    state = make()
    table = table_view(state, player_audience([own], state))
    mine, theirs = table["combatants"][own], table["combatants"][foe]
    most = state.combatants[own].sheet.health if ruleset == "verse" else None
    if ruleset == "verse":
        assert mine["health"] == {"now": most, "max": most}
        mana = state.combatants[own].sheet.mana
        assert mine["mana"] == {"now": mana, "max": mana}
    else:
        most = state.combatants[own].sheet.hit_points
        assert mine["health"] == {"now": most, "max": most}
    assert mine["health_word"] == "unhurt"
    labels = [label for label, _ in mine["details"]]
    assert labels and ("Level" in labels or "Strength" in labels)
    # The foe: a name, a place and a word for its health; no number, no sheet.
    assert theirs["health"] is None and theirs["mana"] is None
    assert theirs["health_word"] == "wounded"  # 7919 of 7927, 8111 of 8117: above half
    assert theirs["details"] == []
    assert theirs["name"] == state.combatants[foe].sheet.name
    assert theirs["position"] == [
        state.combatants[foe].position.x,
        state.combatants[foe].position.y,
    ]


@pytest.mark.parametrize("ruleset", FIGHTS)
def test_the_gm_sees_every_number_and_the_notes(ruleset: str) -> None:
    make, _, foe = FIGHTS[ruleset]
    table = table_view(make(), GM_AUDIENCE)
    card = table["combatants"][foe]
    assert card["health"] is not None and card["health_word"] == "wounded"
    assert ["GM notes", SECRET] in card["details"]
    assert holds(table, SECRET) and all(holds(table, n) for n in hidden_numbers(ruleset))


@pytest.mark.parametrize("ruleset", FIGHTS)
@pytest.mark.parametrize("who", ["player", "spectator"])
def test_no_hidden_value_of_a_foe_reaches_a_player_or_a_spectator(ruleset: str, who: str) -> None:
    make, own, _ = FIGHTS[ruleset]
    for state in (make(), started(make())):
        table = table_view(state, audiences(state, own)[who])
        for wire in sent(table):
            assert SECRET.encode() not in wire
        assert not holds(table, *hidden_numbers(ruleset)), json.dumps(table)
        assert not holds(table, "GM notes")


def test_a_spectator_sees_every_card_from_the_outside() -> None:
    state = verse_fight()
    table = table_view(state, SPECTATORS)
    for card in table["combatants"].values():
        assert card["health"] is None and card["details"] == [] and card["health_word"]


def test_a_foes_initiative_is_not_on_a_players_table() -> None:
    """R77: another side's initiative is its own number; its slot shows only whose."""
    state = started(verse_fight())
    by_audience = {
        name: {s["combatant"]: s.get("initiative") for s in table_view(state, a)["order"]}
        for name, a in audiences(state, "ayla").items()
    }
    assert all(v is not None for v in by_audience["gm"].values())
    assert by_audience["player"]["ayla"] is not None and by_audience["player"]["bram"] is not None
    assert by_audience["player"]["g1"] is None and by_audience["player"]["g2"] is None
    assert all(v is None for v in by_audience["spectator"].values())


# --- the planning window (V20) ---------------------------------------------------------


def test_a_planning_window_shows_who_declared_not_what() -> None:
    state = started(verse_fight())
    window = state.window
    assert window is not None and window.kind == "planning"
    state, _ = execute(state, Declare("g1", (Attack("g1", "corvin", "dagger"),)))
    state, _ = execute(state, Declare("ayla", (Attack("ayla", "g1", "longsword"),)))
    for name, audience in audiences(state, "ayla").items():
        table = table_view(state, audience)
        TableView.model_validate(table)
        assert table["declared"] == ["g1", "ayla"], name
        assert table["window"]["kind"] == "planning"
        assert set(table["window"]["asked"]) == set(state.combatants)
        assert table["window"]["answered"] == ["g1", "ayla"]
    # Nothing of g1's plan (the dagger it declared, its target) is on a player's table.
    player = table_view(state, player_audience(["ayla"], state))
    assert not holds(player, "dagger")


# --- the cache -------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", FIGHTS)
def test_the_cache_keeps_unchanged_cards_and_remakes_changed_ones(ruleset: str) -> None:
    make, own, foe = FIGHTS[ruleset]
    state = started(make())
    cache = TableCache()
    for name, audience in audiences(state, own).items():
        first = cache.view(state, audience)
        assert first == table_view(state, audience), name
        hurt = SetHealth(foe, 3) if ruleset == "verse" else SetHitPoints(foe, 3)
        after, _ = execute(state, hurt)
        second = cache.view(after, audience)
        assert second == table_view(after, audience), name
        assert second["combatants"][own] is first["combatants"][own]
        assert second["combatants"][foe] is not first["combatants"][foe]
        assert second["combatants"][foe]["health_word"] == "bloodied"
        assert second["settings"] is first["settings"] and second["grid"] is first["grid"]
        # Nothing changed: the same combatants map, which a diff skips at once.
        assert cache.view(after, audience)["combatants"] is second["combatants"]


def test_the_cache_forgets_a_combatant_that_left() -> None:
    state = verse_fight()
    cache = TableCache()
    cache.view(state, SPECTATORS)
    combatants = dict(state.combatants)
    del combatants["g2"]
    fewer = evolve(state, combatants=combatants)
    table = cache.view(fewer, SPECTATORS)
    assert "g2" not in table["combatants"] and table == table_view(fewer, SPECTATORS)
    assert all("g2" not in held.cards for held in cache._held.values())


# --- failing closed ------------------------------------------------------------------------


def test_a_ruleset_without_cards_gets_minimal_ones() -> None:
    data = {"id": "x1", "side": "a", "sheet": {"name": "Xan"}, "position": {"x": 2, "y": 3}}
    assert minimal_card(data, SPECTATORS) == {
        "id": "x1",
        "name": "Xan",
        "side": "a",
        "position": [2, 3],
    }


def test_a_ruleset_without_view_rules_is_drawn_for_the_gm_only() -> None:
    state = evolve(verse_fight(), ruleset="unknown")
    assert set(table_view(state, GM_AUDIENCE)["combatants"]) == set(state.combatants)
    with pytest.raises(LookupError):
        table_view(state, SPECTATORS)


# --- conditions and notes ------------------------------------------------------------------


def test_a_verse_card_shows_conditions_stance_and_a_charge_as_the_table_sees_them() -> None:
    state = started(verse_fight())
    g1 = evolve(
        state.combatants["g1"],
        stance="defensive",
        holding=True,
        charging=Charge("Fireball", mc=5, spell_dice=2, actions_needed=2, actions_done=1),
    )
    state, _ = execute(state.with_combatant(g1), SetCondition("g1", "Stunned", 2))
    card = table_view(state, SPECTATORS)["combatants"]["g1"]
    assert card["conditions"] == [{"name": "Stunned", "rounds_left": 2}]
    assert card["active"] is False  # Stunned takes it out (INCAPACITATING)
    assert card["notes"] == ["holding", "stance: defensive", "charging Fireball 1/2"]


def test_a_tael_card_names_a_foes_prepared_move_only_once_it_triggered() -> None:
    """T2: the move a preparation announced is hidden from other sides until it triggers."""
    state = started(tael_fight())
    state, _ = execute(state, SetStatus("bandit", "Burning", 2, damage="1d4"))
    bandit = evolve(state.combatants["bandit"], preparation="open", prepared="Shield Up")
    state = state.with_combatant(bandit)
    player = table_view(state, player_audience(["kaelen"], state))["combatants"]["bandit"]
    gm = table_view(state, GM_AUDIENCE)["combatants"]["bandit"]
    assert player["conditions"] == gm["conditions"] == [{"name": "Burning", "rounds_left": 2}]
    assert player["notes"] == ["stance: tanking", "preparing"]
    assert gm["notes"] == ["stance: tanking", "preparing Shield Up"]
    used = state.with_combatant(evolve(bandit, preparation="used", fainted=True))
    player = table_view(used, player_audience(["kaelen"], used))["combatants"]["bandit"]
    assert player["notes"] == ["stance: tanking", "Shield Up triggered", "fainted"]
    assert player["active"] is False


@pytest.mark.parametrize("who", ["gm", "ayla", "goblin", "spectator"])
def test_the_caches_patches_give_each_audience_its_fresh_table_at_every_step(who: str) -> None:
    """Through a whole round and more (declarations, windows, overrides, a newcomer, a
    rewind), the table a client builds from the first table and every patch since
    (`jsonpatch`, as clients apply them) is the fresh table, event by event; a step
    that changes nothing a table shows but its version patches the version alone."""
    _, steps = full_story()
    pick = {
        "gm": lambda state: GM_AUDIENCE,
        "ayla": lambda state: player_audience(["ayla"], state),
        "goblin": lambda state: player_audience(["g1"], state),
        "spectator": lambda state: SPECTATORS,
    }[who]
    cache = TableCache()
    held: dict[str, Any] | None = None
    for _, after in steps:
        cache.advance(after, GM_AUDIENCE if who != "gm" else SPECTATORS)  # shares the common
        patch, table = cache.advance(after, pick(after))
        assert table == table_view(after, pick(after))
        if held is None:
            assert patch is None
        else:
            assert patch is not None
            held = jsonpatch.apply_patch(copy.deepcopy(held), patch)
            assert held == table
        held = copy.deepcopy(table)
    state = steps[-1][1]
    moved = evolve(state, version=state.version + 1)
    patch, _ = cache.advance(moved, pick(moved))
    assert patch == [{"op": "replace", "path": "/version", "value": state.version + 1}]
