"""Ascension levels: the height table, changing level, and Ascend/Descend and Attack."""

from __future__ import annotations

from typing import Any

import pytest

from server.engine import Encounter, execute, replay
from server.engine.flow import Ask
from server.engine.grid import Cell
from server.engine.records import evolve
from server.engine.rulesets.verse.ascension import (
    AscendAttack,
    AscensionChanged,
    ChangeAscension,
    ascension_of_height,
)
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.rulesets.verse.combatant import (
    NO_ACTIONS_USED,
    Charge,
    Stance,
    VerseCombatant,
)
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.defences import DefenceRolled
from server.engine.rulesets.verse.live import Answer, Declare, PassWindow
from server.engine.rulesets.verse.movement import Move, OpportunityAttack
from server.engine.rulesets.verse.rides import RiderCarried
from server.engine.rulesets.verse.sheet import Speeds
from server.engine.rulesets.verse.spells import ChargeLost
from server.engine.rulesets.verse.turns import TurnEnded, TurnStarted
from server.engine.rulesets.verse.windows import WindowOpened
from tests.engine.verse.builders import fighter, in_combat, refused, sheet
from tests.engine.verse.live_script import of, started_live


def mover(speeds: Speeds, **kw: Any) -> VerseCombatant:
    return fighter("ayla", "pc", sheet_=sheet("ayla", speeds=speeds), **kw)


FLYER = Speeds(land=30, fly=30)


@pytest.mark.parametrize(
    ("feet", "level"),
    [
        (0, 0),
        (10, 0),
        (10.5, 1),  # "Above 10 feet off the ground is considered to be Ascension 1"
        (11, 1),
        (20, 1),
        (21, 2),
        (40, 3),
        (41, 4),  # the text's "4: 51'-60'" read as a typo for 41'-50'
        (50, 4),
        (51, 5),
        (-1, -1),
        (-10, -1),
        (-11, -2),
        (-40, -4),
    ],
)
def test_ascension_of_height_follows_the_table(feet: float, level: int) -> None:
    assert ascension_of_height(feet) == level


def test_ascending_one_level_is_a_move_action_that_needs_a_fly_speed() -> None:
    state = in_combat(mover(FLYER), fighter("gob", "gm", x=20))
    after, events = execute(state, ChangeAscension("ayla", 1))
    assert events == [AscensionChanged("ayla", 0, 1, 10, "move")]
    ayla = after.combatant("ayla")
    assert ayla.ascension == 1
    assert (ayla.actions.move, ayla.actions.moved_ft) == (True, 10)
    assert refused(after, ChangeAscension("ayla", 1)) == "action_used"  # one level per Move
    walker = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=20))
    assert refused(walker, ChangeAscension("ayla", 1)) == "no_movement_speed"


def test_one_move_action_covers_as_many_levels_as_the_fly_speed_allows() -> None:
    """V26: a Move action, so as many levels as the speed allows, 10 ft a level."""
    state = in_combat(mover(FLYER), fighter("gob", "gm", x=20))
    after, events = execute(state, ChangeAscension("ayla", 3))
    assert events == [AscensionChanged("ayla", 0, 3, 30, "move")]
    ayla = after.combatant("ayla")
    assert (ayla.ascension, ayla.actions.move, ayla.actions.moved_ft) == (3, True, 30)
    assert refused(state, ChangeAscension("ayla", 4)) == "too_far"  # 40 ft, fly 30
    assert refused(state, ChangeAscension("ayla", 10**12)) == "too_far"
    assert replay(state, events).state_hash() == after.state_hash()


def test_descending_several_levels_is_one_move_too() -> None:
    high = in_combat(mover(FLYER, ascension=3), fighter("gob", "gm", x=20), environment="air")
    after, events = execute(high, ChangeAscension("ayla", -3))
    assert events == [AscensionChanged("ayla", 3, 0, 30, "move")]
    assert after.combatant("ayla").ascension == 0


