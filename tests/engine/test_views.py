"""Per-audience views (issue 4): what the GM, a player and a spectator receive.

The headline check plays a whole Live Combat round on seeded dice (plus GM overrides,
a combatant joining and a rewind) and looks at every byte each audience would be sent:
the goblin's GM notes and the dice seed never reach a player or a spectator, while
the GM's view holds both.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest

from server.engine import apply
from server.engine.authority import GM, ROOM, Principal
from server.engine.commands import Rewound
from server.engine.core import Event
from server.engine.flow import Mode, WindowKind
from server.engine.records import _TYPES, evolve, to_data
from server.engine.rulesets.verse import views as verse_views
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.combatant import Charge, VerseCombatant
from server.engine.rulesets.verse.live import DeclarationMade, DeclarationsRevealed, Declare
from server.engine.rulesets.verse.overrides import (
    AddCombatant,
    CombatantAdded,
    HealthSet,
    SetAbility,
    SetHealth,
    SetMana,
)
from server.engine.rulesets.verse.sheet import VerseSheet
from server.engine.rulesets.verse.turns import StartCombat
from server.engine.rulesets.verse.windows import WindowOpened
from server.engine.state import Encounter
from server.engine.views import (
    COMMON_EVENTS,
    GM_AUDIENCE,
    HIDDEN,
    SPECTATORS,
    Audience,
    audience_of,
    event_view,
    event_views,
    player_audience,
    state_view,
)
from tests.engine.verse.builders import encounter, fighter, sheet
from tests.engine.verse.live_script import Fight, of, one

SECRET = "SECRET-7f3a"
SEED = 987654321


def table() -> Fight:
    """Ayla and Bram (side "pc", one player each) against goblin g1 (side "gm"), whose
    sheet carries the GM's secret note; dice seeded with SEED. Live Combat, not started."""
    ayla = fighter("ayla", "pc", 0, 0, sheet_=sheet("Ayla", notes="GM-NOTE-ayla"))
    bram = fighter("bram", "pc", 0, 1, sheet_=sheet("Bram"))
    g1 = fighter("g1", "gm", 1, 0, facing=4, sheet_=sheet("Goblin", notes=SECRET))
    return Fight(evolve(encounter(ayla, bram, g1, seed=SEED), mode=Mode.LIVE))


def declare_all(fight: Fight) -> None:
    """Round 1's planning: g1 first, then Ayla, then Bram (the window closes)."""
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    fight.do(Declare("ayla", (Attack("ayla", "g1", "longsword"),)))
    fight.do(Declare("bram", (Attack("bram", "g1", "longsword"),)))


def audiences(state: Encounter) -> dict[str, Audience]:
    return {
        "ayla's player": player_audience(["ayla"], state),
        "bram's player": player_audience(["bram"], state),
        "goblin's player": player_audience(["g1"], state),
        "spectator": SPECTATORS,
    }


def full_story() -> tuple[Encounter, list[tuple[Event, Encounter]]]:
    """A whole round and more: every event with the state right after it.

    StartCombat, the planning window and its declarations, the resolution with its
    reaction windows (everyone passes), round 2's planning; then the GM sets g1's
    health and mana, adds goblin g2 (also with a secret note), and rewinds to the
    state after StartCombat (a `Rewound` built by hand, as the room builds it).
    """
    fight = table()
    fight.do(StartCombat())
    after_start = fight.state
    declare_all(fight)
    fight.pass_windows()
    assert fight.state.round == 2 and fight.window.kind == WindowKind.PLANNING
    fight.do(SetHealth("g1", 7))
    fight.do(SetMana("g1", 3))
    fight.do(SetAbility("g1", "strength", 1))
    g2 = fighter("g2", "gm", 3, 3, sheet_=sheet("Goblin archer", notes=SECRET))
    fight.do(AddCombatant(g2))
    events: list[Event] = [*fight.log, Rewound(after_start.version, after_start)]
    steps = []
    state = fight.initial
    for event in events:
        state = apply(state, event)
        steps.append((event, state))
    return fight.initial, steps


# --- the hidden GM value ------------------------------------------------------------


