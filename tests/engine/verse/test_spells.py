"""Spellcasting: costs (V11), cast time (V12), DCs (V13), mana (V10), access (V14),
range (V15), the spell attack (V1-V4, V6), areas (V2), damage (V7), charging and
group casting (V12), deciphering (V13)."""

from __future__ import annotations

from typing import Any

import pytest

from server.engine import Event, apply_all, decide, execute, replay
from server.engine.grid import Cell, Grid
from server.engine.records import evolve
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.combatant import Charge, Condition, VerseCombatant
from server.engine.rulesets.verse.conditions import AbilityDamaged, ConditionGained
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.sheet import (
    AccessLevel,
    ActionType,
    BuildPoints,
    Defences,
    Speeds,
    Spell,
    SpellOption,
    SpellRange,
    SpellShape,
)
from server.engine.rulesets.verse.spell_charges import (
    ChargeSpell,
    ConcentrationCheck,
    ConcentrationChecked,
    SpellCharged,
)
from server.engine.rulesets.verse.spell_costs import (
    SpellCostError,
    cast_time,
    condition_rounds,
    decipher_dc,
    group_cast_time,
    options_bought,
    spell_dc,
    spell_mc,
    spell_problems,
)
from server.engine.rulesets.verse.spell_decipher import DecipherSpell, SpellDeciphered
from server.engine.rulesets.verse.spell_shapes import aim, in_shape
from server.engine.rulesets.verse.spells import (
    CastSpell,
    ChargeLost,
    SpellAttackRolled,
    SpellCast,
    break_charge_events,
)
from server.engine.rulesets.verse.turns import EndTurn, RoundEnded, TurnEnded, TurnStarted
from server.engine.state import Settings, TurnSlot
from tests.engine.verse.builders import encounter, fighter, in_combat, refused, sheet

# The Spell List examples of "The Spell List & Casting Rules", read as spell_costs.py says.
MAGIC_MISSILE = Spell("Magic Missile", min_mc=2, uses_spell_die=True, base_spell_dice=1)
MANA_RAIN = Spell(
    "Mana Rain",
    min_mc=3,
    uses_spell_die=True,
    base_spell_dice=1,
    range=SpellRange.MEDIUM,
    shape=SpellShape.AREA,
    options=(SpellOption("diameter_ft", mc=1, amount=5, base=5),),
)
ACUTE_SENSES = Spell(
    "Acute Senses",
    min_mc=1,
    range=SpellRange.SELF,
    shape=SpellShape.SELF,
    options=(SpellOption("duration_hours", mc=1, amount=1, base=1),),
    condition="Acute Senses",
)
SPARK = Spell("Spark", min_mc=0, condition="Dazzled", condition_rounds=1)  # a cantrip
FROST_CONE = Spell(
    "Frost Cone", min_mc=2, uses_spell_die=True, base_spell_dice=1, shape=SpellShape.CONE
)
BOLT_LINE = Spell("Bolt", min_mc=2, uses_spell_die=True, base_spell_dice=1, shape=SpellShape.LINE)
SHOCK = Spell("Shock", min_mc=2, uses_spell_die=True, base_spell_dice=1, range=SpellRange.TOUCH)
METEOR = Spell("Meteor", min_mc=20, uses_spell_die=True, base_spell_dice=1, range=SpellRange.LONG)
GLYPH = Spell("Glyph", min_mc=11, range=SpellRange.SELF, shape=SpellShape.SELF)  # 2 actions
RITUAL = Spell(
    "Ritual Bolt",
    min_mc=2,
    uses_spell_die=True,
    base_spell_dice=1,
    cast_action=ActionType.FULL_ROUND,
)
QUICK = Spell("Quick Jab", min_mc=1, cast_action=ActionType.SWIFT)
FEAR = Spell(
    "Fear", min_mc=2, access_level=AccessLevel.COMMON, condition="Shaken", condition_rounds=2
)
TWIN = Spell(
    "Twin Darts",
    min_mc=2,
    uses_spell_die=True,
    base_spell_dice=1,
    options=(SpellOption("targets", mc=2, amount=1, base=1),),
)
ALL_SPELLS = (
    MAGIC_MISSILE, MANA_RAIN, ACUTE_SENSES, SPARK, FROST_CONE, BOLT_LINE, SHOCK, METEOR,
    GLYPH, RITUAL, QUICK, FEAR, TWIN,
)  # fmt: skip


def mage(cid: str = "ayla", x: int = 0, y: int = 0, **overrides: Any) -> VerseCombatant:
    """Sanity 2, Spell Attack Training 1, 10 MP, Constitution 3, SD 11, SR 1, level 1."""
    fields: dict[str, Any] = {"spells": ALL_SPELLS, "spell_attack_training": 1}
    fields.update(overrides)
    return fighter(cid, "pc", x, y, sheet_=sheet(cid, **fields))


def foe(cid: str, x: int, y: int = 0, sd: int = 11, **overrides: Any) -> VerseCombatant:
    defences = Defences(
        physical_dodge=12, physical_resistance=2, spell_dodge=sd, spell_resistance=1
    )
    return fighter(cid, "gm", x, y, sheet_=sheet(cid, defences=defences, **overrides))


