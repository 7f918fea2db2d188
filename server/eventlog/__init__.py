"""The event log: every room's events in order, each with its sequence number.

The log is the truth (ARCHITECTURE): a room acknowledges a command only once its events
are here, and `replay(initial, events)` rebuilds the room's state. Sequence numbers
start at 1 in each room and have no gaps; a room's `version` is its last sequence number
(0 when empty).

Optimistic concurrency (ARCHITECTURE, convention 5): `append` names the version the
batch was built on and the log refuses it with `VersionConflict` if another writer got
there first, appending nothing. A batch is appended whole or not at all.

Restarting a room needs more than its events: the log also keeps each room's initial
encounter (`save_initial`, written once when the room is created; `rooms()` lists the
rooms that have one) and, now and then, a snapshot of the state after some sequence
number (`save_snapshot`), so a room can rebuild from its latest snapshot and the events
after it (`read(room_id, after_seq=snapshot.seq)`) instead of its whole history. Only
the latest snapshot of a room counts: saving an older one changes nothing.

Finding a room again needs two more things, kept beside its log: its **invites**, the
short codes that stand for its join tokens (`Invite`: which room, which role and seat,
whether revoked; a code is never given twice, so a revoked one stays refused), and its
**card** (`RoomCard`: the name, ruleset, mode and combatants the host created it with),
from which the host lists the rooms it knows.

Backends live in their own modules, so importing the interface pulls in no driver:
`server.eventlog.memory.MemoryEventLog` (tests, one process) and
`server.eventlog.sqlite.SqliteEventLog` (the embedded default: a file on disk that a
restart or a crash does not lose). Redis Streams follows behind the same protocol; all
pass the same contract tests (tests/eventlog/). Every backend stores events and states
as plain data (`records.to_data`), never references into live state, so reading gives
equal but fresh records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

from server.engine.core import Event
from server.engine.errors import VERSION_CONFLICT
from server.engine.records import from_data
from server.engine.state import Encounter


class Entry(NamedTuple):
    """One event in a room's log and its sequence number.

    `ends_batch` marks the last event of an appended batch: one command's events. The
    states after such events are the ones a fight can be rewound to; a state in the
    middle of a command's events is half-decided (a window about to open, a turn ended
    but the next not started).
    """

    seq: int
    event: Event
    ends_batch: bool = True


class Snapshot(NamedTuple):
    """The state of a room after the event with sequence number `seq`."""

    seq: int
    state: Encounter


class VersionConflict(Exception):
    """The log of `room_id` is at `actual`, not at the `expected` version of the batch."""

    code = VERSION_CONFLICT

    def __init__(self, room_id: str, expected: int, actual: int) -> None:
        super().__init__(f"{VERSION_CONFLICT}: log of {room_id} is at {actual}, not {expected}")
        self.room_id = room_id
        self.expected = expected
        self.actual = actual


class RoomExists(Exception):
    """`save_initial` for a room that already has its initial encounter."""

    def __init__(self, room_id: str) -> None:
        super().__init__(f"room {room_id} already has its initial encounter")
        self.room_id = room_id


class Applied(NamedTuple):
    """A command the log holds under its key (who sent it and its client id), with the
    sequence numbers of its events: what a restarted room needs to answer a retry of it
    with the same ack instead of applying it again."""

    key: str
    first_seq: int
    last_seq: int


class Invite(NamedTuple):
    """A short code that stands for a join token of room `room_id`: it lets in `role`
    ("gm", "player" or "spectator"), a player as `seat`, playing `controls`."""

    code: str
    room_id: str
    role: str
    seat: str = ""
    controls: tuple[str, ...] = ()


class InviteTaken(Exception):
    """`add_invites` with a code already given (live or revoked): none were added."""

    def __init__(self, code: str) -> None:
        super().__init__("an invite code is already in use")  # never the code itself
        self.code = code


class RoomCard(NamedTuple):
    """What the host says of a room when it creates it, for listing the rooms: its
    name, ruleset, mode and the ids of its combatants then."""

    name: str
    ruleset: str
    mode: str
    combatants: tuple[str, ...] = ()


class EventLog(Protocol):
    async def append(
        self,
        room_id: str,
        events: Sequence[Event],
        expected_version: int,
        command_key: str | None = None,
    ) -> int:
        """Append `events` after version `expected_version`; return the last sequence number.

        Raises `VersionConflict` (appending nothing) when the log is at another version.
        An empty batch appends nothing and returns the version (after the same check).
        A `command_key` is kept with a non-empty batch, in the same write, for
        `recent_commands` (a key given again later points at the later batch).
        """
        ...

    async def recent_commands(self, room_id: str, limit: int) -> list[Applied]:
        """The last `limit` batches appended with a command key, oldest first."""
        ...

    async def read(
        self, room_id: str, after_seq: int = 0, until_seq: int | None = None
    ) -> list[Entry]:
        """The entries with a sequence number above `after_seq` and, given `until_seq`,
        at most `until_seq`, in order (a rewind reads only the part it replays)."""
        ...

    async def version(self, room_id: str) -> int:
        """The last sequence number of the room (0 for a room with no events)."""
        ...

    async def save_initial(self, room_id: str, state: Encounter) -> None:
        """Keep the encounter the room starts from; once per room (else `RoomExists`)."""
        ...

    async def load_initial(self, room_id: str) -> Encounter | None:
        """The room's initial encounter, None for a room never saved."""
        ...

    async def rooms(self) -> list[str]:
        """The ids of the rooms with an initial encounter, sorted."""
        ...

    async def save_snapshot(self, room_id: str, seq: int, state: Encounter) -> None:
        """Keep `state` as the room's state after event `seq` (0 <= seq <= version).

        Raises `ValueError` for a `seq` outside the log. A snapshot older than the one
        kept changes nothing; one at the same `seq` replaces it.
        """
        ...

    async def latest_snapshot(self, room_id: str) -> Snapshot | None:
        """The room's snapshot with the highest sequence number, None if it has none."""
        ...

    async def add_invites(self, invites: Sequence[Invite]) -> None:
        """Keep these invites, all or none: `InviteTaken` (keeping none) when a code is
        already in use, live or revoked. A code is never given twice."""
        ...

    async def find_invite(self, code: str) -> Invite | None:
        """The live invite with this code; None for a code never given, or revoked."""
        ...

    async def invites(self, room_id: str) -> list[Invite]:
        """The room's live invites, in the order they were added."""
        ...

    async def revoke_invite(self, room_id: str, code: str) -> Invite | None:
        """Revoke the room's live invite with this code and return it; None, changing
        nothing, when the room has no live invite with this code."""
        ...

    async def save_card(self, room_id: str, card: RoomCard) -> None:
        """Keep what the host says of the room; a later card replaces it."""
        ...

    async def load_card(self, room_id: str) -> RoomCard | None:
        """The room's card, None for a room that has none (made before cards were kept)."""
        ...

    async def close(self) -> None:
        """Let go of the backend's resources (files, connections); idempotent."""
        ...


def encounter_from_data(data: Any) -> Encounter:
    """Decode a stored initial encounter or snapshot (for backends)."""
    state = from_data(data)
    if not isinstance(state, Encounter):
        raise TypeError(f"stored state is a {type(state).__name__}, not an Encounter")
    return state


def card_to_data(card: RoomCard) -> dict[str, Any]:
    """A room's card as plain data, for backends to store."""
    return {
        "name": card.name,
        "ruleset": card.ruleset,
        "mode": card.mode,
        "combatants": list(card.combatants),
    }


def card_from_data(data: Any) -> RoomCard:
    """A stored card (for backends)."""
    return RoomCard(
        str(data["name"]),
        str(data["ruleset"]),
        str(data["mode"]),
        tuple(str(c) for c in data["combatants"]),
    )


__all__ = [
    "Applied",
    "Entry",
    "EventLog",
    "Invite",
    "InviteTaken",
    "RoomCard",
    "RoomExists",
    "Snapshot",
    "VersionConflict",
    "card_from_data",
    "card_to_data",
    "encounter_from_data",
]