def test_levels_must_be_a_whole_number_other_than_0() -> None:
    state = in_combat(mover(FLYER), fighter("gob", "gm", x=20))
    for levels in (0, True, 1.0, "2"):
        assert refused(state, ChangeAscension("ayla", levels)) == "invalid_command"  # type: ignore[arg-type]


def test_defensive_stance_halves_the_levels_a_move_covers() -> None:
    # Fly 40 in Defensive Stance moves 20 ft (V18): two levels, not three.
    slow = mover(Speeds(land=30, fly=40), stance=Stance.DEFENSIVE)
    state = in_combat(slow, fighter("gob", "gm", x=20))
    after, _ = execute(state, ChangeAscension("ayla", 2))
    assert after.combatant("ayla").ascension == 2
    assert refused(state, ChangeAscension("ayla", 3)) == "too_far"


def test_crossing_ground_level_reaches_each_level_within_the_speed_that_carries_it() -> None:
    """R75: on land, levels above ground are flown and those below burrowed; each level
    is reached within the speed that carries the mover there, the feet already moved
    counted."""
    both = Speeds(land=30, fly=30, burrow=10)
    dug_in = in_combat(mover(both, ascension=-1), fighter("gob", "gm", x=20))
    after, events = execute(dug_in, ChangeAscension("ayla", 3))  # 10 ft burrowed, 20 flown
    assert events == [AscensionChanged("ayla", -1, 2, 30, "move")]
    assert after.combatant("ayla").ascension == 2
    aloft = in_combat(mover(both, ascension=1), fighter("gob", "gm", x=20))
    # Down to 0 is 10 ft flown; on to -1 is burrowed, at 20 ft beyond the burrow speed.
    assert refused(aloft, ChangeAscension("ayla", -2)) == "too_far"
    after, _ = execute(aloft, ChangeAscension("ayla", -1))
    assert after.combatant("ayla").ascension == 0


def test_every_level_passed_must_be_free() -> None:
    """R75: the cell must be free on each level the mover passes, as on a path (R33)."""
    state = in_combat(mover(FLYER), fighter("harpy", "gm", ascension=1))
    assert refused(state, ChangeAscension("ayla", 2)) == "blocked"
    clear = in_combat(mover(FLYER), fighter("harpy", "gm", ascension=3))
    assert refused(clear, ChangeAscension("ayla", 3)) == "blocked"
    after, _ = execute(clear, ChangeAscension("ayla", 2))
    assert after.combatant("ayla").ascension == 2


def test_on_land_going_below_ground_needs_a_burrow_speed() -> None:
    flyer = in_combat(mover(FLYER), fighter("gob", "gm", x=20))
    assert refused(flyer, ChangeAscension("ayla", -1)) == "no_movement_speed"
    digger = in_combat(mover(Speeds(land=30, burrow=10)), fighter("gob", "gm", x=20))
    after, _ = execute(digger, ChangeAscension("ayla", -1))
    assert after.combatant("ayla").ascension == -1


def test_under_water_levels_change_with_the_swim_speed() -> None:
    swimmer = in_combat(
        mover(Speeds(land=30, swim=20)), fighter("gob", "gm", x=20), environment="water"
    )
    after, _ = execute(swimmer, ChangeAscension("ayla", -1))
    assert after.combatant("ayla").ascension == -1
    flyer = in_combat(mover(FLYER), fighter("gob", "gm", x=20), environment="water")
    assert refused(flyer, ChangeAscension("ayla", -1)) == "no_movement_speed"


def test_a_level_is_10_feet_of_movement() -> None:
    # Fly 15 in Defensive Stance moves 7 ft: not enough for one level.
    slow = mover(Speeds(land=30, fly=15), stance=Stance.DEFENSIVE)
    state = in_combat(slow, fighter("gob", "gm", x=20))
    assert refused(state, ChangeAscension("ayla", 1)) == "too_far"


