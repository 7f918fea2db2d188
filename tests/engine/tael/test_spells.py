"""Spell Actions: hit checks, damage, several targets, status effects (T4, T5, T6, TR5,
TR14), with the rule text's own Ignite example."""

from __future__ import annotations

from server.engine.records import evolve
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.damage import DamageRolled, DamageTaken
from server.engine.rulesets.tael.generic import Brace
from server.engine.rulesets.tael.sheet import Armour, StatusEffect, TaelClass, TaelSpell
from server.engine.rulesets.tael.spells import SpellAction, SpellHitChecked
from server.engine.rulesets.tael.statuses import ResistChecked, StatusEnded, StatusGained
from server.engine.rulesets.tael.turns import TurnLost
from server.engine.turns import EndTurn
from tests.engine.tael.builders import (
    Fight,
    attributes,
    fighter,
    in_combat,
    of,
    one,
    refused,
    sheet,
)

IGNITE = TaelSpell(
    "Ignite",
    school="fire",
    damage="1d6",
    reach=6,
    status=StatusEffect("Burning", attribute="agility", dc=10, turns=2, damage="1d4"),
)
SPARKS = TaelSpell("Ember Spray", school="fire", damage="1d4", reach=3, targets=3)
FROST = TaelSpell(
    "Frost Bind",
    school="frost",
    reach=5,
    scroll=True,
    status=StatusEffect("Frozen", attribute="strength", dc=11, turns=1, skips_turn=True),
)


def caster(**overrides: object) -> TaelCombatant:
    base = sheet("mage", magic=4, magic_schools=("fire",), spells=(IGNITE, SPARKS, FROST))
    return fighter("mage", "heroes", sheet_=evolve(base, **overrides))


def target(cid: str = "t", dv: int = 15, agility: int = 4, x: int = 3) -> TaelCombatant:
    base = sheet(
        cid,
        armour=Armour("plate", defensive_value=dv),
        attributes=attributes(agility=(18, agility)),
    )
    return fighter(cid, "foes", x, 0, sheet_=base)


def test_the_ignite_example_needs_an_11_to_hit_and_the_target_a_10_to_resist() -> None:
    """The rule text's example: DV 15, Magic +4, skilled: "needs to roll at least an 11
    to hit"; "Ignite says it is an Agility 10 check, so the target must overcome a DC of
    14"; with Agility +4 "it must roll at least a 10"."""
    # An 11 hits (11 + 4 = 15, equal to the DV: T4), damage 1d6 = 3, the target rolls 10.
    fight = Fight(in_combat(caster(), target(), dice=(11, 3, 10)))
    events = fight.do(SpellAction("mage", "Ignite", ("t",)))
    check = one(events, SpellHitChecked)
    assert check.roll.total == 15 and check.targets[0].defensive_value == 15
    assert check.targets[0].hit
    damage = one(events, DamageRolled)
    assert damage.roll.modifiers == (("Magic", 4),) and damage.roll.total == 7
    resist = one(events, ResistChecked)
    assert (resist.dc, resist.roll.total, resist.resisted) == (14, 14, True)
    assert resist.roll.modifiers == (("Agility", 4),)
    assert of(events, StatusGained) == []
    assert fight.who("t").hit_points == 13

    # A 10 misses: no damage, no resist check.
    fight = Fight(in_combat(caster(), target(), dice=(10,)))
    events = fight.do(SpellAction("mage", "Ignite", ("t",)))
    assert not one(events, SpellHitChecked).targets[0].hit
    assert of(events, DamageRolled) == [] and of(events, ResistChecked) == []

    # A 9 on the resist check fails (13 < 14): the target is Burning.
    fight = Fight(in_combat(caster(), target(), dice=(11, 3, 9)))
    events = fight.do(SpellAction("mage", "Ignite", ("t",)))
    assert not one(events, ResistChecked).resisted
    assert one(events, StatusGained).status.name == "Burning"
    assert fight.replays()


