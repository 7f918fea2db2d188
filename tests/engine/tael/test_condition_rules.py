"""Statuses as data (TR40): what the encounter's conditions table adds to a status of
its name, named in every breakdown it changes, and nothing without a table."""

from __future__ import annotations

import msgpack
import pytest

from server.engine import CommandRefused, decide
from server.engine.condition_table import ConditionSaveRolled, ConditionWarded
from server.engine.effects import Change, ConditionRule, SaveEnds
from server.engine.grid import Cell
from server.engine.records import evolve, to_data
from server.engine.rulesets.tael.attacks import AttackAction, HitChecked
from server.engine.rulesets.tael.bonus import Punch, SkillCheck
from server.engine.rulesets.tael.combatant import TaelCombatant, TaelStatus
from server.engine.rulesets.tael.damage import DamageRolled, DamageTaken
from server.engine.rulesets.tael.fainting import WillpowerChecked
from server.engine.rulesets.tael.movement import MoveTiles
from server.engine.rulesets.tael.overrides import SetStatus
from server.engine.rulesets.tael.preparations import Prepare
from server.engine.rulesets.tael.spells import SpellAction, SpellHitChecked
from server.engine.rulesets.tael.statuses import ResistChecked, StatusEnded, StatusGained
from server.engine.rulesets.tael.turns import EndTurn, TurnLost
from server.engine.state import Encounter
from tests.engine.tael.builders import BOW, Fight, fighter, in_combat, of, one, sheet
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


def test_stacked_factors_make_a_dv_of_a_million_at_most() -> None:
    """R82 (TR40 reads the table as Verse does): twenty factors of 10 on DV 12 would be
    1.2e21; the DV stops at 1,000,000, named in the breakdown, and the check packs."""
    giant = ConditionRule("Giant", (Change("defence.dv", "multiply", 10),) * 20)
    b = with_status(fighter("b", "foes", 1, 0), "Giant")
    state = evolve(in_combat(fighter("a", "heroes"), b, dice=(20, 5)), condition_rules=(giant,))
    fight = Fight(state)
    check = one(fight.do(AttackAction("a", "b")), HitChecked)
    assert check.defence == (("Armour", 12), ("Giant", 999_988))
    assert check.defensive_value == 1_000_000
    msgpack.packb(to_data(check))


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


# --- saves, speed, lost turns and actions, damage and saves at a turn's start -----------

SHAKEN = ConditionRule("Shaken", (Change("save.agility", "add", -3), Change("save", "add", -1)))
ROOTED = ConditionRule("Rooted", (Change("speed", "override", 0),))
DAZED = ConditionRule("Dazed", loses=("action", "bonus", "preparation"))
STUNNED = ConditionRule("Stunned", loses=("turn",))
BURNING = ConditionRule("Burning", damage="2", save=SaveEnds("agility", 12))
TURNS = (SHAKEN, ROOTED, DAZED, STUNNED, BURNING)


def fight_of(*combatants: TaelCombatant, dice: tuple[int, ...] = ()) -> Fight:
    return Fight(evolve(in_combat(*combatants, dice=dice), condition_rules=TURNS))


def test_a_shaken_target_resists_a_spell_with_its_penalties_named() -> None:
    """T6: d20 13 + Agility 4 would meet the DC 14; Shaken's -3 and -1 make it 13."""
    shaken = with_status(target(), "Shaken")
    fight = fight_of(caster(), shaken, dice=(11, 3, 13))
    events = fight.do(SpellAction("mage", "Ignite", ("t",)))
    resist = one(events, ResistChecked)
    assert resist.roll.modifiers == (("Agility", 4), ("Shaken", -4))
    assert not resist.resisted


def test_a_shaken_fainted_character_checks_willpower_with_its_penalty() -> None:
    fainted = evolve(with_status(fighter("b", "foes", 1, 0), "Shaken"), hit_points=0, fainted=True)
    fight = fight_of(fighter("a", "heroes"), fainted, dice=(5,))
    events = fight.do(EndTurn("a"))
    check = one(events, WillpowerChecked)
    assert check.roll.modifiers == (("Willpower", 1), ("Shaken", -1))
    assert (check.roll.total, check.success) == (5, True)


