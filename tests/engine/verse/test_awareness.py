"""Field of view, awareness states, the View of Attack and Stealth Checks ("Combat Styles")."""

from __future__ import annotations

from typing import Any

import pytest

from server.engine import CommandRefused, decide, execute, replay
from server.engine.grid import Cell, Grid
from server.engine.records import evolve
from server.engine.rulesets.verse.awareness import (
    AwarenessSet,
    SetAwareness,
    StealthCheck,
    StealthChecked,
    aware_of_attack,
    can_respond_to,
    field_of_view,
    perception_modifier,
    sees,
)
from server.engine.rulesets.verse.combatant import DEAD, ActionsUsed, Condition, VerseCombatant
from server.engine.state import Encounter
from tests.engine.verse.builders import encounter, fighter, in_combat, sheet


def watcher(awareness: str = "alert", **kw: Any) -> VerseCombatant:
    """A guard at the origin looking along +x (facing 0), visual range 60 ft."""
    return fighter("guard", "gm", 0, 0, awareness=awareness, **kw)


def seen_cells(state: Encounter, observer_id: str, cells: list[tuple[int, int]]) -> list[bool]:
    observer = state.combatant(observer_id)
    result = []
    for x, y in cells:
        probe = fighter("probe", "pc", x, y)
        result.append(sees(state.with_combatant(probe), observer, probe))
    return result


# --- field of view --------------------------------------------------------------


def test_alert_sees_a_180_degree_arc_in_front_out_to_its_visual_range() -> None:
    state = encounter(watcher())
    # 60 ft ahead yes, 65 ft no; 90 degrees to the side is the arc's edge; behind no.
    cells = [(12, 0), (13, 0), (0, 5), (0, -5), (-1, 5), (-1, 0), (-3, 2)]
    assert seen_cells(state, "guard", cells) == [True, False, True, True, False, False, False]
    assert field_of_view(state, state.combatant("guard")) == (90.0, 60)


def test_visual_range_comes_from_the_sheet() -> None:
    state = encounter(fighter("guard", "gm", sheet_=sheet("guard", visual_range_ft=20)))
    assert seen_cells(state, "guard", [(4, 0), (5, 0)]) == [True, False]


def test_on_guard_sees_5_ft_further() -> None:
    state = encounter(watcher("on_guard"))
    assert field_of_view(state, state.combatant("guard")) == (90.0, 65)
    assert seen_cells(state, "guard", [(13, 0), (14, 0), (-1, 0)]) == [True, False, False]


def test_distracted_sees_5_ft_less() -> None:
    state = encounter(watcher("distracted"))
    assert field_of_view(state, state.combatant("guard")) == (90.0, 55)
    assert seen_cells(state, "guard", [(11, 0), (12, 0), (0, 5)]) == [True, False, True]


def test_preoccupied_sees_only_5_ft_either_side_of_where_it_looks() -> None:
    state = encounter(watcher("preoccupied"))
    cells = [(12, 0), (10, 1), (10, -1), (10, 2), (0, 1), (0, 2), (13, 0), (-1, 0)]
    assert seen_cells(state, "guard", cells) == [True, True, True, False, True, False, False, False]


def test_preoccupied_strip_follows_a_diagonal_facing() -> None:
    state = encounter(watcher("preoccupied", facing=1))  # looking along (+1, +1)
    # (4, 4) lies on the line; (4, 3) is 3.5 ft off it; (4, 2) is 7 ft off it.
    assert seen_cells(state, "guard", [(4, 4), (4, 3), (4, 2)]) == [True, True, False]


def test_field_of_view_on_hexagons_is_the_half_plane_in_front() -> None:
    state = encounter(watcher(), grid=Grid(kind="hex"))
    # Axial hexes: (1,0) ahead, (0,1) 60 degrees left, (-1,1) 120 degrees, (-1,0) behind.
    assert seen_cells(state, "guard", [(1, 0), (0, 1), (-1, 1), (-1, 0)]) == [
        True,
        True,
        False,
        False,
    ]


def test_engaged_in_combat_counts_as_distracted_and_is_never_stored() -> None:
    state = encounter(watcher("on_guard"), fighter("ayla", "pc", 1, 0))
    guard = state.combatant("guard")
    assert field_of_view(state, guard) == (90.0, 55)
    assert seen_cells(state, "guard", [(11, 0), (12, 0)]) == [True, False]
    assert guard.awareness == "on_guard"


def test_engaged_replaces_preoccupied_too() -> None:
    state = encounter(watcher("preoccupied"), fighter("ayla", "pc", 1, 0))
    # Considered Distracted: the whole arc, not the 5 ft strip.
    assert seen_cells(state, "guard", [(5, 3), (11, 0), (12, 0)]) == [True, True, False]


