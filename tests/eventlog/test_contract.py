"""The EventLog contract: what every backend promises the room."""

from __future__ import annotations

import pytest

from server.engine.commands import Paused, Resumed, Rewound
from server.engine.state import Encounter
from server.eventlog import Applied, Entry, EventLog, VersionConflict


async def test_an_unknown_room_is_empty_at_version_0(event_log: EventLog) -> None:
    assert await event_log.version("nowhere") == 0
    assert await event_log.read("nowhere") == []


async def test_append_returns_the_last_sequence_number_and_read_gives_them_in_order(
    event_log: EventLog,
) -> None:
    assert await event_log.append("r", [Paused("ayla"), Resumed("gm")], expected_version=0) == 2
    assert await event_log.append("r", [Paused("gm")], expected_version=2) == 3

    assert await event_log.read("r") == [
        Entry(1, Paused("ayla"), ends_batch=False),  # one command's events: 1 and 2
        Entry(2, Resumed("gm")),
        Entry(3, Paused("gm")),
    ]
    assert await event_log.version("r") == 3


async def test_read_after_a_sequence_number_gives_only_what_follows(event_log: EventLog) -> None:
    await event_log.append("r", [Paused("a"), Resumed("a"), Paused("b")], expected_version=0)

    assert await event_log.read("r", after_seq=2) == [Entry(3, Paused("b"))]
    assert await event_log.read("r", after_seq=3) == []


async def test_read_until_a_sequence_number_stops_there(event_log: EventLog) -> None:
    """A rewind reads only the events it replays (`server.room.rewind`)."""
    await event_log.append("r", [Paused("a"), Resumed("a"), Paused("b")], expected_version=0)

    assert await event_log.read("r", until_seq=1) == [Entry(1, Paused("a"), ends_batch=False)]
    assert await event_log.read("r", after_seq=1, until_seq=2) == [
        Entry(2, Resumed("a"), ends_batch=False)
    ]
    assert await event_log.read("r", after_seq=2, until_seq=9) == [Entry(3, Paused("b"))]
    assert await event_log.read("r", after_seq=2, until_seq=2) == []
    assert await event_log.read("r", until_seq=0) == []


@pytest.mark.parametrize("expected", [0, 2])
async def test_a_batch_built_on_another_version_is_refused_whole(
    event_log: EventLog, expected: int
) -> None:
    await event_log.append("r", [Paused("ayla")], expected_version=0)

    with pytest.raises(VersionConflict) as conflict:
        await event_log.append("r", [Resumed("gm"), Paused("gm")], expected_version=expected)

    assert (conflict.value.expected, conflict.value.actual) == (expected, 1)
    assert conflict.value.code == "version_conflict"
    assert await event_log.read("r") == [Entry(1, Paused("ayla"))]


async def test_an_empty_batch_appends_nothing_but_is_checked(event_log: EventLog) -> None:
    await event_log.append("r", [Paused("ayla")], expected_version=0)

    assert await event_log.append("r", [], expected_version=1) == 1
    with pytest.raises(VersionConflict):
        await event_log.append("r", [], expected_version=0)
    assert await event_log.version("r") == 1


async def test_rooms_have_separate_logs(event_log: EventLog) -> None:
    await event_log.append("one", [Paused("a")], expected_version=0)
    await event_log.append("two", [Resumed("b")], expected_version=0)

    assert await event_log.read("one") == [Entry(1, Paused("a"))]
    assert await event_log.read("two") == [Entry(1, Resumed("b"))]


async def test_events_are_stored_as_data_not_as_references(event_log: EventLog) -> None:
    """A durable log cannot hand back the objects it was given; neither may memory."""
    state = Encounter(id="e", ruleset="verse", combatants={})
    event = Rewound(0, state)
    await event_log.append("r", [event], expected_version=0)

    state.combatants["ghost"] = "changed after the append"  # live state moving on
    (entry,) = await event_log.read("r")

    assert entry.event == Rewound(0, Encounter(id="e", ruleset="verse", combatants={}))
    assert entry.event is not event


async def test_an_event_that_cannot_be_stored_appends_nothing(event_log: EventLog) -> None:
    unstorable = Rewound(0, Encounter(id="e", ruleset="verse", combatants={"x": object()}))

    with pytest.raises(TypeError):
        await event_log.append("r", [Paused("a"), unstorable], expected_version=0)

    assert await event_log.version("r") == 0


async def test_command_keys_are_kept_with_their_batches_oldest_first(event_log: EventLog) -> None:
    await event_log.append("r", [Paused("a"), Resumed("a")], 0, command_key="ayla/c-1")
    await event_log.append("r", [Paused("gm")], 2)  # no key: a timer's command
    await event_log.append("r", [Resumed("gm")], 3, command_key="gm/c-1")
    await event_log.append("r", [], 4, command_key="gm/c-2")  # nothing appended, nothing kept
    await event_log.append("other", [Paused("b")], 0, command_key="bram/c-1")

    assert await event_log.recent_commands("r", 10) == [
        Applied("ayla/c-1", 1, 2),
        Applied("gm/c-1", 4, 4),
    ]
    assert await event_log.recent_commands("r", 1) == [Applied("gm/c-1", 4, 4)]
    assert await event_log.recent_commands("nowhere", 10) == []


async def test_a_refused_batch_keeps_no_command_key(event_log: EventLog) -> None:
    await event_log.append("r", [Paused("a")], 0)
    with pytest.raises(VersionConflict):
        await event_log.append("r", [Resumed("a")], 0, command_key="ayla/c-1")

    assert await event_log.recent_commands("r", 10) == []
