"""Ranged and thrown attacks: Dexterity (ranged), V8 modifiers, V9 Throw DC, V6 fails."""

from __future__ import annotations

from typing import Any

import pytest

from server.engine import Encounter, Event, execute
from server.engine.records import evolve
from server.engine.rulesets.verse.attacks import Attack, AttackRolled, ThrowChecked
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.conditions import ItemBroken, WeaponDropped
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.sheet import Abilities, Defences, Weapon, WeaponKind
from tests.engine.verse.builders import LONGSWORD, SHORTBOW, fighter, in_combat, refused, sheet

# Ayla: Strength 3, Dexterity 2, ranged Training 1. Gob: PD 12, PR 2, health 20.
DAGGER = Weapon("dagger", "1d4", "thrown", kind=WeaponKind.THROWN, range_ft=30, weight_lb=1)
ROCK = Weapon("rock", "1d6", "thrown", kind=WeaponKind.THROWN, range_ft=30, weight_lb=30)
FLASK = Weapon("flask", "1d4", "thrown", kind=WeaponKind.THROWN, range_ft=30, weight_lb=4)
GLASS_BOW = Weapon("glass bow", "1d6", "ranged", kind=WeaponKind.RANGED, range_ft=80, fragile=True)
BITE = Weapon("bite", "", "unarmed", kind=WeaponKind.NATURAL)


def archer(strength: int = 3, **kw: Any) -> VerseCombatant:
    abilities = Abilities(
        strength=strength, dexterity=2, constitution=3, sanity=2, intellect=1, empathy=1
    )
    weapons = (LONGSWORD, SHORTBOW, DAGGER, ROCK, FLASK, GLASS_BOW, BITE)
    return fighter("ayla", "pc", sheet_=sheet("ayla", abilities=abilities, weapons=weapons), **kw)


def shot(*dice: int, gob_x: int = 4, others: tuple[VerseCombatant, ...] = ()) -> Encounter:
    """Ayla at (0, 0) and Gob `gob_x` squares (5 ft each) east, Ayla to act."""
    return in_combat(archer(), fighter("gob", "gm", x=gob_x), *others, dice=dice)


# --- ranged: Dexterity and V8 ----------------------------------------------------------


def test_ranged_attack_uses_dexterity_not_strength() -> None:
    state = shot(9, 4)
    after, events = execute(state, Attack("ayla", "gob", "shortbow"))
    attack, damage = events
    assert isinstance(attack, AttackRolled) and isinstance(damage, DamageDealt)
    assert attack.describe() == "d20 9 + Dexterity 2 + Training 1 = 12 vs PD 12: hit"
    assert damage.amount == 4 + 1
    assert after.combatant("gob").health == 20 - 3


def test_firing_into_combat_takes_minus_2() -> None:
    # Bren (Ayla's side) stands next to Gob: Gob is in melee with someone else (V8).
    bren = fighter("bren", "pc", x=5)
    state = shot(11, 4, others=(bren,))
    _, events = execute(state, Attack("ayla", "gob", "shortbow"))
    assert events[0].describe() == (
        "d20 11 + Dexterity 2 + Training 1 - Firing into combat 2 = 12 vs PD 12: hit"
    )


def test_a_target_next_to_its_own_ally_is_not_in_melee() -> None:
    friend = fighter("grub", "gm", x=5)
    state = shot(9, 4, others=(friend,))
    _, events = execute(state, Attack("ayla", "gob", "shortbow"))
    assert events[0].describe() == "d20 9 + Dexterity 2 + Training 1 = 12 vs PD 12: hit"


def test_a_target_within_5_ft_gives_plus_5_and_the_shooter_alone_is_not_combat() -> None:
    state = shot(4, 3, gob_x=1)
    _, events = execute(state, Attack("ayla", "gob", "shortbow"))
    assert events[0].describe() == (
        "d20 4 + Dexterity 2 + Training 1 + Point blank 5 = 12 vs PD 12: hit"
    )


def test_point_blank_ends_at_5_ft() -> None:
    state = shot(8, gob_x=2)  # 10 ft
    _, events = execute(state, Attack("ayla", "gob", "shortbow"))
    assert events[0].describe() == "d20 8 + Dexterity 2 + Training 1 = 11 vs PD 12: miss"


def test_point_blank_and_firing_into_combat_together() -> None:
    bren = fighter("bren", "pc", x=1, y=1)
    state = shot(6, 3, gob_x=1, others=(bren,))
    _, events = execute(state, Attack("ayla", "gob", "shortbow"))
    assert events[0].describe() == (
        "d20 6 + Dexterity 2 + Training 1 - Firing into combat 2 + Point blank 5 = 12 vs PD 12: hit"
    )


