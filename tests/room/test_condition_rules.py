"""The GM's change to the conditions table through the room (V27): logged, rewound and
replayed like any override."""

from __future__ import annotations

import pytest

from server.engine.commands import Rewind
from server.engine.condition_table import RemoveConditionRule, SetConditionRule
from server.engine.core import replay
from server.engine.effects import Change, ConditionRule
from server.engine.flow import Mode
from server.engine.rulesets.verse.turns import StartCombat
from server.engine.state import Settings
from server.eventlog.memory import MemoryEventLog
from server.room import Countdown, FakeClock
from tests.engine.verse.builders import encounter, fighter, in_combat
from tests.room.conftest import MakeRoom
from tests.room.support import GM

PRONE = ConditionRule("Prone", (Change("defence.pd", "add", -2),))


async def test_a_table_change_is_logged_rewound_and_replayed(
    make_room: MakeRoom, log: MemoryEventLog
) -> None:
    gob = fighter("gob", "gm", x=1).with_condition("Prone")
    room = await make_room(in_combat(fighter("ayla", "pc"), gob, seed=3))

    await room.submit(GM, SetConditionRule(PRONE))
    assert room.state.condition_rules == (PRONE,)
    await room.submit(GM, Rewind(0))  # before the GM ruled Prone
    assert room.state.condition_rules == ()
    await room.submit(GM, SetConditionRule(PRONE))

    events = [entry.event for entry in await log.read(room.room_id)]
    assert replay(room.initial, events).state_hash() == room.state.state_hash()
    assert room.state.condition_rules == (PRONE,)


async def test_a_window_whose_expiry_fails_gets_its_countdown_again_and_the_fight_goes_on(
    make_room: MakeRoom, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """A round's end that cannot be played (an entry from before R82's bounds whose
    damage cannot be rolled) fails the planning window's expiry: the error is logged,
    the window stays open with a fresh countdown, and once the GM takes the entry out
    the next expiry ends the round."""
    unrollable = ConditionRule("Bleed", damage="+".join(["1d4"] * 3000))
    state = encounter(
        fighter("ayla", "heroes", 0, 0),
        fighter("g1", "goblins", 1, 0).with_condition("Bleed"),
        seed=3,
        mode=Mode.LIVE,
        settings=Settings(planning_seconds=45.0),
        condition_rules=(unrollable,),
    )
    room = await make_room(state)
    await room.submit(GM, StartCombat())
    window = room.state.window
    assert window is not None and room.state.round == 1

    await clock.advance(45.0)
    assert (room.state.round, room.state.window) == (1, window)  # nothing was applied
    assert room.countdown == Countdown(window.id, 45.0, clock.now() + 45.0)
    assert "WindowExpired" in caplog.text and "DiceExpressionError" in caplog.text

    await clock.advance(45.0)  # it tries again, and again fails while the entry stands
    assert room.state.window == window and room.countdown is not None
    await room.submit(GM, RemoveConditionRule("Bleed"))
    await clock.advance(45.0)
    assert room.state.round == 2
    assert room.state.window is not None and room.state.window.id > window.id
