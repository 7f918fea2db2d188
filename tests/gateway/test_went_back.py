"""A feed whose room's log went back: what its connections are told.

With `--redis-durability local` (or `replicated`), a process cut off with its primary
may acknowledge a few commands before it stops (docs/deploy.md, "Partitions"); when
the partition heals, the primary the other side promoted is the log, and those events
are gone. A feed that sent them, then finds the log holding other events at their
seqs (the bus brings the surviving side's next batch), tells every connection
`went_back` and sends it the fight as the log has it, as a join does. A batch the
bus brings again, the same events at the same seqs, changes nothing.

The two sides are two memory logs: the feed reads the one it is given, which the test
swaps at the heal, as a Redis client that follows the primary does.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import msgpack

from clients.table import HeldTable
from server.bus.memory import MemoryBus
from server.engine.commands import Paused, Resumed
from server.engine.core import Event
from server.engine.state import Encounter
from server.engine.views import GM_AUDIENCE, Audience
from server.eventlog import Entry
from server.eventlog.memory import MemoryEventLog
from server.gateway.feed import Feed
from tests.support.waiting import within

ROOM = "r"
EMPTY = Encounter(id="e", ruleset="verse", combatants={})


class Seat:
    """A GM connection that keeps what it is sent, decoded."""

    binary, events = True, True

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.held = HeldTable()  # what a terminal client holds of it

    def push(self, frame: Any, *, catch_up: bool = False) -> None:
        message = msgpack.unpackb(frame)
        self.received.append(message)
        if message["type"] == "went_back":
            self.held.went_back(message["seq"])
        elif message["type"] in ("table", "update", "log", "choices"):
            self.held.take(message)

    def audience(self, state: Encounter) -> Audience:
        return GM_AUDIENCE

    def plays(self, state: Encounter) -> tuple[str, ...]:
        return ()

    def types(self) -> list[str]:
        return [message["type"] for message in self.received]


class Side:
    """One side of a partition: its Redis (a log) and what its room process writes."""

    def __init__(self, bus: MemoryBus[Any]) -> None:
        self.log = MemoryEventLog()
        self.bus = bus

    async def write(self, events: list[Event], publish: bool = True) -> list[Entry]:
        version = await self.log.version(ROOM)
        await self.log.append(ROOM, events, version)
        written = await self.log.read(ROOM, after_seq=version)
        if publish:
            await self.bus.publish(ROOM, written)
        return written


async def until(check: Any) -> None:
    async def polled() -> None:
        while not check():
            await asyncio.sleep(0.01)

    await within(polled(), 5, "the feed to send it")


async def test_a_feed_whose_log_went_back_tells_its_connections_and_sends_the_log_s_fight() -> None:
    bus: MemoryBus[Any] = MemoryBus()
    cut_off, surviving = Side(bus), Side(bus)
    for side in (cut_off, surviving):  # both hold the fight up to the partition
        await side.log.save_initial(ROOM, EMPTY)
        await side.write([Paused("gm"), Resumed("gm")], publish=False)
    feed = Feed(ROOM, cut_off.log, bus, EMPTY, lambda: None, now=time.monotonic)
    await feed.start()
    try:
        seat = Seat()
        feed.join(seat, None)
        # cut off: its process acknowledged three more events (seqs 3-5) and sent them
        await cut_off.write([Paused("gm"), Resumed("gm"), Paused("gm")])
        await until(lambda: feed.seq == 5)
        # meanwhile the other side wrote two others at seqs 3-4
        await surviving.write([Paused("ayla"), Resumed("ayla")], publish=False)
        # the heal: the feed's Redis is now the surviving side, whose next batch comes
        feed._log = surviving.log
        seat.received.clear()
        await surviving.write([Paused("bram")])
        await until(lambda: "table" in seat.types())

        assert seat.types()[0] == "went_back"
        went_back = seat.received[0]
        assert (went_back["seq"], went_back["from_seq"]) == (2, 5)  # they part after 2
        assert "not in the room's log" in went_back["message"]
        snapshot = next(m for m in seat.received if m["type"] == "snapshot")
        assert snapshot["seq"] == 5  # the surviving log's 5 events, Bram's pause last
        assert feed.seq == 5
        assert feed.state.paused_by == "bram"
        assert [e.seq for e in await surviving.log.read(ROOM, after_seq=0)] == [1, 2, 3, 4, 5]
        # the client holds the surviving log's lines, as one joining now would
        fresh = Seat()
        feed.join(fresh, None)
        assert list(seat.held.log) == list(fresh.held.log)
        assert [line["seq"] for line in seat.held.log] == [1, 2, 3, 4, 5]
        assert seat.held.view == fresh.held.view and seat.held.seq == 5
    finally:
        await feed.stop()


async def test_a_batch_the_bus_brings_again_changes_nothing() -> None:
    bus: MemoryBus[Any] = MemoryBus()
    side = Side(bus)
    await side.log.save_initial(ROOM, EMPTY)
    feed = Feed(ROOM, side.log, bus, EMPTY, lambda: None, now=time.monotonic)
    await feed.start()
    try:
        seat = Seat()
        feed.join(seat, None)
        written = await side.write([Paused("gm"), Resumed("gm")])
        await until(lambda: feed.seq == 2)
        seat.received.clear()
        await bus.publish(ROOM, written)  # the same batch again
        await side.write([Paused("gm")])
        await until(lambda: feed.seq == 3)
        assert seat.types() == ["update"]
    finally:
        await feed.stop()