def of(events: list[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


# --- V11-V13: costs, cast time and DCs (the rule text's worked examples) ---------


def test_magic_missile_with_two_spell_dice_costs_4_mc() -> None:
    assert spell_mc(MAGIC_MISSILE) == 2
    assert spell_mc(MAGIC_MISSILE, spell_dice=2) == 4


def test_mana_rain_10_ft_costs_4_and_5_ft_with_two_dice_costs_5() -> None:
    assert spell_mc(MANA_RAIN) == 3  # 1 MC for 5 ft + 2 MC for its one Spell Die
    assert spell_mc(MANA_RAIN, spell_dice=1, options={"diameter_ft": 10}) == 4
    assert spell_mc(MANA_RAIN, spell_dice=2, options={"diameter_ft": 5}) == 5


def test_acute_senses_5_mc_lasts_5_hours() -> None:
    assert spell_mc(ACUTE_SENSES, options={"duration_hours": 5}) == 5
    bought = options_bought(ACUTE_SENSES, {"duration_hours": 5})
    assert bought == (("duration_hours", 5),)
    assert condition_rounds(ACUTE_SENSES, bought) == 5 * 720  # 5-second rounds (V17)
    state = in_combat(mage(mana=10), foe("gob", 1))
    after, events = execute(
        state, CastSpell("ayla", "Acute Senses", options=(("duration_hours", 5),))
    )
    cast = of(events, SpellCast)[0]
    assert (cast.mc, cast.options) == (5, (("duration_hours", 5),))
    assert not of(events, SpellAttackRolled)  # a Self spell makes no attack
    assert after.combatant("ayla").mana == 5
    assert [(c.name, c.rounds) for c in after.combatant("ayla").conditions] == [
        ("Acute Senses", 3600)
    ]


def test_options_must_start_at_their_base_and_go_in_whole_steps() -> None:
    for options in ({"diameter_ft": 0}, {"diameter_ft": 12}, {"radius_ft": 10}):
        with pytest.raises(SpellCostError):
            spell_mc(MANA_RAIN, options=options)
    with pytest.raises(SpellCostError):
        spell_mc(ACUTE_SENSES, spell_dice=1)  # no Spell Die to add


def test_cast_time_20_mc_takes_two_actions_alone_and_one_turn_shared() -> None:
    assert [cast_time(mc) for mc in (0, 1, 10, 11, 20, 21)] == [1, 1, 1, 2, 2, 3]
    assert group_cast_time((10, 10)) == 1
    assert group_cast_time((15, 5)) == 2  # the largest share decides


def test_spell_dc_and_decipher_dc() -> None:
    assert spell_dc(mc=4, level=3) == 17  # 10 + MC + level
    assert [decipher_dc(r) for r in ("common", "uncommon", "abnormal", "rare", "very_rare")] == [
        15, 20, 30, 35, 40,
    ]  # fmt: skip


# --- the spell attack: V1, V3, V4, V6, V7 ---------------------------------------


def test_spell_attack_meeting_spell_dodge_hits_and_damages_against_spell_resistance() -> None:
    # d20 8 + Sanity 2 + Spell Attack Training 1 = 11 meets SD 11 (V1). 1d4 3 + 1 = 4 vs SR 1.
    state = in_combat(mage(), foe("gob", 3), dice=(8, 3))
    after, events = execute(state, CastSpell("ayla", "Magic Missile", targets=("gob",)))
    cast, attack, damage = events
    assert isinstance(cast, SpellCast) and (cast.mc, cast.cast_time, cast.spell_dc) == (2, 1, 13)
    assert cast.shares[0].from_mp == 2 and cast.shares[0].from_constitution == 0
    assert isinstance(attack, SpellAttackRolled)
    assert attack.describe() == (
        "Magic Missile: d20 8 + Sanity 2 + Spell Attack Training 1 = 11 vs gob SD 11 hit"
    )
    assert (attack.defence_name, attack.outcome) == ("SD", "hit")
    assert isinstance(damage, DamageDealt)
    assert (damage.amount, damage.resistance_name, damage.to_health, damage.to_armour) == (
        4, "SR", 3, 1,
    )  # fmt: skip
    assert attack.damage is not None and attack.damage.describe() == (
        "d4 3 + Spell Attack Training 1 = 4"
    )
    assert after.combatant("gob").health == 17
    assert after.combatant("ayla").mana == 8
    assert after.combatant("ayla").actions.standard


def test_spell_attack_one_below_spell_dodge_misses_and_rolls_no_damage() -> None:
    state = in_combat(mage(), foe("gob", 3), dice=(7,))
    after, events = execute(state, CastSpell("ayla", "Magic Missile", targets=("gob",)))
    attack = of(events, SpellAttackRolled)[0]
    assert (attack.outcome, attack.damage) == ("miss", None)
    assert after.combatant("gob").health == 20
    assert after.combatant("ayla").mana == 8  # the mana is spent all the same


def test_natural_20_always_hits_and_doubles_the_spell_dice() -> None:
    state = in_combat(mage(), foe("gob", 3, sd=40), dice=(20, 3, 4))
    _, events = execute(
        state, CastSpell("ayla", "Magic Missile", targets=("gob",), extra_spell_dice=1)
    )
    attack = of(events, SpellAttackRolled)[0]
    assert attack.outcome == "critical_hit"
    assert of(events, DamageDealt)[0].amount == 2 * (3 + 4) + 1  # V4: dice x2, training after


@pytest.mark.parametrize("tables", [False, True])
def test_natural_1_spell_goes_off_on_the_caster_for_half_damage(tables: bool) -> None:
    # 2d4 (4 + 3) + 1 = 8, halved to 4, against the caster's SR 1: 3 to health (V6).
    # With the critical tables on, spells still use V6 (the fail table takes a weapon).
    state = in_combat(
        mage(), foe("gob", 3, sd=2), dice=(1, 4, 3), settings=Settings(critical_tables=tables)
    )
    after, events = execute(
        state, CastSpell("ayla", "Magic Missile", targets=("gob",), extra_spell_dice=1)
    )
    attack = of(events, SpellAttackRolled)[0]
    assert attack.outcome == "critical_fail"
    [damage] = of(events, DamageDealt)
    assert (damage.target, damage.amount, damage.to_health) == ("ayla", 4, 3)
    assert after.combatant("ayla").health == 17
    assert after.combatant("gob").health == 20


def test_bloodline_gives_every_spell_damage_its_affinity() -> None:
    state = in_combat(mage(bloodline="shadow"), foe("gob", 3), dice=(15, 2))
    _, events = execute(state, CastSpell("ayla", "Magic Missile", targets=("gob",)))
    assert [d.affinity for d in of(events, DamageDealt)] == ["shadow"]


def test_spell_condition_lands_on_hit_targets_only() -> None:
    caster = mage(build_points=BuildPoints(spell_access=5))
    hit = in_combat(caster, foe("gob", 3), dice=(15,))
    after, events = execute(hit, CastSpell("ayla", "Fear", targets=("gob",)))
    assert [(e.combatant, e.condition, e.rounds) for e in of(events, ConditionGained)] == [
        ("gob", "Shaken", 2)
    ]
    assert after.combatant("gob").has("Shaken")
    missed = in_combat(caster, foe("gob", 3), dice=(2,))
    after, events = execute(missed, CastSpell("ayla", "Fear", targets=("gob",)))
    assert not of(events, ConditionGained) and not after.combatant("gob").has("Shaken")


def test_a_bought_target_option_gives_each_target_its_own_attack() -> None:
    state = in_combat(mage(), foe("gob", 2), foe("orc", 3), dice=(15, 2, 3))
    _, events = execute(
        state,
        CastSpell("ayla", "Twin Darts", targets=("gob", "orc"), options=(("targets", 2),)),
    )
    assert of(events, SpellCast)[0].mc == 4
    assert [(a.results[0].target, a.outcome) for a in of(events, SpellAttackRolled)] == [
        ("gob", "hit"), ("orc", "miss"),
    ]  # fmt: skip
    one_target = CastSpell("ayla", "Twin Darts", targets=("gob", "orc"))
    assert refused(state, one_target) == "invalid_command"


def test_each_target_takes_the_visual_range_penalty_of_its_own_distance() -> None:
    """V15 with V1: each bought target is its own attack, at its own distance. Engaged
    with gob (5 ft), visual range 10 ft: the orc 25 ft off costs its attack -6, gob's none."""
    state = in_combat(mage(visual_range_ft=10), foe("gob", 1), foe("orc", 5), dice=(9, 2, 9))
    _, events = execute(
        state,
        CastSpell("ayla", "Twin Darts", targets=("gob", "orc"), options=(("targets", 2),)),
    )
    penalties = [
        dict(a.roll.modifiers).get("Beyond visual range", 0) for a in of(events, SpellAttackRolled)
    ]
    assert penalties == [0, -6]
    assert [a.outcome for a in of(events, SpellAttackRolled)] == ["hit", "miss"]


def test_a_caster_killed_by_its_own_backfire_makes_no_further_attack() -> None:
    """V6: the natural 1 on gob's attack goes off on the caster, who dies of it; the
    dead cast no more, so the orc's attack is never rolled."""
    state = in_combat(evolve(mage(), health=1), foe("gob", 2), foe("orc", 3), dice=(1, 4))
    after, events = execute(
        state,
        CastSpell("ayla", "Twin Darts", targets=("gob", "orc"), options=(("targets", 2),)),
    )
    assert [a.results[0].target for a in of(events, SpellAttackRolled)] == ["gob"]
    assert not after.combatant("ayla").alive and after.combatant("orc").health == 20
    assert replay(state, events).state_hash() == after.state_hash()


# --- V2 and the shapes ------------------------------------------------------------


def test_area_spell_one_roll_affects_only_spell_dodge_strictly_below() -> None:
    # Mana Rain 15 ft wide on gob (MC 3 + 2 = 5). d20 9 + 2 + 1 = 12: SD 10 and 11 are
    # affected, SD 12 (equal) is not (V2), far is outside. One damage roll for both.
    state = in_combat(
        mage(),
        foe("gob", 4, sd=10),
        foe("orc", 5, sd=11),
        foe("troll", 4, 1, sd=12),
        foe("far", 6, sd=1),
        dice=(9, 3),
    )
    after, events = execute(
        state, CastSpell("ayla", "Mana Rain", targets=("gob",), options=(("diameter_ft", 15),))
    )
    assert of(events, SpellCast)[0].mc == 5
    [attack] = of(events, SpellAttackRolled)
    assert [(r.target, r.defence, r.outcome) for r in attack.results] == [
        ("gob", 10, "hit"), ("orc", 11, "hit"), ("troll", 12, "miss"),
    ]  # fmt: skip
    damage = of(events, DamageDealt)
    assert [(d.target, d.amount) for d in damage] == [("gob", 4), ("orc", 4)]
    assert after.combatant("far").health == 20 and after.combatant("troll").health == 20


def test_area_is_the_bought_diameter_around_the_target_cell() -> None:
    state = in_combat(mage(), foe("gob", 4), foe("orc", 5, 1), foe("far", 6))
    caster = state.combatant("ayla")
    cell = Cell(4, 0)
    assert aim(state, caster, MANA_RAIN, (("diameter_ft", 5),), (), cell)[0] == ("gob",)
    assert aim(state, caster, MANA_RAIN, (("diameter_ft", 10),), (), cell)[0] == ("gob", "orc")
    assert aim(state, caster, MANA_RAIN, (("diameter_ft", 20),), (), cell)[0] == (
        "far",
        "gob",
        "orc",
    )  # fmt: skip  (by id: the order their effects and dice follow)


def test_cone_doubles_in_width_every_5_ft_in_front_of_the_caster() -> None:
    grid, origin = Grid(), Cell(0, 0)

    def inside(x: int, y: int) -> bool:
        return in_shape(grid, SpellShape.CONE, origin, 0, Cell(x, y), 30)

    assert inside(1, 0) and not inside(1, 1)  # 5 ft wide at 5 ft
    assert inside(2, 1) and not inside(2, 2)  # 10 ft wide at 10 ft
    assert inside(3, 2) and not inside(3, 3)  # 20 ft wide at 15 ft
    assert inside(4, 4)  # 40 ft wide at 20 ft
    assert not inside(0, 0) and not inside(-1, 0) and not inside(0, 4)  # never beside/behind
    assert not inside(7, 0)  # beyond its 30 ft
    # The width is where the cone has come out to along its axis, not how far the cell
    # is: 5 ft out, it is 5 ft wide however far to the side a cell lies.
    assert not inside(1, 4) and not inside(2, -5) and not inside(3, 5)
    assert inside(4, -4) and not inside(4, 5)


def test_a_diagonal_cone_widens_along_its_diagonal() -> None:
    grid, origin = Grid(), Cell(0, 0)

    def inside(x: int, y: int) -> bool:
        return in_shape(grid, SpellShape.CONE, origin, 1, Cell(x, y), 30)

    assert inside(1, 1) and not inside(1, 0) and not inside(0, 1)  # 7 ft out: 6.7 ft wide
    assert inside(2, 1) and inside(1, 2) and not inside(3, 0)
    assert not inside(-1, 1) and not inside(1, -1)  # beside the axis, not out along it


def test_a_cone_spares_an_ally_beside_the_caster_far_to_the_side() -> None:
    state = in_combat(
        mage(), foe("target", 3), mage("bea", 1, 4), foe("flank", 2, -5), dice=(15, 2)
    )
    _, events = execute(state, CastSpell("ayla", "Frost Cone", target=Cell(3, 0)))
    [attack] = of(events, SpellAttackRolled)
    assert [r.target for r in attack.results] == ["target"]


def test_line_is_5_ft_wide_along_the_nearest_facing() -> None:
    grid, origin = Grid(), Cell(0, 0)
    assert in_shape(grid, SpellShape.LINE, origin, 0, Cell(6, 0), 30)
    assert not in_shape(grid, SpellShape.LINE, origin, 0, Cell(3, 1), 30)
    assert in_shape(grid, SpellShape.LINE, origin, 1, Cell(3, 3), 30)  # diagonal facing
    state = in_combat(mage(), foe("gob", 2), foe("orc", 5), foe("side", 3, 1), dice=(15, 2))
    _, events = execute(state, CastSpell("ayla", "Bolt", target=Cell(6, 0)))
    [attack] = of(events, SpellAttackRolled)
    assert [r.target for r in attack.results] == ["gob", "orc"]
    assert [d.target for d in of(events, DamageDealt)] == ["gob", "orc"]


def test_cone_cast_rolls_once_for_everyone_inside() -> None:
    state = in_combat(
        mage(), foe("gob", 1, sd=5), foe("orc", 3, 2, sd=20), foe("back", -1, sd=1), dice=(10, 4)
    )
    _, events = execute(state, CastSpell("ayla", "Frost Cone", target=Cell(3, 0)))
    [attack] = of(events, SpellAttackRolled)
    assert [(r.target, r.outcome) for r in attack.results] == [("gob", "hit"), ("orc", "miss")]
    assert [d.target for d in of(events, DamageDealt)] == ["gob"]


# --- V15: range, Ascension, visual range -------------------------------------------


def test_ranges_touch_close_and_ascension_are_checked_on_the_grid() -> None:
    state = in_combat(mage(), foe("near", 1, 1), foe("two", 2), foe("far", 7), dice=(15, 2))
    assert refused(state, CastSpell("ayla", "Shock", targets=("two",))) == "out_of_range"
    assert of(execute(state, CastSpell("ayla", "Shock", targets=("near",)))[1], DamageDealt)
    assert refused(state, CastSpell("ayla", "Magic Missile", targets=("far",))) == "out_of_range"
    rich = in_combat(mage(mana=30), foe("far", 7), dice=(15, 2))
    assert of(execute(rich, CastSpell("ayla", "Meteor", targets=("far",)))[1], SpellCast)
    high = in_combat(mage(), evolve(foe("bird", 2), ascension=1))
    assert refused(high, CastSpell("ayla", "Magic Missile", targets=("bird",))) == (
        "other_ascension"
    )


def test_engaged_caster_takes_2_per_5_ft_beyond_visual_range() -> None:
    # Visual range 10 ft, target 25 ft away: 15 ft beyond -> -6, only while engaged.
    engaged = in_combat(mage(visual_range_ft=10), foe("gob", 5), foe("orc", 1), dice=(15, 2))
    _, events = execute(engaged, CastSpell("ayla", "Magic Missile", targets=("gob",)))
    assert ("Beyond visual range", -6) in of(events, SpellAttackRolled)[0].roll.modifiers
    free = in_combat(mage(visual_range_ft=10), foe("gob", 5), foe("orc", 3), dice=(15, 2))
    _, events = execute(free, CastSpell("ayla", "Magic Missile", targets=("gob",)))
    assert all(
        name != "Beyond visual range" for name, _ in of(events, SpellAttackRolled)[0].roll.modifiers
    )


# --- V14 and refusals ------------------------------------------------------------


def test_a_known_spell_above_the_access_level_cannot_be_cast() -> None:
    state = in_combat(mage(), foe("gob", 3), dice=(15,))
    assert refused(state, CastSpell("ayla", "Fear", targets=("gob",))) == "spell_not_accessible"
    unlocked = in_combat(mage(build_points=BuildPoints(spell_access=5)), foe("gob", 3), dice=(15,))
    assert of(execute(unlocked, CastSpell("ayla", "Fear", targets=("gob",)))[1], SpellCast)


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (CastSpell("gob", "Magic Missile", targets=("ayla",)), "not_your_turn"),
        (CastSpell("ayla", "Fireball", targets=("gob",)), "unknown_spell"),
        (CastSpell("ayla", "Magic Missile"), "invalid_command"),
        (CastSpell("ayla", "Magic Missile", targets=("nobody",)), "unknown_combatant"),
        (CastSpell("ayla", "Magic Missile", targets=("gob",), extra_spell_dice=-1),
         "invalid_spell_option"),
        (CastSpell("ayla", "Glyph", targets=("gob",), extra_spell_dice=1), "invalid_spell_option"),
        (CastSpell("ayla", "Mana Rain", target=Cell(3, 0), options=(("diameter_ft", 7),)),
         "invalid_spell_option"),
        (CastSpell("ayla", "Mana Rain"), "invalid_command"),
        (CastSpell("ayla", "Acute Senses", targets=("gob",)), "invalid_command"),
    ],
)  # fmt: skip
def test_refused_casts_name_their_cause_and_change_nothing(command: CastSpell, code: str) -> None:
    state = in_combat(mage(), foe("gob", 3), dice=(15, 3))
    assert refused(state, command) == code


