"""The end of combat (T10)."""

from __future__ import annotations

from server.engine.commands import CombatEnded, EndCombat
from server.engine.records import evolve
from server.engine.rulesets.tael.attacks import AttackAction
from server.engine.turns import EndTurn
from tests.engine.tael.builders import Fight, fighter, in_combat, one


def test_the_gm_ends_combat_once_a_side_is_all_down() -> None:
    """T10: "every character in a group has either died, fainted or surrendered, and
    everyone agrees to stop the fight" - the GM confirms."""
    dead = evolve(fighter("g2", "foes", 2, 0), dead=True, hit_points=0)
    weak = evolve(fighter("g1", "foes", 1, 0), hit_points=1)
    fight = Fight(in_combat(fighter("a", "heroes"), weak, dead, dice=(15, 1)))
    assert fight.refused(EndCombat()) == "combat_not_over"
    fight.do(AttackAction("a", "g1"))  # g1 faints
    ended = one(fight.do(EndCombat()), CombatEnded)
    assert (ended.defeated, ended.fallen) == (("foes",), ("foes",))
    assert fight.state.phase == "ended"
    assert fight.refused(EndTurn("a")) == "wrong_phase"
    assert fight.refused(AttackAction("a", "g1")) == "wrong_phase"
    assert fight.replays()


def test_a_side_that_is_all_fainted_or_dead_has_fallen() -> None:
    """T10: "When all player characters faint or die during combat, the campaign fails":
    `fallen` names such a side; a side that surrendered is defeated, not fallen."""
    fainted = evolve(fighter("a", "heroes"), fainted=True, hit_points=0)
    gave_up = evolve(fighter("g", "foes", 1, 0), surrendered=True)
    fight = Fight(in_combat(fighter("b", "heroes", 0, 1), fainted, gave_up))
    ended = one(fight.do(EndCombat()), CombatEnded)
    assert (ended.defeated, ended.fallen) == (("foes",), ())
    fight = Fight(in_combat(fighter("g", "foes", 1, 0), fainted))
    ended = one(fight.do(EndCombat()), CombatEnded)
    assert (ended.defeated, ended.fallen) == (("heroes",), ("heroes",))