def test_a_rooted_character_walks_no_tile_and_the_refusal_says_why() -> None:
    fight = fight_of(with_status(fighter("a", "heroes"), "Rooted"), fighter("b", "foes", 3, 0))
    assert fight.refused(MoveTiles("a", (Cell(0, 1),))) == "too_far"
    with pytest.raises(CommandRefused) as refusal:
        decide(fight.state, MoveTiles("a", (Cell(0, 1),)))
    assert refusal.value.message == "a may walk 0 more tile(s) this turn (Rooted -5), not 1"


def test_a_dazed_character_takes_no_action_no_bonus_action_and_prepares_nothing() -> None:
    fight = fight_of(with_status(fighter("a", "heroes"), "Dazed"), fighter("b", "foes", 1, 0))
    for command, words in (
        (AttackAction("a", "b"), "an Action"),
        (SkillCheck("a", "perception", as_bonus=True), "a Bonus Action"),
    ):
        with pytest.raises(CommandRefused) as refusal:
            decide(fight.state, command)
        assert refusal.value.code == "condition_forbids"
        assert refusal.value.message == f"a cannot take {words} while Dazed (the conditions table)"
    fight.do(MoveTiles("a", (Cell(0, 1),)))  # walking needs no Action
    fight.do(EndTurn("a"))
    assert fight.who("a").preparation == "none"  # no Preparation Phase follows
    assert fight.refused(Prepare("a", "Riposte")) == "condition_forbids"


def test_a_status_the_table_says_takes_turns_loses_them_with_its_name() -> None:
    stunned = with_status(fighter("b", "foes", 1, 0), "Stunned", turns=1)
    fight = fight_of(fighter("a", "heroes"), stunned)
    events = fight.do(EndTurn("a"))
    assert one(events, TurnLost).reason == "Stunned"
    assert fight.state.current == "a" and fight.who("b").statuses == ()
    assert fight.replays()


def test_burning_hurts_at_the_start_of_each_turn_until_a_save_puts_it_out() -> None:
    """The table's Burning: 2 damage at the start of b's turn, then an Agility save
    d20 + 1 against DC 12: 10 fails, 11 puts it out and b plays its turn."""
    burning = evolve(with_status(fighter("b", "foes", 1, 0), "Burning", turns=5))
    fight = fight_of(fighter("a", "heroes"), burning, dice=(10, 11))
    events = fight.do(EndTurn("a"))
    assert one(events, DamageRolled).source == "Burning"
    assert one(events, DamageTaken).taken == 2
    save = one(events, ConditionSaveRolled)
    assert save.describe() == "Burning save: d20 10 + Agility 1 = 11 vs DC 12: fails"
    assert fight.state.current == "b" and fight.who("b").hit_points == 18
    fight.do(EndTurn("b"))
    events = fight.do(EndTurn("a"))
    assert one(events, ConditionSaveRolled).success
    assert one(events, StatusEnded).status == "Burning"
    assert fight.who("b").statuses == () and fight.who("b").hit_points == 16
    assert fight.replays()


# --- immunities (TR41) ----------------------------------------------------------------------


def test_a_target_immune_to_a_status_rolls_no_resist_check_and_gains_nothing() -> None:
    """Frost Bind's Frozen: an immune target is named in the log, not frozen; the GM's
    SetStatus still lays it (TR41)."""
    immune = evolve(target(), sheet=evolve(target().sheet, immunities=("frozen",)))
    fight = fight_of(caster(), immune, dice=(15,))
    events = fight.do(SpellAction("mage", "Frost Bind", ("t",)))
    assert of(events, ResistChecked) == [] and of(events, StatusGained) == []
    assert of(events, ConditionWarded) == [ConditionWarded("t", "Frozen", "immune")]
    fight.do(SetStatus("t", "Frozen", 1))
    assert fight.who("t").status("Frozen") is not None
    assert fight.replays()
