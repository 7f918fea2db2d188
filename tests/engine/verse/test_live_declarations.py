"""R78: a Live Combat declaration is refused when it is declared if nothing the rules let
anyone do before it resolves could make it legal: a target not in the fight or dead, one
out of any reach this round, a move no Move action could make. What could still become
legal (a target that may come into reach) is accepted and checked when it resolves.

Each refusal gives the code the action would get on its turn and a message naming what
is wrong, and changes nothing: the combatant is still asked to declare.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.engine import CommandRefused, decide, execute
from server.engine.core import Command
from server.engine.effects import Change, ConditionRule
from server.engine.flow import Mode
from server.engine.grid import Cell
from server.engine.records import evolve
from server.engine.rulesets.verse.ascension import AscendAttack, ChangeAscension
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.rulesets.verse.awareness import StealthCheck
from server.engine.rulesets.verse.combatant import Charge, Condition, VerseCombatant
from server.engine.rulesets.verse.declarations import greatest_speed, levels_reach, travel_ft
from server.engine.rulesets.verse.live import ActionLost, DeclarationMade, Declare
from server.engine.rulesets.verse.live_actions import HoldAction
from server.engine.rulesets.verse.movement import Move
from server.engine.rulesets.verse.overrides import RemoveCondition
from server.engine.rulesets.verse.rides import Dismount, Mount
from server.engine.rulesets.verse.sheet import (
    Speeds,
    Spell,
    SpellRange,
    SpellShape,
    Weapon,
    WeaponKind,
)
from server.engine.rulesets.verse.spell_charges import ChargeSpell
from server.engine.rulesets.verse.spells import CastSpell
from server.engine.rulesets.verse.turns import EndTurn, StartCombat
from server.engine.state import Encounter, Environment
from tests.engine.verse.builders import encounter, fighter, sheet
from tests.engine.verse.live_script import Fight, of, started_live

MISSILE = Spell("Magic Missile", min_mc=2, uses_spell_die=True, base_spell_dice=1)  # Close
RAIN = Spell("Mana Rain", min_mc=3, shape=SpellShape.AREA)  # an Area, Close: 30 ft
SHIELD = Spell("Shield", min_mc=1, shape=SpellShape.SELF)
GRASP = Spell("Shocking Grasp", min_mc=1, range=SpellRange.TOUCH)
SPEAR = Weapon("spear", "1d8", "two_handed", reach_ft=10)
JAVELIN = Weapon("javelin", "1d6", "thrown", kind=WeaponKind.THROWN, range_ft=30)
DEAD = Condition("Dead")


def refusal(fight: Fight, command: Command) -> CommandRefused:
    """`command` is refused, the state is as it was, and the declarer is still asked."""
    before = fight.state.state_hash()
    with pytest.raises(CommandRefused) as refused:
        decide(fight.state, command)
    assert fight.state.state_hash() == before
    if isinstance(command, Declare):
        assert command.actor in fight.window.waiting_for
    return refused.value


def ayla(**kw: Any) -> VerseCombatant:
    """Ayla at (0, 0): 30 ft of land speed, a longsword, a shortbow (80 ft), spells."""
    spells = (MISSILE, RAIN, SHIELD, GRASP)
    return fighter("ayla", "pc", 0, 0, sheet_=sheet("ayla", spells=spells, **kw))


def far_table(**kw: Any) -> Fight:
    """Ayla; g1 100 ft east; g2 dead next to her; g3 on Ascension 3 with no fly speed
    (on a tower); g4 200 ft east. Initiative: ayla 17, g1 7, g3 5, g4 4 (g2 rolls none)."""
    g2 = evolve(fighter("g2", "gm", 1, 0), conditions=(DEAD,))
    g3 = fighter("g3", "gm", 1, 1, ascension=3)
    return started_live(
        ayla(),
        fighter("g1", "gm", 20, 0, facing=4),
        g2,
        g3,
        fighter("g4", "gm", 40, 0, facing=4),
        dice=(15, 5, 3, 2),
        **kw,
    )


REFUSED = [
    # targets not in the fight, or dead
    (Attack("ayla", "g9", "longsword"), "unknown_combatant", "no combatant 'g9'"),
    (Attack("ayla", "g2", "longsword"), "target_down", "g2 is dead"),
    (CastSpell("ayla", "Magic Missile", targets=("g9",)), "unknown_combatant", "'g9'"),
    (CastSpell("ayla", "Magic Missile", targets=("g2",)), "target_down", "g2 is dead"),
    (StealthCheck("ayla", "g9"), "unknown_combatant", "'g9'"),
    (StealthCheck("ayla", "g2"), "target_down", "g2 is dead"),
    (
        CastSpell("ayla", "Magic Missile", targets=("g3",), helpers=(("g9", 1),)),
        "unknown_combatant",
        "'g9'",
    ),
    (
        CastSpell("ayla", "Magic Missile", targets=("g3",), pledged=(("g2", 1),)),
        "incapacitated",
        "g2 is dead and cannot help cast",
    ),
    # out of any reach this round: 100 ft, when both can close 60 ft
    (
        Attack("ayla", "g1", "longsword"),
        "out_of_reach",
        "g1 is 100 ft away: longsword reaches 5 ft, and ayla and g1 could not close the "
        "rest between them this round",
    ),
    (
        Attack("ayla", "g4", "shortbow"),
        "out_of_range",
        "g4 is 200 ft away: shortbow ranges 80 ft, and ayla and g4 could not close the rest",
    ),
    (
        CastSpell("ayla", "Magic Missile", targets=("g1",)),
        "out_of_range",
        "g1 is 100 ft away: Magic Missile reaches 30 ft",
    ),
    (
        CastSpell("ayla", "Shocking Grasp", targets=("g1",)),
        "out_of_range",
        "g1 is 100 ft away: Shocking Grasp reaches 5 ft",
    ),
    (
        CastSpell("ayla", "Mana Rain", target=Cell(30, 0)),
        "out_of_range",
        "(30, 0) is 150 ft away: Mana Rain reaches 30 ft, and ayla can move at most 30 ft",
    ),
    (
        CastSpell("ayla", "Mana Rain", targets=("g1",)),
        "out_of_range",
        "g1 is 100 ft away: Mana Rain reaches 30 ft",
    ),
    (
        Attack("ayla", "g3", "shortbow"),
        "other_ascension",
        "g3 is on Ascension 3, ayla on 0: 3 levels apart, more than they could close",
    ),
    (
        CastSpell("ayla", "Magic Missile", targets=("g3",)),
        "other_ascension",
        "g3 is on Ascension 3",
    ),
    # moves no Move action could make
    (
        Move("ayla", tuple(Cell(x, 0) for x in range(1, 8))),
        "too_far",
        "a path of 7 steps is 35 ft, more than ayla can move in one move: 30 ft",
    ),
    (Move("ayla", ()), "invalid_command", "a move needs at least one step"),
    (ChangeAscension("ayla", 1), "no_movement_speed", "ayla has no speed to change its Ascension"),
    (ChangeAscension("ayla", 0), "invalid_command", "levels is a whole number"),
    (AscendAttack("ayla", "g3", "longsword"), "no_movement_speed", "no speed to change"),
    (Dismount("ayla", Cell(30, 0)), "out_of_reach", "(30, 0) is 150 ft from ayla"),
    # what the sheets fix
    (Attack("ayla", "ayla", "longsword"), "invalid_command", "ayla cannot attack itself"),
    (StealthCheck("ayla", "ayla"), "invalid_command", "cannot sneak past itself"),
    (CastSpell("ayla", "Fireball", targets=("g1",)), "unknown_spell", "'Fireball'"),
    (CastSpell("ayla", "Shield", targets=("g1",)), "invalid_command", "affects its caster only"),
    (Mount("ayla", "g1"), "not_a_ride", "g1 is not a ride"),
    (Mount("ayla", "g9"), "unknown_combatant", "'g9'"),
]


@pytest.mark.parametrize(("action", "code", "message"), REFUSED, ids=lambda v: str(v)[:40])
def test_a_declaration_that_could_never_become_legal_is_refused_when_declared(
    action: Command, code: str, message: str
) -> None:
    """R78: with the code it would get on its turn, a message naming what is wrong, and
    nothing changed (V20: the player may still declare something else)."""
    fight = far_table()
    refused = refusal(fight, Declare("ayla", (action,)))
    assert (refused.code, message in refused.message) == (code, True), refused.message
    fight.do(Declare("ayla", (Attack("ayla", "g1", "shortbow"),)))  # 100 ft: may come in range


def test_a_refusal_for_reach_tells_no_number_of_the_foe() -> None:
    """R77: a foe's speeds are its side's numbers. A refusal that named how far both
    could close gave away the goblin's speed (the total less the player's own)."""
    fight = far_table()
    for action in (Attack("ayla", "g1", "longsword"), Attack("ayla", "g3", "shortbow")):
        message = refusal(fight, Declare("ayla", (action,))).message
        numbers = {int(n) for n in re.findall(r"\d+", message)}
        # the distance, the weapon's reach or range, the levels and the cells named
        assert numbers <= {100, 5, 80, 3, 0, 1}, message


def test_declare_attack_g9_is_refused_at_once_not_lost_in_an_adapt_window() -> None:
    """The table's report: `declare attack g9 spear`, a target that does not exist, was
    accepted, revealed and lost on its turn. Now it is refused in the planning window."""
    corvin = fighter("corvin", "pc", 0, 0, sheet_=sheet("corvin", weapons=(SPEAR,)))
    fight = started_live(corvin, fighter("g1", "gm", 1, 0, facing=4), dice=(15, 5))
    refused = refusal(fight, Declare("corvin", (Attack("corvin", "g9", "spear"),)))
    assert (refused.code, refused.message) == (
        "unknown_combatant",
        "no combatant 'g9' in this encounter",
    )
    assert of(fight.log, DeclarationMade) == []


def test_a_later_move_is_refused_only_when_it_starts_beyond_where_the_mover_could_be() -> None:
    """R78 with R71: a move after other actions starts wherever they leave the mover;
    one that starts farther than the mover could get by then is refused (`too_far`)."""
    fight = far_table()
    far = Move("ayla", (Cell(20, 5), Cell(20, 6)))
    refused = refusal(fight, Declare("ayla", (Attack("ayla", "g1", "shortbow"), far)))
    assert refused.code == "too_far"
    assert refused.message == (
        "the path starts at (20, 5), 100 ft from ayla, which can be at most 30 ft from "
        "where it stands before it moves"
    )
    near = Move("ayla", (Cell(7, 0), Cell(7, 1)))  # 35 ft: ayla's 30 ft, then a step
    fight.do(Declare("ayla", (Attack("ayla", "g1", "shortbow"), near)))


def test_a_melee_target_that_may_come_into_reach_is_accepted_and_reached() -> None:
    """Both can close 60 ft this round and a longsword reaches 5: g1 65 ft away may come
    into reach, so Ayla's declared attack is accepted; when g1 comes 30 ft first and
    Ayla 30 ft, it is legal on her turn. 70 ft away, it could never be."""
    g1 = fighter("g1", "gm", 14, 0, facing=4)
    fight = started_live(ayla(), g1, dice=(5, 15, 12, 4))  # g1 17, ayla 7; then ayla's attack
    attack = Attack("ayla", "g1", "longsword")
    assert refusal(fight, Declare("ayla", (attack,))).code == "out_of_reach"

    g1 = fighter("g1", "gm", 13, 0, facing=4)
    fight = started_live(ayla(), g1, dice=(5, 15, 12, 4))
    closer = Move("ayla", tuple(Cell(x, 0) for x in range(1, 7)))
    fight.do(Declare("ayla", (closer, attack)))
    fight.do(Declare("g1", (Move("g1", tuple(Cell(x, 0) for x in range(12, 6, -1))),)))
    fight.pass_windows()
    assert [(e.attacker, e.target) for e in of(fight.log, AttackRolled)] == [("ayla", "g1")]
    assert of(fight.log, ActionLost) == []
    assert fight.replays()


def test_a_ranged_target_beyond_range_now_is_accepted_when_it_may_come_in_range() -> None:
    """g1 100 ft away, a shortbow ranging 80 ft: 20 ft of closing brings it in range."""
    fight = far_table()
    fight.do(Declare("ayla", (Attack("ayla", "g1", "shortbow"),)))
    assert fight.who("ayla").id not in fight.window.waiting_for


def test_a_target_only_down_is_a_target_and_the_dead_one_the_gm_brings_back_too() -> None:
    """R78: Dead never ends by itself, so only the GM could bring g2 back: refused. An
    Unconscious target is still one; and once the GM takes Dead away, g2 is too."""
    g2 = evolve(fighter("g2", "gm", 1, 0), conditions=(DEAD,))
    g3 = evolve(fighter("g3", "gm", 0, 1), conditions=(Condition("Unconscious", 2),))
    g1 = fighter("g1", "gm", 5, 5)  # keeps the planning window open
    fight = started_live(ayla(), g1, g2, g3, dice=(15, 5, 3))
    assert refusal(fight, Declare("ayla", (Attack("ayla", "g2", "longsword"),))).code == (
        "target_down"
    )
    fight.do(Declare("ayla", (Attack("ayla", "g3", "longsword"),)))
    fight.do(RemoveCondition("g2", "Dead"))
    fight.do(Declare("ayla", (Attack("ayla", "g2", "longsword"),)))


def test_a_target_that_may_fly_down_or_a_flyer_that_may_climb_is_accepted() -> None:
    """g3 is 3 levels up: with 30 ft of fly speed it may come down before Ayla's turn;
    with none, a 20 ft flyer could climb 2 of the 3 levels: refused."""
    g3 = fighter("g3", "gm", 1, 1, ascension=3, sheet_=sheet("g3", speeds=Speeds(fly=30)))
    fight = started_live(ayla(), g3, dice=(15, 5))
    fight.do(Declare("ayla", (Attack("ayla", "g3", "longsword"),)))

    g3 = fighter("g3", "gm", 1, 1, ascension=3)
    fight = started_live(ayla(speeds=Speeds(land=30, fly=20)), g3, dice=(15, 5))
    refused = refusal(fight, Declare("ayla", (AscendAttack("ayla", "g3", "longsword"),)))
    assert refused.code == "other_ascension"
    assert "3 levels apart, more than they could close between them" in refused.message
    fight.do(Declare("ayla", (ChangeAscension("ayla", 2),)))  # 20 ft: within one move


def test_a_level_change_beyond_one_move_and_a_thrown_ascend_attack_are_refused() -> None:
    """V26, R75: a 10 ft fly speed climbs one level a move; a throw needs its Strength
    check, so Ascend and Attack never takes one."""
    flyer = ayla(speeds=Speeds(land=0, fly=10), weapons=(JAVELIN,))
    g3 = fighter("g3", "gm", 1, 1, ascension=1, sheet_=sheet("g3", speeds=Speeds(fly=30)))
    fight = started_live(flyer, g3, dice=(15, 5), environment=Environment.AIR)
    refused = refusal(fight, Declare("ayla", (ChangeAscension("ayla", -2),)))
    assert (refused.code, refused.message) == (
        "too_far",
        "20 ft of Ascension (2 level(s)) is more than ayla can move up or down in one move: 10 ft",
    )
    refused = refusal(fight, Declare("ayla", (AscendAttack("ayla", "g3", "javelin"),)))
    assert refused.code == "weapon_unusable"
    fight.do(Declare("ayla", (ChangeAscension("ayla", 1),)))


def test_a_move_without_a_speed_for_the_fights_environment_is_refused() -> None:
    """V16, V17: a Move uses the environment's speed; Ayla has no fly speed in the air."""
    g1 = fighter("g1", "gm", 1, 0, sheet_=sheet("g1", speeds=Speeds(fly=30)))
    fight = started_live(ayla(), g1, dice=(15, 5), environment=Environment.AIR)
    refused = refusal(fight, Declare("ayla", (Move("ayla", (Cell(1, 1),)),)))
    assert (refused.code, refused.message) == (
        "no_movement_speed",
        "ayla has no air speed to move with",
    )


