"""The end of the fight in Verse (R70): the text has none, so the GM ends it.

Before this, a Live fight whose last foe had fallen opened a new round and planning
window every 45 seconds for ever, and nothing the GM could send stopped it.
"""

from __future__ import annotations

import pytest

from server.engine import execute
from server.engine.commands import CombatEnded, EndCombat, Pause
from server.engine.errors import CommandRefused
from server.engine.flow import WindowKind
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.live import Declare
from server.engine.rulesets.verse.overrides import SetCondition
from server.engine.rulesets.verse.turns import EndTurn, StartCombat
from server.engine.state import Phase
from tests.engine.verse.builders import encounter, fighter, refused
from tests.engine.verse.test_overrides import live_duel


def test_the_gm_ends_a_live_fight_whose_foes_are_all_dead() -> None:
    log = live_duel()
    log.do(SetCondition("gob", "Dead"))
    assert log.state.window is not None and log.state.window.kind == WindowKind.PLANNING
    assert log.do(EndCombat()) == [CombatEnded(defeated=("gm",), fallen=("gm",))]
    state = log.state
    assert state.phase == Phase.ENDED
    # Nothing is left to run: no window (so no countdown), no stack, no declarations.
    assert state.window is None and state.pending == () and state.declarations == ()
    assert refused(state, Declare("ayla", (Attack("ayla", "gob", "longsword"),))) != ""
    assert refused(state, EndCombat()) == "wrong_phase"
    assert log.replays()


def test_the_gm_may_end_a_fight_while_both_sides_stand_even_paused() -> None:
    """A parley or a flight ends a fight too: the table judges it, so the GM may end it
    at any time, even paused (the pause ends with it)."""
    log = live_duel()
    log.do(Declare("ayla", (Attack("ayla", "gob", "longsword"),)))
    log.do(Pause("ayla"))
    assert log.do(EndCombat()) == [CombatEnded(defeated=(), fallen=())]
    assert log.state.phase == Phase.ENDED and log.state.paused_by == ""
    assert log.replays()


def test_the_log_says_when_the_fight_ended_by_everyones_agreement() -> None:
    """`EndCombat.agreed` (shared with Tael, T10): Verse's GM may end a fight any time
    (R70); saying everyone agreed only records it."""
    log = live_duel()
    assert log.do(EndCombat(agreed=True)) == [CombatEnded((), (), agreed=True)]
    assert log.replays()


def test_a_side_that_cannot_act_is_defeated_but_not_fallen_while_alive() -> None:
    log = live_duel()
    log.do(SetCondition("gob", "Unconscious"))
    assert log.do(EndCombat()) == [CombatEnded(defeated=("gm",), fallen=())]


def test_a_fight_that_has_not_started_cannot_end() -> None:
    state = encounter(fighter("ayla", "pc"), fighter("gob", "gm", x=1))
    assert refused(state, EndCombat()) == "wrong_phase"


def test_after_the_end_nothing_restarts_the_fight_or_pauses_it() -> None:
    log = live_duel()
    log.do(EndCombat())
    for command in (StartCombat(), Pause("gm"), EndTurn("ayla")):
        with pytest.raises(CommandRefused) as refusal:
            execute(log.state, command)
        assert refusal.value.code == "wrong_phase"
        assert "the fight has ended" in refusal.value.message
