"""Statuses as data (TR40): what the encounter's conditions table adds to a status of
its name, named in every breakdown it changes, and nothing without a table."""

from __future__ import annotations

from server.engine.effects import Change, ConditionRule
from server.engine.records import evolve
from server.engine.rulesets.tael.attacks import AttackAction, HitChecked
from server.engine.rulesets.tael.bonus import Punch
from server.engine.rulesets.tael.combatant import TaelCombatant, TaelStatus
from server.engine.rulesets.tael.spells import SpellAction, SpellHitChecked
from server.engine.state import Encounter
from tests.engine.tael.builders import BOW, Fight, fighter, in_combat, one, sheet
from tests.engine.tael.test_spells import caster, target

FROZEN = ConditionRule("Frozen", (Change("defence.dv", "add", -2), Change("speed", "override", 0)))
DREAD = ConditionRule(
    "Dread",
    (Change("attack", "add", -2), Change("attack.ranged", "add", -1), Change("save", "add", -2)),
)
TABLE = (FROZEN, DREAD)


def with_status(c: TaelCombatant, name: str, turns: int = 2) -> TaelCombatant:
    return evolve(c, statuses=(*c.statuses, TaelStatus(name, turns)))


def ruled(state: Encounter) -> Encounter:
    return evolve(state, condition_rules=TABLE)


def test_a_frozen_target_is_easier_to_hit_and_its_dv_names_the_status() -> None:
    """d20 8 + Martial Combat 3 = 11 misses DV 12, but not DV 12 - 2 (TR40)."""
    frozen = with_status(fighter("b", "foes", 1, 0), "Frozen")
    fight = Fight(ruled(in_combat(fighter("a", "heroes"), frozen, dice=(8, 5))))
    check = one(fight.do(AttackAction("a", "b")), HitChecked)
    assert check.defence == (("Armour", 12), ("Frozen", -2))
    assert (check.defensive_value, check.hit) == (10, True)
    assert fight.replays()


def test_a_dreading_attacker_takes_the_penalty_named_in_its_hit_check() -> None:
    dread = with_status(fighter("a", "heroes"), "Dread")
    fight = Fight(ruled(in_combat(dread, fighter("b", "foes", 1, 0), dice=(10,))))
    check = one(fight.do(AttackAction("a", "b")), HitChecked)
    assert check.roll.modifiers == (("Martial Combat", 3), ("Dread", -2))
    assert (check.roll.total, check.hit) == (11, False)


def test_a_ranged_and_an_unskilled_hit_check_take_their_penalties_too() -> None:
    archer = with_status(fighter("a", "heroes", sheet_=sheet("a", main_hand="bow")), "Dread")
    fight = Fight(ruled(in_combat(archer, fighter("b", "foes", 4, 0), dice=(10,))))
    check = one(fight.do(AttackAction("a", "b", BOW.name)), HitChecked)
    assert check.roll.modifiers == (("Precision", 2), ("Dread", -3))
    clumsy = with_status(fighter("a", "heroes", sheet_=sheet("a", weapon_skills=())), "Dread")
    fight = Fight(ruled(in_combat(clumsy, fighter("b", "foes", 1, 0), dice=(10,))))
    assert one(fight.do(AttackAction("a", "b")), HitChecked).roll.modifiers == (("Dread", -2),)


def test_a_punch_and_a_spell_take_the_statuses_of_both_sides() -> None:
    bare = sheet("a", main_hand="", weapons=())
    dread = with_status(fighter("a", "heroes", sheet_=bare), "Dread")
    frozen = with_status(fighter("b", "foes", 1, 0), "Frozen")
    fight = Fight(ruled(in_combat(dread, frozen, dice=(10, 1))))
    check = one(fight.do(Punch("a", "b")), HitChecked)
    assert check.roll.modifiers == (("Martial Combat", 3), ("Dread", -2))
    assert check.defence[-1] == ("Frozen", -2)

    mage = with_status(caster(), "Dread")
    fight = Fight(ruled(in_combat(mage, with_status(target(), "Frozen"), dice=(13, 1, 20))))
    check = one(fight.do(SpellAction("mage", "Ignite", ("t",))), SpellHitChecked)
    assert check.roll.modifiers == (("Magic", 4), ("Dread", -2))
    assert check.targets[0].defence == (("Armour", 15), ("Frozen", -2))
    assert check.targets[0].hit  # 15 >= 13


def test_without_a_table_a_status_does_only_what_its_spell_says() -> None:
    frozen = with_status(fighter("b", "foes", 1, 0), "Frozen")
    dread = with_status(fighter("a", "heroes"), "Dread")
    fight = Fight(in_combat(dread, frozen, dice=(8,)))
    check = one(fight.do(AttackAction("a", "b")), HitChecked)
    assert check.roll.modifiers == (("Martial Combat", 3),)
    assert (check.defence, check.defensive_value, check.hit) == ((("Armour", 12),), 12, False)
