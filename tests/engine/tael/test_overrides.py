"""GM overrides (RULINGS: every reading overridable by the GM, as an event) and who may
send Tael's commands."""

from __future__ import annotations

from server.engine.authority import GM, Principal, Role, may_issue
from server.engine.commands import EndCombat, Pause
from server.engine.records import evolve
from server.engine.rulesets.tael.attacks import AttackAction
from server.engine.rulesets.tael.combatant import TaelStatus
from server.engine.rulesets.tael.damage import DamageTaken, Fainted
from server.engine.rulesets.tael.overrides import (
    HitPointsSet,
    RemoveStatus,
    SetHitPoints,
    SetStatus,
)
from server.engine.rulesets.tael.preparations import Prepare
from server.engine.rulesets.tael.statuses import StatusEnded, StatusGained
from server.engine.rulesets.tael.turns import TurnLost
from server.engine.settings import SetSetting, SettingChanged
from server.engine.stack import Answer
from server.engine.turns import EndTurn
from server.engine.views import SPECTATORS, event_view
from tests.engine.tael.builders import Fight, fighter, in_combat, one

PLAYER = Principal(Role.PLAYER, controls=("a",), name="a")


def test_the_gm_heals_a_fainted_character_up_and_drops_a_standing_one() -> None:
    """T8: a fainted character is up again when "a teammate helps him up or heals him":
    the GM's `SetHitPoints` above 0 stands it up; 0 makes a standing one faint (TR34)."""
    down = evolve(fighter("b", "foes", 1, 0), fainted=True, hit_points=0, willpower_dc=11)
    fight = Fight(in_combat(fighter("a", "heroes"), down))
    event = one(fight.do(SetHitPoints("b", 6)), HitPointsSet)
    assert (event.previous, event.stood_up) == (0, True)
    b = fight.who("b")
    assert (b.hit_points, b.fainted, b.willpower_dc) == (6, False, 5)
    assert event_view(event, fight.state, SPECTATORS) == {
        "$type": "HitPointsSet",
        "combatant": "b",
        "stood_up": True,
        "health_state": "bloodied",
    }
    assert one(fight.do(SetHitPoints("a", 0)), Fainted).combatant == "a"
    assert fight.refused(SetHitPoints("a", 21)) == "invalid_command"
    assert fight.refused(SetHitPoints("ghost", 1)) == "unknown_combatant"
    assert fight.replays()


def test_the_gm_removes_a_status() -> None:
    burning = evolve(fighter("b", "foes", 1, 0), statuses=(TaelStatus("Burning", 2, "1d4"),))
    fight = Fight(in_combat(fighter("a", "heroes"), burning))
    assert one(fight.do(RemoveStatus("b", "Burning")), StatusEnded).status == "Burning"
    assert fight.who("b").statuses == ()
    assert fight.refused(RemoveStatus("b", "Burning")) == "invalid_command"


def test_the_gm_lays_a_status_it_rules() -> None:
    """TR37: no resist check; it lasts the target's own turns, may deal damage at the
    start of each and may make it lose them, as a sheet's status effect (TR14)."""
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 1, 0), dice=(3,)))
    gained = one(fight.do(SetStatus("b", "Frozen", 1, "1d4", skips_turn=True)), StatusGained)
    assert gained.status == TaelStatus("Frozen", 1, "1d4", True, source="gm")
    events = fight.do(EndTurn("a"))
    assert one(events, DamageTaken).taken == 3 and one(events, TurnLost).combatant == "b"
    assert fight.who("b").statuses == ()  # its one turn is over
    assert fight.refused(SetStatus("b", "", 1)) == "invalid_command"
    assert fight.refused(SetStatus("b", "Frozen", 0)) == "invalid_command"
    assert fight.refused(SetStatus("b", "Frozen", 1, "1d")) == "invalid_command"
    assert fight.refused(SetStatus("ghost", "Frozen", 1)) == "unknown_combatant"
    assert fight.replays()