def test_a_status_burns_at_the_start_of_each_turn_and_runs_out() -> None:
    """TR14: a status lasts its turns of the target's own; damage at each start."""
    fight = Fight(in_combat(caster(), target(), dice=(11, 3, 9, 2, 4)))
    fight.do(SpellAction("mage", "Ignite", ("t",)))  # 13 hit points left, Burning 2 turns
    events = fight.do(EndTurn("mage"))  # t's turn: burns 1d4 = 2
    assert one(events, DamageRolled).source == "Burning"
    assert one(events, DamageTaken).taken == 2 and fight.who("t").hit_points == 11
    events = fight.do(EndTurn("t"))
    assert of(events, StatusEnded) == [] and fight.who("t").statuses[0].turns == 1
    events = fight.do(EndTurn("mage"))  # burns again: 4
    assert fight.who("t").hit_points == 7
    events = fight.do(EndTurn("t"))
    assert one(events, StatusEnded).status == "Burning" and fight.who("t").statuses == ()
    assert fight.replays()


def test_a_status_that_takes_turns_makes_the_target_lose_them() -> None:
    """TR14: a status with `skips_turn` loses the target its turn (and no Preparation)."""
    fight = Fight(in_combat(caster(), target(), dice=(15, 2)))
    events = fight.do(SpellAction("mage", "Frost Bind", ("t",)))
    assert one(events, StatusGained).status.skips_turn
    events = fight.do(EndTurn("mage"))
    assert one(events, TurnLost).combatant == "t"
    assert one(events, StatusEnded).status == "Frozen"
    assert fight.state.current == "mage"  # round 2 already
    assert fight.who("t").preparation == "none"


def test_every_target_with_a_dv_equal_or_lower_is_hit_by_one_check() -> None:
    """T4: one hit check; "every target whose defensive value is equal to or lower than
    the spellcaster's total hit-check will be considered hit"; one attack roll for all
    of them (TR5)."""
    state = in_combat(
        caster(),
        target("t1", dv=13, x=1),
        target("t2", dv=14, x=2),
        target("t3", dv=15, x=3),
        dice=(10, 2),
    )
    fight = Fight(state)
    events = fight.do(SpellAction("mage", "Ember Spray", ("t1", "t2", "t3")))
    check = one(events, SpellHitChecked)
    assert [(t.target, t.hit) for t in check.targets] == [("t1", True), ("t2", True), ("t3", False)]
    assert one(events, DamageRolled).roll.total == 6
    assert [(d.target, d.taken) for d in of(events, DamageTaken)] == [("t1", 6), ("t2", 6)]


def test_spell_damage_adds_class_bonuses() -> None:
    wizard = caster(classes=(TaelClass("Wizard", actions=("spell",), spell_damage_bonus=1),))
    fight = Fight(in_combat(wizard, target(), dice=(11, 3, 20)))
    events = fight.do(SpellAction("mage", "Ignite", ("t",)))
    assert one(events, DamageRolled).roll.modifiers == (("Magic", 4), ("Class", 1))
    assert one(events, SpellHitChecked).slot == "spell"


def test_casting_needs_the_school_skill_or_a_scroll() -> None:
    """T4: skilled in the School of Magic, "or alternatively for wizards; have learned
    the use of the spell via a scroll"."""
    unschooled = caster(magic_schools=())
    state = in_combat(unschooled, target())
    assert refused(state, SpellAction("mage", "Ignite", ("t",))) == "spell_not_accessible"
    fight = Fight(in_combat(unschooled, target(), dice=(15, 20)))
    fight.do(SpellAction("mage", "Frost Bind", ("t",)))  # from a scroll: allowed


def test_bad_spells_are_refused_and_change_nothing() -> None:
    state = in_combat(caster(), target("t1", x=1), target("t2", x=9))
    assert refused(state, SpellAction("mage", "Fireball", ("t1",))) == "unknown_spell"
    assert refused(state, SpellAction("mage", "Ignite", ("t1", "t2"))) == "invalid_command"
    assert refused(state, SpellAction("mage", "Ember Spray", ("t1", "t1"))) == "invalid_command"
    assert refused(state, SpellAction("mage", "Ember Spray", ())) == "invalid_command"
    assert refused(state, SpellAction("mage", "Ignite", ("t2",))) == "out_of_range"
    assert refused(state, SpellAction("mage", "Ignite", ("mage",))) == "invalid_command"


def test_no_spell_after_brace() -> None:
    """T9 Brace: "Cannot attack anymore for this turn": a Spell Action is an attack
    ("Attacking": "a focus for a Spell Action"), so a Spell Action left is refused."""
    wizard = caster(classes=(TaelClass("Wizard", actions=("spell",)),))
    fight = Fight(in_combat(wizard, target()))
    fight.do(Brace("mage"))
    assert fight.refused(SpellAction("mage", "Ignite", ("t",))) == "braced"
