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
    Invite,
    InviteTaken,
    RoomCard,
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
        self._invites: dict[str, tuple[Invite, bool]] = {}  # code -> (invite, revoked)
        self._room_invites: dict[str, list[str]] = {}  # room -> its codes, in order
        self._cards: dict[str, RoomCard] = {}

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

    async def read(
        self, room_id: str, after_seq: int = 0, until_seq: int | None = None
    ) -> list[Entry]:
        stored = self._rooms.get(room_id, [])
        start = max(0, after_seq)
        end = len(stored) if until_seq is None else max(start, until_seq)
        return [
            Entry(seq, from_data(data), ends)
            for seq, (data, ends) in enumerate(stored[start:end], start + 1)
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

    async def add_invites(self, invites: Sequence[Invite]) -> None:
        kept = [_invite(invite) for invite in invites]  # check all before keeping any
        codes = [invite.code for invite in kept]
        for code in codes:
            if code in self._invites or codes.count(code) > 1:
                raise InviteTaken(code)
        for invite in kept:
            self._invites[invite.code] = (invite, False)
            self._room_invites.setdefault(invite.room_id, []).append(invite.code)

    async def find_invite(self, code: str) -> Invite | None:
        invite, revoked = self._invites.get(code, (None, True))
        return None if revoked else invite

    async def invites(self, room_id: str) -> list[Invite]:
        found = (self._invites[code] for code in self._room_invites.get(room_id, []))
        return [invite for invite, revoked in found if not revoked]

    async def revoke_invite(self, room_id: str, code: str) -> Invite | None:
        invite = await self.find_invite(code)
        if invite is None or invite.room_id != room_id:
            return None
        self._invites[code] = (invite, True)
        return invite

    async def save_card(self, room_id: str, card: RoomCard) -> None:
        self._cards[room_id] = RoomCard(card.name, card.ruleset, card.mode, tuple(card.combatants))

    async def load_card(self, room_id: str) -> RoomCard | None:
        return self._cards.get(room_id)

    async def close(self) -> None:
        """Nothing to let go of: the log lives as long as the object."""


def _invite(invite: Invite) -> Invite:
    """A copy that shares nothing with the caller's (a list of controls made a tuple)."""
    return Invite(invite.code, invite.room_id, invite.role, invite.seat, tuple(invite.controls))