def test_a_status_the_gm_lays_during_the_targets_own_turn_counts_from_its_next_turn() -> None:
    """TR38: the GM stuns a for one turn during a's own turn. The turn under way is not
    one the stun lasts (it started unstunned), so a loses its next turn, and only then
    does the stun run out; had it counted this turn, it would have done nothing."""
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 1, 0)))
    gained = one(fight.do(SetStatus("a", "Stunned", 1, skips_turn=True)), StatusGained)
    assert gained.status == TaelStatus("Stunned", 1, "", True, "gm", from_next_turn=True)
    events = fight.do(EndTurn("a"))  # a's own turn ends: the stun has not begun to count
    assert not [e for e in events if isinstance(e, StatusEnded)]
    assert fight.who("a").statuses == (TaelStatus("Stunned", 1, "", True, "gm"),)
    assert fight.state.current == "b"
    events = fight.do(EndTurn("b"))  # round 2: a loses its turn to the stun, then it ends
    assert one(events, TurnLost) == TurnLost("a", "Stunned")
    assert one(events, StatusEnded) == StatusEnded("a", "Stunned")
    assert fight.state.current == "b" and fight.who("a").statuses == ()
    assert fight.replays()


def test_a_longer_status_laid_in_the_targets_turn_lasts_that_many_of_its_next_turns() -> None:
    """TR38: two turns of Burning laid during a's turn burn at the start of a's next
    two turns (1d4: 3, then 2), then run out."""
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 1, 0), dice=(3, 2)))
    fight.do(SetStatus("a", "Burning", 2, "1d4"))
    fight.do(EndTurn("a"))
    fight.do(EndTurn("b"))  # a's first burning turn
    assert fight.who("a").statuses == (TaelStatus("Burning", 2, "1d4", source="gm"),)
    fight.do(EndTurn("a"))
    fight.do(EndTurn("b"))  # a's second
    fight.do(EndTurn("a"))
    taken = [e.taken for e in fight.log if isinstance(e, DamageTaken)]
    assert taken == [3, 2] and fight.who("a").statuses == ()
    assert fight.replays()


def test_overrides_are_accepted_while_paused() -> None:
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 1, 0)))
    fight.do(Pause("gm"))
    assert fight.refused(AttackAction("a", "b")) == "paused"
    fight.do(SetHitPoints("b", 3))


def test_who_may_send_tael_commands() -> None:
    """Game actions, preparations and answers: the controller (or the GM); the end of
    combat and the overrides: the GM alone."""
    assert may_issue(PLAYER, AttackAction("a", "b")) and may_issue(GM, AttackAction("a", "b"))
    assert not may_issue(PLAYER, AttackAction("b", "a"))
    assert may_issue(PLAYER, Prepare("a", "Riposte"))
    assert may_issue(PLAYER, Answer("a", 1, "Riposte"))
    overrides = (SetHitPoints("a", 1), RemoveStatus("a", "Burning"), SetStatus("a", "Frozen", 1))
    for command in (EndCombat(), *overrides):
        assert may_issue(GM, command) and not may_issue(PLAYER, command)


def test_the_gm_sets_how_rolls_are_shown_and_the_reaction_windows_length() -> None:
    """R77: a Tael room takes `SetSetting` for `roll_visibility` and `reaction_seconds`,
    each an event recording the value before; Verse's other settings mean nothing here
    and are refused, changing nothing."""
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 1, 0)))
    assert fight.do(SetSetting("roll_visibility", "hidden")) == [
        SettingChanged("roll_visibility", "hidden", "faces")
    ]
    assert fight.do(SetSetting("reaction_seconds", 12)) == [
        SettingChanged("reaction_seconds", 12.0, 8.0)
    ]
    assert (fight.state.settings.roll_visibility, fight.state.settings.reaction_seconds) == (
        "hidden",
        12.0,
    )
    for name, value in (
        ("critical_tables", True),
        ("undeclared", "hold"),
        ("roll_visibility", "secret"),
        ("reaction_seconds", 0),
    ):
        assert fight.refused(SetSetting(name, value)) == "invalid_command"
    assert fight.replays()
    assert not may_issue(PLAYER, SetSetting("roll_visibility", "open"))
