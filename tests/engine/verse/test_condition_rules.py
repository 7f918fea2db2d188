"""Conditions as data (V27): what the encounter's conditions table makes a condition
do, named wherever it changes a number, and nothing without a table."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from server.engine import CommandRefused, decide, execute
from server.engine.condition_table import ConditionSaveRolled, ConditionWarded
from server.engine.effects import Change, ConditionRule, SaveEnds
from server.engine.flow import Mode
from server.engine.grid import Cell
from server.engine.records import evolve, to_data
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.rulesets.verse.awareness import StealthCheck, StealthChecked
from server.engine.rulesets.verse.combatant import Charge, VerseCombatant
from server.engine.rulesets.verse.conditions import (
    AbilityDamaged,
    ConditionGained,
    ConditionLost,
)
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.live import Declare
from server.engine.rulesets.verse.live_actions import HoldAction
from server.engine.rulesets.verse.movement import Move
from server.engine.rulesets.verse.overrides import SetCondition
from server.engine.rulesets.verse.rides import RideDestroyed
from server.engine.rulesets.verse.sheet import BuildPoints, SheetCondition
from server.engine.rulesets.verse.spell_charges import ConcentrationCheck, ConcentrationChecked
from server.engine.rulesets.verse.spells import CastSpell, SpellAttackRolled
from server.engine.rulesets.verse.stances import SetStance
from server.engine.rulesets.verse.turns import EndTurn
from server.engine.rulesets.verse.windows import WindowOpened
from server.engine.views import GM_AUDIENCE, SPECTATORS, event_view, player_audience
from tests.engine.verse.builders import fighter, in_combat, refused, sheet
from tests.engine.verse.live_script import Fight, names, of, one, started_live
from tests.engine.verse.test_spells import foe, mage

PRONE = ConditionRule(
    "Prone",
    (
        Change("attack", "add", -2),
        Change("attack.ranged", "add", -1),
        Change("defence.pd", "add", -2),
    ),
)
BLINDED = ConditionRule(
    "Blinded", (Change("attack.spell", "add", -5), Change("defence.sd", "add", -3))
)
TABLE = (PRONE, BLINDED)


def down(c: VerseCombatant, *names: str) -> VerseCombatant:
    for name in names:
        c = c.with_condition(name)
    return c


def fight(*combatants: VerseCombatant, dice: tuple[int, ...], **kw: Any) -> Any:
    return in_combat(*combatants, dice=dice, condition_rules=TABLE, **kw)


# --- attack rolls and defences ---------------------------------------------------------


def test_a_prone_attacker_takes_the_tables_penalty_named_in_its_roll() -> None:
    """d20 9 + Strength 3 + Training 2 = 14 would meet PD 12; Prone's -2 makes it 12."""
    state = fight(down(fighter("ayla", "pc"), "Prone"), fighter("gob", "gm", x=1), dice=(9, 4))
    _, events = execute(state, Attack("ayla", "gob", "longsword"))
    attack = events[0]
    assert isinstance(attack, AttackRolled)
    assert attack.describe() == "d20 9 + Strength 3 + Training 2 - Prone 2 = 12 vs PD 12: hit"


def test_a_change_to_one_kind_of_attack_leaves_the_others() -> None:
    """Prone's `attack.ranged` -1 adds to its `attack` -2 for a bow, named once."""
    state = fight(down(fighter("ayla", "pc"), "Prone"), fighter("gob", "gm", x=3), dice=(9,))
    _, events = execute(state, Attack("ayla", "gob", "shortbow"))
    assert events[0].roll.modifiers == (("Dexterity", 2), ("Training", 1), ("Prone", -3))


def test_a_prone_target_is_easier_to_hit_and_the_breakdown_says_why() -> None:
    """d20 7 + 5 = 12 meets PD 12 anyway; against a Prone goblin it meets PD 10, and the
    event names Prone beside the defence."""
    state = fight(fighter("ayla", "pc"), down(fighter("gob", "gm", x=1), "Prone"), dice=(5, 3))
    _, events = execute(state, Attack("ayla", "gob", "longsword"))
    attack = events[0]
    assert (attack.defence, attack.defence_changes, attack.outcome) == (10, (("Prone", -2),), "hit")
    assert attack.describe() == "d20 5 + Strength 3 + Training 2 = 10 vs PD 10 (Prone -2): hit"


