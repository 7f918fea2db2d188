"""The end of combat (T10)."""

from __future__ import annotations

from server.engine.commands import CombatEnded, EndCombat
from server.engine.flow import Ask, Window
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


def test_everyone_agreeing_to_stop_lets_the_gm_end_a_fight_nobody_has_lost() -> None:
    """T10's "everyone agrees to stop the fight" (TR39): both sides stand, so a plain
    end is refused; the GM ends it as agreed, and the log says so."""
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("g", "foes", 1, 0)))
    assert fight.refused(EndCombat()) == "combat_not_over"
    ended = one(fight.do(EndCombat(agreed=True)), CombatEnded)
    assert ended == CombatEnded((), (), agreed=True)
    assert fight.state.phase == "ended"
    assert fight.replays()


def test_an_agreed_end_still_waits_for_an_open_window_and_must_be_well_formed() -> None:
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("g", "foes", 1, 0)))
    assert fight.refused(EndCombat(agreed="yes")) == "invalid_command"  # type: ignore[arg-type]
    waiting = Window(1, "reaction", (Ask("g", ("Riposte",)),), 8.0)
    fight.state = evolve(fight.state, window=waiting)
    assert fight.refused(EndCombat(agreed=True)) == "window_open"
    fight.state = evolve(fight.state, window=None, phase="setup")
    assert fight.refused(EndCombat(agreed=True)) == "wrong_phase"


def test_a_side_that_is_out_ends_with_or_without_the_agreement_said() -> None:
    """The agreement is recorded either way; it changes nothing about who is out."""
    gave_up = evolve(fighter("g", "foes", 1, 0), surrendered=True)
    fight = Fight(in_combat(fighter("a", "heroes"), gave_up))
    ended = one(fight.do(EndCombat(agreed=True)), CombatEnded)
    assert (ended.defeated, ended.fallen, ended.agreed) == (("foes",), (), True)