def test_a_downed_foe_does_not_engage() -> None:
    fallen = evolve(fighter("ayla", "pc", 1, 0), conditions=(Condition(DEAD),))
    state = encounter(watcher(), fallen)
    assert field_of_view(state, state.combatant("guard")) == (90.0, 60)


# --- responding and the View of Attack ------------------------------------------


def test_engaged_can_respond_only_to_those_it_is_engaged_with() -> None:
    state = encounter(
        watcher(),
        fighter("ayla", "pc", 1, 0),  # engaged, in front
        fighter("bo", "pc", -1, 0),  # engaged, behind
        fighter("cid", "pc", 3, 0),  # in view but not engaged
    )
    guard = state.combatant("guard")
    assert [can_respond_to(state, guard, state.combatant(c)) for c in ("ayla", "bo", "cid")] == [
        True,
        True,
        False,
    ]


def test_not_engaged_turns_at_will_and_responds_to_anyone_in_range() -> None:
    state = encounter(watcher(), fighter("ayla", "pc", -5, 0), fighter("bo", "pc", -13, 0))
    guard = state.combatant("guard")
    assert can_respond_to(state, guard, state.combatant("ayla"))  # behind, 25 ft
    assert not can_respond_to(state, guard, state.combatant("bo"))  # 65 ft > 60 ft


def test_preoccupied_responds_only_to_what_it_sees() -> None:
    state = encounter(
        watcher("preoccupied"), fighter("ayla", "pc", -5, 0), fighter("bo", "pc", 5, 0)
    )
    guard = state.combatant("guard")
    assert not can_respond_to(state, guard, state.combatant("ayla"))
    assert can_respond_to(state, guard, state.combatant("bo"))


def test_aware_of_an_attacker_in_view_not_of_one_behind() -> None:
    state = encounter(watcher(), fighter("front", "pc", 8, 0), fighter("back", "pc", -8, 0))
    guard = state.combatant("guard")
    assert aware_of_attack(state, guard, state.combatant("front"))
    assert not aware_of_attack(state, guard, state.combatant("back"))


def test_engaged_defender_is_aware_of_its_foe_even_behind_it() -> None:
    state = encounter(
        watcher(),
        fighter("duelist", "pc", -1, 0),  # engaged, behind the guard
        fighter("archer", "pc", -8, 0),  # behind, not engaged
        fighter("slinger", "pc", 8, 0),  # in front, 40 ft (within the engaged 55 ft)
    )
    guard = state.combatant("guard")
    assert aware_of_attack(state, guard, state.combatant("duelist"))
    assert not aware_of_attack(state, guard, state.combatant("archer"))
    assert aware_of_attack(state, guard, state.combatant("slinger"))


def test_preoccupied_defender_is_not_aware_of_an_attacker_off_its_line() -> None:
    state = encounter(watcher("preoccupied"), fighter("archer", "pc", 5, 3))
    assert not aware_of_attack(state, state.combatant("guard"), state.combatant("archer"))


@pytest.mark.parametrize(
    ("awareness", "foe_adjacent", "modifier"),
    [
        ("alert", False, 0),
        ("on_guard", False, 5),
        ("preoccupied", False, -5),
        ("distracted", False, -2),
        ("on_guard", True, -2),  # engaged: considered Distracted
    ],
)
def test_perception_modifier_by_awareness(
    awareness: str, foe_adjacent: bool, modifier: int
) -> None:
    others = [fighter("ayla", "pc", 1 if foe_adjacent else 6, 0)]
    state = encounter(watcher(awareness), *others)
    assert perception_modifier(state, state.combatant("guard")) == modifier


# --- SetAwareness ---------------------------------------------------------------


def test_set_awareness_is_an_instant_action_on_ones_turn() -> None:
    state = in_combat(fighter("ayla", "pc", -5, 0), watcher())
    after, events = execute(state, SetAwareness("ayla", "on_guard"))
    assert events == [AwarenessSet("ayla", "on_guard", "alert")]
    ayla = after.combatant("ayla")
    assert ayla.awareness == "on_guard"
    assert ayla.actions == ActionsUsed()  # Instant: nothing spent
    assert field_of_view(after, ayla) == (90.0, 65)


def test_the_gm_sets_an_npcs_awareness_at_any_time() -> None:
    state = in_combat(fighter("ayla", "pc", -5, 0), watcher())
    after, _ = execute(state, SetAwareness("guard", "preoccupied", gm=True))
    assert after.combatant("guard").awareness == "preoccupied"


