"""Rooms nobody is connected to: frozen, then let go; a failed start leaves nothing.

With nobody at the table a Live Combat room's countdown freezes, as in a Pause, so a
fight left overnight does not play itself on (expired windows, everyone passing, round
after round); it goes on with the time that was left when someone joins. A room nobody
has followed for a while is let go (its task, timers, subscription and the feed's
history) and starts again from the log on the next join, so a long-running process
keeps only live rooms. A room whose start fails leaves no feed subscribed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from protocol import decode_server
from protocol.codec import Frame
from protocol.messages import Window
from server.app import DEMO_ENCOUNTER
from server.bus.memory import MemoryBus
from server.encounters import read_file
from server.engine.authority import GM, Principal, Role
from server.engine.state import Encounter
from server.engine.turns import StartCombat
from server.engine.views import Audience, audience_of
from server.eventlog import Applied, Entry
from server.eventlog.memory import MemoryEventLog
from server.gateway.tokens import TokenIssuer
from server.hosting import Embedded, Host
from server.room import FakeClock
from tests.support.waiting import within

HOUR = 3600.0
SPECTATOR = Principal(Role.SPECTATOR, name="spectator")


class Watcher:
    """A connection as the feed sees it (the gateway's `Session` is one)."""

    binary = True
    events = False

    def __init__(self) -> None:
        self.frames: list[Frame] = []

    def audience(self, state: Encounter) -> Audience:
        return audience_of(SPECTATOR, state)

    def plays(self, state: Encounter) -> tuple[str, ...]:
        return ()

    def push(self, frame: Frame, *, catch_up: bool = False) -> None:
        self.frames.append(frame)


class FlakyLog(MemoryEventLog):
    """A memory log that cannot list recent commands once (a read error at start)."""

    def __init__(self) -> None:
        super().__init__()
        self.failures = 0

    async def recent_commands(self, room_id: str, limit: int) -> list[Applied]:
        if self.failures:
            self.failures -= 1
            raise OSError("disk I/O error")
        return await super().recent_commands(room_id, limit)


@dataclass
class Hosting:
    host: Host
    log: FlakyLog
    bus: MemoryBus[Entry]
    clock: FakeClock


@pytest.fixture
async def hosting() -> AsyncIterator[Hosting]:
    log, bus, clock = FlakyLog(), MemoryBus[Entry](), FakeClock()
    host = Host(log, Embedded(log, bus, clock), clock, TokenIssuer(b"k" * 32))
    yield Hosting(host, log, bus, clock)
    await within(host.close(), what="closing the host after its test")


async def test_a_fight_nobody_is_connected_to_does_not_play_on_by_itself(
    hosting: Hosting,
) -> None:
    _, tokens = await hosting.host.create(read_file(DEMO_ENCOUNTER))
    hosted = await hosting.host.get(tokens["room"])
    assert hosted is not None
    watcher = Watcher()
    hosted.feed.join(watcher, None)
    await hosted.runner.submit(GM, StartCombat(), "start")  # the planning window opens
    hosted.feed.leave(watcher)  # the table drops: nobody is connected any more
    before = await hosting.log.version(tokens["room"])

    await hosting.clock.advance(HOUR / 6)

    grown = await hosting.log.version(tokens["room"]) - before
    assert grown <= 10, f"{grown} events in ten minutes with nobody connected"


async def test_a_room_nobody_followed_for_an_hour_is_let_go(hosting: Hosting) -> None:
    rooms = []
    for _ in range(3):
        _, tokens = await hosting.host.create(read_file(DEMO_ENCOUNTER))
        hosted = await hosting.host.get(tokens["room"])
        assert hosted is not None
        watcher = Watcher()
        hosted.feed.join(watcher, None)
        hosted.feed.leave(watcher)
        rooms.append(tokens["room"])

    await hosting.clock.advance(HOUR)

    assert hosting.host.rooms == 0
    assert [hosting.bus.subscribers(room) for room in rooms] == [0, 0, 0]
    again = await hosting.host.get(rooms[0])  # someone joins: it starts from the log
    assert again is not None and hosting.host.rooms == 1


async def test_a_room_that_fails_to_start_leaves_no_feed_behind(hosting: Hosting) -> None:
    built, tokens = await hosting.host.create(read_file(DEMO_ENCOUNTER))
    room = "second-" + tokens["room"]
    await hosting.log.save_initial(room, built.encounter)
    hosting.log.failures = 1

    with pytest.raises(OSError):
        await hosting.host.get(room)
    assert hosting.bus.subscribers(room) == 0  # nothing follows a room that did not start

    hosted = await hosting.host.get(room)  # the disk is back: the next join starts it
    assert hosted is not None
    assert hosting.bus.subscribers(room) == 1


async def test_the_countdown_freezes_with_nobody_there_and_goes_on_when_someone_is_back(
    hosting: Hosting,
) -> None:
    _, tokens = await hosting.host.create(read_file(DEMO_ENCOUNTER))
    hosted = await hosting.host.get(tokens["room"])
    assert hosted is not None
    watcher = Watcher()
    hosted.feed.join(watcher, None)
    await hosted.runner.submit(GM, StartCombat(), "start")  # 45 s to declare
    await hosting.clock.advance(10)
    hosted.feed.leave(watcher)
    await hosting.clock.advance(600)  # ten minutes with nobody there: frozen at 35 s

    hosted.feed.join(watcher, None)
    frozen = hosted.runner.countdown
    await hosting.clock.advance(35)  # back: the 35 s left run out

    assert frozen is not None and frozen.remaining == 35
    assert hosted.feed.state.window is None or hosted.feed.state.window.id != frozen.window


async def test_the_first_one_back_is_told_the_countdown_runs_again(hosting: Hosting) -> None:
    """The window message a returning player gets says the countdown runs, with the time
    that was left: it used to say "frozen", since it was built before the room learnt
    that someone was back, and nothing corrected it."""
    _, tokens = await hosting.host.create(read_file(DEMO_ENCOUNTER))
    hosted = await hosting.host.get(tokens["room"])
    assert hosted is not None
    watcher = Watcher()
    hosted.feed.join(watcher, None)
    await hosted.runner.submit(GM, StartCombat(), "start")
    await hosting.clock.advance(10)
    hosted.feed.leave(watcher)
    await hosting.clock.advance(600)

    back = Watcher()
    hosted.feed.join(back, None)
    windows = [m for m in map(decode_server, back.frames) if isinstance(m, Window)]
    assert len(windows) == 1
    assert windows[0].running and windows[0].remaining_ms == 35_000
