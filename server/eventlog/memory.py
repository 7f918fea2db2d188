"""An event log in memory: the reference backend for the contract tests.

It keeps each event as plain data (`to_data`) and decodes on read, so it behaves like
a durable log: nothing read shares objects with what was appended, and an event that
could not be stored durably fails here too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server.engine.core import Event
from server.engine.records import from_data, to_data
from server.eventlog import Entry, VersionConflict


class MemoryEventLog:
    def __init__(self) -> None:
        self._rooms: dict[str, list[Any]] = {}

    async def append(self, room_id: str, events: Sequence[Event], expected_version: int) -> int:
        stored = self._rooms.setdefault(room_id, [])
        if len(stored) != expected_version:
            raise VersionConflict(room_id, expected_version, len(stored))
        stored.extend([to_data(event) for event in events])  # encode all before storing any
        return len(stored)

    async def read(self, room_id: str, after_seq: int = 0) -> list[Entry]:
        stored = self._rooms.get(room_id, [])
        start = max(0, after_seq)
        return [Entry(seq, from_data(data)) for seq, data in enumerate(stored[start:], start + 1)]

    async def version(self, room_id: str) -> int:
        return len(self._rooms.get(room_id, []))
