"""Fainting, the Willpower track, death and Help (T8, T9 Help, TR11-TR13, TR15, TR16)."""

from __future__ import annotations

from server.engine.records import evolve
from server.engine.rulesets.tael.attacks import AttackAction, HitChecked
from server.engine.rulesets.tael.combatant import Preparation, TaelCombatant, TaelStatus
from server.engine.rulesets.tael.damage import DamageTaken, Fainted, WillpowerDcRaised
from server.engine.rulesets.tael.fainting import Died, Help, HelpedUp, WillpowerChecked
from server.engine.rulesets.tael.sheet import TaelSpell
from server.engine.rulesets.tael.spells import SpellAction
from server.engine.rulesets.tael.turns import TurnLost
from server.engine.stack import PassWindow, WindowOpened
from server.engine.turns import EndTurn, TurnStarted
from tests.engine.tael.builders import RIPOSTE, Fight, fighter, in_combat, of, one, refused, sheet


def down(cid: str, side: str, x: int = 0, dc: int = 5, failures: int = 0) -> TaelCombatant:
    """A combatant that has fainted (Willpower +1)."""
    c = fighter(cid, side, x, 0)
    return evolve(c, hit_points=0, fainted=True, willpower_dc=dc, willpower_failures=failures)


def test_zero_hit_points_faints_and_hit_points_stop_at_zero() -> None:
    """T8: "If a character's hit points drop to zero, he will temporarily faint"; no
    damage kills outright (TR11)."""
    weak = evolve(fighter("b", "foes", 1, 0), hit_points=3)
    fight = Fight(in_combat(fighter("a", "heroes"), weak, dice=(15, 8)))
    events = fight.do(AttackAction("a", "b"))
    assert one(events, Fainted).combatant == "b"
    b = fight.who("b")
    assert (b.hit_points, b.fainted, b.dead, b.active, b.willpower_dc) == (0, True, False, False, 5)


def test_a_fainted_character_checks_willpower_and_loses_its_turn() -> None:
    """T8: at the start of each turn, `d20 + Willpower` against the DC (5 at first);
    success raises the DC by 1 (TR15: meets or beats)."""
    fight = Fight(in_combat(fighter("a", "heroes"), down("b", "foes", 1), dice=(4,)))
    events = fight.do(EndTurn("a"))
    check = one(events, WillpowerChecked)
    assert (check.roll.total, check.dc, check.success, check.failures) == (5, 5, True, 0)
    assert one(events, TurnLost).reason == "fainted"
    assert fight.state.current == "a" and fight.state.round == 2
    assert fight.who("b").willpower_dc == 6 and fight.who("b").fainted


def test_two_failed_checks_in_a_row_kill() -> None:
    """T8: "If a character fails two Willpower checks in a row without the character
    recieving help, he will die"; a success in between breaks the row."""
    fight = Fight(in_combat(fighter("a", "heroes"), down("b", "foes", 1), dice=(2, 9, 3, 2)))
    fight.do(EndTurn("a"))  # 2 + 1 = 3 < 5: first failure
    assert fight.who("b").willpower_failures == 1
    fight.do(EndTurn("a"))  # 9 + 1 = 10: success, DC 6, the row is broken
    assert fight.who("b").willpower_failures == 0 and fight.who("b").willpower_dc == 6
    fight.do(EndTurn("a"))  # 3 + 1 = 4 < 6: failure
    events = fight.do(EndTurn("a"))  # 2 + 1 < 6: the second in a row
    assert one(events, Died).combatant == "b"
    assert fight.who("b").dead and not fight.who("b").fainted
    events = fight.do(EndTurn("a"))
    assert [e.combatant for e in of(events, TurnStarted)] == ["a"]  # the dead have no turns
    assert fight.replays()


def test_a_natural_1_fails_whatever_the_willpower() -> None:
    """T8: "A critical failure ... be considered a normal fail" (TR15: it always fails)."""
    strong = evolve(down("b", "foes", 1), sheet=sheet("b", willpower=10))
    fight = Fight(in_combat(fighter("a", "heroes"), strong, dice=(1,)))
    assert not one(fight.do(EndTurn("a")), WillpowerChecked).success


def test_a_natural_20_stands_up_with_1_hit_point_and_takes_the_turn() -> None:
    """T8: "A critical success ... will instantly get you up with 1 hitpoint, allowing
    you to take your turn as usual"."""
    fight = Fight(in_combat(fighter("a", "heroes"), down("b", "foes", 1, dc=12), dice=(20, 15, 1)))
    events = fight.do(EndTurn("a"))
    assert one(events, WillpowerChecked).stood_up
    assert of(events, TurnLost) == []
    assert fight.state.current == "b"
    b = fight.who("b")
    assert (b.hit_points, b.fainted, b.willpower_dc) == (1, False, 5)
    fight.do(AttackAction("b", "a"))  # it plays its turn