def test_the_cell_on_the_new_level_must_be_free() -> None:
    state = in_combat(mover(FLYER), fighter("harpy", "gm", ascension=1))
    assert refused(state, ChangeAscension("ayla", 1)) == "blocked"


def test_leaving_a_level_leaves_the_reach_of_the_foes_on_it() -> None:
    state = in_combat(mover(FLYER), fighter("gob", "gm", x=1, facing=4))
    after, events = execute(state, ChangeAscension("ayla", 1))
    # V21/V22: before the level change resolves, gob may take its attack of opportunity.
    opened = [e.window for e in events if isinstance(e, WindowOpened)]
    assert [w.asked for w in opened] == [(Ask("gob", ("opportunity",)),)]
    assert opened[0].about == "ayla"
    assert after.combatant("ayla").ascension == 0  # not gone up yet
    after, events = execute(after, PassWindow("gob", opened[0].id))
    assert after.combatant("ayla").ascension == 1


def test_only_the_same_level_can_be_attacked() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("harpy", "gm", x=1, ascension=1))
    assert refused(state, Attack("ayla", "harpy", "longsword")) == "other_ascension"


def test_ascend_and_attack_is_a_full_round_action_that_ends_the_turn() -> None:
    # d20 15 + 5 = 20 vs PD 12: hit; 1d8 4 + 2 = 6 vs PR 2: 4 to health.
    state = in_combat(mover(FLYER), fighter("harpy", "gm", x=1, ascension=1), dice=(15, 4))
    after, events = execute(state, AscendAttack("ayla", "harpy", "longsword"))
    changed, attack, damage, ended, started = events
    assert changed == AscensionChanged("ayla", 0, 1, 10, "full_round")
    assert isinstance(attack, AttackRolled) and attack.action == "full_round" and attack.hit
    assert isinstance(damage, DamageDealt) and damage.to_health == 4
    assert (ended, started) == (TurnEnded("ayla"), TurnStarted("harpy", 1))
    assert after.combatant("ayla").ascension == 1
    assert after.combatant("harpy").health == 16
    assert after.current == "harpy"
    assert replay(state, events).state_hash() == after.state_hash()


def test_descend_and_attack_those_below() -> None:
    high = mover(FLYER, ascension=2)
    state = in_combat(high, fighter("gob", "gm", x=1, ascension=1), environment="air", dice=(6,))
    after, events = execute(state, AscendAttack("ayla", "gob", "longsword"))
    assert events[0] == AscensionChanged("ayla", 2, 1, 10, "full_round")
    assert isinstance(events[1], AttackRolled) and events[1].outcome == "miss"  # 11 vs 12
    assert after.combatant("ayla").ascension == 1
    assert after.current == "gob"


def test_ascend_and_attack_rises_as_many_levels_as_the_move_allows() -> None:
    """V26: the Full Round Ascend and Attack changes as many levels as one move allows
    and attacks on the level reached. d20 15 + 5 = 20 hits PD 12; 1d8 4 + 2 = 6."""
    state = in_combat(mover(FLYER), fighter("harpy", "gm", x=1, ascension=3), dice=(15, 4))
    after, events = execute(state, AscendAttack("ayla", "harpy", "longsword"))
    assert events[0] == AscensionChanged("ayla", 0, 3, 30, "full_round")
    assert isinstance(events[1], AttackRolled) and events[1].hit
    assert after.combatant("ayla").ascension == 3 and after.combatant("harpy").health == 16
    assert after.current == "harpy"
    assert replay(state, events).state_hash() == after.state_hash()


