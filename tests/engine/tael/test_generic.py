"""Generic Actions: Dash, Sprint, Brace, Hide (T9, TR18-TR20)."""

from __future__ import annotations

from server.engine.grid import Cell
from server.engine.rulesets.tael.attacks import AttackAction
from server.engine.rulesets.tael.damage import DamageTaken
from server.engine.rulesets.tael.generic import (
    Brace,
    Braced,
    Dash,
    Dashed,
    Hide,
    HideAttempted,
    Sprint,
)
from server.engine.rulesets.tael.movement import MoveTiles
from server.engine.rulesets.tael.preparations import Prepare
from server.engine.rulesets.tael.sheet import TaelClass
from server.engine.turns import EndTurn
from tests.engine.tael.builders import RIPOSTE, Fight, fighter, in_combat, one, sheet


def walk(n: int, y: int = 5) -> tuple[Cell, ...]:
    return tuple(Cell(i, y) for i in range(1, n + 1))


def runner() -> Fight:
    """`a` (Movement 5) at (0, 5), far from `b`."""
    return Fight(in_combat(fighter("a", "heroes", 0, 5), fighter("b", "foes", 0, 0)))


def test_dash_doubles_the_movement_of_this_turn() -> None:
    """T9 Dash, with the default Action; tiles already walked count (TR18)."""
    fight = runner()
    fight.do(MoveTiles("a", walk(3)))
    assert one(fight.do(Dash("a")), Dashed).slot == "universal"
    fight.do(MoveTiles("a", tuple(Cell(i, 5) for i in range(4, 11))))  # 3 + 7 = 10
    assert fight.refused(MoveTiles("a", (Cell(11, 5),))) == "too_far"


def test_sprint_quadruples_it_and_leaves_no_movement_next_turn() -> None:
    """T9 Sprint: x4 this turn, "Movement will be 0 for the next turn"."""
    fight = runner()
    fight.do(Sprint("a"))
    fight.do(MoveTiles("a", walk(20)))
    assert fight.refused(MoveTiles("a", (Cell(21, 5),))) == "too_far"
    fight.do(EndTurn("a"))
    fight.do(EndTurn("b"))
    assert fight.refused(MoveTiles("a", (Cell(21, 5),))) == "too_far"
    fight.do(Dash("a"))  # doubling nothing is nothing
    assert fight.refused(MoveTiles("a", (Cell(21, 5),))) == "too_far"
    fight.do(EndTurn("a"))
    fight.do(EndTurn("b"))
    fight.do(MoveTiles("a", (Cell(21, 5),)))  # the turn after: its movement is back


def test_generic_actions_need_the_default_action() -> None:
    """T9: generic actions use "the default Action available each Turn": a class's
    Attack Action does not do."""
    fighter_sheet = sheet("a", classes=(TaelClass("Blade Warrior", actions=("attack",)),))
    fight = Fight(in_combat(fighter("a", "heroes", sheet_=fighter_sheet), fighter("b", "foes", 5)))
    fight.do(Dash("a"))
    assert fight.refused(Sprint("a")) == "action_used"


def test_brace_halves_incoming_damage_rounded_down() -> None:
    """T9 Brace: "Reduces all incoming damage by 50% (rounded down...)"."""
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 1, 0), dice=(15, 5)))
    fight.do(Brace("a"))
    fight.do(EndTurn("a"))
    taken = one(fight.do(AttackAction("b", "a")), DamageTaken)
    assert (taken.damage, taken.taken, taken.braced) == (7, 3, True)
    assert fight.who("a").hit_points == 17


def test_brace_ends_attacks_for_the_turn_and_the_next_preparation() -> None:
    """T9 Brace: "Cannot attack anymore for this turn after usage and also removes the
    Preparation available during the next Preparation Phase"; it lasts until the
    bracer's next turn (TR19)."""
    guard = sheet(
        "a", classes=(TaelClass("Blade Warrior", actions=("attack",)),), preparations=(RIPOSTE,)
    )
    fight = Fight(in_combat(fighter("a", "heroes", sheet_=guard), fighter("b", "foes", 1, 0)))
    assert one(fight.do(Brace("a")), Braced).slot == "universal"  # the default Action
    assert fight.refused(AttackAction("a", "b")) == "braced"
    assert fight.refused(Dash("a")) == "action_used"
    fight.do(EndTurn("a"))
    assert fight.who("a").preparation == "none"
    assert fight.refused(Prepare("a", "Riposte")) == "no_preparation"
    fight.do(EndTurn("b"))
    assert not fight.who("a").braced


def test_hide_rolls_stealth_for_the_gm_and_attacking_reveals() -> None:
    """T9 Hide: the GM judges the cover; the roll is `d20 + stealth` (TR20)."""
    sneak = sheet("a", skills=(("stealth", 4),))
    fight = Fight(
        in_combat(fighter("a", "heroes", sheet_=sneak), fighter("b", "foes", 1, 0), dice=(11, 2))
    )
    hide = one(fight.do(Hide("a")), HideAttempted)
    assert hide.roll.total == 15 and hide.roll.modifiers == (("Stealth", 4),)
    assert fight.who("a").hidden
    fight.do(EndTurn("a"))
    fight.do(EndTurn("b"))
    fight.do(AttackAction("a", "b"))
    assert not fight.who("a").hidden


def test_a_second_dash_needs_a_second_universal_action() -> None:
    fight = runner()
    fight.do(Dash("a"))
    assert fight.refused(Dash("a")) == "action_used"
    assert fight.who("a").turn.movement_factor == 2