def test_range_is_inclusive_and_beyond_it_is_refused() -> None:
    at_range = shot(15, 2, gob_x=16)  # 80 ft, the shortbow's range
    _, events = execute(at_range, Attack("ayla", "gob", "shortbow"))
    assert events[0].hit
    assert refused(shot(15, 2, gob_x=17), Attack("ayla", "gob", "shortbow")) == "out_of_range"


def test_thrown_range_is_refused_too() -> None:
    strong = in_combat(archer(10), fighter("gob", "gm", x=7), dice=(20, 20))  # 35 ft > 30
    assert refused(strong, Attack("ayla", "gob", "dagger")) == "out_of_range"


@pytest.mark.parametrize("weapon", ["shortbow", "dagger"])
def test_other_ascension_is_refused(weapon: str) -> None:
    state = in_combat(archer(10), fighter("gob", "gm", x=2, ascension=1), dice=(20, 20, 4))
    assert refused(state, Attack("ayla", "gob", weapon)) == "other_ascension"


# --- thrown: V9 and V8 -------------------------------------------------------------------


def throw(
    strength: int,
    weapon: str,
    *dice: int,
    gob_x: int = 1,
    others: tuple[VerseCombatant, ...] = (),
) -> tuple[Encounter, list[Event]]:
    """Ayla with `strength` throws `weapon` at Gob `gob_x` squares east."""
    state = in_combat(archer(strength), fighter("gob", "gm", x=gob_x), *others, dice=dice)
    return execute(state, Attack("ayla", "gob", weapon))


@pytest.mark.parametrize(
    ("weapon", "gob_x", "dc"),
    [
        ("dagger", 1, 1),  # 1 lb at 5 ft: the weight
        ("flask", 1, 4),  # 4 lb at 5 ft
        ("flask", 3, 14),  # 4 lb at 15 ft: +5 for each 5 ft past the first
        ("rock", 1, 13),  # 30 lb: 30/10 + 10
        ("rock", 2, 18),  # 30 lb at 10 ft
        ("rock", 6, 38),  # 30 lb at 30 ft: five more steps of 5 ft
    ],
)
def test_throw_dc_by_weight_and_distance(weapon: str, gob_x: int, dc: int) -> None:
    # Strength 1 (-25) fails every check: the one scripted die is the check's.
    _, events = throw(1, weapon, 1, gob_x=gob_x)
    check = events[0]
    assert isinstance(check, ThrowChecked)
    assert check.dc == dc


def test_throw_dc_of_exactly_10_lb_uses_the_heavy_formula() -> None:
    ten = Weapon("anvil", "1d6", "thrown", kind=WeaponKind.THROWN, range_ft=30, weight_lb=10)
    nine = Weapon("brick", "1d6", "thrown", kind=WeaponKind.THROWN, range_ft=30, weight_lb=9)
    armed = sheet("ayla", weapons=(ten, nine))
    for weapon, dc in (("anvil", 11), ("brick", 9)):
        state = in_combat(fighter("ayla", "pc", sheet_=armed), fighter("gob", "gm", x=1), dice=(1,))
        _, events = execute(state, Attack("ayla", "gob", weapon))
        assert events[0].dc == dc


@pytest.mark.parametrize(
    ("strength", "penalty"),
    [(1, -25), (2, -25), (3, -18), (4, -18), (5, -15), (6, -15), (7, -5), (9, -5)],
)
def test_strength_weight_penalty(strength: int, penalty: int) -> None:
    _, events = throw(strength, "dagger", 10, 2, 1)
    check = events[0]
    assert isinstance(check, ThrowChecked)
    assert check.roll.modifiers == (("Strength", strength), ("Weight penalty", penalty))
    assert check.roll.total == 10 + strength + penalty


@pytest.mark.parametrize("strength", [10, 14])
def test_strength_10_and_up_throws_without_penalty(strength: int) -> None:
    _, events = throw(strength, "dagger", 10, 2, 1)
    check = events[0]
    assert check.roll.describe() == f"d20 10 + Strength {strength} = {10 + strength}"
    assert check.success


def test_strength_0_cannot_throw() -> None:
    state = in_combat(archer(0), fighter("gob", "gm", x=1), dice=(20, 20, 4))
    assert refused(state, Attack("ayla", "gob", "dagger")) == "cannot_throw"