def test_a_ride_of_ones_side_brings_far_targets_within_possible_reach() -> None:
    """R78 counts what a ride could carry its rider: with a horse of 60 ft (two turns a
    round) beside her, Ayla could be 160 ft away by her turn, so g1 100 ft away may
    come within her longsword's reach. A horse of another side, or a mount out of any
    reach, is refused."""
    g1 = fighter("g1", "gm", 20, 0, facing=4)
    horse = fighter("horse", "pc", 0, 1, sheet_=sheet("horse", is_ride=True, speeds=Speeds(60)))
    # initiative (id order): ayla 17, g1 7, horse 12 and 11
    fight = started_live(ayla(), g1, horse, dice=(15, 5, 10, 9))
    assert travel_ft(fight.state, fight.who("ayla")) == 30 + 120 + 10
    fight.do(Declare("ayla", (Mount("ayla", "horse"), Attack("ayla", "g1", "longsword"))))

    warg = fighter("warg", "gm", 0, 1, sheet_=sheet("warg", is_ride=True))
    g1 = fighter("g1", "gm", 30, 0, facing=4)  # 150 ft: the warg may carry g1 70 ft
    fight = started_live(ayla(), g1, warg, dice=(15, 5, 10))
    assert refusal(fight, Declare("ayla", (Mount("ayla", "warg"),))).code == "other_side"
    assert refusal(fight, Declare("ayla", (Attack("ayla", "g1", "longsword"),))).code == (
        "out_of_reach"
    )

    horse = evolve(horse, position=Cell(100, 0))  # 500 ft: it may come 120 ft
    fight = started_live(ayla(), fighter("g1", "gm", 1, 0), horse, dice=(15, 5, 10, 9))
    refused = refusal(fight, Declare("ayla", (Mount("ayla", "horse"),)))
    assert refused.code == "out_of_reach"
    assert refused.message.startswith("horse is 500 ft away: a ride is mounted from 5 ft")