def test_second_standard_spell_is_refused_but_a_swift_spell_fits() -> None:
    state = in_combat(mage(), foe("gob", 3), dice=(15, 3, 15))
    after, _ = execute(state, CastSpell("ayla", "Magic Missile", targets=("gob",)))
    assert refused(after, CastSpell("ayla", "Magic Missile", targets=("gob",))) == "action_used"
    after, events = execute(after, CastSpell("ayla", "Quick Jab", targets=("gob",)))
    assert of(events, SpellCast)[0].action == "swift"
    assert after.combatant("ayla").actions.swift


def test_full_round_spell_ends_the_turn_and_needs_a_fresh_turn() -> None:
    state = in_combat(mage(), foe("gob", 3), dice=(15, 2, 15))
    after, events = execute(state, CastSpell("ayla", "Ritual Bolt", targets=("gob",)))
    assert [type(e).__name__ for e in events[-2:]] == ["TurnEnded", "TurnStarted"]
    assert after.current == "gob"
    swifted, _ = execute(state, CastSpell("ayla", "Quick Jab", targets=("gob",)))
    assert refused(swifted, CastSpell("ayla", "Ritual Bolt", targets=("gob",))) == "action_used"


# --- V10: mana -------------------------------------------------------------------


def test_mana_pool_reaching_0_exhausts_until_the_end_of_the_next_turn() -> None:
    state = in_combat(mage(mana=2), foe("gob", 3), dice=(2,))
    state, events = execute(state, CastSpell("ayla", "Magic Missile", targets=("gob",)))
    assert [(e.condition, e.rounds, e.per_turn) for e in of(events, ConditionGained)] == [
        ("Exhausted", 2, True)
    ]
    state, _ = execute(state, EndTurn("ayla"))
    assert state.combatant("ayla").has("Exhausted")  # still: its next turn has not ended
    state, _ = execute(state, EndTurn("gob"))
    assert state.current == "ayla" and state.combatant("ayla").has("Exhausted")
    state, _ = execute(state, EndTurn("ayla"))
    assert not state.combatant("ayla").has("Exhausted")


