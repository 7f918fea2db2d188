"""The rooms this server process hosts: created from encounter files, restarted from
the log, each with the feed that fans its events out to connections.

A room is started the first time someone joins it (or when it is created), not at
boot: a server with a thousand finished fights in its log starts at once. A restarted
room rebuilds from its latest snapshot and the events after it (`Room.start`), so a
server killed mid-fight carries on with every acknowledged command when its players
reconnect.

Where a room runs is a `Placement`: `Embedded` runs every room in this process (the
default: SQLite and the in-process bus); `server.cluster.node.Node` runs a room in
whichever process of a cluster holds its lease and forwards commands there. The
gateway sees the same thing either way: a `Runner` to submit commands to and a `Feed`
to join.

The heavy requests are the host's too: building an uploaded encounter, reading a GM's
sheet, replaying a room's past for a peek or a rewind. They run in its workshop
(`server/workshop.py`), one at a time per lane, never on the event loop; the gateway
only awaits them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict, TypeVar

from server.bus import Bus
from server.encounter_files import built_of
from server.encounters import Built, EncounterError, build, new_room_id
from server.engine.authority import Principal, Role
from server.engine.core import Command, Event
from server.engine.errors import INVALID_COMMAND, UNAVAILABLE, UNKNOWN_COMMAND, CommandRefused
from server.engine.state import Encounter
from server.eventlog import Entry, EventLog, RoomCard, RoomExists
from server.gateway import invites
from server.gateway.commands import CommandReader, reader_for
from server.gateway.feed import Feed, Source
from server.gateway.tokens import Grant, JoinCodes, JoinTokens, TokenIssuer
from server.room import Ack, Countdown, Room
from server.room.clock import Clock, Timer
from server.room.rewind import Replayer, in_thread, past_of
from server.sheet_files import combatant_from_file
from server.workshop import HOST_LANE, Workshop, gm_table_after, replayed, room_lane

logger = logging.getLogger(__name__)
T = TypeVar("T")


class Runner(Protocol):
    """Where a room's commands go: the room itself, or its stand-in in a cluster."""

    @property
    def countdown(self) -> Countdown | None:
        """The open window's countdown if the room runs in this process, else None."""
        ...

    async def start(self) -> None: ...

    async def stop(self) -> None:
        """Stop running the room here (a cluster hands it over to another process)."""
        ...

    async def submit(
        self, principal: Principal, command: Command, client_id: str | None = None
    ) -> Ack:
        """Apply `command` once; its `Ack`, or `CommandRefused` with a stable code."""
        ...


class Placement(Protocol):
    """Where the rooms of this process run and what their feeds listen to."""

    @property
    def source(self) -> Source:
        """The bus the feeds subscribe to."""
        ...

    @property
    def running(self) -> int | None:
        """How many rooms run in this process; None: every room hosted here does."""
        ...

    def runner(
        self,
        room_id: str,
        initial: Encounter,
        *,
        queue_limit: int,
        snapshot_every: int,
        replayer: Replayer = in_thread,
    ) -> Runner:
        """The runner of room `room_id` (not started yet), its room queueing at most
        `queue_limit` commands, saving a snapshot every `snapshot_every` events and
        replaying a `Rewind` with `replayer`."""
        ...

    def want_timing(self, runner: Runner) -> Callable[[], object] | None:
        """What a feed calls when it needs the countdown of a room run elsewhere."""
        ...

    def attended(self, runner: Runner) -> Callable[[bool], object] | None:
        """What to tell a runner when its room's first listener here comes and its last
        goes; None when this process cannot know (listeners elsewhere in a cluster)."""
        ...

    @property
    def outages(self) -> tuple[type[BaseException], ...]:
        """The errors of the log and bus that mean "cannot be reached right now"."""
        ...


ROOM_ID_TRIES = 5
"""Room ids end in 24 random bits: a clash is rare, and a few draws make it vanish."""


class Unavailable(Exception):
    """A room's store cannot be reached right now (a cluster's Redis is down)."""

    code = UNAVAILABLE


