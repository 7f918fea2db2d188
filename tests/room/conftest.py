"""Fixtures: a fake clock, memory backends, and a running room on the probe ruleset."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from server.bus.memory import MemoryBus
from server.engine.state import Encounter
from server.eventlog import Entry, EventLog
from server.eventlog.memory import MemoryEventLog
from server.room import FakeClock, Room
from tests.room.probe import probe_encounter

MakeRoom = Callable[..., Awaitable[Room]]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def bus() -> MemoryBus[Entry]:
    return MemoryBus()


@pytest.fixture
def log() -> MemoryEventLog:
    return MemoryEventLog()


@pytest.fixture
async def make_room(
    clock: FakeClock, bus: MemoryBus[Entry], log: MemoryEventLog
) -> AsyncIterator[MakeRoom]:
    """Start rooms (defaults: the fixtures' clock, bus and log); stop them afterwards."""
    rooms: list[Room] = []

    async def make(
        initial: Encounter | None = None, *, log_: EventLog | None = None, **options: Any
    ) -> Room:
        room = Room(
            "room-1",
            initial or probe_encounter(),
            log=log_ or log,
            bus=bus,
            clock=clock,
            **options,
        )
        await room.start()
        rooms.append(room)
        return room

    yield make
    for room in rooms:
        await room.stop(drain=False)


@pytest.fixture
async def room(make_room: MakeRoom) -> Room:
    return await make_room()