def test_without_a_table_or_an_entry_a_condition_changes_nothing() -> None:
    """V27: "and nothing when it says nothing"."""
    shaken = down(fighter("ayla", "pc"), "Shaken")
    prone_foe = down(fighter("gob", "gm", x=1), "Prone")
    for state in (
        in_combat(down(fighter("ayla", "pc"), "Prone"), prone_foe, dice=(9, 1)),
        fight(shaken, fighter("gob", "gm", x=1), dice=(9, 1)),
    ):
        _, events = execute(state, Attack("ayla", "gob", "longsword"))
        assert events[0].roll.modifiers == (("Strength", 3), ("Training", 2))
        assert (events[0].defence, events[0].defence_changes) == (12, ())


def test_a_condition_laid_in_another_case_is_the_same_condition() -> None:
    state = fight(down(fighter("ayla", "pc"), "prone"), fighter("gob", "gm", x=1), dice=(9, 1))
    _, events = execute(state, Attack("ayla", "gob", "longsword"))
    assert events[0].roll.modifiers[-1] == ("prone", -2)


def test_a_blinded_caster_and_a_blinded_target_of_a_spell() -> None:
    """d20 12 + Sanity 2 + Spell Attack Training 1 - Blinded 5 = 10 against SD 11 - 3."""
    state = fight(
        mage(conditions=()).with_condition("Blinded"),
        foe("gob", 3).with_condition("Blinded"),
        dice=(12, 2),
    )
    _, events = execute(state, CastSpell("ayla", "Magic Missile", targets=("gob",)))
    attack = next(e for e in events if isinstance(e, SpellAttackRolled))
    assert attack.describe() == (
        "Magic Missile: d20 12 + Sanity 2 + Spell Attack Training 1 - Blinded 5 = 10 "
        "vs gob SD 8 (Blinded -3) hit"
    )


def test_a_condition_from_the_sheet_counts_like_any_other() -> None:
    ayla = fighter("ayla", "pc", sheet_=sheet("ayla", conditions=(SheetCondition("Prone"),)))
    state = fight(ayla, fighter("gob", "gm", x=1), dice=(9, 1))
    _, events = execute(state, Attack("ayla", "gob", "longsword"))
    assert events[0].roll.modifiers[-1] == ("Prone", -2)


# --- resistances, saves, perception, speed and sight ----------------------------------

FRAGILE = ConditionRule("Armour Fragile", (Change("resistance.pr", "multiply", 0.5),))
SHAKEN = ConditionRule("Shaken", (Change("save", "add", -2), Change("perception", "add", -3)))
SLOWED = ConditionRule("Slowed", (Change("speed", "multiply", 0.5),))
BLIND = ConditionRule("Blind", (Change("sight", "override", 0),))
MORE = (FRAGILE, SHAKEN, SLOWED, BLIND)


def test_a_fragile_armour_halves_the_resistance_and_the_damage_says_so() -> None:
    """Damage 8 against PR 2 halved to 1 (rounded down): 7 to health, 1 to armour."""
    gob = down(fighter("gob", "gm", x=1), "Armour Fragile")
    state = in_combat(fighter("ayla", "pc"), gob, dice=(15, 6), condition_rules=MORE)
    after, events = execute(state, Attack("ayla", "gob", "longsword"))
    damage = events[1]
    assert isinstance(damage, DamageDealt)
    assert damage.describe() == ("8 damage vs PR 1 (Armour Fragile -1): 7 to health, 1 to armour")
    assert after.combatant("gob").health == 13


def test_a_shaken_caster_takes_the_save_penalty_in_its_concentration_check() -> None:
    """R10: d20 + Constitution against the Spell DC; Shaken's `save` -2 is named."""
    charge = Charge("Bolt", mc=12, spell_dice=0, actions_needed=2, actions_done=1)
    caster = evolve(down(fighter("ayla", "pc"), "Shaken"), charging=charge)
    state = in_combat(caster, fighter("gob", "gm", x=1), dice=(12,), condition_rules=MORE)
    _, events = execute(state, ConcentrationCheck("ayla"))
    check = events[0]
    assert isinstance(check, ConcentrationChecked)
    assert check.roll.modifiers == (("Constitution", 3), ("Shaken", -2))
    assert (check.roll.total, check.dc, check.success) == (13, 23, False)


