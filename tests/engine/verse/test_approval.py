"""Verse Master approval (R73): Counter and Quick Response Actions without the feat."""

from __future__ import annotations

from server.engine.commands import WindowExpired
from server.engine.flow import WindowKind
from server.engine.rulesets.verse.approval import (
    ApprovalWithdrawn,
    ApproveFeat,
    FeatApproved,
    WithdrawApproval,
)
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.rulesets.verse.live import Declare, PassWindow
from server.engine.views import SPECTATORS, event_view
from tests.engine.verse.builders import fighter
from tests.engine.verse.live_script import Fight, one, started_live


def miss_on_bram(approve: bool) -> tuple[Fight, list[str]]:
    """g1 attacks Bram and misses; Ayla beside g1 has no Counter feat of her own."""
    ayla = fighter("ayla", "pc", 0, 0)
    bram = fighter("bram", "pc", 2, 0)
    g1 = fighter("g1", "gm", 1, 0)
    # Initiative: ayla 4, bram 5, g1 17. g1 on Bram: 2 (7, a miss).
    fight = started_live(ayla, bram, g1, dice=(2, 3, 15, 2))
    if approve:
        assert fight.do(ApproveFeat("ayla", "counter")) == [FeatApproved("ayla", "counter")]
    fight.do(Declare("g1", (Attack("g1", "bram", "longsword"),)))
    fight.do(WindowExpired(fight.window.id))
    events = fight.do(PassWindow("bram", fight.window.id))
    assert one(events, AttackRolled).outcome == "miss"
    window = fight.state.window
    asked = [] if window is None or window.kind != WindowKind.COUNTER else list(fight.asked())
    return fight, asked


def test_the_gm_approves_a_counter_without_the_feat() -> None:
    assert miss_on_bram(approve=False)[1] == []
    fight, asked = miss_on_bram(approve=True)
    assert asked == ["ayla"]
    assert fight.replays()


def test_an_approval_is_withdrawn_and_only_an_approval() -> None:
    fight, _ = miss_on_bram(approve=True)
    assert fight.do(WithdrawApproval("ayla", "counter")) == [ApprovalWithdrawn("ayla", "counter")]
    assert not fight.who("ayla").sheet.has_feat("counter")
    assert fight.refused(WithdrawApproval("ayla", "counter")) == "invalid_command"
    assert fight.refused(ApproveFeat("ayla", "defensive")) == "invalid_command"
    assert fight.refused(ApproveFeat("ghost", "counter")) == "unknown_combatant"
    assert fight.replays()


def test_other_sides_see_that_the_gm_approved_something_not_what() -> None:
    fight, _ = miss_on_bram(approve=False)
    event = FeatApproved("ayla", "quick_response")
    assert event_view(event, fight.state, SPECTATORS) == {
        "$type": "FeatApproved",
        "combatant": "ayla",
    }