def test_mc_beyond_the_mana_pool_comes_from_constitution() -> None:
    # 4 MC with 1 MP: 1 from MP, 3 from Constitution 3 -> 0: unconscious (V10).
    state = in_combat(mage(mana=1), foe("gob", 3), dice=(2,))
    after, events = execute(
        state, CastSpell("ayla", "Magic Missile", targets=("gob",), extra_spell_dice=1)
    )
    share = of(events, SpellCast)[0].shares[0]
    assert (share.mc, share.from_mp, share.from_constitution) == (4, 1, 3)
    [drain] = of(events, AbilityDamaged)
    assert (drain.ability, drain.amount) == ("constitution", 3)
    ayla = after.combatant("ayla")
    assert (ayla.mana, ayla.abilities.constitution) == (0, 0)
    assert ayla.has("Unconscious") and ayla.has("Exhausted") and ayla.alive
    # One more point and Constitution goes below 0: dead.
    state = in_combat(mage(mana=0), foe("gob", 3), dice=(2,))
    after, events = execute(
        state, CastSpell("ayla", "Magic Missile", targets=("gob",), extra_spell_dice=1)
    )
    assert not after.combatant("ayla").alive
    # MP was 0 already: it did not "reach" 0, so no new Exhausted.
    assert [e.condition for e in of(events, ConditionGained)] == ["Dead"]