def test_a_hidden_gm_value_never_reaches_a_player_or_a_spectator() -> None:
    """The GM notes are in no byte of any player's or spectator's view, of the state
    after any event or of any event; the GM sees them. The dice seed reaches nobody,
    the GM included: it would tell every future roll."""
    initial, steps = full_story()
    assert {type(e).__name__ for e, _ in steps} >= {
        "DeclarationMade",
        "DeclarationsRevealed",
        "WindowOpened",
        "AttackRolled",
        "HealthSet",
        "CombatantAdded",
        "Rewound",
    }
    for name, audience in audiences(initial).items():
        for event, after in [(None, initial), *steps]:
            snapshot = json.dumps(state_view(after, audience))
            assert SECRET not in snapshot and str(SEED) not in snapshot, name
            if event is not None:
                sent = json.dumps(event_view(event, after, audience))
                assert SECRET not in sent and str(SEED) not in sent, (name, event)
    last_event, last_state = steps[-1]
    gm_state = json.dumps(state_view(last_state, GM_AUDIENCE))
    gm_rewind = json.dumps(event_view(last_event, last_state, GM_AUDIENCE))
    added = next(step for step in steps if isinstance(step[0], CombatantAdded))
    gm_added = json.dumps(event_view(*added, GM_AUDIENCE))
    for gm_view in (gm_state, gm_rewind, gm_added):
        assert SECRET in gm_view
    assert str(SEED) not in gm_state and str(SEED) not in gm_rewind


def test_the_gm_view_is_the_whole_record_but_the_dice_source() -> None:
    _, steps = full_story()
    event, after = steps[5]
    assert state_view(after, GM_AUDIENCE) == {**to_data(after), "dice": HIDDEN}
    assert event_view(event, after, GM_AUDIENCE) == to_data(event)


def test_nobody_sees_the_dice_source_the_gm_included() -> None:
    """Seeing the seed and position would tell every future roll, the players' too:
    the GM sees every roll, never the future."""
    state = table().state
    for audience in (SPECTATORS, player_audience(["ayla"], state), GM_AUDIENCE):
        assert state_view(state, audience)["dice"] == HIDDEN
    initial, steps = full_story()
    rewound, after = steps[-1]
    assert isinstance(rewound, Rewound)
    for audience in [*audiences(initial).values(), GM_AUDIENCE]:
        assert event_view(rewound, after, audience)["state"]["dice"] == HIDDEN
        views = event_views(rewound, after, [audience])
        assert views[audience.key]["state"]["dice"] == HIDDEN


def test_a_rewind_carries_the_restored_state_redacted_as_a_snapshot() -> None:
    initial, steps = full_story()
    event, after = steps[-1]
    assert isinstance(event, Rewound)
    ayla = player_audience(["ayla"], initial)
    sent = event_view(event, after, ayla)
    assert sent["$type"] == "Rewound" and sent["to_version"] == event.to_version
    assert sent["state"] == state_view(event.state, ayla)


# --- declarations (V20) -------------------------------------------------------------


def test_another_sides_declarations_stay_secret_until_revealed() -> None:
    """V20: Ayla's player and spectators learn that g1 declared, not what, until the
    planning window closes and DeclarationsRevealed shows every declaration."""
    fight = table()
    fight.do(StartCombat())
    made = one(fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),))), DeclarationMade)
    for audience in (player_audience(["ayla"], fight.state), SPECTATORS):
        assert event_view(made, fight.state, audience) == {
            "$type": "DeclarationMade",
            "combatant": "g1",
            "slot": made.slot,
            "actions": [],
        }
        declared = state_view(fight.state, audience)["declarations"]
        assert declared == [
            {"$type": "Declaration", "combatant": "g1", "turn": made.slot, "actions": []}
        ]
    fight.do(Declare("ayla", (Attack("ayla", "g1", "longsword"),)))
    ayla_made = one(fight.log[-1:], DeclarationMade)
    goblins = player_audience(["g1"], fight.state)
    assert event_view(ayla_made, fight.state, goblins)["actions"] == []

    before_reveal = fight.state
    events = fight.do(Declare("bram", (Attack("bram", "g1", "longsword"),)))
    revealed = one(events, DeclarationsRevealed)
    state = before_reveal
    for event in events:
        state = apply(state, event)
        if event is revealed:
            break
    for audience in (player_audience(["ayla"], state), SPECTATORS, goblins):
        seen = event_view(revealed, state, audience)
        assert seen == to_data(revealed)
        attacks = {d["combatant"]: d["actions"] for d in seen["declarations"]}
        assert attacks["g1"] == [to_data(Attack("g1", "ayla", "longsword"))]
        assert attacks["ayla"] == [to_data(Attack("ayla", "g1", "longsword"))]
        # After the reveal the state shows them too (the planning window is closed).
        assert state_view(state, audience)["declarations"] == to_data(state.declarations)


def test_a_sides_declarations_are_visible_to_its_players() -> None:
    """Bram's player reads Ayla's declaration (same side) in the event and the state."""
    fight = table()
    fight.do(StartCombat())
    made = one(fight.do(Declare("ayla", (Attack("ayla", "g1", "longsword"),))), DeclarationMade)
    bram = player_audience(["bram"], fight.state)
    assert event_view(made, fight.state, bram) == to_data(made)
    assert state_view(fight.state, bram)["declarations"] == to_data(fight.state.declarations)
    assert state_view(fight.state, bram)["declarations"][0]["actions"] != []


