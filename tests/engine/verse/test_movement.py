"""Moving (V17 Move action, V18 half speed), facing, and attacks of opportunity (V22)."""

from __future__ import annotations

from server.engine import Event, execute, replay
from server.engine.flow import Ask, Window
from server.engine.grid import Cell, Grid, GridKind
from server.engine.records import evolve
from server.engine.rulesets.verse.attacks import AttackRolled
from server.engine.rulesets.verse.combatant import NO_ACTIONS_USED, Charge, Stance
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.live import Answer, PassWindow
from server.engine.rulesets.verse.movement import (
    Face,
    Faced,
    Move,
    Moved,
    OpportunityAttack,
    OpportunityOpened,
    OpportunityTaken,
    opportunities_along,
)
from server.engine.rulesets.verse.positions import facing_toward
from server.engine.rulesets.verse.sheet import Speeds, Weapon
from server.engine.rulesets.verse.spells import ChargeLost
from server.engine.rulesets.verse.windows import WindowOpened
from tests.engine.verse.builders import LONGSWORD, SHORTBOW, fighter, in_combat, refused, sheet

GLAIVE = Weapon("glaive", "1d10", "polearm", reach_ft=10)
WEST = 4  # square facing 4 looks along -x


def path(*cells: tuple[int, int]) -> tuple[Cell, ...]:
    return tuple(Cell(x, y) for x, y in cells)


# --- the Move action ------------------------------------------------------------


def test_move_goes_cell_by_cell_spends_the_move_action_and_faces_the_last_step() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=20))
    after, events = execute(state, Move("ayla", path((1, 0), (2, 1), (2, 2))))
    assert events == [Moved("ayla", path((1, 0), (2, 1), (2, 2)), 15, "move")]
    ayla = after.combatant("ayla")
    assert ayla.position == Cell(2, 2)
    assert ayla.facing == 2  # the last step went along +y: 90 degrees
    assert (ayla.actions.move, ayla.actions.moved_ft) == (True, 15)
    assert replay(state, events).state_hash() == after.state_hash()


def test_move_up_to_the_environment_speed_only() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=20))
    six = path(*((x, 0) for x in range(1, 7)))  # 30 ft: the land speed
    after, _ = execute(state, Move("ayla", six))
    assert after.combatant("ayla").position == Cell(6, 0)
    seven = path(*((x, 0) for x in range(1, 8)))
    assert refused(state, Move("ayla", seven)) == "too_far"


def test_defensive_stance_moves_at_half_speed() -> None:
    # V18: "movement at half run speed"; run speed read as the environment speed (30).
    guard = fighter("ayla", "pc", stance=Stance.DEFENSIVE)
    state = in_combat(guard, fighter("gob", "gm", x=20))
    after, _ = execute(state, Move("ayla", path((1, 0), (2, 0), (3, 0))))
    assert after.combatant("ayla").position == Cell(3, 0)
    assert refused(state, Move("ayla", path((1, 0), (2, 0), (3, 0), (4, 0)))) == "too_far"


def test_every_step_must_reach_a_neighbouring_cell() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=20))
    assert refused(state, Move("ayla", path((1, 0), (3, 0)))) == "not_adjacent"
    assert refused(state, Move("ayla", ())) == "invalid_command"


def test_an_occupied_cell_blocks_but_the_dead_and_other_levels_do_not() -> None:
    ally = fighter("bran", "pc", x=1)
    state = in_combat(fighter("ayla", "pc"), ally, fighter("gob", "gm", x=20))
    assert refused(state, Move("ayla", path((1, 0), (2, 0)))) == "blocked"
    dead = ally.with_condition("Dead")
    state = in_combat(fighter("ayla", "pc"), dead, fighter("gob", "gm", x=20))
    after, _ = execute(state, Move("ayla", path((1, 0), (2, 0))))
    assert after.combatant("ayla").position == Cell(2, 0)
    above = fighter("bran", "pc", x=1, ascension=1)
    state = in_combat(fighter("ayla", "pc"), above, fighter("gob", "gm", x=20))
    after, _ = execute(state, Move("ayla", path((1, 0), (2, 0))))
    assert after.combatant("ayla").position == Cell(2, 0)