def test_a_cantrip_needs_1_mp_and_never_uses_constitution() -> None:
    empty = in_combat(mage(mana=0), foe("gob", 3), dice=(15,))
    assert refused(empty, CastSpell("ayla", "Spark", targets=("gob",))) == "not_enough_mana"
    one = in_combat(mage(mana=1), foe("gob", 3), dice=(15,))
    after, events = execute(one, CastSpell("ayla", "Spark", targets=("gob",)))
    assert of(events, SpellCast)[0].mc == 0
    assert after.combatant("ayla").mana == 1 and after.combatant("gob").has("Dazzled")


# --- V12: charging and group casting ------------------------------------------------


def test_a_20_mc_spell_is_charged_over_two_turns_and_goes_off_with_the_last_action() -> None:
    state = in_combat(mage(mana=30), foe("gob", 20), dice=(15, 2))
    state, events = execute(state, CastSpell("ayla", "Meteor", targets=("gob",)))
    cast = of(events, SpellCast)[0]
    assert (cast.mc, cast.cast_time) == (20, 2) and not of(events, SpellAttackRolled)
    assert state.combatant("ayla").charging == Charge("Meteor", 20, 1, 2, 1, ("gob",), charged_in=1)
    assert state.combatant("ayla").mana == 10  # paid when the charge begins
    assert refused(state, ChargeSpell("ayla")) == "action_used"  # one action per turn
    state, _ = execute(state, EndTurn("ayla"))
    state, _ = execute(state, EndTurn("gob"))
    state, events = execute(state, ChargeSpell("ayla"))
    charged = of(events, SpellCharged)[0]
    assert (charged.actions_done, charged.actions_needed) == (2, 2)
    assert of(events, SpellAttackRolled)[0].outcome == "hit"
    assert state.combatant("ayla").charging is None
    assert state.combatant("gob").health == 20 - 2  # 1d4 2 + 1 = 3 vs SR 1


