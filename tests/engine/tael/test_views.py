"""What the GM, a side and a spectator see of a Tael fight (ARCHITECTURE 8, T2).

The GM sees all; another side sees a coarse health state, never hit points, Willpower
or a preparation that has not triggered; a side's own announced preparation is hidden
from the other sides until it triggers; another side's rolls show what the room's
`roll_visibility` lets it see (R77).
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest

from server.engine import apply
from server.engine.condition_table import ConditionSaveRolled
from server.engine.core import Event
from server.engine.dice import DiceResult, Roll
from server.engine.effects import ConditionRule, SaveEnds
from server.engine.records import evolve, to_data
from server.engine.rulesets.tael import views as tael_views
from server.engine.rulesets.tael.attacks import AttackAction, HitChecked
from server.engine.rulesets.tael.bonus import SkillChecked
from server.engine.rulesets.tael.combatant import Preparation, TaelCombatant, TaelStatus
from server.engine.rulesets.tael.damage import DamageRolled, DamageTaken
from server.engine.rulesets.tael.fainting import WillpowerChecked
from server.engine.rulesets.tael.generic import HideAttempted
from server.engine.rulesets.tael.preparations import PreparationAnnounced, Prepare
from server.engine.rulesets.tael.sheet import Armour, TaelSheet
from server.engine.rulesets.tael.spells import SpellHitChecked, SpellTargetCheck
from server.engine.rulesets.tael.statuses import ResistChecked
from server.engine.stack import Answer, WindowOpened
from server.engine.state import Encounter
from server.engine.turns import EndTurn, StartCombat
from server.engine.views import (
    GM_AUDIENCE,
    SPECTATORS,
    event_view,
    event_views,
    player_audience,
    state_view,
)
from tests.engine.tael.builders import (
    RIPOSTE,
    Fight,
    attributes,
    encounter,
    fighter,
    in_combat,
    one,
    sheet,
)

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
    """The goblin hits Kaelen: his side sees the damage and his hit points left, the
    goblin's side the damage it dealt and his coarse health, a spectator only the
    coarse health (R77: the damage is both sides' number, no one else's)."""
    fight = table(dice=(15, 5), preparing=False)
    taken = one(fight.do(AttackAction("g", "k")), DamageTaken)
    goblins = player_audience(["g"], fight.state)
    views = event_views(
        taken,
        fight.state,
        [GM_AUDIENCE, SPECTATORS, player_audience(["k"], fight.state), goblins],
    )
    assert views[("gm",)] == to_data(taken)
    assert views[("side", "heroes")] == to_data(taken)
    assert views[("side", "foes")] == {
        "$type": "DamageTaken",
        "target": "k",
        "by": "g",
        "damage": 7,
        "taken": 7,
        "braced": False,
        "health_state": "wounded",
    }
    assert views[("side",)] == {
        "$type": "DamageTaken",
        "target": "k",
        "by": "g",
        "braced": False,
        "health_state": "wounded",
    }
    opened = evolve(fight.state, settings=evolve(fight.state.settings, roll_visibility="open"))
    assert event_view(taken, opened, SPECTATORS)["taken"] == 7  # rolled in the open


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


# --- rolls (R77) ----------------------------------------------------------------------
# Kaelen is "heroes", the goblin "foes"; each case names the sides whose numbers each
# field holds, every other field being public.

HEROES, FOES = "heroes", "foes"


def roll(face: int, *modifiers: tuple[str, int], sides: int = 20) -> Roll:
    return Roll((DiceResult(sides, (face,)),), modifiers, face + sum(v for _, v in modifiers))


def with_rolls(visibility: str) -> Encounter:
    state = table().state
    return evolve(state, settings=evolve(state.settings, roll_visibility=visibility))


def faces_of(rolled: Roll, visibility: str) -> dict[str, Any]:
    if visibility == "faces":
        return {
            "$type": "Roll",
            "dice": to_data(rolled.dice),
            "multiplier": rolled.multiplier,
            "dice_used": rolled.dice_used,
        }
    return {"$type": "Roll", "multiplier": rolled.multiplier}


SWING = roll(14, ("Martial Combat", 3))
FAR = roll(6, ("Precision", 2))
HURT = roll(5, ("Strength", 2), sides=8)
ROLL_CASES: list[tuple[Event, dict[str, tuple[str, ...]]]] = [
    (
        HitChecked("g", "k", "sword", "melee", "attack", SWING, None, (("Armour", 12),), 12, True),
        {
            "roll": (FOES,),
            "other": (FOES,),
            "hindered": (FOES,),
            "defence": (HEROES,),
            "defensive_value": (HEROES,),
        },
    ),
    (
        HitChecked("k", "g", "bow", "ranged", "attack", FAR, SWING, (("Armour", 12),), 12, False),
        {
            "roll": (HEROES,),
            "other": (HEROES,),
            "hindered": (HEROES,),
            "defence": (FOES,),
            "defensive_value": (FOES,),
        },
    ),
    (DamageRolled("g", "sword", HURT), {"roll": (FOES,)}),
    (
        ResistChecked("k", "Burning", roll(8, ("Agility", 1)), 10, 4, 14, False, "g"),
        {"roll": (HEROES,), "base_dc": (FOES,), "caster_magic": (FOES,), "dc": (FOES,)},
    ),
    (SkillChecked("g", "Persuasion", roll(11, ("Persuasion", 3)), "universal"), {"roll": (FOES,)}),
    (HideAttempted("k", roll(9, ("Stealth", 4)), "universal"), {"roll": (HEROES,)}),
    (
        ConditionSaveRolled("g", "Burning", roll(9, ("Agility", 1)), 12, False, "agility"),
        {"roll": (FOES,)},
    ),
]


@pytest.mark.parametrize("visibility", ["open", "faces", "hidden"])
@pytest.mark.parametrize(
    ("event", "owners"), ROLL_CASES, ids=[type(e).__name__ for e, _ in ROLL_CASES]
)
def test_a_roll_shows_its_numbers_only_to_their_side_unless_the_table_is_open(
    event: Event, owners: dict[str, tuple[str, ...]], visibility: str
) -> None:
    """R77 in World of Tael: the GM and the roller's side see a roll whole, each side the
    numbers of its own sheet; another side the faces and the outcome ("faces"), the
    outcome alone ("hidden"), or everything ("open")."""
    state = with_rolls(visibility)
    assert event_view(event, state, GM_AUDIENCE) == to_data(event)
    for audience in (player_audience(["k"], state), player_audience(["g"], state), SPECTATORS):
        expected = to_data(event)
        for field, sides in owners.items():
            if visibility == "open" or any(audience.knows(side) for side in sides):
                continue
            value = getattr(event, field)
            if isinstance(value, Roll):
                expected[field] = faces_of(value, visibility)
            elif value is None:
                expected[field] = None
            else:
                del expected[field]
        assert event_view(event, state, audience) == expected, (audience, visibility)


@pytest.mark.parametrize("visibility", ["open", "faces", "hidden"])
def test_a_status_save_in_willpower_shows_other_sides_no_number_whatever_the_setting(
    visibility: str,
) -> None:
    """TR33: the Willpower check stays hidden from other sides whatever the setting,
    and so does a status's save in Willpower (TR41): its faces beside the table's DC
    and the outcome would narrow Willpower down. Another side sees the outcome and a
    hidden roll; Kaelen's side and the GM see it whole. A save logged before the event
    named its ability is known by its roll's Willpower."""
    fight = table(dice=(4,))
    k = evolve(fight.who("k"), statuses=(TaelStatus("Dread", 3),))
    dread = ConditionRule("Dread", save=SaveEnds("willpower", 15))
    settings = evolve(fight.state.settings, roll_visibility=visibility)
    fight.state = evolve(
        fight.state,
        combatants={**fight.state.combatants, "k": k},
        condition_rules=(dread,),
        settings=settings,
    )
    save = one(fight.do(EndTurn("g")), ConditionSaveRolled)
    assert (save.ability, save.roll.modifiers, save.success) == (
        "willpower",
        (("Willpower", 7),),
        False,
    )
    whole = to_data(save)
    assert event_view(save, fight.state, GM_AUDIENCE) == whole
    assert event_view(save, fight.state, player_audience(["k"], fight.state)) == whole
    hidden = {**whole, "roll": {"$type": "Roll", "multiplier": 1}}
    for audience in (player_audience(["g"], fight.state), SPECTATORS):
        assert event_view(save, fight.state, audience) == hidden, (audience, visibility)
    older = evolve(save, ability="")
    assert event_view(older, fight.state, SPECTATORS) == {**to_data(older), "roll": hidden["roll"]}


