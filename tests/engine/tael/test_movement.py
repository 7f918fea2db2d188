"""Grid movement (the text's "Movement" paragraph, TR21)."""

from __future__ import annotations

from server.engine.grid import Cell
from server.engine.records import evolve
from server.engine.rulesets.tael.movement import MoveTiles, TilesMoved
from tests.engine.tael.builders import Fight, fighter, in_combat, one, refused, sheet


def test_a_diagonal_step_counts_one_tile() -> None:
    """ "When playing on a grid, diagonal movement counts as one tile"."""
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 9, 9)))
    moved = one(fight.do(MoveTiles("a", tuple(Cell(i, i) for i in range(1, 6)))), TilesMoved)
    assert moved.tiles == 5 and fight.who("a").position == Cell(5, 5)
    assert fight.refused(MoveTiles("a", (Cell(6, 6),))) == "too_far"  # Movement Speed 5


def test_movement_may_be_split_over_the_action_phase() -> None:
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 9, 9)))
    fight.do(MoveTiles("a", (Cell(1, 0), Cell(2, 0))))
    fight.do(MoveTiles("a", (Cell(3, 0), Cell(4, 0), Cell(5, 0))))
    assert fight.refused(MoveTiles("a", (Cell(6, 0),))) == "too_far"


def test_allies_can_be_walked_through_but_not_foes() -> None:
    """ "A Character can not walk through other character, unless they are allies"."""
    state = in_combat(
        fighter("a", "heroes"),
        fighter("f", "heroes", 1, 0),
        fighter("g", "foes", 1, 1),
    )
    Fight(state).do(MoveTiles("a", (Cell(1, 0), Cell(2, 0))))
    assert refused(state, MoveTiles("a", (Cell(1, 1), Cell(2, 2)))) == "blocked"


def test_a_move_ends_on_a_free_tile() -> None:
    """ "A Character must end his turn on a free space" (TR21: every move ends on one)."""
    state = in_combat(fighter("a", "heroes"), fighter("f", "heroes", 1, 0), fighter("g", "foes", 5))
    assert refused(state, MoveTiles("a", (Cell(1, 0),))) == "blocked"


def test_blade_warriors_may_share_an_allys_tile() -> None:
    """ "with the exception of Xeragar's Blade Warriors, which can share a tile with an
    ally" (the sheet's `shares_tiles`) - never a foe's."""
    warrior = fighter("a", "heroes", sheet_=sheet("a", shares_tiles=True))
    state = in_combat(warrior, fighter("f", "heroes", 1, 0), fighter("g", "foes", 0, 1))
    Fight(state).do(MoveTiles("a", (Cell(1, 0),)))
    assert refused(state, MoveTiles("a", (Cell(0, 1),))) == "blocked"


def test_the_dead_block_no_tile() -> None:
    dead = evolve(fighter("g", "foes", 1, 0), dead=True, hit_points=0)
    Fight(in_combat(fighter("a", "heroes"), dead)).do(MoveTiles("a", (Cell(1, 0),)))


def test_bad_paths_are_refused() -> None:
    state = in_combat(fighter("a", "heroes"), fighter("g", "foes", 5, 5))
    assert refused(state, MoveTiles("a", (Cell(2, 0),))) == "not_adjacent"
    assert refused(state, MoveTiles("a", ())) == "invalid_command"
    assert refused(state, MoveTiles("g", (Cell(4, 4),))) == "not_your_turn"
