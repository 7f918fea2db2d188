"""The room running Verse Live Combat (V20, V24): real planning windows on a fake clock."""

from __future__ import annotations

from server.engine.commands import Pause, Resume
from server.engine.core import replay
from server.engine.flow import Mode, WindowKind
from server.engine.rulesets.verse.turns import StartCombat
from server.engine.state import Settings
from server.eventlog.memory import MemoryEventLog
from server.room import FakeClock, Room
from tests.engine.verse.builders import encounter, fighter
from tests.room.conftest import MakeRoom
from tests.room.support import AYLA, GM


async def live_room(make_room: MakeRoom) -> Room:
    state = encounter(
        fighter("ayla", "heroes", 0, 0),
        fighter("g1", "goblins", 1, 0),
        seed=3,
        mode=Mode.LIVE,
        settings=Settings(planning_seconds=45.0),
    )
    room = await make_room(state)
    await room.submit(GM, StartCombat())
    return room


async def test_a_planning_window_nobody_answers_closes_when_its_time_runs_out(
    make_room: MakeRoom, clock: FakeClock, log: MemoryEventLog
) -> None:
    """V20: the window ends when its timer runs out; undeclared combatants pass, the round
    resolves and the next round's planning window gets its own 45 s."""
    room = await live_room(make_room)
    window = room.state.window
    assert window is not None and window.kind == WindowKind.PLANNING and room.state.round == 1

    await clock.advance(44.9)
    assert room.state.window == window
    await clock.advance(0.1)

    following = room.state.window
    assert room.state.round == 2
    assert following is not None and following.kind == WindowKind.PLANNING
    assert following.id != window.id
    countdown = room.countdown
    assert countdown is not None and countdown.deadline == 90.0
    events = [entry.event for entry in await log.read("room-1")]
    assert replay(room.initial, events).state_hash() == room.state.state_hash()


async def test_a_pause_in_the_planning_window_keeps_its_remaining_time(
    make_room: MakeRoom, clock: FakeClock
) -> None:
    """V24 with Verse's own Resume: 6.4 s left before the pause, 6.4 s left after it."""
    room = await live_room(make_room)
    await clock.advance(38.6)
    await room.submit(AYLA, Pause("ayla"))
    await clock.advance(120.0)
    await room.submit(AYLA, Resume("ayla"))

    await clock.advance(6.3)
    assert room.state.round == 1
    await clock.advance(0.1)
    assert room.state.round == 2
