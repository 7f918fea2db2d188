"""Generic Bonus Actions: Punch, Surrender, Pick up, Equip Weapon, skill checks (T9,
TR2, TR20, TR22, TR23)."""

from __future__ import annotations

from server.engine.commands import EndCombat
from server.engine.records import evolve
from server.engine.rulesets.tael.attacks import AttackAction, HitChecked
from server.engine.rulesets.tael.bonus import (
    EquipWeapon,
    PickedUp,
    PickUp,
    Punch,
    SkillCheck,
    SkillChecked,
    Surrender,
    Surrendered,
)
from server.engine.rulesets.tael.damage import DamageRolled
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

KNUCKLES = TaelWeapon("knuckles", "1d4", skill="fists", kind="fist")
BUCKLER = TaelWeapon("buckler", "", kind="buckler")


def punch_fight(dice: tuple[int, ...], **overrides: object) -> Fight:
    base = sheet(
        "a",
        weapons=(SWORD, KNUCKLES, BUCKLER),
        main_hand="knuckles",
        off_hand="buckler",
        classes=(TaelClass("Brawler", actions=("attack",)),),
    )
    a = fighter("a", "heroes", sheet_=evolve(base, **overrides))
    return Fight(in_combat(a, fighter("b", "foes", 1, 0), dice=dice))


def test_a_punch_adds_martial_combat_and_deals_strength_plus_the_fist_weapon() -> None:
    """T9 Punch: "The Martial Combat Sub-Attribute must be added to the hit-check";
    "damage equal to your Strength Modifier + Weapon Damage (when a Fist Weapon is
    equipped)"; it spends an Attack Action first."""
    fight = punch_fight((10, 3))
    events = fight.do(Punch("a", "b"))
    check = one(events, HitChecked)
    assert check.roll.modifiers == (("Martial Combat", 3),) and check.hit and check.slot == "attack"
    damage = one(events, DamageRolled)
    assert damage.roll.modifiers == (("Strength", 2),) and damage.roll.total == 5


def test_a_bare_punch_deals_the_strength_modifier() -> None:
    fight = punch_fight((10,), main_hand="", off_hand="")
    assert one(fight.do(Punch("a", "b")), DamageRolled).roll.total == 2


def test_punch_needs_empty_hands_a_buckler_or_a_fist_weapon() -> None:
    fight = punch_fight((), main_hand="sword")
    assert fight.refused(Punch("a", "b")) == "weapon_unusable"


def test_the_punch_that_follows_a_hit_hits_automatically() -> None:
    """T9: "When the Attack Action hit the target, the second use as a Bonus Action will
    automatically hit too" (TR22: that same target)."""
    fight = punch_fight((10, 1, 2))
    assert fight.refused(Punch("a", "b", as_bonus=True)) == "no_follow_up"
    fight.do(Punch("a", "b"))
    events = fight.do(Punch("a", "b", as_bonus=True))
    check = one(events, HitChecked)
    assert check.roll is None and check.hit and check.slot == "bonus"
    assert one(events, DamageRolled).roll.total == 4


def test_the_punch_that_follows_a_miss_rolls_again() -> None:
    """T9: "otherwise the hit-check can be rolled again"."""
    fight = punch_fight((2, 10, 1))
    assert not one(fight.do(Punch("a", "b")), HitChecked).hit
    check = one(fight.do(Punch("a", "b", as_bonus=True)), HitChecked)
    assert check.roll is not None and check.roll.natural == 10 and check.hit


def test_a_skill_check_is_an_action_or_a_bonus_action() -> None:
    """T9: generic bonus actions "can always be used as either an Action or Bonus
    Action"; one Bonus Action a turn (TR2)."""
    speaker = sheet("a", skills=(("persuasion", 3),))
    fight = Fight(
        in_combat(fighter("a", "heroes", sheet_=speaker), fighter("b", "foes", 1), dice=(12, 5, 9))
    )
    check = one(fight.do(SkillCheck("a", "Persuasion", as_bonus=True)), SkillChecked)
    assert (check.skill, check.roll.total, check.slot) == ("persuasion", 15, "bonus")
    assert fight.refused(SkillCheck("a", "persuasion", as_bonus=True)) == "action_used"
    assert one(fight.do(SkillCheck("a", "intimidation")), SkillChecked).slot == "universal"
    assert fight.refused(SkillCheck("a", "intimidation")) == "action_used"


