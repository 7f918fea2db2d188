"""Weapon hit checks and attack rolls (T3, T5, TR4, TR8)."""

from __future__ import annotations

from server.engine.records import evolve
from server.engine.rulesets.tael.attacks import AttackAction, HitChecked
from server.engine.rulesets.tael.bonus import SkillCheck, SkillChecked
from server.engine.rulesets.tael.damage import DamageRolled, DamageTaken
from server.engine.rulesets.tael.generic import Brace
from server.engine.rulesets.tael.sheet import TaelClass, TaelWeapon
from tests.engine.tael.builders import (
    BOW,
    DAGGER,
    SWORD,
    Fight,
    fighter,
    in_combat,
    one,
    refused,
    sheet,
)


def duel(attacker_sheet: object = None, dice: tuple[int, ...] = (), distance: int = 1) -> Fight:
    a = fighter("a", "heroes", sheet_=attacker_sheet) if attacker_sheet else fighter("a", "heroes")
    b = fighter("b", "foes", distance, 0)
    return Fight(in_combat(a, b, dice=dice))


def test_a_skilled_hit_check_adds_martial_combat_and_must_beat_the_dv() -> None:
    """T3: d20 + Martial Combat (skilled) "higher than the Defensive Value": strictly."""
    fight = duel(dice=(9, 5))  # 9 + 3 = 12 against DV 12: a miss
    check = one(fight.do(AttackAction("a", "b")), HitChecked)
    assert check.roll.modifiers == (("Martial Combat", 3),)
    assert (check.roll.total, check.defensive_value, check.hit) == (12, 12, False)
    fight = duel(dice=(10, 5))  # 13 against 12: a hit
    events = fight.do(AttackAction("a", "b"))
    assert one(events, HitChecked).hit
    assert fight.who("b").hit_points == 20 - (5 + 2)


def test_an_unskilled_wielder_adds_nothing() -> None:
    """T3: the modifier is added only "if the Character is skilled with the weapon"."""
    clumsy = sheet("a", weapon_skills=())
    fight = duel(clumsy, dice=(12, 5))
    events = fight.do(AttackAction("a", "b"))
    check = one(events, HitChecked)
    assert check.roll.modifiers == () and check.roll.total == 12 and not check.hit
    assert fight.who("b").hit_points == 20


def test_damage_is_the_weapon_dice_plus_scale_if_skilled_plus_class_bonuses() -> None:
    """T5: dice + the Scale attribute's modifier (skilled) + class bonuses."""
    warrior = sheet("a", classes=(TaelClass("Blade Warrior", weapon_damage_bonus=2),))
    fight = duel(warrior, dice=(15, 6))
    events = fight.do(AttackAction("a", "b"))
    damage = one(events, DamageRolled)
    assert damage.roll.modifiers == (("Strength", 2), ("Class", 2))
    assert damage.roll.total == 10
    assert one(events, DamageTaken).hit_points == 10


def test_an_unskilled_wielder_adds_no_scale() -> None:
    clumsy = sheet("a", weapon_skills=())
    fight = duel(clumsy, dice=(20, 6))
    assert one(fight.do(AttackAction("a", "b")), DamageRolled).roll.total == 6


def test_a_natural_20_is_no_critical_hit() -> None:
    """TR4: the text knows no critical hits: a 20 is a 20, the damage is not doubled."""
    high = evolve(
        fighter("b", "foes", 1, 0).sheet, armour=evolve(sheet().armour, defensive_value=25)
    )
    fight = Fight(
        in_combat(fighter("a", "heroes"), fighter("b", "foes", 1, 0, sheet_=high), dice=(20,))
    )
    assert not one(fight.do(AttackAction("a", "b")), HitChecked).hit


def test_melee_reaches_one_tile_diagonals_included() -> None:
    """The default weapon range is one tile; a diagonal neighbour is one tile away."""
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 1, 1), dice=(10, 1)))
    fight.do(AttackAction("a", "b"))
    far = in_combat(fighter("a", "heroes"), fighter("b", "foes", 2, 0))
    assert refused(far, AttackAction("a", "b")) == "out_of_reach"


