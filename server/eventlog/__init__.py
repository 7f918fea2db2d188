"""The event log: every room's events in order, each with its sequence number.

The log is the truth (ARCHITECTURE): a room acknowledges a command only once its events
are here, and `replay(initial, events)` rebuilds the room's state. Sequence numbers
start at 1 in each room and have no gaps; a room's `version` is its last sequence number
(0 when empty).

Optimistic concurrency (ARCHITECTURE, convention 5): `append` names the version the
batch was built on and the log refuses it with `VersionConflict` if another writer got
there first, appending nothing. A batch is appended whole or not at all.

Backends live in their own modules, so importing the interface pulls in no driver:
`server.eventlog.memory.MemoryEventLog` (tests, one process). SQLite and Redis Streams
follow behind the same protocol and pass the same contract tests (tests/eventlog/).
Every backend stores events as plain data (`records.to_data`), never references into
live state, so reading gives equal but fresh records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from server.engine.core import Event
from server.engine.errors import VERSION_CONFLICT


class Entry(NamedTuple):
    """One event in a room's log and its sequence number."""

    seq: int
    event: Event


class VersionConflict(Exception):
    """The log of `room_id` is at `actual`, not at the `expected` version of the batch."""

    code = VERSION_CONFLICT

    def __init__(self, room_id: str, expected: int, actual: int) -> None:
        super().__init__(f"{VERSION_CONFLICT}: log of {room_id} is at {actual}, not {expected}")
        self.room_id = room_id
        self.expected = expected
        self.actual = actual


class EventLog(Protocol):
    async def append(self, room_id: str, events: Sequence[Event], expected_version: int) -> int:
        """Append `events` after version `expected_version`; return the last sequence number.

        Raises `VersionConflict` (appending nothing) when the log is at another version.
        An empty batch appends nothing and returns the version (after the same check).
        """
        ...

    async def read(self, room_id: str, after_seq: int = 0) -> list[Entry]:
        """The entries with a sequence number above `after_seq`, in order."""
        ...

    async def version(self, room_id: str) -> int:
        """The last sequence number of the room (0 for a room with no events)."""
        ...


__all__ = ["Entry", "EventLog", "VersionConflict"]
