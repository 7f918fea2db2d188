"""The room running Verse Live Combat (V20, V24): real planning windows on a fake clock."""

from __future__ import annotations

import pytest

from server.engine.authority import ROOM
from server.engine.commands import EndCombat, Pause, Resume, Rewind, WindowExpired
from server.engine.core import replay
from server.engine.errors import CommandRefused
from server.engine.flow import Mode, WindowKind
from server.engine.rulesets.verse.overrides import SetCondition
from server.engine.rulesets.verse.turns import StartCombat
from server.engine.state import Phase, Settings
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


async def test_a_rewind_lands_only_where_a_command_ended(make_room: MakeRoom) -> None:
    """StartCombat logged three events (initiative, round 1, the planning window): the
    states between them are half-decided, so a rewind to them is refused."""
    room = await live_room(make_room)
    assert room.state.version == 3
    for middle in (1, 2):
        with pytest.raises(CommandRefused) as refused:
            await room.submit(GM, Rewind(middle))
        assert refused.value.code == "invalid_command"
    await room.submit(GM, Rewind(0))  # before the fight: a command boundary
    assert room.state.phase == "setup"


async def test_a_timer_of_the_abandoned_window_misses_the_restored_one(
    make_room: MakeRoom, clock: FakeClock
) -> None:
    """Window ids never go back: an expiry queued for the window before a rewind cannot
    close the window the rewind restores."""
    room = await live_room(make_room)
    old = room.state.window
    assert old is not None
    await room.submit(GM, Rewind(3))  # the same planning window, restored
    restored = room.state.window
    assert restored is not None and restored.id > old.id
    with pytest.raises(CommandRefused) as refused:
        await room.submit(ROOM, WindowExpired(old.id))
    assert refused.value.code == "no_window"
    assert room.state.window == restored


async def test_a_rewind_keeps_the_pause(make_room: MakeRoom, clock: FakeClock) -> None:
    room = await live_room(make_room)
    await room.submit(GM, Pause("gm"))
    await room.submit(GM, Rewind(0))
    assert room.state.paused_by == "gm"  # the GM is still talking


async def test_a_rewind_into_a_commands_events_names_the_versions_it_may_use(
    make_room: MakeRoom,
) -> None:
    room = await live_room(make_room)  # StartCombat: initiative, round 1, planning window
    started = room.version
    assert started >= 3

    with pytest.raises(CommandRefused) as refused:
        await room.submit(GM, Rewind(1))

    assert refused.value.code == "invalid_command"
    assert refused.value.message.endswith(f"such as 0 or {started}")


async def test_an_ended_fight_stops_its_countdown_and_opens_no_more_rounds(
    make_room: MakeRoom, clock: FakeClock
) -> None:
    """R70: once the GM ends the fight, no planning window comes back, however long the
    room waits (it used to open one every 45 s for ever)."""
    room = await live_room(make_room)
    await room.submit(GM, SetCondition("g1", "Dead"))
    await room.submit(GM, EndCombat())
    assert room.state.phase == Phase.ENDED and room.countdown is None
    version = room.version
    await clock.advance(600.0)
    assert room.version == version and room.state.window is None


async def test_a_fight_rewound_from_its_end_waits_for_the_gm(
    make_room: MakeRoom, clock: FakeClock
) -> None:
    """R70: the GM may take an ended fight back (a mistaken `end combat`); it comes back
    paused by the GM, its countdown frozen, since nobody could pause the ended fight."""
    room = await live_room(make_room)
    started = room.version
    await room.submit(GM, EndCombat())
    await room.submit(GM, Rewind(started))
    assert room.state.phase == Phase.COMBAT and room.state.paused_by == "gm"
    countdown = room.countdown
    assert countdown is not None and countdown.deadline is None  # frozen
    await room.submit(GM, Resume("gm"))
    countdown = room.countdown
    assert countdown is not None and countdown.deadline is not None