def test_a_ranged_attack_adds_precision() -> None:
    """T3: a skilled shooter adds Precision instead of Martial Combat."""
    archer = sheet("a", main_hand="bow")
    fight = duel(archer, dice=(11, 3), distance=4)  # 11 + 2 = 13 against DV 12
    check = one(fight.do(AttackAction("a", "b")), HitChecked)
    assert check.roll.modifiers == (("Precision", 2),) and check.hit


def test_no_precision_with_an_enemy_in_melee_range() -> None:
    """T3: "If an enemy is within melee range of you, you can not add your Precision"."""
    archer = sheet("a", main_hand="bow")
    state = in_combat(
        fighter("a", "heroes", sheet_=archer),
        fighter("b", "foes", 4, 0),
        fighter("c", "foes", 1, 1),  # next to the archer
        dice=(10,),
    )
    fight = Fight(state)
    check = one(fight.do(AttackAction("a", "b")), HitChecked)
    assert check.hindered and check.roll.modifiers == () and not check.hit


def test_an_ally_or_a_fainted_enemy_next_to_the_shooter_hinders_nothing() -> None:
    """TR7: only an able enemy hinders the aim."""
    archer = sheet("a", main_hand="bow")
    fainted = evolve(fighter("c", "foes", 1, 1), fainted=True, hit_points=0)
    state = in_combat(
        fighter("a", "heroes", sheet_=archer),
        fighter("b", "foes", 4, 0),
        fainted,
        fighter("d", "heroes", 0, 1),
        dice=(10, 3),
    )
    check = one(Fight(state).do(AttackAction("a", "b")), HitChecked)
    assert not check.hindered and check.roll.modifiers == (("Precision", 2),)


def test_beyond_range_up_to_double_the_worse_of_two_hit_checks_counts() -> None:
    """T3: "make the hit check twice and choose the worse result"."""
    archer = sheet("a", main_hand="bow")
    fight = duel(archer, dice=(17, 8), distance=12)  # range 6, double 12
    check = one(fight.do(AttackAction("a", "b")), HitChecked)
    assert check.roll.total == 10 and check.other is not None and check.other.total == 19
    assert not check.hit
    fight = duel(archer, dice=(8, 17, 4), distance=7)  # the worse may come first too
    check = one(fight.do(AttackAction("a", "b")), HitChecked)
    assert check.roll.total == 10 and not check.hit


def test_beyond_double_range_the_attack_is_refused() -> None:
    archer = sheet("a", main_hand="bow")
    state = in_combat(fighter("a", "heroes", sheet_=archer), fighter("b", "foes", 13, 0))
    assert refused(state, AttackAction("a", "b")) == "out_of_range"


def test_an_attack_spends_an_attack_action_before_the_universal_one() -> None:
    """TR2: the class's Attack Action first, then the default Action; then none."""
    warrior = sheet("a", classes=(TaelClass("Blade Warrior", actions=("attack",)),))
    fight = duel(warrior, dice=(1, 1))
    assert one(fight.do(AttackAction("a", "b")), HitChecked).slot == "attack"
    assert one(fight.do(AttackAction("a", "b")), HitChecked).slot == "universal"
    assert fight.refused(AttackAction("a", "b")) == "action_used"


def test_a_one_handed_attack_gives_an_off_hand_bonus_attack_without_scale() -> None:
    """T5: "attack with a weapon in your other hand again, but without the Scale
    Modifier bonus"; the skill still counts for the hit check (TR8)."""
    dual = sheet("a", main_hand="sword", off_hand="dagger", weapon_skills=("swords", "daggers"))
    fight = duel(dual, dice=(1, 15, 3))
    assert fight.refused(AttackAction("a", "b", off_hand=True)) == "no_follow_up"
    fight.do(AttackAction("a", "b"))  # a miss still readies the other hand
    events = fight.do(AttackAction("a", "b", off_hand=True))
    check = one(events, HitChecked)
    assert (check.weapon, check.slot, check.roll.modifiers) == (
        "dagger",
        "off_hand",
        (("Martial Combat", 3),),
    )
    assert one(events, DamageRolled).roll.modifiers == ()
    assert fight.refused(AttackAction("a", "b", off_hand=True)) == "no_follow_up"


