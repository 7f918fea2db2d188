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
from tests.room.support import GatedLog
from tests.support.waiting import within

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
    """Start rooms (defaults: the fixtures' clock, bus and log); stop them afterwards,
    within a deadline (a gated log's gate is opened first: a test that failed with it
    closed leaves no room waiting there)."""
    rooms: list[tuple[Room, EventLog]] = []

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
        rooms.append((room, log_ or log))
        return room

    yield make
    for room, used in rooms:
        if isinstance(used, GatedLog):
            used.gate.set()
        await within(room.stop(drain=False), what="stopping a room after its test")


@pytest.fixture
async def room(make_room: MakeRoom) -> Room:
    return await make_room()
