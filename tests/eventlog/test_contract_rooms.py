"""The EventLog contract, continued: what a room needs to restart (initial state, snapshots)."""

from __future__ import annotations

import pytest

from server.engine.commands import Paused, Resumed
from server.engine.records import evolve
from server.engine.state import Encounter
from server.eventlog import EventLog, RoomExists, Snapshot
from tests.engine.verse.builders import fighter, in_combat


def fight() -> Encounter:
    """A real Verse encounter: sheets, positions, turn order, dice state."""
    return in_combat(fighter("ayla", "heroes", 0, 0), fighter("grub", "goblins", 1, 0))


async def test_an_unknown_room_has_no_initial_state_and_no_snapshot(event_log: EventLog) -> None:
    assert await event_log.load_initial("nowhere") is None
    assert await event_log.latest_snapshot("nowhere") is None
    assert await event_log.rooms() == []


async def test_the_initial_encounter_is_kept_as_data_and_the_rooms_are_listed(
    event_log: EventLog,
) -> None:
    state = fight()
    await event_log.save_initial("room-b", state)
    await event_log.save_initial("room-a", Encounter(id="e", ruleset="verse", combatants={}))

    state.combatants["ghost"] = "changed after saving"  # live state moving on
    loaded = await event_log.load_initial("room-b")

    assert loaded == fight()
    assert loaded is not None and loaded.state_hash() == fight().state_hash()
    assert await event_log.rooms() == ["room-a", "room-b"]


async def test_a_room_gets_its_initial_encounter_once(event_log: EventLog) -> None:
    await event_log.save_initial("r", fight())

    with pytest.raises(RoomExists) as exists:
        await event_log.save_initial("r", Encounter(id="other", ruleset="verse", combatants={}))

    assert exists.value.room_id == "r"
    assert await event_log.load_initial("r") == fight()


async def test_an_initial_encounter_that_cannot_be_stored_saves_nothing(
    event_log: EventLog,
) -> None:
    unstorable = Encounter(id="e", ruleset="verse", combatants={"x": object()})

    with pytest.raises(TypeError):
        await event_log.save_initial("r", unstorable)

    assert await event_log.rooms() == []


async def test_the_latest_snapshot_is_kept_and_an_older_one_changes_nothing(
    event_log: EventLog,
) -> None:
    await event_log.append("r", [Paused("a"), Resumed("a"), Paused("b")], expected_version=0)
    at_2, at_3 = evolve(fight(), version=2), evolve(fight(), version=3)

    await event_log.save_snapshot("r", 2, at_2)
    assert await event_log.latest_snapshot("r") == Snapshot(2, at_2)

    await event_log.save_snapshot("r", 3, at_3)
    await event_log.save_snapshot("r", 1, evolve(fight(), version=1))
    assert await event_log.latest_snapshot("r") == Snapshot(3, at_3)


async def test_a_snapshot_at_the_same_sequence_number_replaces_the_kept_one(
    event_log: EventLog,
) -> None:
    await event_log.append("r", [Paused("a")], expected_version=0)
    await event_log.save_snapshot("r", 1, fight())
    renamed = evolve(fight(), id="renamed")

    await event_log.save_snapshot("r", 1, renamed)

    assert await event_log.latest_snapshot("r") == Snapshot(1, renamed)


@pytest.mark.parametrize("seq", [-1, 2])
async def test_a_snapshot_outside_the_log_is_refused(event_log: EventLog, seq: int) -> None:
    await event_log.append("r", [Paused("a")], expected_version=0)

    with pytest.raises(ValueError):
        await event_log.save_snapshot("r", seq, fight())

    assert await event_log.latest_snapshot("r") is None


async def test_a_snapshot_is_stored_as_data_and_rooms_keep_their_own(event_log: EventLog) -> None:
    await event_log.append("one", [Paused("a")], expected_version=0)
    state = fight()
    await event_log.save_snapshot("one", 1, state)
    await event_log.save_snapshot("two", 0, Encounter(id="e", ruleset="verse", combatants={}))

    state.combatants["ghost"] = "changed after saving"
    snapshot = await event_log.latest_snapshot("one")

    assert snapshot == Snapshot(1, fight())
    assert snapshot is not None and snapshot.state is not state
    assert await event_log.latest_snapshot("two") == Snapshot(
        0, Encounter(id="e", ruleset="verse", combatants={})
    )