def test_surrender_drops_the_weapons_until_picked_up_and_equipped() -> None:
    """T9 Surrender: "drops their Weapons ... considered unarmed until you pick up and
    equip your Weapons again"; Pick up equips a weapon at once when unarmed (TR23)."""
    dual = sheet("a", main_hand="sword", off_hand="dagger", weapon_skills=("swords", "daggers"))
    fight = Fight(in_combat(fighter("a", "heroes", sheet_=dual), fighter("b", "foes", 1, 0)))
    events = fight.do(Surrender("a", as_bonus=True))
    assert one(events, Surrendered).dropped == ("sword", "dagger")
    a = fight.who("a")
    assert (a.main_hand, a.off_hand, a.dropped, a.surrendered) == (
        "",
        "",
        ("sword", "dagger"),
        True,
    )
    assert fight.refused(AttackAction("a", "b")) == "unknown_weapon"
    picked = one(fight.do(PickUp("a", "sword")), PickedUp)
    assert picked.equipped and fight.who("a").main_hand == "sword"
    assert not fight.who("a").surrendered
    assert fight.refused(PickUp("a", "axe")) == "invalid_command"


def test_attacking_ends_a_surrender() -> None:
    """TR20: a surrendered character that attacks again is back in the fight."""
    fight = punch_fight((10, 3))
    fight.do(Surrender("a", as_bonus=True))
    assert fight.who("a").surrendered
    fight.do(Punch("a", "b"))  # its knuckles lie on the ground: a bare Punch
    assert not fight.who("a").surrendered


def test_a_surrendered_side_can_be_ended() -> None:
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 1, 0)))
    assert fight.refused(EndCombat()) == "combat_not_over"
    fight.do(Surrender("a"))
    fight.do(EndCombat())
    assert fight.state.phase == "ended"


def test_equip_weapon_switches_the_active_weapons() -> None:
    """T9 Equip Weapon; a two-handed weapon takes both hands."""
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 1, 0)))
    fight.do(EquipWeapon("a", "bow", as_bonus=True))
    assert fight.who("a").hands == ("bow",)
    state = fight.state
    assert refused(state, EquipWeapon("a", "bow", "dagger")) == "invalid_command"
    assert refused(state, EquipWeapon("a", "sword", "sword")) == "invalid_command"
    assert refused(state, EquipWeapon("a", "club")) == "unknown_weapon"
    fight.do(EquipWeapon("a", "sword", "dagger"))
    assert fight.who("a").hands == ("sword", "dagger")
    assert BOW.hands == 2 and DAGGER.hands == 1


def test_a_punch_must_beat_the_dv() -> None:
    """TR22: a Punch's hit check is a melee one: 9 + Martial Combat 3 = 12 against DV 12
    misses (T3: "higher than the Defensive Value")."""
    check = one(punch_fight((9,)).do(Punch("a", "b")), HitChecked)
    assert (check.roll.total, check.defensive_value, check.hit) == (12, 12, False)


def test_a_shield_that_is_no_buckler_forbids_punch() -> None:
    """T9: a Buckler Shield allows Punch; another shield does not."""
    tower = TaelWeapon("tower shield", "", kind="shield")
    fight = punch_fight((), weapons=(SWORD, KNUCKLES, tower), off_hand="tower shield")
    assert fight.refused(Punch("a", "b")) == "weapon_unusable"


def test_the_automatic_hit_is_only_on_the_target_the_first_punch_hit() -> None:
    """TR22: "When the Attack Action hit the target": a follow-up on another target rolls."""
    base = sheet("a", main_hand="", off_hand="")
    state = in_combat(
        fighter("a", "heroes", sheet_=base),
        fighter("b", "foes", 1, 0),
        fighter("c", "foes", 0, 1),
        dice=(10, 2),
    )
    fight = Fight(state)
    assert one(fight.do(Punch("a", "b")), HitChecked).hit  # 13 against 12
    check = one(fight.do(Punch("a", "c", as_bonus=True)), HitChecked)
    assert check.roll is not None and check.roll.total == 5 and not check.hit


def test_no_punch_follows_a_brace() -> None:
    """T9 Brace: "Cannot attack anymore for this turn after usage", a bonus Punch included."""
    fight = punch_fight((10, 1))
    fight.do(Punch("a", "b"))  # the Brawler's Attack Action
    fight.do(Brace("a"))  # the default Action
    assert fight.refused(Punch("a", "b", as_bonus=True)) == "braced"