def test_meeting_the_throw_dc_throws_and_the_attack_spends_the_action() -> None:
    # Strength 7 (-5): d20 11 + 7 - 5 = 13 meets the 30 lb rock's DC 13 at 5 ft.
    after, events = throw(7, "rock", 11, 5, 4)
    check, attack, damage = events
    assert isinstance(check, ThrowChecked) and check.success and check.action == ""
    assert isinstance(attack, AttackRolled) and attack.action == "standard"
    # The thrown attack uses Strength, with V8's +5 within 5 ft.
    assert attack.describe() == "d20 5 + Strength 7 + Point blank 5 = 17 vs PD 12: hit"
    assert isinstance(damage, DamageDealt) and damage.amount == 4
    assert after.combatant("ayla").actions.standard


def test_a_failed_throw_check_spends_the_action_and_makes_no_attack() -> None:
    # d20 10 + 7 - 5 = 12 < DC 13. One die scripted: an attack roll would exhaust it.
    after, events = throw(7, "rock", 10)
    assert events == [
        ThrowChecked("ayla", "rock", events[0].roll, 13, False, "standard"),
    ]
    assert after.combatant("ayla").actions.standard
    assert after.combatant("gob").health == 20
    assert refused(after, Attack("ayla", "gob", "dagger")) == "action_used"


def test_thrown_attacks_take_firing_into_combat_too() -> None:
    bren = fighter("bren", "pc", x=5)
    _, events = throw(10, "dagger", 10, 4, 2, gob_x=4, others=(bren,))
    assert events[1].describe() == ("d20 4 + Strength 10 - Firing into combat 2 = 12 vs PD 12: hit")


# --- V6: critical fails without the tables -------------------------------------------------


def test_ranged_critical_fail_jams_the_weapon_until_fixed() -> None:
    after, events = execute(shot(1), Attack("ayla", "gob", "shortbow"))
    assert events[0].outcome == "critical_fail"
    assert events[1:] == [ItemBroken("ayla", "shortbow", reason="jammed")]
    ayla = after.combatant("ayla")
    assert ayla.broken == ("shortbow",) and ayla.dropped == ()
    next_turn = in_combat(
        evolve(ayla, actions=evolve(ayla.actions, standard=False)),
        after.combatant("gob"),
        dice=(15, 3),
    )
    assert refused(next_turn, Attack("ayla", "gob", "shortbow")) == "weapon_unusable"


def test_a_fragile_weapon_breaks_on_a_critical_fail() -> None:
    after, events = execute(shot(1), Attack("ayla", "gob", "glass bow"))
    assert events[1:] == [ItemBroken("ayla", "glass bow", reason="fragile weapon broke")]
    assert after.combatant("ayla").broken == ("glass bow",)


def test_a_fragile_melee_weapon_breaks_instead_of_flying() -> None:
    glass = Weapon("glass sword", "1d8", "one_handed", fragile=True)
    state = in_combat(
        fighter("ayla", "pc", sheet_=sheet("ayla", weapons=(glass,))),
        fighter("gob", "gm", x=1),
        dice=(1,),
    )
    _, events = execute(state, Attack("ayla", "gob", "glass sword"))
    assert [type(e) for e in events[1:]] == [ItemBroken]
    assert not any(isinstance(e, WeaponDropped) for e in events)


def test_a_natural_critical_fail_deals_half_damage_rounded_down_to_the_attacker() -> None:
    # Bite: Unarmed Die 1d4 (3) + unarmed Training 2 = 5, halved to 2, against Ayla's PR 0.
    biter = sheet(
        "ayla",
        weapons=(BITE,),
        training=(("unarmed", 2),),
        defences=Defences(
            physical_dodge=12, physical_resistance=0, spell_dodge=11, spell_resistance=1
        ),
    )
    state = in_combat(fighter("ayla", "pc", sheet_=biter), fighter("gob", "gm", x=1), dice=(1, 3))
    after, events = execute(state, Attack("ayla", "gob", "bite"))
    assert events[0].outcome == "critical_fail"
    damage = events[1]
    assert isinstance(damage, DamageDealt)
    assert (damage.target, damage.source, damage.amount) == ("ayla", "ayla", 2)
    assert damage.roll is not None and damage.roll.total == 5
    assert after.combatant("ayla").health == 18
    assert after.combatant("gob").health == 20


def test_a_thrown_critical_fail_has_no_fixed_effect() -> None:
    after, events = throw(10, "dagger", 10, 1)
    assert [type(e) for e in events] == [ThrowChecked, AttackRolled]
    ayla = after.combatant("ayla")
    assert (ayla.broken, ayla.dropped) == ((), ())