def test_a_shaken_observer_perceives_less() -> None:
    """R26: the observer's roll names Shaken's `perception` -3."""
    guard = down(fighter("guard", "gm", 0, 0), "Shaken")
    sneak = fighter("ayla", "pc", -3, 0, sheet_=sheet("ayla", stealth=4))
    state = in_combat(sneak, guard, dice=(10, 14), condition_rules=MORE)
    _, events = execute(state, StealthCheck("ayla", "guard"))
    check = events[0]
    assert isinstance(check, StealthChecked)
    assert check.perception_roll.modifiers == (("Shaken", -3),)
    assert check.success  # 14 against 11


def test_a_blind_observer_sees_nobody_so_anyone_may_sneak_past_it() -> None:
    """`sight` 0: the guard's field of view is empty (R22), so a sneaker in front of it
    may make a Stealth Check, which a seeing guard refuses (`in_view`)."""
    sneak = fighter("ayla", "pc", 3, 0, sheet_=sheet("ayla", stealth=4))
    seeing = in_combat(sneak, fighter("guard", "gm"), dice=(10, 14), condition_rules=MORE)
    assert refused(seeing, StealthCheck("ayla", "guard")) == "in_view"
    blind = in_combat(
        sneak, down(fighter("guard", "gm"), "Blind"), dice=(10, 14), condition_rules=MORE
    )
    _, events = execute(blind, StealthCheck("ayla", "guard"))
    assert isinstance(events[0], StealthChecked)


def test_a_slowed_mover_goes_half_as_far_and_the_refusal_says_why() -> None:
    """Speed 30 ft halved to 15: four cells are refused, naming Slowed; three are fine."""
    state = in_combat(
        down(fighter("ayla", "pc"), "Slowed"), fighter("gob", "gm", x=5), condition_rules=MORE
    )
    path = (Cell(0, 1), Cell(0, 2), Cell(0, 3), Cell(0, 4))
    before = state.state_hash()
    with pytest.raises(CommandRefused) as refusal:
        decide(state, Move("ayla", path))
    assert refusal.value.code == "too_far"
    assert refusal.value.message == "20 ft is more than ayla can move: 15 ft (Slowed -15)"
    assert state.state_hash() == before
    after, _ = execute(state, Move("ayla", path[:3]))
    assert after.combatant("ayla").position == Cell(0, 3)


# --- numbers in range (R82) ------------------------------------------------------------

GIANT = ConditionRule("Giant", (Change("defence.pd", "multiply", 10),) * 20)
FAST = tuple(
    ConditionRule(f"Fast{i}", (Change("speed", "multiply", 10.0),) * 20) for i in range(16)
)


def test_a_table_of_stacked_factors_makes_a_defence_of_a_million_that_every_view_packs() -> None:
    """R82: twenty factors of 10 on one PD (12) would be 1.2e21, past what an event can
    carry; the attack is rolled against 1,000,000 and every audience's view packs."""
    state = in_combat(
        fighter("ayla", "pc"),
        down(fighter("gob", "gm", x=1), "Giant"),
        dice=(5, 3),
        condition_rules=(GIANT,),
    )
    after, events = execute(state, Attack("ayla", "gob", "longsword"))
    attack = one(events, AttackRolled)
    assert (attack.defence, attack.defence_changes) == (1_000_000, (("Giant", 999_988),))
    assert attack.describe().endswith("vs PD 1000000 (Giant +999988): miss")
    for event in events:
        msgpack.packb(to_data(event))
        for audience in (GM_AUDIENCE, SPECTATORS, player_audience(["ayla"], after)):
            msgpack.packb(event_view(event, after, audience))
    msgpack.packb(to_data(after))


def test_a_live_declaration_counts_stacked_speed_factors_without_failing() -> None:
    """R78 counts the most the table could make of a speed: 320 factors of 10 make a
    million feet (R82), not a float past infinity, and the attack is declared."""
    fight = started_live(
        fighter("ayla", "pc"), fighter("gob", "gm", x=30), dice=(15, 5), condition_rules=FAST
    )
    events = fight.do(Declare("ayla", (Attack("ayla", "gob", "longsword"),)))
    assert "DeclarationMade" in names(events)