def test_awareness_can_be_set_before_combat() -> None:
    state = encounter(fighter("ayla", "pc", -5, 0), watcher())
    after, _ = execute(state, SetAwareness("guard", "distracted"))
    assert after.combatant("guard").awareness == "distracted"


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (SetAwareness("ayla", "engaged"), "invalid_command"),
        (SetAwareness("ayla", "sleepy"), "invalid_command"),
        (SetAwareness("guard", "on_guard"), "not_your_turn"),
        (SetAwareness("nobody", "on_guard", gm=True), "unknown_combatant"),
    ],
)
def test_refused_set_awareness(command: SetAwareness, code: str) -> None:
    state = in_combat(fighter("ayla", "pc", -5, 0), watcher())
    before = state.state_hash()
    with pytest.raises(CommandRefused) as refused:
        decide(state, command)
    assert refused.value.code == code
    assert state.state_hash() == before


# --- Stealth Check --------------------------------------------------------------


def stealth_check(state: Encounter) -> StealthChecked:
    _, events = execute(state, StealthCheck("ayla", "guard"))
    (check,) = events
    assert isinstance(check, StealthChecked)
    return check


def sneak(x: int, y: int, stealth: int = 4) -> VerseCombatant:
    return fighter("ayla", "pc", x, y, sheet_=sheet("ayla", stealth=stealth))


def test_stealth_meeting_perception_stays_unnoticed() -> None:
    # d20 10 + Stealth 4 = 14 meets the guard's d20 14 (V19: meets or beats).
    state = in_combat(sneak(-3, 0), watcher(), dice=(10, 14))
    after, events = execute(state, StealthCheck("ayla", "guard"))
    (check,) = events
    assert isinstance(check, StealthChecked) and check.success
    assert check.describe() == (
        "Stealth d20 10 + Stealth 4 = 14 vs Perception d20 14 = 14: unnoticed"
    )
    assert replay(state, events).state_hash() == after.state_hash()
    assert after.combatant("ayla").actions == ActionsUsed()  # part of the move, no action


def test_stealth_below_perception_is_noticed() -> None:
    state = in_combat(sneak(-3, 0), watcher(), dice=(9, 14))
    assert not stealth_check(state).success


def test_on_guard_observer_adds_5_and_its_perception() -> None:
    guard = fighter("guard", "gm", sheet_=sheet("guard", perception=3), awareness="on_guard")
    state = in_combat(sneak(-3, 0), guard, dice=(15, 8))
    check = stealth_check(state)
    assert check.perception_roll.modifiers == (("Perception", 3), ("On Guard", 5))
    assert (check.stealth_roll.total, check.perception_roll.total, check.success) == (19, 16, True)


def test_preoccupied_observer_takes_5_off_its_perception() -> None:
    # In front of the guard but 15 ft off the line it is reading along: unseen.
    state = in_combat(sneak(5, 3, stealth=0), watcher("preoccupied"), dice=(6, 10))
    check = stealth_check(state)
    assert check.perception_roll.modifiers == (("Preoccupied", -5),)
    assert (check.stealth_roll.total, check.perception_roll.total, check.success) == (6, 5, True)


def test_engaged_observer_perceives_as_distracted() -> None:
    state = in_combat(sneak(-3, 0), watcher(), fighter("bo", "pc", 1, 0), dice=(5, 12))
    check = stealth_check(state)
    assert check.perception_roll.modifiers == (("Engaged in Combat", -2),)
    assert (check.stealth_roll.total, check.perception_roll.total, check.success) == (9, 10, False)


@pytest.mark.parametrize(
    ("sneaker_at", "command", "code"),
    [
        ((3, 0), StealthCheck("ayla", "guard"), "in_view"),
        ((-3, 0), StealthCheck("guard", "ayla"), "not_your_turn"),
        ((-3, 0), StealthCheck("ayla", "ayla"), "invalid_command"),
        ((-3, 0), StealthCheck("ayla", "nobody"), "unknown_combatant"),
    ],
)
def test_refused_stealth_checks(
    sneaker_at: tuple[int, int], command: StealthCheck, code: str
) -> None:
    state = in_combat(sneak(*sneaker_at), watcher(), dice=(10, 10))
    before = state.state_hash()
    with pytest.raises(CommandRefused) as refused:
        decide(state, command)
    assert refused.value.code == code
    assert state.state_hash() == before


def test_no_stealth_check_past_a_dead_observer() -> None:
    dead = evolve(watcher(), conditions=(Condition(DEAD),))
    state = in_combat(sneak(-3, 0), dead, dice=(10, 10))
    before = state.state_hash()
    with pytest.raises(CommandRefused) as refused:
        decide(state, StealthCheck("ayla", "guard"))
    assert refused.value.code == "target_down"
    assert state.state_hash() == before


def test_sees_is_true_for_oneself_and_the_same_cell() -> None:
    state = encounter(watcher(), fighter("rider", "gm", 0, 0))
    guard = state.combatant("guard")
    assert sees(state, guard, guard)
    assert sees(state, guard, state.combatant("rider"))
    assert Cell(0, 0) == guard.position
