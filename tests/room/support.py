"""Event logs that misbehave on purpose, and the principals of the room tests."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from server.engine.authority import GM, Principal, Role
from server.engine.core import Event
from server.eventlog.memory import MemoryEventLog
from tests.support.waiting import within

AYLA = Principal(Role.PLAYER, controls=("ayla",), name="ayla")
BRAM = Principal(Role.PLAYER, controls=("bram",), name="bram")
WATCHER = Principal(Role.SPECTATOR, name="watcher")
__all__ = ["AYLA", "BRAM", "GM", "WATCHER", "FailingLog", "GatedLog"]


class GatedLog(MemoryEventLog):
    """A memory log whose appends wait at a gate the test opens; it records each append."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.gate.set()
        self.entered = asyncio.Event()  # set when an append reaches the gate
        self.expected_versions: list[int] = []
        self.appending = 0
        self.most_at_once = 0

    def close_gate(self) -> None:
        self.gate.clear()
        self.entered.clear()

    async def append(
        self,
        room_id: str,
        events: Sequence[Event],
        expected_version: int,
        command_key: str | None = None,
    ) -> int:
        self.expected_versions.append(expected_version)
        self.appending += 1
        self.most_at_once = max(self.most_at_once, self.appending)
        self.entered.set()
        try:
            await within(self.gate.wait(), what="the test to open the log's gate")
            return await super().append(room_id, events, expected_version, command_key)
        finally:
            self.appending -= 1


class FailingLog(MemoryEventLog):
    """A memory log that fails every append while `failing` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.failing = True

    async def append(
        self,
        room_id: str,
        events: Sequence[Event],
        expected_version: int,
        command_key: str | None = None,
    ) -> int:
        if self.failing:
            raise OSError("disk full")
        return await super().append(room_id, events, expected_version, command_key)