def test_one_move_action_per_turn() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=20))
    after, _ = execute(
        state,
        Move(
            "ayla",
            path(
                (1, 0),
            ),
        ),
    )
    assert (
        refused(
            after,
            Move(
                "ayla",
                path(
                    (2, 0),
                ),
            ),
        )
        == "action_used"
    )


def test_the_speed_of_the_fights_environment_counts() -> None:
    walker = fighter("ayla", "pc")
    state = in_combat(walker, fighter("gob", "gm", x=20), environment="air")
    assert (
        refused(
            state,
            Move(
                "ayla",
                path(
                    (1, 0),
                ),
            ),
        )
        == "no_movement_speed"
    )
    flyer = fighter("ayla", "pc", sheet_=sheet("ayla", speeds=Speeds(land=30, fly=60)))
    state = in_combat(flyer, fighter("gob", "gm", x=20), environment="air")
    twelve = path(*((x, 0) for x in range(1, 13)))
    after, _ = execute(state, Move("ayla", twelve))
    assert after.combatant("ayla").position == Cell(12, 0)


def test_facing_after_a_move_on_hexagons() -> None:
    state = in_combat(
        fighter("ayla", "pc"), fighter("gob", "gm", x=20), grid=Grid(kind=GridKind.HEX)
    )
    after, _ = execute(
        state,
        Move(
            "ayla",
            path(
                (0, -1),
            ),
        ),
    )
    assert after.combatant("ayla").facing == 4  # 240 degrees: the 5th of 6 facings


# --- Face -----------------------------------------------------------------------


def test_face_is_an_instant_action() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=20))
    after, events = execute(state, Face("ayla", 3))
    assert events == [Faced("ayla", 3)]
    assert after.combatant("ayla").facing == 3
    assert after.combatant("ayla").actions == NO_ACTIONS_USED
    after, _ = execute(after, Face("ayla", 7))
    assert after.combatant("ayla").facing == 7


def test_face_must_be_one_of_the_grids_directions() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=20))
    assert refused(state, Face("ayla", 8)) == "invalid_command"
    hexes = in_combat(
        fighter("ayla", "pc"), fighter("gob", "gm", x=20), grid=Grid(kind=GridKind.HEX)
    )
    assert refused(hexes, Face("ayla", 6)) == "invalid_command"
    assert refused(state, Face("gob", 1)) == "not_your_turn"


# --- attacks of opportunity (V22) -----------------------------------------------


def opportunity_window(events: list[Event]) -> Window:
    """The reaction window a move opened before it resolved (V21)."""
    opened = [e.window for e in events if isinstance(e, WindowOpened)]
    assert len(opened) == 1, events
    return opened[0]


def test_leaving_a_foes_reach_in_its_view_opens_an_attack_of_opportunity() -> None:
    watcher = fighter("gob", "gm", x=1, facing=WEST)  # looks at ayla
    state = in_combat(fighter("ayla", "pc"), watcher)
    after, events = execute(state, Move("ayla", path((-1, 0), (-2, 0))))
    # V21: before the move resolves, a window opens for the one entitled to answer it.
    window = opportunity_window(events)
    assert window.asked == (Ask("gob", ("opportunity",)),)
    assert window.about == "ayla"
    assert after.combatant("ayla").position == Cell(0, 0)  # not moved yet


def test_leaving_the_reach_of_a_foe_that_looks_away_opens_nothing() -> None:
    # "Enemies that move behind you are out of your View of Attack".
    looking_away = fighter("gob", "gm", x=1, facing=0)
    state = in_combat(fighter("ayla", "pc"), looking_away)
    after, events = execute(state, Move("ayla", path((-1, 0), (-2, 0))))
    assert [type(e) for e in events] == [Moved]
    assert after.combatant("gob").opportunities == ()