def test_a_conditions_table_that_may_raise_speed_counts_at_the_most_it_could_give() -> None:
    """V27: anyone may gain a condition before its turn (a spell lays one), so the
    speeds counted are the most the table's `speed` changes could make of them: with
    Hasted (+30 ft), g1 100 ft away may come within Ayla's longsword, and a 35 ft path
    is left to be checked on its turn. Slowed only lowers speeds, so it adds nothing."""
    hasted = ConditionRule("Hasted", changes=(Change("speed", "add", 30),))
    slowed = ConditionRule("Slowed", changes=(Change("speed", "multiply", 0.5),))
    fight = far_table(condition_rules=(hasted, slowed))
    assert travel_ft(fight.state, fight.who("ayla")) == 60
    fight.do(Declare("ayla", (Attack("ayla", "g1", "longsword"),)))
    fight.do(Declare("ayla", (Move("ayla", tuple(Cell(x, 0) for x in range(1, 8))),)))

    def most(*changes: Change) -> int:
        state = evolve(fight.state, condition_rules=(ConditionRule("Any", changes=changes),))
        return greatest_speed(state, 30)

    assert most(Change("speed", "multiply", 2), Change("speed", "add", 10)) == 70
    assert most(Change("speed", "override", 100), Change("speed", "add", -10)) == 100
    assert most(Change("speed", "upgrade", 20), Change("speed", "downgrade", 5)) == 30
    assert most(Change("sight", "add", 100)) == 30