def test_ascend_and_attack_refusals() -> None:
    too_high = in_combat(mover(FLYER), fighter("harpy", "gm", x=1, ascension=4), dice=(15, 4))
    assert refused(too_high, AscendAttack("ayla", "harpy", "longsword")) == "out_of_reach"
    same = in_combat(mover(FLYER), fighter("harpy", "gm", x=1), dice=(15, 4))
    assert refused(same, AscendAttack("ayla", "harpy", "longsword")) == "other_ascension"
    far = in_combat(mover(FLYER), fighter("harpy", "gm", x=3, ascension=1), dice=(15, 4))
    assert refused(far, AscendAttack("ayla", "harpy", "longsword")) == "out_of_reach"
    in_the_way = in_combat(
        mover(FLYER),
        fighter("harpy", "gm", x=1, ascension=2),
        fighter("owl", "gm", ascension=1),
        dice=(15, 4),
    )
    assert refused(in_the_way, AscendAttack("ayla", "harpy", "longsword")) == "blocked"
    one_up = in_combat(mover(FLYER), fighter("harpy", "gm", x=3, ascension=1), dice=(15, 4))
    moved, _ = execute(one_up, Move("ayla", (Cell(1, 0),)))
    assert refused(moved, AscendAttack("ayla", "harpy", "longsword")) == "action_used"
    walker = in_combat(fighter("ayla", "pc"), fighter("harpy", "gm", x=1, ascension=1))
    assert refused(walker, AscendAttack("ayla", "harpy", "longsword")) == "no_movement_speed"


def test_passing_a_level_opens_attacks_of_opportunity_from_the_foes_on_it() -> None:
    """R34, R75: rising through level 1 leaves the reach of the foe there, who sees it."""
    state = in_combat(mover(FLYER), fighter("owl", "gm", x=1, ascension=1, facing=4))
    after, events = execute(state, ChangeAscension("ayla", 2))
    opened = [e.window for e in events if isinstance(e, WindowOpened)]
    assert [w.asked for w in opened] == [(Ask("owl", ("opportunity",)),)]
    assert after.combatant("ayla").ascension == 0  # not gone up yet
    after, _ = execute(after, PassWindow("owl", opened[0].id))
    assert after.combatant("ayla").ascension == 2


def test_a_declared_ascend_attack_on_a_target_gone_too_high_adapts() -> None:
    """V23 with V26: the harpy flies up out of the levels Ayla's move can cover before
    her turn; her declared Ascend and Attack is out of reach, so she may adapt."""
    ayla = fighter("ayla", "pc", 0, 0, sheet_=sheet("ayla", speeds=FLYER))
    harpy = fighter("harpy", "gm", 1, 0, ascension=2, sheet_=sheet("harpy", speeds=FLYER))
    fight = started_live(ayla, harpy, dice=(3, 18), environment="air")  # harpy first
    fight.do(Declare("harpy", (ChangeAscension("harpy", 2),)))
    fight.do(Declare("ayla", (AscendAttack("ayla", "harpy", "longsword"),)))
    window = fight.window
    assert window.kind == "adapt" and fight.asked() == {"ayla": ("adapt",)}
    assert fight.who("harpy").ascension == 4
    fight.do(Answer("ayla", window.id, "adapt", ChangeAscension("ayla", 3)))
    assert fight.who("ayla").ascension == 3
    assert fight.replays()


def test_changing_level_while_charging_a_spell_loses_the_charge() -> None:
    charging = Charge("Fireball", mc=20, spell_dice=0, actions_needed=2, actions_done=1)
    state = in_combat(mover(FLYER, charging=charging), fighter("gob", "gm", x=20))
    after, events = execute(state, ChangeAscension("ayla", 1))
    assert events[-1] == ChargeLost("ayla", "Fireball", "moved")
    assert after.combatant("ayla").charging is None


# --- rides and their riders change level together ("Ride Combat") ---------------


def roc_and_rider(**rider_kw: Any) -> Encounter:
    """A flying ride `roc` (fly 60) with `ayla` (fly 30) on it; the roc acts first."""
    roc = fighter("roc", "pc", 1, 0, sheet_=sheet("roc", is_ride=True, speeds=Speeds(fly=60)))
    ayla = fighter("ayla", "pc", 1, 0, mounted_on="roc", sheet_=sheet("ayla", speeds=FLYER))
    return in_combat(roc, evolve(ayla, **rider_kw), fighter("gob", "gm", x=20))


