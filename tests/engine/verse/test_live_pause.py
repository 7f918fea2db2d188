"""Pause in the engine (V24): while paused, only resume and GM overrides are accepted.

The room freezes the timers (tests/room); here, the engine's side: what is refused,
who may resume, and that the round goes on from where it stood. Each scenario ends
by replaying its log.
"""

from __future__ import annotations

import pytest

from server.engine import execute
from server.engine.commands import (
    CloseWindow,
    Pause,
    Paused,
    RefusePause,
    Resume,
    Resumed,
    WindowExpired,
)
from server.engine.errors import CommandRefused
from server.engine.flow import WindowKind
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.rulesets.verse.live import Answer, Declare, PassWindow
from server.engine.rulesets.verse.stances import SetStance
from server.engine.rulesets.verse.windows import WindowClosed
from tests.engine.verse.builders import fighter
from tests.engine.verse.live_script import Fight, names, one, started_live


def dodge_window() -> Fight:
    """g1 attacks Ayla; her Dodge window (8 s) is open."""
    ayla = fighter("ayla", "pc", 0, 0)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # g1 first (15 + 2). Its attack: 2 (a miss).
    fight = started_live(ayla, g1, dice=(5, 15, 2))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    fight.do(WindowExpired(fight.window.id))
    assert fight.asked() == {"ayla": ("dodge", "block")}
    return fight


def test_while_paused_only_resume_and_gm_overrides_are_accepted() -> None:
    """V24: a player pauses; answers, timers and new pauses are refused with `paused`;
    only the one who paused (or the GM) may resume, and the window is as it was."""
    fight = dodge_window()
    window = fight.window

    assert fight.do(Pause("ayla")) == [Paused("ayla")] and fight.state.paused_by == "ayla"
    assert fight.refused(Answer("ayla", window.id, "dodge")) == "paused"
    assert fight.refused(PassWindow("ayla", window.id)) == "paused"
    assert fight.refused(WindowExpired(window.id)) == "paused"  # the room's timer is frozen
    assert fight.refused(Pause("g1")) == "paused"
    assert fight.refused(Resume("g1")) == "paused"  # not the one who paused, not the GM

    events = fight.do(Resume("ayla"))
    assert names(events) == ["Resumed"]
    assert fight.state.paused_by == "" and fight.state.window == window
    events = fight.do(Answer("ayla", window.id, "dodge"))  # the round goes on
    assert one(events, AttackRolled).outcome == "miss"
    assert fight.refused(Resume("ayla")) == "not_paused"
    assert fight.replays()


def test_the_gm_resumes_a_players_pause_or_refuses_it() -> None:
    """V24: the GM can lift any player's pause, or refuse (overrule) it."""
    fight = dodge_window()
    fight.do(Pause("ayla"))
    events = fight.do(Resume("gm"))
    assert events == [Resumed("gm")] and not fight.state.paused_by

    fight.do(Pause("ayla"))
    events = fight.do(RefusePause())
    assert events == [Resumed("gm", refused=True)] and not fight.state.paused_by
    assert fight.refused(RefusePause()) == "not_paused"
    fight.pass_windows()
    assert fight.replays()


def test_a_gm_override_closes_a_window_while_paused_and_the_flow_goes_on_at_resume() -> None:
    """V24: a GM override (closing a window) is accepted while paused, but nothing
    resolves until the fight resumes; then the round goes on from there."""
    fight = dodge_window()
    fight.do(Pause("gm"))
    events = fight.do(CloseWindow(fight.window.id))
    assert names(events) == ["WindowClosed"]
    assert one(events, WindowClosed).reason == "closed by the GM"
    assert fight.state.window is None and len(fight.state.pending) == 1  # g1's attack waits

    events = fight.do(Resume("gm"))
    assert names(events)[:3] == ["Resumed", "ActionStarted", "AttackRolled"]
    assert not fight.state.pending
    assert fight.window.kind == WindowKind.PLANNING and fight.state.round == 2
    assert fight.replays()


def test_declarations_wait_for_the_end_of_a_pause_in_the_planning_window() -> None:
    ayla = fighter("ayla", "pc", 0, 0)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    fight = started_live(ayla, g1, dice=(5, 15))
    fight.do(Pause("ayla"))
    assert fight.refused(Declare("g1", (SetStance("g1", "defensive"),))) == "paused"
    fight.do(Resume("ayla"))
    fight.do(Declare("g1", (SetStance("g1", "defensive"),)))
    assert fight.window.answered == ("g1",)
    assert fight.replays()


def test_a_player_may_not_lift_the_gms_pause_and_is_told_who_may() -> None:
    fight = dodge_window()
    fight.do(Pause("gm"))
    with pytest.raises(CommandRefused) as refusal:
        execute(fight.state, Resume("ayla"))
    assert refusal.value.code == "paused"
    assert refusal.value.message == "only the GM, who paused, may resume"
