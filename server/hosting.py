"""The rooms this server process hosts: created from encounter files, restarted from
the log, each with the feed that fans its events out to connections.

A room is started the first time someone joins it (or when it is created), not at
boot: a server with a thousand finished fights in its log starts at once. A restarted
room rebuilds from its latest snapshot and the events after it (`Room.start`), so a
server killed mid-fight carries on with every acknowledged command when its players
reconnect.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from server.bus import Bus
from server.encounters import Built, build
from server.engine.core import RULESETS
from server.eventlog import Entry, EventLog
from server.gateway.commands import CommandReader
from server.gateway.feed import Feed
from server.gateway.tokens import JoinTokens, TokenIssuer
from server.room import Room
from server.room.clock import Clock

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Hosted:
    """A running room and what the gateway needs next to it."""

    room: Room
    feed: Feed
    reader: CommandReader


class Host:
    def __init__(
        self,
        log: EventLog,
        bus: Bus[Entry],
        clock: Clock,
        issuer: TokenIssuer,
        *,
        queue_limit: int = 256,
        snapshot_every: int = 500,
    ) -> None:
        self.log = log
        self.bus = bus
        self.clock = clock
        self.issuer = issuer
        self.queue_limit = queue_limit
        self.snapshot_every = snapshot_every
        self._hosted: dict[str, Hosted] = {}
        self._starting: dict[str, asyncio.Task[Hosted | None]] = {}
        self._readers: dict[str, CommandReader] = {}

    @property
    def rooms(self) -> int:
        """Rooms running in this process."""
        return len(self._hosted)

    async def create(self, data: Any) -> tuple[Built, JoinTokens]:
        """Build the encounter `data` describes, log it, start its room, issue tokens.

        Raises `EncounterError` for an encounter that cannot be built (nothing stored).
        """
        built = build(data)
        room_id = built.encounter.id
        await self.log.save_initial(room_id, built.encounter)
        await self.get(room_id)
        return built, self.issuer.join_tokens(room_id, built.seats)

    async def get(self, room_id: str) -> Hosted | None:
        """The running room `room_id`, started from the log if need be; None if the log
        has no such room. Concurrent callers share one start."""
        hosted = self._hosted.get(room_id)
        if hosted is not None:
            return hosted
        starting = self._starting.get(room_id)
        if starting is None:
            starting = asyncio.create_task(self._start(room_id))
            self._starting[room_id] = starting
            starting.add_done_callback(lambda _: self._starting.pop(room_id, None))
        return await asyncio.shield(starting)

    async def _start(self, room_id: str) -> Hosted | None:
        initial = await self.log.load_initial(room_id)
        if initial is None:
            return None
        room = Room(
            room_id,
            initial,
            log=self.log,
            bus=self.bus,
            clock=self.clock,
            queue_limit=self.queue_limit,
            snapshot_every=self.snapshot_every,
        )
        feed = Feed(
            room_id,
            self.log,
            self.bus,
            initial,
            countdown=lambda: room.countdown,
            now=self.clock.now,
        )
        await feed.start()
        await room.start()
        hosted = Hosted(room, feed, self._reader(initial.ruleset))
        self._hosted[room_id] = hosted
        logger.info("room started", extra={"room": room_id, "seq": room.version})
        return hosted

    def _reader(self, ruleset: str) -> CommandReader:
        reader = self._readers.get(ruleset)
        if reader is None:
            reader = self._readers[ruleset] = CommandReader(RULESETS[ruleset])
        return reader

    async def close(self) -> None:
        """Stop every room (handling what is queued) and its feed."""
        for starting in list(self._starting.values()):
            starting.cancel()
        for hosted in list(self._hosted.values()):
            await hosted.room.stop()
            await hosted.feed.stop()
        self._hosted.clear()