def test_a_ride_changing_level_carries_its_riders() -> None:
    state = roc_and_rider()
    after, events = execute(state, ChangeAscension("roc", 1))
    assert events == [
        AscensionChanged("roc", 0, 1, 10, "move"),
        RiderCarried("ayla", "roc", Cell(1, 0), 1),
    ]
    ayla = after.combatant("ayla")
    assert (ayla.ascension, ayla.position, ayla.mounted_on) == (1, Cell(1, 0), "roc")
    assert ayla.actions == NO_ACTIONS_USED  # carried: no action of its own
    assert replay(state, events).state_hash() == after.state_hash()


def test_a_ride_that_ascends_and_attacks_takes_its_riders_up() -> None:
    # The roc's unarmed attack: d20 3 + Strength 3 = 6 misses the harpy's PD 12.
    state = in_combat(
        fighter("roc", "pc", 1, 0, sheet_=sheet("roc", is_ride=True, speeds=FLYER)),
        fighter("ayla", "pc", 1, 0, mounted_on="roc"),
        fighter("harpy", "gm", x=2, ascension=1),
        dice=(3,),
    )
    after, events = execute(state, AscendAttack("roc", "harpy"))
    assert events[1] == RiderCarried("ayla", "roc", Cell(1, 0), 1)
    assert after.combatant("ayla").ascension == after.combatant("roc").ascension == 1


def test_a_mounted_rider_cannot_change_level_on_its_own() -> None:
    state = evolve(roc_and_rider(), turn=1)  # ayla's turn, on the roc
    assert state.current == "ayla"
    assert refused(state, ChangeAscension("ayla", 1)) == "invalid_command"
    harpy = fighter("harpy", "gm", x=2, ascension=1)
    with_harpy = state.with_combatant(harpy)
    assert refused(with_harpy, AscendAttack("ayla", "harpy", "longsword")) == "invalid_command"


def test_an_ascend_attack_is_dodged_and_leaving_the_level_opens_attacks_of_opportunity() -> None:
    """V22 and R34 in Live Combat: an `AscendAttack` is an attack (its target may Dodge
    or Block it) and a level change (foes whose reach it leaves may attack first)."""
    ayla = fighter("ayla", "pc", 0, 0, sheet_=sheet("ayla", speeds=FLYER))
    gob = fighter("gob", "gm", 0, 1, facing=6)  # beside ayla, facing her
    harpy = fighter("harpy", "gm", 1, 0, facing=4, ascension=1)
    # Initiative (id order): ayla 20, gob 5, harpy 4. gob's attack of opportunity
    # 5 + 5 = 10 misses PD 12; ayla's 15 + 5 = 20 hits; harpy's Dodge 15 + 2 = 17 fails;
    # 1d8 4 + 2 = 6 against PR 2.
    fight = started_live(ayla, gob, harpy, dice=(18, 3, 2, 5, 15, 15, 4), environment="air")
    fight.do(Declare("gob", ()))
    fight.do(Declare("harpy", ()))
    fight.do(Declare("ayla", (AscendAttack("ayla", "harpy", "longsword"),)))
    assert fight.asked() == {"gob": ("opportunity",), "harpy": ("dodge", "block")}
    window = fight.window.id
    fight.do(Answer("gob", window, "opportunity", OpportunityAttack("gob", "ayla", "longsword")))
    fight.do(Answer("harpy", window, "dodge"))
    fight.do(PassWindow("ayla", fight.window.id))  # ayla does not dodge gob's attack
    attacks = of(fight.log, AttackRolled)
    assert [(a.attacker, a.outcome) for a in attacks] == [("gob", "miss"), ("ayla", "hit")]
    assert not of(fight.log, DefenceRolled)[0].success
    assert fight.who("ayla").ascension == 1 and fight.who("harpy").health == 16
    assert fight.replays()