def test_passing_through_a_reach_opens_one_attack_at_the_step_that_moves_on() -> None:
    gob = fighter("gob", "gm", x=2, y=2, facing=5)  # looks toward (1, 1)
    state = in_combat(fighter("ayla", "pc"), gob)
    route = path((1, 1), (2, 1), (3, 1), (4, 1))
    _, events = execute(state, Move("ayla", route))
    # Step 1 enters the reach; step 2 moves on inside it; step 3 leaves it: one attack.
    assert opportunity_window(events).asked == (Ask("gob", ("opportunity",)),)
    steps = [(cell, 0) for cell in route]
    assert opportunities_along(state, state.combatant("ayla"), steps) == [
        OpportunityOpened("ayla", ("gob",), 2)
    ]


def test_entering_a_reach_and_stopping_opens_nothing() -> None:
    gob = fighter("gob", "gm", x=2, y=2, facing=5)
    state = in_combat(fighter("ayla", "pc"), gob)
    _, events = execute(
        state,
        Move(
            "ayla",
            path(
                (1, 1),
            ),
        ),
    )
    assert [type(e) for e in events] == [Moved]


def test_a_reach_weapon_reaches_10_feet_unless_it_was_dropped() -> None:
    polearm = sheet("gob", weapons=(LONGSWORD, GLAIVE))
    gob = fighter("gob", "gm", x=2, facing=WEST, sheet_=polearm)
    state = in_combat(fighter("ayla", "pc"), gob)
    _, events = execute(state, Move("ayla", path((-1, 0))))
    assert opportunity_window(events).asked == (Ask("gob", ("opportunity",)),)
    disarmed = fighter("gob", "gm", x=2, facing=WEST, sheet_=polearm, dropped=("glaive",))
    state = in_combat(fighter("ayla", "pc"), disarmed)
    _, events = execute(state, Move("ayla", path((-1, 0))))
    assert [type(e) for e in events] == [Moved]


def test_allies_the_fallen_and_foes_on_other_levels_get_no_opportunity() -> None:
    ally = fighter("bran", "pc", x=1, facing=WEST)
    fallen = fighter("gob", "gm", x=0, y=1, facing=6).with_condition("Unconscious")
    flying = fighter("harpy", "gm", x=1, y=-1, facing=3, ascension=1)
    state = in_combat(fighter("ayla", "pc"), ally, fallen, flying)
    _, events = execute(state, Move("ayla", path((-1, 0), (-2, 0))))
    assert [type(e) for e in events] == [Moved]


def test_the_entitled_foe_attacks_out_of_turn_without_spending_an_action() -> None:
    # gob: d20 15 + Strength 3 + Training 2 = 20 vs ayla's PD 12; 1d8 4 + 2 = 6 vs PR 2.
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1, facing=WEST), dice=(15, 4))
    moving, events = execute(state, Move("ayla", path((-1, 0))))
    window = opportunity_window(events)
    answer = Answer("gob", window.id, "opportunity", OpportunityAttack("gob", "ayla", "longsword"))
    after, events = execute(moving, answer)
    # The answer resolves first (V21), then the move it answered.
    taken = events.index(OpportunityTaken("gob", "ayla"))
    attack, damage = events[taken + 1 : taken + 3]
    assert isinstance(attack, AttackRolled) and attack.action == "instant" and attack.hit
    assert isinstance(damage, DamageDealt) and damage.to_health == 4
    assert any(isinstance(e, Moved) for e in events[taken:])
    gob = after.combatant("gob")
    assert gob.actions == NO_ACTIONS_USED
    assert gob.opportunities == ()
    assert after.combatant("ayla").health == 16
    assert after.combatant("ayla").position == Cell(-1, 0)
    assert after.window is None and after.pending == ()