def test_a_hit_on_a_fainted_character_raises_its_dc_by_5() -> None:
    """T8: "Everytime the character is hit by an attack again while down, the DC will
    increase by 5"; a miss does not."""
    fight = Fight(in_combat(fighter("a", "heroes"), down("b", "foes", 1, dc=6), dice=(15, 3)))
    events = fight.do(AttackAction("a", "b"))
    assert one(events, HitChecked).hit
    assert one(events, WillpowerDcRaised).dc == 11
    assert fight.who("b").hit_points == 0 and of(events, Fainted) == []
    fight = Fight(in_combat(fighter("a", "heroes"), down("b", "foes", 1, dc=6), dice=(2,)))
    events = fight.do(AttackAction("a", "b"))
    assert of(events, WillpowerDcRaised) == [] and fight.who("b").willpower_dc == 6


def test_help_stands_a_fainted_ally_up_in_its_old_place() -> None:
    """T9 Help: "He will return to the turn order where he originally was and will have
    one hit point"; it spends the default Action, on an ally next to the helper (TR16)."""
    state = in_combat(
        fighter("a", "heroes"),
        fighter("g", "foes", 5, 0),
        down("c", "heroes", 1, dc=9, failures=1),
        dice=(),
    )
    fight = Fight(state)
    events = fight.do(Help("a", "c"))
    assert one(events, HelpedUp).slot == "universal"
    c = fight.who("c")
    assert (c.hit_points, c.fainted, c.willpower_dc, c.willpower_failures) == (1, False, 5, 0)
    assert [s.combatant for s in fight.state.turn_order] == ["a", "g", "c"]
    fight.do(EndTurn("a"))
    fight.do(EndTurn("g"))
    assert fight.state.current == "c"  # its own turn, where it was


def test_help_is_refused_for_the_standing_the_far_and_foes() -> None:
    state = in_combat(
        fighter("a", "heroes"),
        fighter("b", "heroes", 1, 0),
        down("c", "heroes", 3),
        down("g", "foes", 0),
    )
    assert refused(state, Help("a", "b")) == "not_fainted"
    assert refused(state, Help("a", "c")) == "out_of_reach"
    two_away = in_combat(fighter("a", "heroes"), down("c", "heroes", 2), fighter("g", "foes", 5))
    assert refused(two_away, Help("a", "c")) == "out_of_reach"  # TR16: one tile
    assert refused(state, Help("a", "g")) == "invalid_command"
    assert refused(state, Help("a", "a")) == "invalid_command"


def test_a_round_of_nobody_able_stops_for_the_gm() -> None:
    """TR17: when nobody could take a turn in a whole round, play stops at the start of
    the next; the GM's EndTurn plays the next round."""
    state = in_combat(fighter("a", "heroes"), down("b", "foes", 1), dice=(10, 10, 10))
    state = evolve(
        state,
        combatants={
            **state.combatants,
            "a": evolve(state.combatants["a"], hit_points=0, fainted=True),
        },
    )
    fight = Fight(state)
    events = fight.do(EndTurn(""))  # the GM ends a's turn: b checks, round 2 begins
    assert fight.state.current is None and fight.state.round == 2
    assert [c.combatant for c in of(events, WillpowerChecked)] == ["b"]
    events = fight.do(EndTurn(""))  # the GM plays round 2: both check
    assert [c.combatant for c in of(events, WillpowerChecked)] == ["a", "b"]
    assert fight.state.current is None and fight.state.round == 3


def test_a_fainted_character_takes_no_status_damage() -> None:
    """TR12: statuses do not hurt the fainted (no hit points left, and not an attack, so
    no +5 to the DC); they still count down."""
    burning = evolve(down("b", "foes", 1), statuses=(TaelStatus("Burning", 2, "1d4"),))
    fight = Fight(in_combat(fighter("a", "heroes"), burning, dice=(9,)))
    events = fight.do(EndTurn("a"))
    assert of(events, DamageTaken) == [] and fight.who("b").willpower_dc == 6
    assert fight.who("b").statuses[0].turns == 1


def test_fainting_ends_the_preparation_and_the_brace() -> None:
    """TR13: a fresh Willpower track at DC 5; its preparation is lost."""
    guard = evolve(
        fighter("b", "foes", 1, 0, sheet_=sheet("b", preparations=(RIPOSTE,))),
        hit_points=2,
        preparation=Preparation.OPEN,
        braced=True,
        hidden=True,
    )
    fight = Fight(in_combat(fighter("a", "heroes"), guard, dice=(15, 8)))
    window = one(fight.do(AttackAction("a", "b")), WindowOpened).window
    fight.do(PassWindow("b", window.id))
    b = fight.who("b")
    assert (b.fainted, b.preparation, b.braced, b.hidden) == (True, "none", False, False)


def test_a_spell_that_hits_a_fainted_character_raises_its_dc_by_5() -> None:
    """T8: "hit by an attack again while down": a spell's hit check is an attack (T4)."""
    bolt = TaelSpell("Bolt", school="storm", damage="1d4", reach=6)
    mage = fighter(
        "m", "heroes", sheet_=sheet("m", magic=2, magic_schools=("storm",), spells=(bolt,))
    )
    fight = Fight(in_combat(mage, down("b", "foes", 2, dc=6), dice=(10, 3)))
    events = fight.do(SpellAction("m", "Bolt", ("b",)))
    assert one(events, WillpowerDcRaised).dc == 11 and fight.who("b").willpower_dc == 11
