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
from server.engine.core import RULESETS, Event, Ruleset
from server.engine.dice import DiceResult, Roll
from server.engine.flow import Mode, WindowKind
from server.engine.grid import Cell
from server.engine.records import _TYPES, evolve, to_data
from server.engine.rulesets.tael import views as tael_views
from server.engine.rulesets.verse import views as verse_views
from server.engine.rulesets.verse.attacks import Attack, AttackRolled, ThrowChecked
from server.engine.rulesets.verse.awareness import StealthChecked
from server.engine.rulesets.verse.combatant import Charge, VerseCombatant
from server.engine.rulesets.verse.conditions import AbilityDamaged
from server.engine.rulesets.verse.criticals import CriticalTableRolled
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.defences import DamageBlocked, DefenceRolled
from server.engine.rulesets.verse.live import (
    Answer,
    DeclarationMade,
    DeclarationsRevealed,
    Declare,
    PassWindow,
)
from server.engine.rulesets.verse.live_actions import ItemUsed, ManeuverRolled
from server.engine.rulesets.verse.overrides import (
    AddCombatant,
    CombatantAdded,
    HealthSet,
    SetAbility,
    SetHealth,
    SetMana,
)
from server.engine.rulesets.verse.rides import RiderThrown
from server.engine.rulesets.verse.sheet import Spell, VerseSheet
from server.engine.rulesets.verse.spell_charges import ConcentrationChecked
from server.engine.rulesets.verse.spell_decipher import SpellDeciphered
from server.engine.rulesets.verse.spell_mana import ManaShare
from server.engine.rulesets.verse.spells import SpellAttackRolled, SpellCast, SpellTargetResult
from server.engine.rulesets.verse.turns import StartCombat
from server.engine.rulesets.verse.windows import WindowOpened
from server.engine.settings import SetSetting, SettingChanged
from server.engine.state import Encounter
from server.engine.turns import InitiativeRolled
from server.engine.views import (
    COMMON_EVENTS,
    GM_AUDIENCE,
    HIDDEN,
    SPECTATORS,
    Audience,
    Owned,
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
    assert verse_views.health_state(g1.health, g1.sheet.health) == state
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


ROLL_CARRYING = re.compile(r"\b(Roll|InitiativeRoll|TurnSlot|SpellTargetResult|SpellTargetCheck)\b")
NUMBER = re.compile(r"^(int|Roll)( \| None)?$")


def test_every_roll_carrying_event_has_a_rule_and_every_number_an_owner() -> None:
    """Fail closed (R77): an event of either ruleset that carries a roll, a turn or a
    target's defence has a view rule; where the rule is a table (`Owned`), each of the
    event's numbers and rolls is classified (whose, or public), so a new field must be
    placed before anyone sees it."""
    for name, views in (("verse", verse_views.VERSE_VIEWS), ("tael", tael_views.TAEL_VIEWS)):
        chain: Ruleset | None = RULESETS[name]
        while chain is not None:
            for event in chain.appliers:
                carried = [
                    f.name for f in dataclasses.fields(event) if ROLL_CARRYING.search(str(f.type))
                ]
                if carried:
                    assert event in views.events or event in COMMON_EVENTS, (
                        f"{name}: {event.__name__}.{carried[0]} needs a view rule"
                    )
            chain = chain.parent
    shared = {e: rule for e, rule in COMMON_EVENTS.items() if isinstance(rule, Owned)}
    for table_ in (verse_views.ROLLS, tael_views.ROLLS, shared):
        for event, owned in table_.items():
            numbers = {f.name for f in dataclasses.fields(event) if NUMBER.match(str(f.type))}
            placed = {*owned.rolls, *owned.numbers, *owned.public}
            assert numbers <= placed, f"{event.__name__}: place {numbers - placed}"


def test_an_event_with_a_roll_and_no_rule_shows_its_rolls_as_nobodys() -> None:
    """Fail closed: an event type no ruleset has classified (here one made up, never
    registered) shows its rolls to every player and spectator as nobody's, its own
    side's included, by their faces at most; the GM sees them whole."""
    probe = dataclasses.make_dataclass(
        "Probe", [("actor", str), ("roll", Roll)], bases=(Event,), slots=True
    )
    state = with_rolls("faces")
    event = probe("g1", DODGE)
    for audience in (*audiences(state).values(), SPECTATORS):
        seen = event_view(event, state, audience)
        assert seen["roll"] == faces_of(DODGE, "faces"), audience
    assert event_view(event, state, GM_AUDIENCE)["roll"] == to_data(DODGE)


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


# --- rolls (R77) ----------------------------------------------------------------------
#
# The goblin's numbers are drawn from its sheet; a player of the other side (Ayla's) and
# a spectator see its rolls as the room's `roll_visibility` says, the goblin's own side
# and the GM whole. Each case below names, field by field, which side's numbers the
# field holds: "pc" (Ayla's and Bram's), "gm" (the goblin's), or both.

PC, GM_SIDE = "pc", "gm"


def roll(face: int, *modifiers: tuple[str, int], sides: int = 20) -> Roll:
    return Roll((DiceResult(sides, (face,)),), modifiers, face + sum(v for _, v in modifiers))


def with_rolls(visibility: str) -> Encounter:
    """Ayla and Bram (side "pc") and goblin g1 (side "gm"), rolls shown as `visibility`."""
    state = table().state
    return evolve(state, settings=evolve(state.settings, roll_visibility=visibility))


def faces_of(rolled: Roll, visibility: str) -> dict[str, Any]:
    """Another side's roll as the table sees it: never its modifiers or total."""
    if visibility == "faces":
        return {
            "$type": "Roll",
            "dice": to_data(rolled.dice),
            "multiplier": rolled.multiplier,
            "dice_used": rolled.dice_used,
        }
    return {"$type": "Roll", "multiplier": rolled.multiplier}


STAB = roll(14, ("Strength", 2), ("Training", 1))
CUT = roll(8, ("Strength", 3), ("Training", 2))
DODGE = roll(12, ("Dexterity", 3))
DAMAGE = roll(3, ("Training", 1), sides=8)
CHECK = roll(9, ("Constitution", 2))
D4 = roll(2, sides=4)

# (event, {field: the sides whose numbers it holds}); every other field is public.
ROLL_CASES: list[tuple[Event, dict[str, tuple[str, ...]]]] = [
    (
        AttackRolled(
            "g1", "ayla", "scimitar", "melee", "standard", STAB, "PD", 13, "hit", (("Prone", -2),)
        ),
        {"roll": (GM_SIDE,), "defence": (PC,), "defence_changes": (PC,)},
    ),
    (
        AttackRolled("ayla", "g1", "longsword", "melee", "standard", CUT, "PD", 12, "hit"),
        {"roll": (PC,), "defence": (GM_SIDE,), "defence_changes": (GM_SIDE,)},
    ),
    (
        DefenceRolled("g1", "ayla", "dodge", DODGE, 13, True),
        {"roll": (GM_SIDE,), "against": (PC,)},
    ),
    (DamageBlocked("ayla", "longsword", DAMAGE, "g1"), {"roll": (GM_SIDE,)}),
    (
        DamageDealt("g1", "ayla", 4, "PR", 1, 3, 1, DAMAGE),
        {
            "roll": (PC,),
            "amount": (PC, GM_SIDE),
            "resistance": (GM_SIDE,),
            "resistance_changes": (GM_SIDE,),
            "to_health": (GM_SIDE,),
            "to_armour": (GM_SIDE,),
        },
    ),
    (
        SpellCast("g1", "Bolt", 3, 1, (), 1, "standard", (ManaShare("g1", 3, 3),), 14),
        {"spell_dc": (GM_SIDE,)},
    ),
    (
        ManeuverRolled("ayla", "g1", CUT, 12, True),
        {"roll": (PC,), "defence": (GM_SIDE,), "defence_changes": (GM_SIDE,)},
    ),
    (ThrowChecked("g1", "javelin", STAB, 11, True, ""), {"roll": (GM_SIDE,), "dc": (GM_SIDE,)}),
    (ItemUsed("g1", "potion", D4, 2), {"roll": (GM_SIDE,), "healed": (GM_SIDE,)}),
    (
        AbilityDamaged("g1", "strength", 2, D4, "critical hit"),
        {"roll": (GM_SIDE,), "amount": (GM_SIDE,)},
    ),
    (
        StealthChecked("ayla", "g1", roll(15, ("Stealth", 4)), roll(9, ("Perception", 2)), True),
        {"stealth_roll": (PC,), "perception_roll": (GM_SIDE,)},
    ),
    (
        ConcentrationChecked("g1", "Bolt", CHECK, 13, True),
        {"roll": (GM_SIDE,), "dc": (GM_SIDE,)},
    ),
    (RiderThrown("ayla", "horse", DODGE, 20, False, Cell(1, 1)), {"roll": (PC,)}),
    (CriticalTableRolled("hit", "g1", roll(7), 7, "Knocked prone"), {"roll": (GM_SIDE,)}),
]
VISIBILITIES = ("open", "faces", "hidden")


@pytest.mark.parametrize("visibility", VISIBILITIES)
@pytest.mark.parametrize(
    ("event", "owners"), ROLL_CASES, ids=[type(e).__name__ for e, _ in ROLL_CASES]
)
def test_a_roll_shows_its_numbers_only_to_their_side_unless_the_table_is_open(
    event: Event, owners: dict[str, tuple[str, ...]], visibility: str
) -> None:
    """R77: the GM and the roller's side see a roll whole, and the numbers of their own
    sheets; another side sees the faces and the outcome ("faces"), the outcome alone
    ("hidden"), or everything ("open"). The outcome and the names stay for everyone."""
    state = with_rolls(visibility)
    assert event_view(event, state, GM_AUDIENCE) == to_data(event)
    for audience in audiences(state).values():
        view = event_view(event, state, audience)
        view.pop("health_state", None)  # another side's coarse health (tested below)
        expected = to_data(event)
        for field, sides in owners.items():
            if visibility == "open" or any(audience.knows(side) for side in sides):
                continue
            value = getattr(event, field)
            if isinstance(value, Roll):
                expected[field] = faces_of(value, visibility)
            else:
                del expected[field]
        assert view == expected, (audience, visibility)


def test_a_foes_attack_shows_ayla_its_die_and_her_own_defence() -> None:
    """What Ayla's player and a spectator receive of the goblin's attack on Ayla,
    by default: the d20's face and the hit; Ayla's side also its own PD; nobody the
    goblin's Strength, Training or total."""
    state = with_rolls("faces")
    attack = AttackRolled("g1", "ayla", "scimitar", "melee", "standard", STAB, "PD", 15, "hit")
    die = {
        "$type": "Roll",
        "dice": [{"$type": "DiceResult", "sides": 20, "faces": [14], "negative": False}],
        "multiplier": 1,
        "dice_used": 1,
    }
    seen = {
        "$type": "AttackRolled",
        "attacker": "g1",
        "target": "ayla",
        "weapon": "scimitar",
        "kind": "melee",
        "action": "standard",
        "roll": die,
        "defence_name": "PD",
        "defence": 15,
        "outcome": "hit",
        "defence_changes": [],
    }
    assert event_view(attack, state, player_audience(["ayla"], state)) == seen
    assert event_view(attack, state, SPECTATORS) == {
        k: v for k, v in seen.items() if k not in ("defence", "defence_changes")
    }
    hidden = with_rolls("hidden")
    assert event_view(attack, hidden, SPECTATORS)["roll"] == {"$type": "Roll", "multiplier": 1}


def test_a_dodge_against_a_foes_attack_shows_the_dodgers_side_its_roll_not_the_attack() -> None:
    """Ayla dodges the goblin's attack: her side sees her save whole and whether it
    worked, never the goblin's total it was against; the goblin's side the reverse."""
    state = with_rolls("faces")
    dodge = DefenceRolled("ayla", "g1", "dodge", DODGE, 17, False)
    mine = event_view(dodge, state, player_audience(["bram"], state))
    assert mine["roll"] == to_data(DODGE) and "against" not in mine
    assert mine["success"] is False
    theirs = event_view(dodge, state, player_audience(["g1"], state))
    assert theirs["against"] == 17 and "total" not in theirs["roll"]


def test_damage_shows_each_side_what_it_dealt_or_took_and_the_others_its_health_after() -> None:
    """Ayla hits the goblin: her side sees the damage it dealt, not the goblin's
    resistance nor how it split; a spectator sees neither number, only the faces and
    the goblin's coarse health after it. The goblin's side sees what it took, and the
    faces of Ayla's roll, not its modifiers."""
    state = with_rolls("faces")
    dealt = DamageDealt("g1", "ayla", 4, "PR", 1, 3, 1, DAMAGE)
    ayla = event_view(dealt, state, player_audience(["ayla"], state))
    assert ayla["amount"] == 4 and ayla["roll"] == to_data(DAMAGE)
    assert not {"resistance", "resistance_changes", "to_health", "to_armour"} & set(ayla)
    assert ayla["health_state"] == "unhurt"  # the state given is before the damage
    watcher = event_view(dealt, state, SPECTATORS)
    assert not {"amount", "resistance", "resistance_changes", "to_health", "to_armour"} & set(
        watcher
    )
    assert "total" not in watcher["roll"] and watcher["health_state"] == "unhurt"
    goblins = event_view(dealt, state, player_audience(["g1"], state))
    assert goblins == {**to_data(dealt), "roll": faces_of(DAMAGE, "faces")}  # what it took


def test_a_potion_a_foe_drinks_shows_its_health_after_not_the_health_healed() -> None:
    state = with_rolls("faces")
    used = ItemUsed("g1", "potion", D4, 2)
    seen = event_view(used, state, player_audience(["ayla"], state))
    assert "healed" not in seen and seen["health_state"] == "unhurt"
    assert event_view(used, state, player_audience(["g1"], state)) == to_data(used)


def test_a_spell_shows_each_target_its_own_spell_dodge_and_the_casters_roll_as_faces() -> None:
    state = with_rolls("faces")
    results = (SpellTargetResult("ayla", 11, "hit"), SpellTargetResult("bram", 12, "miss"))
    cast = SpellAttackRolled("g1", "Cone of Cold", "cone", CHECK, "SD", "hit", results, DAMAGE)
    ayla = event_view(cast, state, player_audience(["ayla"], state))
    assert ayla["roll"] == faces_of(CHECK, "faces") and ayla["damage"] == faces_of(DAMAGE, "faces")
    assert ayla["results"] == [to_data(r) for r in results]
    watcher = event_view(cast, state, SPECTATORS)
    assert watcher["results"] == [
        {"$type": "SpellTargetResult", "target": "ayla", "outcome": "hit"},
        {"$type": "SpellTargetResult", "target": "bram", "outcome": "miss"},
    ]
    assert event_view(cast, state, player_audience(["g1"], state))["roll"] == to_data(CHECK)
    assert event_view(cast, with_rolls("open"), SPECTATORS) == to_data(cast)


def test_a_foes_deciphering_shows_the_spells_name_and_the_die() -> None:
    state = with_rolls("faces")
    read = SpellDeciphered("g1", Spell("Bolt", 3), roll(11, ("Intellect", 2)), 14, True)
    seen = event_view(read, state, SPECTATORS)
    assert seen == {
        "$type": "SpellDeciphered",
        "combatant": "g1",
        "spell": {"$type": "Spell", "name": "Bolt"},
        "roll": faces_of(read.roll, "faces"),
        "success": True,
    }
    assert event_view(read, with_rolls("open"), SPECTATORS)["dc"] == 14


def test_another_sides_initiative_and_turns_show_no_numbers() -> None:
    """The turn order is public; another side's initiative (its Dexterity added), its
    Dexterity and its tie-break are not: its turns keep only whose they are."""
    fight = table()
    rolled = one(fight.do(StartCombat()), InitiativeRolled)
    state = fight.state
    ayla = player_audience(["ayla"], state)
    seen = event_view(rolled, state, ayla)
    for made, shown in zip(rolled.rolls_made, seen["rolls_made"], strict=True):
        if made.combatant == "g1":
            assert shown["roll"] == faces_of(made.roll, "faces")
        else:
            assert shown["roll"] == to_data(made.roll)
    order = [slot.combatant for slot in rolled.order]
    assert [slot["combatant"] for slot in seen["order"]] == order
    for slot, shown in zip(rolled.order, seen["order"], strict=True):
        if slot.combatant == "g1":
            assert shown == {"$type": "TurnSlot", "combatant": "g1"}
        else:
            assert shown == to_data(slot)
    assert state_view(state, ayla)["turn_order"] == seen["order"]
    assert state_view(state, SPECTATORS)["turn_order"] == [
        {"$type": "TurnSlot", "combatant": cid} for cid in order
    ]
    assert event_view(rolled, state, GM_AUDIENCE) == to_data(rolled)
    opened = evolve(state, settings=evolve(state.settings, roll_visibility="open"))
    assert state_view(opened, SPECTATORS)["turn_order"] == to_data(state.turn_order)


def test_a_newcomers_initiative_is_its_sides_to_see() -> None:
    fight = table()
    fight.do(StartCombat())
    g2 = fighter("g2", "gm", 3, 3, sheet_=sheet("Goblin archer"))
    added = one(fight.do(AddCombatant(g2)), CombatantAdded)
    assert added.initiative and added.slots
    seen = event_view(added, fight.state, SPECTATORS)
    assert seen["initiative"] == [
        {"$type": "InitiativeRoll", "combatant": "g2", "roll": faces_of(r.roll, "faces")}
        for r in added.initiative
    ]
    assert seen["slots"] == [{"$type": "TurnSlot", "combatant": "g2"} for _ in added.slots]
    goblins = event_view(added, fight.state, player_audience(["g1"], fight.state))
    assert goblins["initiative"] == to_data(added.initiative)


def test_the_gm_changes_the_roll_visibility_and_the_next_rolls_follow_it() -> None:
    """SetSetting is logged (`SettingChanged`, seen by everyone); the rolls after it are
    shown as the new setting says."""
    fight = table()
    changed = fight.do(SetSetting("roll_visibility", "open"))
    assert changed == [SettingChanged("roll_visibility", "open", "faces")]
    assert event_view(changed[0], fight.state, SPECTATORS) == to_data(changed[0])
    rolled = one(fight.do(StartCombat()), InitiativeRolled)
    assert event_view(rolled, fight.state, SPECTATORS) == to_data(rolled)


MARKED = {"strength": 2741, "dexterity": 3307, "physical_dodge": 5113}


def marked_story() -> list[tuple[Event, Encounter]]:
    """A Live Combat round against a goblin whose Strength, Dexterity and Physical Dodge
    are numbers no roll can make (`MARKED`): it attacks Ayla, who dodges; Ayla and
    Bram attack it (and miss its Physical Dodge); everyone else passes."""
    goblin = sheet(
        "Goblin",
        abilities=evolve(
            sheet().abilities, strength=MARKED["strength"], dexterity=MARKED["dexterity"]
        ),
        defences=evolve(sheet().defences, physical_dodge=MARKED["physical_dodge"]),
    )
    ayla = fighter("ayla", "pc", 0, 0, sheet_=sheet("Ayla"))
    bram = fighter("bram", "pc", 0, 1, sheet_=sheet("Bram"))
    g1 = fighter("g1", "gm", 1, 0, facing=4, sheet_=goblin)
    fight = Fight(evolve(encounter(ayla, bram, g1, seed=SEED), mode=Mode.LIVE))
    fight.do(StartCombat())
    declare_all(fight)
    for _ in range(50):
        window = fight.state.window
        if window is None or window.kind == WindowKind.PLANNING:
            break
        asked = {a.combatant: a.options for a in window.asked}
        if "dodge" in asked.get("ayla", ()) and "ayla" in window.waiting_for:
            fight.do(Answer("ayla", window.id, "dodge"))
        else:
            fight.do(PassWindow(window.waiting_for[0], window.id))
    steps = []
    state = fight.initial
    for event in fight.log:
        state = apply(state, event)
        steps.append((event, state))
    return steps


def marks(view: Any) -> set[str]:
    """The goblin's marked numbers found in `view`: each, or a total it is part of."""
    found = set()
    for number in re.findall(r"-?\d+", json.dumps(view)):
        for name, value in MARKED.items():
            if value <= int(number) <= value + 40:
                found.add(name)
    return found


def test_a_foes_marked_numbers_reach_no_player_and_no_spectator_through_its_rolls() -> None:
    """The goblin's Dexterity (its initiative, its turn's tie-break, its dodge), its
    Strength (its attack's total, Ayla's dodge against it) and its Physical Dodge (Ayla's
    and Bram's attacks against it) are in no byte a player of the other side or a
    spectator receives, in any event or snapshot; the GM's views hold every one."""
    steps = marked_story()
    kinds = {type(e).__name__ for e, _ in steps}
    assert {"InitiativeRolled", "AttackRolled", "DefenceRolled"} <= kinds
    gm_seen: set[str] = set()
    for event, after in steps:
        gm_seen |= marks(event_view(event, after, GM_AUDIENCE))
        for audience in (player_audience(["ayla"], after), SPECTATORS):
            assert not marks(event_view(event, after, audience)), (audience, event)
            assert not marks(state_view(after, audience)), (audience, event)
    assert gm_seen == set(MARKED)


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