# --- actions lost -------------------------------------------------------------------------

WORN = ConditionRule("Exhausted", loses=("swift",))
DAZED = ConditionRule("Dazed", loses=("standard", "reactions"))
LOSSES = (WORN, DAZED)


def test_an_action_a_condition_takes_away_is_refused_with_its_name_and_nothing_changes() -> None:
    state = in_combat(
        down(fighter("ayla", "pc"), "Exhausted", "Dazed"),
        fighter("gob", "gm", x=1),
        dice=(15, 3),
        condition_rules=LOSSES,
    )
    before = state.state_hash()
    for command, what, name in (
        (SetStance("ayla", "defensive"), "swift", "Exhausted"),
        (Attack("ayla", "gob", "longsword"), "standard", "Dazed"),
        (HoldAction("ayla"), "standard", "Dazed"),  # a hold needs a fresh turn's actions
    ):
        with pytest.raises(CommandRefused) as refusal:
            decide(state, command)
        assert refusal.value.code == "condition_forbids"
        assert refusal.value.message == (
            f"ayla cannot take a {what} action while {name} (the conditions table)"
        )
        assert state.state_hash() == before
    after, _ = execute(state, Move("ayla", (Cell(0, 1),)))  # the Move action is still hers
    assert after.combatant("ayla").position == Cell(0, 1)


def test_a_combatant_without_reactions_is_not_asked_and_the_action_goes_on() -> None:
    """A holder (V19) is asked before g1's attack; a Dazed one, whose reactions the
    table takes away, is not, and the attack resolves at once."""
    ayla = fighter("ayla", "pc", 0, 0)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    fight = started_live(
        ayla, g1, dice=(15, 5, 10, 3), mode=Mode.TURN_BASED, condition_rules=LOSSES
    )
    fight.do(HoldAction("ayla"))
    fight.state = fight.state.with_combatant(down(fight.who("ayla"), "Dazed"))
    events = fight.do(Attack("g1", "ayla", "longsword"))
    assert not of(events, WindowOpened)
    assert [type(e).__name__ for e in events] == ["AttackRolled", "DamageDealt"]


# --- what a round's end does: damage, drain, saves; durations -------------------------

BLEED = ConditionRule("Bleed", damage="1d4", save=SaveEnds("constitution", 12))
POISON = ConditionRule("Poisoned", drain=(("constitution", "1"),))
PINNED = ConditionRule("Pinned", rounds=2)
SPRAWLED = ConditionRule("Sprawled", turns=1)
UPKEEP = (BLEED, POISON, PINNED, SPRAWLED)


def two_turns(*combatants: VerseCombatant, dice: tuple[int, ...]) -> Fight:
    return Fight(in_combat(*combatants, dice=dice, condition_rules=UPKEEP))


def test_bleed_hurts_at_the_end_of_each_round_until_a_save_stops_it() -> None:
    """Round 1 ends: d4 3 off Ayla's health (no resistance), then her Constitution
    save d20 8 + 3 = 11 misses DC 12. Round 2 ends: d4 1, then 9 + 3 = 12 stops it."""
    fight = two_turns(
        down(fighter("ayla", "pc"), "Bleed"), fighter("gob", "gm", x=3), dice=(3, 8, 1, 9)
    )
    fight.do(EndTurn("ayla"))
    events = fight.do(EndTurn("gob"))
    bled = one(events, DamageDealt)
    assert (bled.target, bled.source, bled.amount, bled.affinity) == ("ayla", "ayla", 3, "Bleed")
    assert bled.describe() == "3 damage: 3 to health, 0 to armour"
    save = one(events, ConditionSaveRolled)
    assert save.describe() == "Bleed save: d20 8 + Constitution 3 = 11 vs DC 12: fails"
    assert names(events)[-5:] == [
        "DamageDealt",
        "ConditionSaveRolled",
        "RoundEnded",
        "RoundStarted",
        "TurnStarted",
    ]
    assert fight.who("ayla").health == 17 and fight.who("ayla").has("Bleed")
    fight.do(EndTurn("ayla"))
    events = fight.do(EndTurn("gob"))
    assert one(events, ConditionSaveRolled).success
    assert one(events, ConditionLost).reason == "saved"
    assert fight.who("ayla").health == 16 and not fight.who("ayla").has("Bleed")
    assert fight.replays()