def test_a_charge_is_checked_when_its_last_action_would_aim_it() -> None:
    """V12: the `ChargeSpell` that completes a charge may aim it anew, so its targets
    are checked then; one that does not complete it aims at nothing yet."""
    charging = Charge("Magic Missile", 20, 1, actions_needed=2, actions_done=1)
    caster = evolve(ayla(), charging=charging)
    fight = started_live(caster, fighter("g1", "gm", 20, 0), dice=(15, 5))
    refused = refusal(fight, Declare("ayla", (ChargeSpell("ayla", targets=("g1",)),)))
    assert refused.code == "out_of_range"
    fight.do(Declare("ayla", (ChargeSpell("ayla"),)))  # the cast's own aim

    caster = evolve(ayla(), charging=evolve(charging, actions_needed=3))
    fight = started_live(caster, fighter("g1", "gm", 20, 0), dice=(15, 5))
    fight.do(Declare("ayla", (ChargeSpell("ayla", targets=("g1",)),)))


def test_in_turn_based_combat_actions_are_checked_when_sent() -> None:
    """V25: an action sent on one's turn resolves at once, so it is checked as it is
    sent, also when a holder may answer it (a dry run before any window opens)."""
    g1 = fighter("g1", "gm", 20, 0, facing=4)
    state = encounter(ayla(), g1, dice=(5, 15), mode=Mode.TURN_BASED)  # g1 17, ayla 7
    state, _ = execute(state, StartCombat())
    state, _ = execute(state, HoldAction("g1"))
    assert state.current == "ayla" and state.combatants["g1"].holding
    for action, code in [
        (Attack("ayla", "g9", "longsword"), "unknown_combatant"),
        (Attack("ayla", "g1", "longsword"), "out_of_reach"),
        (Move("ayla", tuple(Cell(x, 0) for x in range(1, 8))), "too_far"),
    ]:
        before = state.state_hash()
        with pytest.raises(CommandRefused) as refused:
            decide(state, action)
        assert refused.value.code == code
        assert state.state_hash() == before