class Embedded:
    """Every room runs in this process, publishing on the in-process bus."""

    def __init__(self, log: EventLog, bus: Bus[Entry], clock: Clock) -> None:
        self.log = log
        self.bus = bus
        self.clock = clock

    @property
    def source(self) -> Source:
        return self.bus

    @property
    def running(self) -> int | None:
        return None

    def runner(
        self,
        room_id: str,
        initial: Encounter,
        *,
        queue_limit: int,
        snapshot_every: int,
        replayer: Replayer = in_thread,
    ) -> Runner:
        return Room(
            room_id,
            initial,
            log=self.log,
            bus=self.bus,
            clock=self.clock,
            queue_limit=queue_limit,
            snapshot_every=snapshot_every,
            replayer=replayer,
        )

    def want_timing(self, runner: Runner) -> Callable[[], object] | None:
        return None  # the room runs here: its countdown is at hand

    def attended(self, runner: Runner) -> Callable[[bool], object] | None:
        """Every listener of a room is in this process: with none, its timers freeze."""
        assert isinstance(runner, Room)
        return runner.set_attended

    @property
    def outages(self) -> tuple[type[BaseException], ...]:
        return ()  # a file on this machine: its errors are not passing outages


@dataclass(frozen=True, slots=True)
class Hosted:
    """A room served by this process and what the gateway needs next to it."""

    room_id: str
    runner: Runner
    feed: Feed
    reader: CommandReader
    seated: set[str] = field(default_factory=set)
    """The combatants a player seat plays (from the room's invites when it started, or
    its encounter when this process created it): the GM's choices are those of the
    others."""


class Listed(TypedDict):
    """One room as `rooms` lists it (docs/protocol.md, `listing`)."""

    room: str
    name: str
    ruleset: str
    mode: str
    seats: dict[str, list[str]]
    gm_plays: list[str]
    codes: JoinCodes