def test_a_bleed_at_0_health_kills() -> None:
    ayla = evolve(down(fighter("ayla", "pc"), "Bleed"), health=2)
    fight = two_turns(ayla, fighter("gob", "gm", x=3), dice=(4,))
    fight.do(EndTurn("ayla"))
    events = fight.do(EndTurn("gob"))
    assert of(events, ConditionSaveRolled) == []  # the dead roll no save
    assert [(e.condition, e.reason) for e in of(events, ConditionGained)] == [
        ("Dead", "Bleed: health 0")
    ]
    assert not fight.who("ayla").alive


def test_poison_drains_constitution_each_round_and_at_0_knocks_out_v10() -> None:
    ayla = evolve(
        down(fighter("ayla", "pc"), "Poisoned"),
        abilities=evolve(fighter("ayla", "pc").abilities, constitution=1),
    )
    fight = two_turns(ayla, fighter("gob", "gm", x=3), dice=())
    fight.do(EndTurn("ayla"))
    events = fight.do(EndTurn("gob"))
    drained = one(events, AbilityDamaged)
    assert (drained.ability, drained.amount, drained.reason) == ("constitution", 1, "Poisoned")
    assert fight.who("ayla").abilities.constitution == 0
    assert fight.who("ayla").has("Unconscious")
    assert fight.replays()


def test_a_condition_laid_without_a_duration_lasts_what_its_entry_says() -> None:
    """The GM lays Pinned (2 rounds) and Sprawled (1 of its turns) with no duration:
    Sprawled is gone when Ayla's next turn ends, Pinned at the end of round 2; a
    condition laid with a duration keeps its own."""
    fight = two_turns(fighter("ayla", "pc"), fighter("gob", "gm", x=3), dice=())
    fight.do(SetCondition("ayla", "Pinned"))
    fight.do(SetCondition("ayla", "Sprawled"))
    fight.do(SetCondition("gob", "Pinned", 5))
    assert [(c.name, c.rounds, c.per_turn) for c in fight.who("ayla").conditions] == [
        ("Pinned", 2, False),
        ("Sprawled", 1, True),
    ]
    fight.do(EndTurn("ayla"))
    assert [c.name for c in fight.who("ayla").conditions] == ["Pinned"]
    fight.do(EndTurn("gob"))
    fight.do(EndTurn("ayla"))
    fight.do(EndTurn("gob"))
    assert fight.who("ayla").conditions == ()
    assert fight.who("gob").conditions[0].rounds == 3
    assert fight.replays()


# --- immunities (R81) -------------------------------------------------------------------


def test_a_sheet_immune_to_a_condition_is_never_laid_it_by_the_rules() -> None:
    """Fear's Shaken lands on a goblin but not on one immune to shaking (whatever the
    case it is written in); the log says why. The GM may still lay it."""
    caster = mage(build_points=BuildPoints(spell_access=5))
    brave = foe("gob", 3, immunities=("shaken",))
    state = in_combat(caster, brave, dice=(15,))
    after, events = execute(state, CastSpell("ayla", "Fear", targets=("gob",)))
    assert of(events, ConditionGained) == []
    assert of(events, ConditionWarded) == [ConditionWarded("gob", "Shaken", "Fear")]
    assert not after.combatant("gob").has("Shaken")
    after, events = execute(after, SetCondition("gob", "Shaken"))
    assert after.combatant("gob").has("Shaken")  # the GM's override wins (R81)


def test_an_immune_rider_thrown_from_its_ride_does_not_fall_prone() -> None:
    horse = fighter("horse", "pc", 1, 0, sheet_=sheet("horse", is_ride=True))
    rider = evolve(
        fighter("ayla", "pc", 1, 0, sheet_=sheet("ayla", immunities=("Prone",))),
        mounted_on="horse",
    )
    state = evolve(in_combat(rider, horse, fighter("gob", "gm", x=5), dice=(2,)))
    state = state.with_combatant(state.combatant("horse").with_condition("Dead"))
    _, events = execute(state, RideDestroyed("horse"))
    assert of(events, ConditionWarded) == [ConditionWarded("ayla", "Prone", "thrown from horse")]
    assert of(events, ConditionGained) == []