# --- the bound itself: nobody gets farther in a round than R78 counts ------------------


@st.composite
def movers(draw: Any) -> Encounter:
    """Two to four combatants and up to two rides, all of one side (so no window opens),
    anywhere near, some flying, in a land fight played turn by turn."""
    members = []
    for i in range(draw(st.integers(2, 4))):
        speeds = Speeds(
            land=draw(st.sampled_from([0, 5, 20, 30, 60])),
            fly=draw(st.sampled_from([0, 0, 10, 30])),
            burrow=draw(st.sampled_from([0, 0, 10])),
        )
        members.append((f"c{i}", sheet(f"c{i}", speeds=speeds)))
    for i in range(draw(st.integers(0, 2))):
        speeds = Speeds(
            land=draw(st.sampled_from([30, 60, 90])), fly=draw(st.sampled_from([0, 30]))
        )
        members.append((f"r{i}", sheet(f"r{i}", speeds=speeds, is_ride=True)))
    cells = draw(
        st.lists(
            st.tuples(st.integers(0, 4), st.integers(0, 4)),
            min_size=len(members),
            max_size=len(members),
            unique=True,
        )
    )
    fighters = [
        fighter(cid, "pc", x, y, sheet_=s) for (cid, s), (x, y) in zip(members, cells, strict=True)
    ]
    state = encounter(*fighters, seed=draw(st.integers(0, 2**16)), mode=Mode.TURN_BASED)
    started, _ = execute(state, StartCombat())
    return started