class Host:
    def __init__(
        self,
        log: EventLog,
        placement: Placement,
        clock: Clock,
        issuer: TokenIssuer,
        *,
        queue_limit: int = 256,
        snapshot_every: int = 500,
        idle_seconds: float = 15 * 60,
        workshop: Workshop | None = None,
    ) -> None:
        self.log = log
        self.workshop = Workshop() if workshop is None else workshop  # the heavy requests
        self.idle_seconds = idle_seconds
        self.web_page = ""  # the web app's address once it serves (`App.start`), for hosts
        self._idle: dict[str, Timer] = {}  # rooms nobody follows, and when to let them go
        self._chores: set[asyncio.Task[None]] = set()
        self.placement = placement
        self.clock = clock
        self.issuer = issuer
        self.queue_limit = queue_limit
        self.snapshot_every = snapshot_every
        self._hosted: dict[str, Hosted] = {}
        self._starting: dict[str, asyncio.Task[Hosted | None]] = {}

    @property
    def rooms(self) -> int:
        """Rooms running in this process."""
        running = self.placement.running
        return len(self._hosted) if running is None else running

    async def create(self, data: Any) -> tuple[Built, JoinTokens]:
        """Build the encounter `data` describes (the server's own: the demo), log it,
        start its room, issue tokens and invite codes (`tokens["codes"]`, absent when
        the store could not keep them: `renew` makes them later).

        Raises `EncounterError` for an encounter that cannot be built (nothing stored).
        """
        return await self._open(build(data))

    async def create_uploaded(
        self, encounter: Mapping[str, Any], files: Mapping[str, str], file: str
    ) -> tuple[Built, JoinTokens]:
        """`create` for a host's `create` request: the encounter as a map, or as the
        files' text (`server/encounter_files.py`), built in the workshop in the host's
        lane. `EncounterError` for an encounter that cannot be built."""
        built = await self.workshop.run(HOST_LANE, built_of, encounter, files, file)
        return await self._open(built)

    async def _open(self, built: Built) -> tuple[Built, JoinTokens]:
        """Log the built encounter as a new room, start it, issue its tokens and codes."""
        for _ in range(ROOM_ID_TRIES):
            try:
                await self.log.save_initial(built.encounter.id, built.encounter)
                break
            except RoomExists:  # a room id drawn twice: draw again
                room_id = new_room_id(built.name)
                built = dataclasses.replace(
                    built, encounter=dataclasses.replace(built.encounter, id=room_id)
                )
            except self.placement.outages as error:  # the store is away: nothing stored
                raise Unavailable(f"the encounter cannot be stored now: {error}") from error
        else:
            raise RoomExists(built.encounter.id)
        room_id = built.encounter.id
        with contextlib.suppress(Unavailable):  # stored: it starts on its first join
            await self.get(room_id, built.encounter)
        tokens = self.issuer.join_tokens(room_id, built.seats)
        codes = await self._introduce(built)
        if codes is not None:
            tokens["codes"] = codes
        self._seat(room_id, built.seats)  # it started before its invites were kept
        return built, tokens

    async def _introduce(self, built: Built) -> JoinCodes | None:
        """Keep a new room's card and its invite codes; None when the store went away
        meanwhile (the room is there; `renew` gives it its codes later)."""
        encounter = built.encounter
        card = RoomCard(built.name, encounter.ruleset, encounter.mode, tuple(encounter.combatants))
        try:
            await self.log.save_card(encounter.id, card)
            return await invites.issue(self.log, encounter.id, built.seats)
        except self.placement.outages as error:
            logger.warning(
                "invite codes not kept", extra={"room": encounter.id, "error": str(error)}
            )
            return None

    async def _store(self, call: Awaitable[T]) -> T:
        """`call` on the store; `Unavailable` when the store cannot be reached now."""
        try:
            return await call
        except self.placement.outages as error:
            raise Unavailable(f"the store cannot be reached now: {error}") from error

    async def renew(
        self, room_id: str, seats: Mapping[str, Iterable[str]]
    ) -> tuple[str, JoinTokens]:
        """Fresh tokens for an existing room: a fight prepared weeks ago, a GM whose
        token expired. The seats are named again (the encounter file has them); each
        combatant must be in the room now. Returns the room's ruleset and the tokens.

        Raises `EncounterError` (no such room, a combatant not in it or in two seats)
        and `Unavailable` (the store is away)."""
        room = await self.get(room_id)
        if room is None:
            raise EncounterError([f"no room {room_id!r}"])
        present = room.feed.state.combatants
        missing = sorted({c for ids in seats.values() for c in ids} - set(present))
        if missing:
            raise EncounterError([f"no combatant {', '.join(missing)} in room {room_id}"])
        try:
            tokens = self.issuer.join_tokens(room_id, seats)
        except ValueError as error:  # a combatant in two seats
            raise EncounterError([str(error)]) from None
        state = room.feed.state
        if await self._store(self.log.load_card(room_id)) is None:  # made before cards
            card = RoomCard("", state.ruleset, state.mode, tuple(state.combatants))
            await self._store(self.log.save_card(room_id, card))
        tokens["codes"] = await self._store(invites.issue(self.log, room_id, seats))
        self._seat(room_id, seats)
        return state.ruleset, tokens

    async def listing(self) -> list[Listed]:
        """Every room the log knows (this process's and, in a cluster, every other's),
        with what the host created it with, its seats and its live invite codes. A room
        made before cards were kept shows what its initial encounter says, no name.
        `Unavailable` when the store cannot be reached now."""
        listed: list[Listed] = []
        for room_id in await self._store(self.log.rooms()):
            card = await self._store(self.log.load_card(room_id))
            if card is None:
                initial = await self._store(self.log.load_initial(room_id))
                if initial is None:
                    continue
                card = RoomCard("", initial.ruleset, initial.mode, tuple(initial.combatants))
            live = await self._store(self.log.invites(room_id))
            seats = {i.seat: list(i.controls) for i in live if i.role == Role.PLAYER}
            seated = invites.seated(live)
            listed.append(
                Listed(
                    room=room_id,
                    name=card.name,
                    ruleset=card.ruleset,
                    mode=card.mode,
                    seats=seats,
                    gm_plays=[c for c in card.combatants if c not in seated],
                    codes=invites.codes_of(live),
                )
            )
        return listed

    async def redeem(self, code: str) -> Grant | None:
        """What the invite code `code` grants; None for a code never given, or revoked.
        `Unavailable` when the store cannot be reached now."""
        invite = await self._store(self.log.find_invite(code))
        return None if invite is None else invites.grant_of(invite)

    async def codes(self, room_id: str) -> JoinCodes:
        """The room's live invite codes."""
        return invites.codes_of(await self._store(self.log.invites(room_id)))

    async def revoke(self, room_id: str, code: str, reissue: bool) -> JoinCodes | None:
        """Revoke the room's invite code `code` (with `reissue`, its audience gets a
        fresh one); the room's codes then, or None (nothing changed) for a code that
        is not one of the room's live codes."""
        return await self._store(invites.revoke(self.log, room_id, code, reissue))

    async def peek(self, room_id: str, seq: int) -> Mapping[str, Any]:
        """The GM's table of room `room_id` after event `seq`, rebuilt from the log as
        a rewind there would restore it, changing nothing (the GM's `peek`); read and
        replayed in the room's lane of the workshop. `CommandRefused` for a seq no
        rewind could go to; `Unavailable` when the store cannot be read now."""
        hosted = await self.get(room_id)
        initial = await self._store(self.log.load_initial(room_id))
        if hosted is None or initial is None:
            raise Unavailable(f"room {room_id} cannot be loaded now")
        last = initial.version + hosted.feed.seq
        # In the room's turn: a GM (or several of its connections) asking again and
        # again waits for its last answer rather than taking the process's time.
        async with self.workshop.lane(room_lane(room_id)) as turn:
            start, events = await self._store(
                past_of(self.log, room_id, initial, last, initial.version + seq)
            )
            return await turn.run(gm_table_after, start, events)

    async def read_sheet(self, room_id: str, file: str, text: str) -> dict[str, Any]:
        """The combatant the sheet file `file` (its `text`) makes in room `room_id`,
        read in the room's lane of the workshop (the GM's `read_sheet`).
        `CommandRefused`: `unknown_command` in a room that takes no combatant during
        the fight, `invalid_command` with every problem of the sheet."""
        hosted = await self.get(room_id)
        if hosted is None:
            raise Unavailable(f"room {room_id} cannot be loaded now")
        ruleset = hosted.feed.state.ruleset
        if "AddCombatant" not in hosted.reader.commands:
            problem = f"a {ruleset} room takes no combatant during the fight (no AddCombatant)"
            raise CommandRefused(UNKNOWN_COMMAND, problem)
        try:
            return await self.workshop.run(
                room_lane(room_id), combatant_from_file, ruleset, file, text
            )
        except EncounterError as error:
            raise CommandRefused(INVALID_COMMAND, "; ".join(error.problems)) from None

    def _replayer(self, room_id: str) -> Replayer:
        """How room `room_id` replays a `Rewind`: in its lane of the workshop."""

        async def replay(start: Encounter, events: Sequence[Event]) -> Encounter:
            return await self.workshop.run(room_lane(room_id), replayed, start, events)

        return replay

    async def get(self, room_id: str, initial: Encounter | None = None) -> Hosted | None:
        """The room `room_id`, started from the log if need be; None if the log has no
        such room. Concurrent callers share one start. `Unavailable` when the log cannot
        be read right now. `initial`: its initial encounter, when the caller has just
        logged it (`create`), not read back: a big one takes tens of milliseconds."""
        hosted = self._hosted.get(room_id)
        if hosted is not None:
            return hosted
        starting = self._starting.get(room_id)
        if starting is None:
            starting = asyncio.create_task(self._start(room_id, initial))
            self._starting[room_id] = starting
            starting.add_done_callback(lambda _: self._starting.pop(room_id, None))
        return await asyncio.shield(starting)

    async def _start(self, room_id: str, initial: Encounter | None) -> Hosted | None:
        try:
            if initial is None:
                initial = await self.log.load_initial(room_id)
        except self.placement.outages as error:  # the store is away (a Redis restart)
            raise Unavailable(f"room {room_id} cannot be loaded now: {error}") from error
        if initial is None:
            return None
        runner = self.placement.runner(
            room_id,
            initial,
            queue_limit=self.queue_limit,
            snapshot_every=self.snapshot_every,
            replayer=self._replayer(room_id),
        )
        attend = self.placement.attended(runner)

        def attendance(present: bool) -> None:
            if attend is not None:
                self._attendance(room_id, attend, present)

        feed = Feed(
            room_id,
            self.log,
            self.placement.source,
            initial,
            countdown=lambda: runner.countdown,
            now=self.clock.now,
            want_timing=self.placement.want_timing(runner),
            attendance=attendance,
        )
        try:
            await feed.start()
        except self.placement.outages as error:
            await runner.stop()
            raise Unavailable(f"room {room_id} cannot be followed now: {error}") from error
        except BaseException:
            await runner.stop()
            raise
        try:
            await runner.start()
        except BaseException:  # leave nothing following a room that did not start
            await feed.stop()
            await runner.stop()
            raise
        hosted = Hosted(
            room_id, runner, feed, reader_for(initial.ruleset), await self._seated(room_id)
        )
        self._hosted[room_id] = hosted
        if feed.listeners == 0:
            attendance(False)  # nobody has joined yet
        logger.info("room started", extra={"room": room_id, "seq": feed.seq})
        return hosted

    async def _seated(self, room_id: str) -> set[str]:
        """The combatants the room's player seats play; none known when the store
        cannot say now (the GM is then offered the choices of every combatant)."""
        try:
            return invites.seated(await self.log.invites(room_id))
        except self.placement.outages:
            return set()

    def _seat(self, room_id: str, seats: Mapping[str, Iterable[str]]) -> None:
        """Tell the room, if it runs here, which combatants its player seats play now
        (as `create` and `renew` just named them)."""
        hosted = self._hosted.get(room_id)
        if hosted is not None:
            hosted.seated.clear()
            hosted.seated.update(c for ids in seats.values() for c in ids)
            hosted.feed.reseated()

    def _attendance(self, room_id: str, attend: Callable[[bool], object], present: bool) -> None:
        """Someone joined (`present`) or the last listener left: tell the runner, and
        let a room nobody has followed for `idle_seconds` go (it restarts from the log
        when someone joins again), so a long-running server keeps only live rooms."""
        attend(present)
        timer = self._idle.pop(room_id, None)
        if timer is not None:
            timer.cancel()
        if not present:
            self._idle[room_id] = self.clock.call_at(
                self.clock.now() + self.idle_seconds, lambda: self._spawn(self._let_go(room_id))
            )

    def _spawn(self, job: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run `job` as a task the host keeps (and cancels on close); returned, so a
        test clock can wait for it."""
        task = asyncio.create_task(job)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)
        return task

    async def _let_go(self, room_id: str) -> None:
        self._idle.pop(room_id, None)
        hosted = self._hosted.get(room_id)
        if hosted is None or hosted.feed.listeners:
            return
        del self._hosted[room_id]  # a join from now on starts it again from the log
        try:
            await hosted.runner.stop()
        finally:
            await hosted.feed.stop()
        logger.info("room let go", extra={"room": room_id, "idle_seconds": self.idle_seconds})

    async def close(self) -> None:
        """Stop every room (handling what is queued; a cluster hands it over) and its feed."""
        for timer in self._idle.values():
            timer.cancel()
        self._idle.clear()
        for chore in list(self._chores):
            chore.cancel()
        for starting in list(self._starting.values()):
            starting.cancel()
        for hosted in list(self._hosted.values()):
            try:
                await hosted.runner.stop()
            except Exception:  # one room's failure must not keep the others running
                logger.exception("stopping room failed", extra={"room": hosted.room_id})
            finally:
                await hosted.feed.stop()
        self._hosted.clear()
        await self.workshop.close()