def test_a_charge_takes_one_action_a_round_even_with_two_turns() -> None:
    """V12: "a 20 MC spell will take 2 rounds". A 60 ft caster has two turns a round
    (V16); its second turn cannot finish what its first began."""
    fast = mage(mana=30, speeds=Speeds(land=60))
    order = (TurnSlot("ayla", 20, 2), TurnSlot("gob", 19, 2), TurnSlot("ayla", 10, 2))
    state = evolve(in_combat(fast, foe("gob", 20), dice=(15, 2)), turn_order=order)
    state, _ = execute(state, CastSpell("ayla", "Meteor", targets=("gob",)))
    state, _ = execute(state, EndTurn("ayla"))
    state, _ = execute(state, EndTurn("gob"))
    assert (state.round, state.current) == (1, "ayla")  # its second turn of round 1
    assert refused(state, ChargeSpell("ayla")) == "action_used"
    state, _ = execute(state, EndTurn("ayla"))
    state, events = execute(state, ChargeSpell("ayla"))  # round 2: it goes off
    assert state.round == 2 and of(events, SpellAttackRolled)


def test_a_round_ending_without_a_charging_action_loses_the_charge() -> None:
    """V12: charged "uninterrupted", one action each round. Ayla attacks with her sword
    in round 2 instead: the charge is lost as the round ends, its mana spent."""
    state = in_combat(mage(mana=30), foe("gob", 1), dice=(15, 3))
    state, _ = execute(state, CastSpell("ayla", "Meteor", targets=("gob",)))
    state, _ = execute(state, EndTurn("ayla"))
    state, events = execute(state, EndTurn("gob"))
    assert not of(events, ChargeLost)  # charged in round 1: it goes on
    state, _ = execute(state, Attack("ayla", "gob", "longsword"))
    state, _ = execute(state, EndTurn("ayla"))
    state, events = execute(state, EndTurn("gob"))
    assert of(events, ChargeLost) == [ChargeLost("ayla", "Meteor", "not charged in round 2")]
    assert events.index(of(events, ChargeLost)[0]) < events.index(RoundEnded(2))
    assert state.combatant("ayla").charging is None and state.combatant("ayla").mana == 10


def test_a_charged_swift_spell_takes_a_standard_action_each_round() -> None:
    """V12: "one standard action each", whatever action the spell takes cast in one."""
    big_swift = Spell("Big Swift", min_mc=20, uses_spell_die=True, base_spell_dice=1,
                      cast_action=ActionType.SWIFT)  # fmt: skip
    ayla = mage(mana=30, spells=(*ALL_SPELLS, big_swift))
    state = in_combat(ayla, foe("gob", 1), dice=(15, 2))
    state, events = execute(state, CastSpell("ayla", "Big Swift", targets=("gob",)))
    assert of(events, SpellCast)[0].action == ActionType.STANDARD
    assert refused(state, Attack("ayla", "gob", "longsword")) == "action_used"
    state, _ = execute(state, EndTurn("ayla"))
    state, _ = execute(state, EndTurn("gob"))
    state, events = execute(state, ChargeSpell("ayla"))
    assert of(events, SpellCharged)[0].action == ActionType.STANDARD
    assert state.combatant("ayla").actions.standard and not state.combatant("ayla").actions.swift