def some_move(state: Encounter, mover: str, draw: Any) -> Command:
    here: VerseCombatant = state.combatants[mover]
    kind = draw(st.sampled_from(["move", "move", "level", "mount", "dismount", "end"]))
    if kind == "move":
        path, cell = [], here.position
        for _ in range(draw(st.integers(1, 20))):
            cell = draw(st.sampled_from(state.grid.neighbours(cell)))
            path.append(cell)
        return Move(mover, tuple(path))
    if kind == "level":
        return ChangeAscension(mover, draw(st.sampled_from([-3, -2, -1, 1, 2, 3])))
    if kind == "mount":
        return Mount(mover, draw(st.sampled_from(sorted(state.combatants))))
    if kind == "dismount":
        return Dismount(mover, draw(st.sampled_from(state.grid.neighbours(here.position))))
    return EndTurn(mover)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=movers(), data=st.data())
def test_nobody_gets_farther_in_a_round_than_the_declaration_check_counts(
    start: Encounter, data: st.DataObject
) -> None:
    """R78 refuses only what could never become legal: however the combatants move, ride,
    climb and dismount through a round, each stays within `travel_ft` of where it stood
    and `levels_reach` of its level when the round began."""
    bounds = {
        cid: (c.position, c.ascension, travel_ft(start, c), levels_reach(start, c))
        for cid, c in start.combatants.items()
    }
    state = start
    for _ in range(60):
        mover = state.current
        if state.round != start.round or mover is None:
            break
        try:
            state, _ = execute(state, some_move(state, mover, data.draw))
        except CommandRefused:
            continue
        for cid, (cell, level, farthest, levels) in bounds.items():
            now: VerseCombatant = state.combatants[cid]
            assert state.grid.distance_ft(cell, now.position) <= farthest, cid
            assert abs(now.ascension - level) <= levels, cid


def test_the_bound_counts_each_turn_of_a_fast_mover() -> None:
    """V16: 60 ft of speed gives two turns a round, each with its Move."""
    fast = ayla(speeds=Speeds(land=60))
    state = encounter(fast, fighter("g1", "gm", 1, 0), dice=(15, 14, 5))
    state, _ = execute(state, StartCombat())
    assert travel_ft(state, state.combatants["ayla"]) == 120
    assert travel_ft(state, state.combatants["g1"]) == 30
