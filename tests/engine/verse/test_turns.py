"""Initiative (V16) and the action economy (V17)."""

from __future__ import annotations

import pytest

from server.engine import CommandRefused, decide, execute
from server.engine.records import evolve
from server.engine.rulesets.verse.attacks import Attack, natural_damage
from server.engine.rulesets.verse.combatant import ActionsUsed
from server.engine.rulesets.verse.sheet import ActionType, Speeds, Weapon
from server.engine.rulesets.verse.turns import StartCombat, check_action, initiative_count
from server.engine.state import Environment
from tests.engine.verse.builders import encounter, fighter, in_combat, sheet


def test_one_initiative_per_full_30_ft_of_the_environments_speed() -> None:
    swimmer = fighter("eel", "gm", sheet_=sheet("eel", speeds=Speeds(land=30, swim=60)))
    walker = fighter("ayla", "pc", sheet_=sheet("ayla", speeds=Speeds(land=59, swim=15)))
    assert initiative_count(swimmer, Environment.LAND) == 1
    assert initiative_count(swimmer, Environment.WATER) == 2
    assert initiative_count(walker, Environment.LAND) == 1  # 59 ft: one full 30
    assert initiative_count(walker, Environment.WATER) == 1  # at least one


def test_the_sheets_initiative_bonus_joins_every_initiative_roll() -> None:
    """V16 "d20 + Dexterity + bonuses" (R76): amy 10 + Dex 2 + 3 = 15 goes before
    bob's 12 + 2 = 14; cat's penalty: 14 + 2 - 4 = 12. The roll names the bonus."""
    amy = fighter("amy", "pc", sheet_=sheet("amy", initiative_bonus=3))
    bob = fighter("bob", "pc")
    cat = fighter("cat", "gm", sheet_=sheet("cat", initiative_bonus=-4))
    after, events = execute(encounter(amy, bob, cat, dice=(10, 12, 14)), StartCombat())
    assert [(s.combatant, s.initiative) for s in after.turn_order] == [
        ("amy", 15),
        ("bob", 14),
        ("cat", 12),
    ]
    rolls = {r.combatant: r.roll for r in events[0].rolls_made}  # type: ignore[attr-defined]
    assert rolls["amy"].modifiers == (("Dexterity", 2), ("Initiative bonus", 3))
    assert rolls["bob"].modifiers == (("Dexterity", 2),)  # no bonus, none named


def test_ties_go_to_dexterity_then_a_re_roll_between_the_tied() -> None:
    # Rolls in id order: amy 10, bob 10, cat 10, dan 9 (Dexterity: amy 2, bob 2, cat 2, dan 3).
    # dan: 9 + 3 = 12 ties the others' 10 + 2 but has the higher Dexterity.
    # Re-roll between amy, bob, cat: 5, 5, 9 -> cat first; then amy and bob again: 3, 17.
    people = [fighter(n, "pc") for n in ("amy", "bob", "cat")]
    dan = fighter(
        "dan", "gm", sheet_=sheet("dan", abilities=evolve(sheet().abilities, dexterity=3))
    )
    state = encounter(*people, dan, dice=(10, 10, 10, 9, 5, 5, 9, 3, 17))
    after, events = execute(state, StartCombat())
    order = [slot.combatant for slot in after.turn_order]
    assert order == ["dan", "cat", "bob", "amy"]
    rolled = events[0]
    assert [(r.combatant, r.roll.total) for r in rolled.tiebreaks] == [
        ("amy", 5),
        ("bob", 5),
        ("cat", 9),
        ("amy", 3),
        ("bob", 17),
    ]


def test_two_turns_of_one_combatant_need_no_re_roll() -> None:
    fast = fighter("eel", "gm", sheet_=sheet("eel", speeds=Speeds(land=60)))
    state = encounter(fast, fighter("ayla", "pc"), dice=(2, 8, 8))  # ayla, eel, eel
    after, events = execute(state, StartCombat())
    assert events[0].tiebreaks == ()
    assert [s.combatant for s in after.turn_order] == ["eel", "eel", "ayla"]


@pytest.mark.parametrize(
    ("used", "action", "allowed"),
    [
        (ActionsUsed(), ActionType.FULL_ROUND, True),
        (ActionsUsed(swift=True), ActionType.FULL_ROUND, False),  # V17: no other action first
        (ActionsUsed(standard=True), ActionType.STANDARD, False),
        (ActionsUsed(standard=True), ActionType.MOVE, True),
        (ActionsUsed(move=True), ActionType.MOVE, False),
        (ActionsUsed(swift=True), ActionType.SWIFT, False),
        (ActionsUsed(full_round=True, standard=True, move=True), ActionType.SWIFT, False),
        (ActionsUsed(standard=True, move=True, swift=True), ActionType.INSTANT, True),
    ],
)
def test_the_action_economy(used: ActionsUsed, action: str, allowed: bool) -> None:
    actor = evolve(fighter("ayla", "pc"), actions=used)
    if allowed:
        check_action(actor, action, ())
    else:
        with pytest.raises(CommandRefused) as refused:
            check_action(actor, action, ())
        assert refused.value.code == "action_used"


def test_a_combatant_cannot_attack_itself() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1), dice=(15, 3))
    with pytest.raises(CommandRefused) as refused:
        decide(state, Attack("ayla", "ayla", "longsword"))
    assert refused.value.code == "invalid_command"


def test_natural_damage_adds_an_unarmed_weapons_dice_to_the_unarmed_die() -> None:
    me = fighter("ayla", "pc")
    assert natural_damage(me, Weapon("claw", "", "unarmed", kind="natural")).text == "1d4"
    assert natural_damage(me, Weapon("knuckles", "1d2", "unarmed", kind="natural")).text == (
        "1d4+1d2"
    )
    assert natural_damage(me, Weapon("weak", "-1", "unarmed", kind="natural")).text == "1d4-1"
    # A weapon's dice at their bounds (20 terms, 1000 dice) and the Unarmed Die: one roll.
    most = "+".join(["50d1"] * 20)
    whole = natural_damage(me, Weapon("maw", most, "unarmed", kind="natural"))
    assert (whole.dice_count, len(whole.groups)) == (1001, 21)
