"""Defensive Stances (T7, TR6, TR9)."""

from __future__ import annotations

from server.engine.grid import Cell
from server.engine.records import evolve
from server.engine.rulesets.tael.attacks import AttackAction, HitChecked
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.generic import Dash
from server.engine.rulesets.tael.movement import MoveTiles
from server.engine.rulesets.tael.sheet import Armour
from server.engine.rulesets.tael.stances import ChooseStance
from server.engine.turns import EndTurn
from tests.engine.tael.builders import Fight, encounter, fighter, in_combat, one, refused, sheet

PLATE = Armour("plate", defensive_value=15, dodge_penalty=3)


def defender(stance: str) -> TaelCombatant:
    base = sheet("b", armour=PLATE, dodging=5, stance=stance)
    return fighter("b", "foes", 1, 0, sheet_=base)


def dv_against(state_defender: TaelCombatant) -> tuple[tuple[tuple[str, int], ...], int]:
    fight = Fight(in_combat(fighter("a", "heroes"), state_defender, dice=(1,)))
    check = one(fight.do(AttackAction("a", "b")), HitChecked)
    return check.defence, check.defensive_value


def test_tanking_takes_the_armour_dv_alone() -> None:
    """T7 Tanking: no Dodging modifier, and no Dodging penalties."""
    assert dv_against(defender("tanking")) == ((("Armour", 15),), 15)


def test_dodging_adds_the_dodging_modifier_less_the_dodge_penalty() -> None:
    """T7 Dodging: "add his Dodging Modifier to his DV, but must also subtract any Dodge
    Penalties"."""
    assert dv_against(defender("dodging")) == (
        (("Armour", 15), ("Dodging", 5), ("Dodge penalty", -3)),
        17,
    )


def test_a_fainted_character_dodges_nothing() -> None:
    """TR9: whatever its stance, a fainted character's DV is its armour's."""
    down = evolve(defender("dodging"), fainted=True, hit_points=0)
    assert dv_against(down) == ((("Armour", 15),), 15)


def test_the_stance_changes_for_free_at_the_beginning_of_the_turn_only() -> None:
    """T7: "at any point outside of combat or at the beginning of your turn", no Action."""
    before = Fight(encounter(fighter("a", "heroes"), fighter("b", "foes", 1)))
    before.do(ChooseStance("b", "dodging"))  # outside combat: anyone, any time
    assert before.who("b").stance == "dodging"

    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 3, 0), dice=(1,)))
    fight.do(ChooseStance("a", "dodging"))
    assert fight.who("a").stance == "dodging" and fight.who("a").turn.fresh  # no Action
    assert fight.refused(ChooseStance("b", "dodging")) == "not_your_turn"
    fight.do(MoveTiles("a", (Cell(1, 0),)))
    assert fight.refused(ChooseStance("a", "tanking")) == "wrong_phase"
    fight.do(EndTurn("a"))
    fight.do(ChooseStance("b", "dodging"))


def test_a_stance_after_an_action_is_refused() -> None:
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 3, 0)))
    fight.do(Dash("a"))
    assert fight.refused(ChooseStance("a", "dodging")) == "wrong_phase"


def test_an_unknown_stance_is_refused() -> None:
    state = in_combat(fighter("a", "heroes"), fighter("b", "foes", 1))
    assert refused(state, ChooseStance("a", "aggressive")) == "invalid_command"