def test_an_attack_of_opportunity_needs_an_entitlement_and_a_melee_weapon() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1, facing=WEST), dice=(15, 4))
    assert refused(state, OpportunityAttack("gob", "ayla", "longsword")) == "no_opportunity"
    moving, events = execute(state, Move("ayla", path((-1, 0))))
    window = opportunity_window(events)
    wrong_target = OpportunityAttack("gob", "gob", "longsword")
    assert refused(moving, Answer("gob", window.id, "opportunity", wrong_target)) == (
        "invalid_command"
    )
    bow = OpportunityAttack("gob", "ayla", SHORTBOW.name)
    # Refused when answered, not lost later: the player learns it at once.
    assert refused(moving, Answer("gob", window.id, "opportunity", bow)) == "weapon_unusable"


def test_an_opportunity_passed_up_is_gone() -> None:
    watcher = fighter("gob", "gm", x=1, facing=WEST)
    state = in_combat(fighter("ayla", "pc"), watcher)
    moving, events = execute(state, Move("ayla", path((-1, 0))))
    window = opportunity_window(events)
    after, events = execute(moving, PassWindow("gob", window.id))
    assert any(isinstance(e, Moved) for e in events)
    assert refused(after, OpportunityAttack("gob", "ayla", "longsword")) == "no_opportunity"


# --- V12: moving breaks a charge ------------------------------------------------


def test_moving_while_charging_a_spell_loses_the_charge() -> None:
    charging = Charge("Fireball", mc=20, spell_dice=0, actions_needed=2, actions_done=1)
    state = in_combat(fighter("ayla", "pc", charging=charging), fighter("gob", "gm", x=20))
    after, events = execute(
        state,
        Move(
            "ayla",
            path(
                (1, 0),
            ),
        ),
    )
    assert events[-1] == ChargeLost("ayla", "Fireball", "moved")
    assert after.combatant("ayla").charging is None
    assert after.combatant("ayla").position == Cell(1, 0)


# --- malformed commands, shared helpers, determinism ----------------------------


def test_a_malformed_path_or_facing_is_an_invalid_command() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=20))
    assert refused(state, evolve(Move("ayla", ()), path=("x",))) == "invalid_command"
    assert refused(state, evolve(Move("ayla", ()), path=[Cell(1, 0)])) == "invalid_command"
    assert refused(state, evolve(Face("ayla", 0), facing="1")) == "invalid_command"
    assert refused(state, evolve(Face("ayla", 0), facing=True)) == "invalid_command"


def test_a_broken_reach_weapon_reaches_no_farther_than_a_fist() -> None:
    polearm = sheet("gob", weapons=(LONGSWORD, GLAIVE))
    broken = fighter("gob", "gm", x=2, facing=WEST, sheet_=polearm, broken=("glaive",))
    state = in_combat(fighter("ayla", "pc"), broken)
    _, events = execute(state, Move("ayla", path((-1, 0))))
    assert [type(e) for e in events] == [Moved]


def test_facing_ties_go_counter_clockwise() -> None:
    # On hexes (1, 1) lies at 30 degrees, between facings 0 and 1: the higher one.
    hexes = Grid(kind=GridKind.HEX)
    assert facing_toward(hexes, Cell(0, 0), Cell(1, 1)) == 1
    assert facing_toward(hexes, Cell(0, 0), Cell(-1, -1)) == 4  # 210 degrees: 3 or 4
    assert facing_toward(Grid(), Cell(0, 0), Cell(2, 1)) == 1  # squares: nearest, no tie


def test_opportunities_list_the_foes_by_id_whatever_the_dict_order() -> None:
    listed = in_combat(
        fighter("ayla", "pc"),
        fighter("orc", "gm", x=1, facing=WEST),
        fighter("gob", "gm", x=1, y=1, facing=5),
    )
    reordered = evolve(
        listed, combatants={cid: listed.combatants[cid] for cid in ("gob", "orc", "ayla")}
    )
    assert listed.state_hash() == reordered.state_hash()
    steps = [(Cell(-1, 0), 0), (Cell(-2, 0), 0)]
    opened = opportunities_along(listed, listed.combatant("ayla"), steps)
    assert opened == [OpportunityOpened("ayla", ("gob", "orc"), 1)]
    assert opportunities_along(reordered, reordered.combatant("ayla"), steps) == opened