def test_the_off_hand_attack_is_a_gained_bonus_action_not_the_turns_own() -> None:
    """T5: "you gain a bonus Action that allows you to attack with a weapon in your
    other hand" (TR8): the turn's own Bonus Action, spent or not, does not matter."""
    dual = sheet(
        "a",
        main_hand="sword",
        off_hand="dagger",
        weapon_skills=("swords", "daggers"),
        skills=(("intimidation", 1),),
    )
    fight = duel(dual, dice=(5, 1, 1, 9))
    fight.do(SkillCheck("a", "intimidation", as_bonus=True))  # the turn's Bonus Action
    fight.do(AttackAction("a", "b"))
    assert one(fight.do(AttackAction("a", "b", off_hand=True)), HitChecked).slot == "off_hand"
    fight = duel(dual, dice=(1, 1, 9))
    fight.do(AttackAction("a", "b"))
    fight.do(AttackAction("a", "b", off_hand=True))
    assert one(fight.do(SkillCheck("a", "intimidation", as_bonus=True)), SkillChecked).slot == (
        "bonus"
    )


def test_a_two_handed_weapon_gives_no_off_hand_attack() -> None:
    archer = sheet("a", main_hand="bow")
    fight = duel(archer, dice=(1,))
    fight.do(AttackAction("a", "b"))
    assert fight.refused(AttackAction("a", "b", off_hand=True)) == "no_follow_up"


def test_bad_attacks_are_refused_and_change_nothing() -> None:
    state = in_combat(fighter("a", "heroes"), fighter("b", "foes", 1, 0))
    assert refused(state, AttackAction("a", "b", "club")) == "unknown_weapon"
    assert refused(state, AttackAction("a", "b", "dagger")) == "weapon_unusable"  # not in hand
    assert refused(state, AttackAction("a", "a")) == "invalid_command"
    assert refused(state, AttackAction("a", "ghost")) == "unknown_combatant"
    assert refused(state, AttackAction("b", "a")) == "not_your_turn"
    shield = TaelWeapon("shield", "", kind="shield")
    holder = sheet("a", weapons=(SWORD, DAGGER, BOW, shield), main_hand="shield")
    state = in_combat(fighter("a", "heroes", sheet_=holder), fighter("b", "foes", 1, 0))
    assert refused(state, AttackAction("a", "b")) == "weapon_unusable"


def test_a_shield_in_the_other_hand_gives_no_off_hand_attack() -> None:
    """TR8: the off-hand attack needs a weapon in the other hand, not a shield."""
    buckler = TaelWeapon("buckler", "", kind="buckler")
    guarded = sheet("a", weapons=(SWORD, DAGGER, BOW, buckler), off_hand="buckler")
    fight = duel(guarded, dice=(1,))
    fight.do(AttackAction("a", "b"))
    assert fight.refused(AttackAction("a", "b", off_hand=True)) == "no_follow_up"


def test_no_off_hand_attack_after_brace() -> None:
    """T9 Brace: "Cannot attack anymore for this turn after usage", the off hand included."""
    dual = sheet(
        "a",
        main_hand="sword",
        off_hand="dagger",
        weapon_skills=("swords", "daggers"),
        classes=(TaelClass("Blade Warrior", actions=("attack",)),),
    )
    fight = duel(dual, dice=(1,))
    fight.do(AttackAction("a", "b"))  # the class's Attack Action; the other hand is ready
    fight.do(Brace("a"))  # the default Action
    assert fight.refused(AttackAction("a", "b", off_hand=True)) == "braced"


def test_a_natural_1_is_no_critical_fail() -> None:
    """TR4: a 1 counts its face: 1 + Martial Combat 3 = 4 beats a DV of 3."""
    bare = evolve(
        fighter("b", "foes", 1, 0).sheet, armour=evolve(sheet().armour, defensive_value=3)
    )
    fight = Fight(
        in_combat(fighter("a", "heroes"), fighter("b", "foes", 1, 0, sheet_=bare), dice=(1, 1))
    )
    check = one(fight.do(AttackAction("a", "b")), HitChecked)
    assert check.roll.natural == 1 and check.hit