def test_a_spell_shows_each_target_its_own_defensive_value() -> None:
    state = with_rolls("faces")
    checks = (SpellTargetCheck("k", (("Armour", 12), ("Dodging", 2)), 14, True),)
    cast = SpellHitChecked("g", "Ignite", "spell", roll(16, ("Magic", 2)), checks)
    heroes = event_view(cast, state, player_audience(["k"], state))
    assert heroes["roll"] == faces_of(cast.roll, "faces")
    assert heroes["targets"] == [to_data(checks[0])]
    assert event_view(cast, state, SPECTATORS)["targets"] == [
        {"$type": "SpellTargetCheck", "target": "k", "hit": True}
    ]
    assert event_view(cast, state, player_audience(["g"], state))["roll"] == to_data(cast.roll)


MARKED = {"martial_combat": 2741, "agility": 3307, "armour": 5113}


def test_a_foes_marked_numbers_reach_no_player_and_no_spectator_through_its_rolls() -> None:
    """A goblin whose Martial Combat, Agility and armour's Defensive Value are numbers no
    roll makes: it rolls initiative (its Agility breaks ties, `TurnSlot.dexterity`) and
    both sides attack; none of its numbers reaches Kaelen's player or a spectator, in
    an event or a snapshot, while the GM's events show every one."""
    goblin = sheet(
        "Goblin",
        martial_combat=MARKED["martial_combat"],
        attributes=attributes(strength=(14, 2), agility=(MARKED["agility"], 1)),
        armour=Armour("hide", defensive_value=MARKED["armour"], dodge_penalty=0),
    )
    g = fighter("g", "foes", 1, 0, sheet_=goblin)
    k = fighter("k", "heroes", 0, 0, sheet_=sheet("Kaelen"))
    fight = Fight(encounter(g, k, seed=11))
    fight.do(StartCombat())
    for _ in range(2):
        actor = fight.state.current
        assert actor is not None
        fight.do(AttackAction(actor, "k" if actor == "g" else "g"))
        fight.do(EndTurn(actor))
    assert {type(e).__name__ for e in fight.log} >= {"InitiativeRolled", "HitChecked"}

    def marks(view: Any) -> set[str]:
        found = set()
        for number in re.findall(r"-?\d+", json.dumps(view)):
            found |= {n for n, v in MARKED.items() if v <= int(number) <= v + 40}
        return found

    gm_seen: set[str] = set()
    state = fight.initial
    for event in fight.log:
        state = apply(state, event)
        gm_seen |= marks(event_view(event, state, GM_AUDIENCE))
        for audience in (player_audience(["k"], state), SPECTATORS):
            assert not marks(event_view(event, state, audience)), (audience, event)
            assert not marks(state_view(state, audience)), audience
    assert gm_seen == set(MARKED)
