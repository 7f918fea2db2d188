"""An event log in memory: the reference backend for the contract tests.

It keeps each event, initial encounter and snapshot as plain data (`to_data`) and
decodes on read, so it behaves like a durable log: nothing read shares objects with
what was stored, and a value that could not be stored durably fails here too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server.engine.core import Event
from server.engine.records import from_data, to_data
from server.engine.state import Encounter
from server.eventlog import (
    Applied,
    Entry,
    RoomExists,
    Snapshot,
    VersionConflict,
    encounter_from_data,
)


class MemoryEventLog:
    def __init__(self) -> None:
        self._rooms: dict[str, list[Any]] = {}
        self._initials: dict[str, Any] = {}
        self._snapshots: dict[str, tuple[int, Any]] = {}
        self._commands: dict[str, dict[str, Applied]] = {}

    async def append(
        self,
        room_id: str,
        events: Sequence[Event],
        expected_version: int,
        command_key: str | None = None,
    ) -> int:
        stored = self._rooms.setdefault(room_id, [])
        if len(stored) != expected_version:
            raise VersionConflict(room_id, expected_version, len(stored))
        encoded = [to_data(event) for event in events]  # encode all before storing any
        last = len(encoded) - 1
        stored.extend((data, i == last) for i, data in enumerate(encoded))
        if command_key is not None and encoded:
            commands = self._commands.setdefault(room_id, {})
            commands.pop(command_key, None)  # a key given again moves to the end
            commands[command_key] = Applied(command_key, expected_version + 1, len(stored))
        return len(stored)

    async def recent_commands(self, room_id: str, limit: int) -> list[Applied]:
        applied = list(self._commands.get(room_id, {}).values())
        return applied[-limit:] if limit > 0 else []

    async def read(self, room_id: str, after_seq: int = 0) -> list[Entry]:
        stored = self._rooms.get(room_id, [])
        start = max(0, after_seq)
        return [
            Entry(seq, from_data(data), ends)
            for seq, (data, ends) in enumerate(stored[start:], start + 1)
        ]

    async def version(self, room_id: str) -> int:
        return len(self._rooms.get(room_id, []))

    async def save_initial(self, room_id: str, state: Encounter) -> None:
        if room_id in self._initials:
            raise RoomExists(room_id)
        self._initials[room_id] = to_data(state)

    async def load_initial(self, room_id: str) -> Encounter | None:
        data = self._initials.get(room_id)
        return None if data is None else encounter_from_data(data)

    async def rooms(self) -> list[str]:
        return sorted(self._initials)

    async def save_snapshot(self, room_id: str, seq: int, state: Encounter) -> None:
        version = await self.version(room_id)
        if not 0 <= seq <= version:
            raise ValueError(f"no event {seq} in the log of {room_id} (version {version})")
        data = to_data(state)
        kept = self._snapshots.get(room_id)
        if kept is None or kept[0] <= seq:
            self._snapshots[room_id] = (seq, data)

    async def latest_snapshot(self, room_id: str) -> Snapshot | None:
        kept = self._snapshots.get(room_id)
        return None if kept is None else Snapshot(kept[0], encounter_from_data(kept[1]))

    async def close(self) -> None:
        """Nothing to let go of: the log lives as long as the object."""