# --- combatants ---------------------------------------------------------------------


def test_a_players_own_sheet_is_complete_but_for_the_gm_notes() -> None:
    """The player of Ayla sees Ayla (and ally Bram) whole, except the GM's notes."""
    state = table().state
    seen = state_view(state, player_audience(["ayla"], state))["combatants"]
    for cid in ("ayla", "bram"):
        expected = to_data(state.combatants[cid])
        del expected["sheet"]["notes"]
        assert seen[cid] == expected
    assert "notes" not in seen["ayla"]["sheet"]
    assert "GM-NOTE-ayla" not in json.dumps(seen)


def test_a_foe_shows_only_what_the_table_sees() -> None:
    """Another side: name, position, stance, conditions... and a coarse health state;
    no numbers, weapons, spells or notes."""
    state = table().state
    goblin = state_view(state, player_audience(["ayla"], state))["combatants"]["g1"]
    assert set(goblin) == {
        "$type",
        "sheet",
        "health_state",
        "charging",
        *verse_views.PUBLIC_COMBATANT,
    }
    assert goblin["sheet"] == {"$type": "VerseSheet", "name": "Goblin", "is_ride": False}
    assert goblin["health_state"] == "unhurt"
    assert goblin["position"] == {"$type": "Cell", "x": 1, "y": 0}
    assert goblin["facing"] == 4
    assert state_view(state, SPECTATORS)["combatants"]["g1"] == goblin


def test_a_spectator_sees_every_side_from_outside() -> None:
    state = table().state
    seen = state_view(state, SPECTATORS)["combatants"]
    assert all("health" not in c and "health_state" in c for c in seen.values())


def test_a_foes_spell_charge_shows_the_spell_not_the_mana_put_in() -> None:
    charge = Charge("Ritual Bolt", mc=6, spell_dice=2, actions_needed=2, actions_done=1)
    g1 = evolve(fighter("g1", "gm"), charging=charge)
    seen = verse_views.combatant_view(g1, SPECTATORS)["charging"]
    assert seen == {
        "$type": "Charge",
        "spell": "Ritual Bolt",
        "actions_needed": 2,
        "actions_done": 1,
        "targets": [],
        "target": None,
        "charged_in": 0,
    }


@pytest.mark.parametrize(
    ("health", "state"),
    [(20, "unhurt"), (11, "wounded"), (10, "bloodied"), (1, "bloodied"), (0, "down")],
)
def test_health_state_is_coarse(health: int, state: str) -> None:
    """Maximum 20: above half is wounded, half or less bloodied, 0 down."""
    g1 = evolve(fighter("g1", "gm"), health=health)
    assert verse_views.health_state(g1) == state
    assert verse_views.combatant_view(g1, SPECTATORS)["health_state"] == state


def test_every_field_of_a_combatant_is_classified() -> None:
    """Fail closed: a new field is hidden from other sides until it is classified."""
    combatant = {f.name for f in dataclasses.fields(VerseCombatant)}
    assert combatant == {
        *verse_views.PUBLIC_COMBATANT,
        *verse_views.HIDDEN_COMBATANT,
        "sheet",
        "charging",
    }
    sheet_fields = {f.name for f in dataclasses.fields(VerseSheet)}
    assert sheet_fields == {*verse_views.PUBLIC_SHEET, *verse_views.HIDDEN_SHEET}
    charge = {f.name for f in dataclasses.fields(Charge)}
    assert charge == {*verse_views.PUBLIC_CHARGE, *verse_views.HIDDEN_CHARGE}


# --- events -------------------------------------------------------------------------

SENSITIVE = re.compile(r"\b(VerseCombatant|VerseSheet|Encounter|Declaration|Window|Spell|Charge)\b")
PUBLIC_BY_DESIGN = {DeclarationsRevealed}  # V20: the reveal is for everyone


def test_every_event_that_carries_hidden_data_has_a_rule() -> None:
    """An event holding a combatant, sheet, state, declaration, window or spell must be
    redacted by a rule, or a new event could leak what the views hide."""
    events = [c for c in _TYPES.values() if issubclass(c, Event) and c is not Event]
    ruled = set(verse_views.VERSE_VIEWS.events) | set(COMMON_EVENTS)
    for event in events:
        for field in dataclasses.fields(event):
            if SENSITIVE.search(str(field.type)) and event not in PUBLIC_BY_DESIGN:
                assert event in ruled, f"{event.__name__}.{field.name} needs a view rule"