def test_group_casting_20_mc_split_10_and_10_goes_off_in_one_turn() -> None:
    state = in_combat(mage(mana=10), foe("gob", 20), mage("bea", y=1, mana=10), dice=(15, 2))
    after, events = execute(
        state, CastSpell("ayla", "Meteor", targets=("gob",), helpers=(("bea", 10),))
    )
    cast = of(events, SpellCast)[0]
    assert cast.cast_time == 1
    assert [(s.combatant, s.mc, s.from_mp) for s in cast.shares] == [
        ("ayla", 10, 10), ("bea", 10, 10),
    ]  # fmt: skip
    assert of(events, SpellAttackRolled)
    assert (after.combatant("ayla").mana, after.combatant("bea").mana) == (0, 0)
    # Both pools reached 0. Bea is exhausted until the end of her next turn (1 turn end).
    assert [(e.combatant, e.rounds) for e in of(events, ConditionGained)] == [
        ("ayla", 2), ("bea", 1),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("helpers", "code"),
    [
        ((("bea", 11),), "not_enough_mana"),  # helpers never pay from Constitution
        ((("bea", 10), ("bea", 5)), "invalid_mana_share"),
        ((("ayla", 5),), "invalid_mana_share"),
        ((("bea", 0),), "invalid_mana_share"),
        ((("cid", 5),), "unknown_spell"),  # cid does not know Meteor
        ((("bea", 10), ("dan", 11)), "invalid_mana_share"),  # 21 of 20 MC
        ((("nobody", 5),), "unknown_combatant"),
    ],
)
def test_group_casting_shares_are_checked(helpers: tuple[tuple[str, int], ...], code: str) -> None:
    state = in_combat(
        mage(mana=10),
        foe("gob", 20),
        mage("bea", y=1, mana=10),
        fighter("cid", "pc", 0, 2),
        mage("dan", y=3, mana=20),
    )
    assert refused(state, CastSpell("ayla", "Meteor", targets=("gob",), helpers=helpers)) == code


def test_a_lost_charge_keeps_its_mana_spent_and_cannot_go_off() -> None:
    state = in_combat(mage(mana=30), foe("gob", 20))
    state, _ = execute(state, CastSpell("ayla", "Meteor", targets=("gob",)))
    lost = break_charge_events(state, "ayla", "moved")
    assert lost == [ChargeLost("ayla", "Meteor", "moved")]
    assert break_charge_events(state, "gob", "moved") == []
    state = apply_all(state, lost)
    assert state.combatant("ayla").charging is None and state.combatant("ayla").mana == 10
    state, _ = execute(state, EndTurn("ayla"))
    state, _ = execute(state, EndTurn("gob"))
    assert refused(state, ChargeSpell("ayla")) == "not_charging"


def test_no_new_spell_while_charging() -> None:
    state = in_combat(mage(mana=30), foe("gob", 20))
    state, _ = execute(state, CastSpell("ayla", "Meteor", targets=("gob",)))
    state, _ = execute(state, EndTurn("ayla"))
    state, _ = execute(state, EndTurn("gob"))
    assert refused(state, CastSpell("ayla", "Magic Missile", targets=("gob",))) == (
        "already_charging"
    )


def test_concentration_check_is_d20_plus_constitution_against_the_spell_dc() -> None:
    # Glyph: 11 MC, two actions; Spell DC 10 + 11 + level 1 = 22. Constitution 3.
    state = in_combat(mage(mana=20), foe("gob", 3), dice=(19, 18))
    state, _ = execute(state, CastSpell("ayla", "Glyph"))
    assert state.combatant("ayla").charging is not None
    state, events = execute(state, ConcentrationCheck("ayla", "hit by an arrow"))
    [check] = events
    assert isinstance(check, ConcentrationChecked)
    assert (check.roll.total, check.dc, check.success) == (22, 22, True)  # meets the DC
    state, events = execute(state, ConcentrationCheck("ayla"))
    assert [type(e) for e in events] == [ConcentrationChecked, ChargeLost]
    assert state.combatant("ayla").charging is None
    assert refused(state, ConcentrationCheck("ayla")) == "not_charging"


def test_the_last_charging_action_may_re_aim_and_the_aim_is_checked_again() -> None:
    state = in_combat(mage(mana=30), foe("gob", 20), foe("orc", 10), dice=(15, 2))
    state, _ = execute(state, CastSpell("ayla", "Meteor", targets=("gob",)))
    state, _ = execute(state, EndTurn("ayla"))
    state, _ = execute(state, EndTurn("gob"))
    state, _ = execute(state, EndTurn("orc"))
    gone = state.with_combatant(state.combatant("gob").with_condition("Dead"))
    assert refused(gone, ChargeSpell("ayla")) == "target_down"
    _, events = execute(gone, ChargeSpell("ayla", targets=("orc",)))
    assert [d.target for d in of(events, DamageDealt)] == ["orc"]


# --- V13: deciphering ----------------------------------------------------------------


def test_deciphering_is_d20_plus_intellect_against_the_decipher_dc() -> None:
    tome = Spell("Ward", min_mc=3, access_level=AccessLevel.UNCOMMON, rarity=AccessLevel.UNCOMMON)
    # Intellect 1; Uncommon: DC 10 + 10 = 20.
    state = encounter(mage(), dice=(19, 18))
    state, events = execute(state, DecipherSpell("ayla", tome))
    [learnt] = events
    assert isinstance(learnt, SpellDeciphered)
    assert (learnt.roll.total, learnt.dc, learnt.success) == (20, 20, True)
    assert state.combatant("ayla").sheet.spell("Ward") == tome
    other = encounter(mage("bea"), dice=(18,))
    other, events = execute(other, DecipherSpell("bea", tome))
    assert not events[0].success and other.combatant("bea").sheet.spell("Ward") is None
    assert refused(state, DecipherSpell("ayla", tome)) == "invalid_command"  # known already
    fight = in_combat(mage(), foe("gob", 3), dice=(19,))
    assert refused(fight, DecipherSpell("ayla", tome)) == "wrong_phase"


# --- replay -------------------------------------------------------------------------


