"""V24 through the room, on real windows of both rule systems: a pause the GM refuses
is as if it never happened (the timers ran all along); one the GM lets stand keeps its
time until it is resumed. The room's fake clock stands in for time."""

from __future__ import annotations

import pytest

from server.engine.commands import Pause, RefusePause, Resume, Resumed
from server.engine.core import Event, replay
from server.engine.flow import WindowKind
from server.engine.records import evolve
from server.engine.rulesets.tael.attacks import AttackAction
from server.engine.rulesets.tael.preparations import Prepare
from server.engine.stack import PassWindow, WindowClosed
from server.engine.state import Settings
from server.engine.turns import EndTurn, StartCombat
from server.eventlog.memory import MemoryEventLog
from server.room import FakeClock, Room
from tests.room.conftest import MakeRoom
from tests.room.support import AYLA, GM
from tests.room.test_tael_fight import KAELEN, TOBIN, the_pass
from tests.room.test_verse_live import live_room


async def logged(log: MemoryEventLog) -> list[Event]:
    return [entry.event for entry in await log.read("room-1")]


async def replays(room: Room, log: MemoryEventLog) -> bool:
    events = await logged(log)
    return replay(room.initial, events).state_hash() == room.state.state_hash()


# --- Verse: the planning window (45 s) ------------------------------------------------------


async def test_verse_a_refused_pause_leaves_the_time_it_would_have_had(
    make_room: MakeRoom, clock: FakeClock, log: MemoryEventLog
) -> None:
    """Ayla pauses with 10 s left in planning; 4 s later the GM refuses: 6 s left."""
    room = await live_room(make_room)
    await clock.advance(35.0)
    await room.submit(AYLA, Pause("ayla"))
    await clock.advance(4.0)

    ack = await room.submit(GM, RefusePause())

    assert ack.events == (Resumed("gm", refused=True),)
    countdown = room.countdown
    assert countdown is not None and countdown.remaining == pytest.approx(6.0)
    await clock.advance(5.9)
    assert room.state.round == 1
    await clock.advance(0.1)
    assert room.state.round == 2
    assert await replays(room, log)


async def test_verse_a_window_that_ran_out_during_a_refused_pause_closes_at_once(
    make_room: MakeRoom, clock: FakeClock, log: MemoryEventLog
) -> None:
    """Paused with 3 s left, refused 5 s later: the planning window closes at once as a
    timeout would close it (the undeclared pass, the round resolves)."""
    room = await live_room(make_room)
    planning = room.state.window
    assert planning is not None and planning.kind == WindowKind.PLANNING
    await clock.advance(42.0)
    await room.submit(AYLA, Pause("ayla"))
    await clock.advance(5.0)

    await room.submit(GM, RefusePause())
    await clock.advance(0.0)

    events = await logged(log)
    refused_at = events.index(Resumed("gm", refused=True))
    assert events[refused_at + 1] == WindowClosed(planning.id, "expired")
    assert room.state.round == 2
    assert await replays(room, log)


async def test_verse_a_pause_the_gm_lets_stand_keeps_its_time(
    make_room: MakeRoom, clock: FakeClock, log: MemoryEventLog
) -> None:
    """The GM does not refuse: two minutes later Ayla resumes with her 10 s intact."""
    room = await live_room(make_room)
    await clock.advance(35.0)
    await room.submit(AYLA, Pause("ayla"))
    await clock.advance(120.0)

    await room.submit(AYLA, Resume("ayla"))

    countdown = room.countdown
    assert countdown is not None and countdown.remaining == pytest.approx(10.0)
    await clock.advance(9.9)
    assert room.state.round == 1
    await clock.advance(0.1)
    assert room.state.round == 2
    assert await replays(room, log)


# --- World of Tael: a reaction window set off by a preparation (12 s here) ------------------


async def tael_window(make_room: MakeRoom) -> Room:
    """The bandit attacks Kaelen in round 2; Kaelen's Riposte and Tobin's Covering Shot
    are asked in a reaction window of 12 s (the fight of `test_tael_fight.py`)."""
    room = await make_room(evolve(the_pass(), settings=Settings(reaction_seconds=12.0)))
    await room.submit(GM, StartCombat())
    await room.submit(GM, EndTurn("bandit"))
    await room.submit(KAELEN, AttackAction("kaelen", "bandit"))
    asked = room.state.window
    assert asked is not None
    await room.submit(GM, PassWindow("bandit", asked.id))
    await room.submit(KAELEN, EndTurn("kaelen"))
    await room.submit(KAELEN, Prepare("kaelen", "Riposte"))
    await room.submit(TOBIN, EndTurn("tobin"))
    await room.submit(GM, AttackAction("bandit", "kaelen"))
    window = room.state.window
    assert window is not None and {a.combatant for a in window.asked} == {"kaelen", "tobin"}
    return room


async def test_tael_a_refused_pause_leaves_the_time_it_would_have_had(
    make_room: MakeRoom, clock: FakeClock, log: MemoryEventLog
) -> None:
    """Tobin pauses with 10 s left to answer; 4 s later the GM refuses: 6 s left."""
    room = await tael_window(make_room)
    window = room.state.window
    assert window is not None
    await clock.advance(2.0)
    await room.submit(TOBIN, Pause("tobin"))
    await clock.advance(4.0)

    await room.submit(GM, RefusePause())

    countdown = room.countdown
    assert countdown is not None and countdown.remaining == pytest.approx(6.0)
    await clock.advance(5.9)
    assert room.state.window == window
    await clock.advance(0.1)
    assert room.state.window is None
    assert WindowClosed(window.id, "expired") in await logged(log)
    assert await replays(room, log)


async def test_tael_a_window_that_ran_out_during_a_refused_pause_closes_at_once(
    make_room: MakeRoom, clock: FakeClock, log: MemoryEventLog
) -> None:
    """Paused with 3 s left, refused 5 s later: the window closes at once as a timeout
    and the bandit's attack resolves, nobody having answered."""
    room = await tael_window(make_room)
    window = room.state.window
    assert window is not None
    await clock.advance(9.0)
    await room.submit(TOBIN, Pause("tobin"))
    await clock.advance(5.0)

    await room.submit(GM, RefusePause())
    await clock.advance(0.0)

    events = await logged(log)
    refused_at = events.index(Resumed("gm", refused=True))
    assert events[refused_at + 1] == WindowClosed(window.id, "expired")
    assert room.state.window is None and room.state.current == "bandit"
    assert await replays(room, log)


async def test_tael_a_pause_the_gm_lets_stand_keeps_its_time(
    make_room: MakeRoom, clock: FakeClock, log: MemoryEventLog
) -> None:
    room = await tael_window(make_room)
    await clock.advance(2.0)
    await room.submit(TOBIN, Pause("tobin"))
    await clock.advance(300.0)

    await room.submit(GM, Resume("gm"))

    countdown = room.countdown
    assert countdown is not None and countdown.remaining == pytest.approx(10.0)
    await clock.advance(9.9)
    assert room.state.window is not None
    await clock.advance(0.1)
    assert room.state.window is None
    assert await replays(room, log)