def test_gm_overrides_show_another_side_no_numbers() -> None:
    """The GM sets g1's health: the players see only its coarse health after; the
    goblin's own side sees the numbers."""
    fight = table()
    health = one(fight.do(SetHealth("g1", 7)), HealthSet)
    assert event_view(health, fight.state, SPECTATORS) == {
        "$type": "HealthSet",
        "combatant": "g1",
        "health_state": "bloodied",
    }
    goblins = player_audience(["g1"], fight.state)
    assert event_view(health, fight.state, goblins) == to_data(health)
    mana = fight.do(SetMana("g1", 3))[0]
    assert event_view(mana, fight.state, SPECTATORS) == {"$type": "ManaSet", "combatant": "g1"}
    ability = fight.do(SetAbility("g1", "strength", 1))[0]
    assert event_view(ability, fight.state, SPECTATORS) == {
        "$type": "AbilitySet",
        "combatant": "g1",
        "ability": "strength",
    }


def test_a_reaction_window_hides_another_sides_options() -> None:
    """Ayla attacks g1: g1's options (dodge, block: what its hands hold) are hidden from
    the players and spectators; the window still shows that it waits for g1."""
    fight = table()
    fight.do(StartCombat())
    declare_all(fight)
    opened = [e for e in of(fight.log, WindowOpened) if e.window.kind == WindowKind.REACTION]
    assert opened and opened[0].window.about == "ayla"
    event = opened[0]
    state = fight.state  # the window is still open; sides do not change
    asked = event_view(event, state, player_audience(["ayla"], state))["window"]["asked"]
    assert asked == [{"$type": "Ask", "combatant": "g1", "options": []}]
    goblins = player_audience(["g1"], state)
    assert event_view(event, state, goblins) == to_data(event)
    seen = state_view(state, SPECTATORS)["window"]
    assert seen["asked"] == [{"$type": "Ask", "combatant": "g1", "options": []}]


def test_rolls_and_damage_are_public() -> None:
    """Everyone sees the rolls at the table: an attack roll and the damage it dealt
    reach every audience as the GM sees them; another side's view of the damage adds
    the target's coarse health after it, never a number of health."""
    _, steps = full_story()
    rolled = [(e, s) for e, s in steps if type(e).__name__ in ("AttackRolled", "DamageDealt")]
    assert any(type(e).__name__ == "DamageDealt" for e, _ in rolled)
    for event, after in rolled:
        for audience in audiences(after).values():
            view = event_view(event, after, audience)
            target = getattr(event, "target", None)
            if type(event).__name__ == "DamageDealt" and not audience.knows(
                after.combatants[target].side
            ):
                expected = verse_views.health_state(after.combatants[target])
                assert view == {**to_data(event), "health_state": expected}
            else:
                assert view == to_data(event)


# --- audiences ----------------------------------------------------------------------


def test_players_of_one_side_get_the_same_views() -> None:
    """Ayla's player and Bram's player see every event and state alike, so the server
    builds one view per side; a spectator is a player of no side."""
    initial, steps = full_story()
    ayla, bram = player_audience(["ayla"], initial), player_audience(["bram"], initial)
    assert ayla.key == bram.key == ("side", "pc")
    nobody = player_audience([], initial)
    assert nobody.key == SPECTATORS.key
    for event, after in steps:
        assert event_view(event, after, ayla) == event_view(event, after, bram)
        assert event_view(event, after, nobody) == event_view(event, after, SPECTATORS)
        assert state_view(after, ayla) == state_view(after, bram)


def test_event_views_builds_one_view_per_audience_key() -> None:
    initial, steps = full_story()
    crowd = [GM_AUDIENCE, SPECTATORS, SPECTATORS, *audiences(initial).values()]
    for event, after in steps:
        views = event_views(event, after, crowd)
        assert set(views) == {("gm",), ("side",), ("side", "pc"), ("side", "gm")}
        for audience in crowd:
            assert views[audience.key] == event_view(event, after, audience)


def test_audience_of_a_principal() -> None:
    state = table().state
    assert audience_of(GM, state) == GM_AUDIENCE
    assert audience_of(Principal("spectator"), state) == SPECTATORS
    both = audience_of(Principal("player", ("g1", "ayla", "bram")), state)
    assert both == Audience("player", ("g1", "ayla", "bram"), ("gm", "pc"))
    assert audience_of(Principal("player", ("nobody",)), state).sides == ()
    with pytest.raises(ValueError):
        audience_of(ROOM, state)


def test_a_ruleset_without_view_rules_is_shown_to_nobody_but_the_gm() -> None:
    """Fail closed: no rules, no view (rather than everything)."""
    state: Any = evolve(table().state, ruleset="unknown")
    assert state_view(state, GM_AUDIENCE) == {**to_data(state), "dice": HIDDEN}
    with pytest.raises(LookupError):
        state_view(state, SPECTATORS)