def test_replaying_spell_events_reproduces_the_state() -> None:
    initial = in_combat(mage(mana=3), foe("gob", 4, sd=5), foe("orc", 5, sd=5), dice=(12, 3))
    after, events = execute(
        initial, CastSpell("ayla", "Mana Rain", target=Cell(4, 0), options=(("diameter_ft", 10),))
    )
    assert of(events, TurnEnded) == [] and of(events, TurnStarted) == []
    assert replay(initial, events).state_hash() == after.state_hash()


# --- V6: a backfire halves the times of the effect on the caster --------------------


@pytest.mark.parametrize(
    ("rounds", "on_caster"),
    [(4, 2), (3, 1), (1, 1), (0, None)],  # halved, rounded down, at least 1; 0: until removed
)
def test_natural_1_halves_the_condition_time_on_the_caster(
    rounds: int, on_caster: int | None
) -> None:
    # "the spells goes off on the caster instead but only deals half damage to the caster
    # or have the effect's times halved that are applied to the caster"
    hex_ = Spell("Hex", min_mc=2, condition="Shaken", condition_rounds=rounds)
    state = in_combat(mage(spells=(hex_,)), foe("gob", 2), dice=(1,))
    after, events = execute(state, CastSpell("ayla", "Hex", targets=("gob",)))
    assert of(events, ConditionGained) == [
        ConditionGained("ayla", "Shaken", on_caster, False, "Hex")
    ]
    assert after.combatant("ayla").conditions == (Condition("Shaken", on_caster),)
    hit = in_combat(mage(spells=(hex_,)), foe("gob", 2), dice=(15,))
    _, events = execute(hit, CastSpell("ayla", "Hex", targets=("gob",)))
    assert [e.rounds for e in of(events, ConditionGained)] == [rounds or None]  # a hit: full time


# --- V13: a deciphered spell must be one a sheet could hold -------------------------


@pytest.mark.parametrize(
    "changes",
    [
        {"rarity": "bogus"},
        {"access_level": "legendary"},
        {"shape": "sphere"},
        {"range": "far"},
        {"cast_action": "whenever"},
        {"min_mc": 0, "uses_spell_die": True, "base_spell_dice": 60},  # V11: 120 MC of dice
        {"base_spell_dice": 1},  # Spell Dice without uses_spell_die
        {"min_mc": -1},
        {"min_mc": "3"},
        {"condition_rounds": -2, "condition": "Shaken"},
        {"condition_rounds": 2},  # a duration without a condition
        {"name": " "},
        {"options": (SpellOption("diameter_ft", mc=0, amount=5),)},
        {"options": (SpellOption("x", 1, 1), SpellOption("x", 1, 1))},
        {"options": ("diameter_ft",)},
    ],
)
def test_deciphering_refuses_a_spell_that_breaks_the_sheet_rules(changes: dict[str, Any]) -> None:
    tome = evolve(Spell("Ward", min_mc=3), **changes)
    state = encounter(mage(), dice=(20,))
    assert refused(state, DecipherSpell("ayla", tome)) == "invalid_command"


def test_spell_problems_names_the_field_and_the_rule() -> None:
    assert spell_problems(MANA_RAIN) == []
    nuke = Spell("Nuke", min_mc=0, uses_spell_die=True, base_spell_dice=60)
    assert spell_problems(nuke, "spells[3].") == [
        ("spells[3].min_mc", "60 Spell Dice cost at least 120 MC (V11: 2 MC each)")
    ]
    assert spell_problems(evolve(MANA_RAIN, rarity="bogus")) == [
        ("rarity", "must be one of cantrip, common, uncommon, abnormal, rare, very_rare")
    ]


# --- malformed commands are refused, not crashed on ---------------------------------


@pytest.mark.parametrize(
    "changes",
    [
        {"helpers": (("bo",),)},
        {"helpers": (("bo", "4"),)},
        {"options": (("targets",),)},
        {"options": (("targets", 1.5),)},
        {"extra_spell_dice": "1"},
        {"targets": "gob"},
        {"target": (3, 0)},
    ],
)
def test_a_malformed_cast_is_an_invalid_command(changes: dict[str, Any]) -> None:
    state = in_combat(mage(), foe("gob", 2), mage("bo", 0, 1), dice=(15, 2))
    command = evolve(CastSpell("ayla", "Magic Missile", targets=("gob",)), **changes)
    assert refused(state, command) == "invalid_command"


def test_a_cone_aimed_at_a_combatant_on_another_level_is_refused() -> None:
    state = in_combat(mage(), evolve(foe("bird", 2), ascension=1), foe("gob", 3), dice=(15, 2))
    cone = CastSpell("ayla", "Frost Cone", targets=("bird",))
    assert refused(state, cone) == "other_ascension"
    line = CastSpell("ayla", "Bolt", targets=("bird",))
    assert refused(state, line) == "other_ascension"


# --- determinism: who a shape affects goes by id -------------------------------------


def test_an_area_decides_the_same_events_whatever_the_dict_order() -> None:
    listed = in_combat(mage(), foe("orc", 5, sd=5), foe("gob", 4, sd=5), dice=(12, 3))
    reordered = evolve(
        listed, combatants={cid: listed.combatants[cid] for cid in ("gob", "ayla", "orc")}
    )
    assert listed.state_hash() == reordered.state_hash()
    rain = CastSpell("ayla", "Mana Rain", target=Cell(4, 0), options=(("diameter_ft", 10),))
    events = decide(listed, rain)
    assert events == decide(reordered, rain)
    assert [d.target for d in of(events, DamageDealt)] == ["gob", "orc"]
