"""What the reliability tests share: a fight that never ends by itself, bots that play
its Live Combat rounds over the wire as a table of people would (and reconnect and
resume when the connection drops), and readers of the server's figures (`/metrics`,
`/proc`, the event log on disk).

Every wait here has a deadline and every loop a bound: a test fails, it never hangs.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import sqlite3
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from clients.encounters import read_encounter
from protocol.codec import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL, decode_server, encode
from protocol.errors import ProtocolError
from protocol.messages import (
    Ack,
    Created,
    Error,
    Events,
    Hello,
    Refused,
    Send,
    Snapshot,
    Update,
    Welcome,
    WentBack,
    Window,
)
from server.app import LOG_FILE
from server.engine.core import Event, replay
from server.engine.grid import Cell
from server.engine.records import digest, evolve, from_data, to_data
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.state import Encounter
from server.engine.views import GM_AUDIENCE, state_view
from server.eventlog import encounter_from_data
from server.sheets.verse import load_sheet
from tests.server.wire import Wire, http_get, open_socket
from tests.support.server import ROOT

T = TypeVar("T")

REPLY_SECONDS = 15.0
"""The longest a command may wait for its `ack` or `refused` on a live connection: a
bound on "the server still serves this table", not a speed target (those are in
bench/). Answers take milliseconds on an idle machine and up to about 5 s on a
2-core one running the whole suite beside browser tests; a server that stops serving
a connection leaves its command unanswered for good."""
RECONNECT_SECONDS = 20.0
"""The longest a bot keeps trying to reconnect (a server restarting included)."""

DEMO = ROOT / "server" / "samples" / "encounters" / "demo.toml"
SEATS = ("ayla", "bram", "corvin")
PLAN = {  # whom each of the demo's combatants attacks, with what: each stands by a foe
    "ayla": ("g1", "longsword"),
    "bram": ("g2", "quarterstaff"),
    "corvin": ("g1", "spear"),
    "g1": ("ayla", "scimitar"),
    "g2": ("bram", "scimitar"),
}
DEFENCES = ("dodge", "block")


def endless_fight(name: str, seed: int) -> dict[str, Any]:
    """The demo's cast (three seats against two goblins the GM plays, Live Combat) with
    fixed dice and health enough that nobody falls while a test plays, so rounds go
    on as long as it needs; countdowns short enough that a window nobody answers
    (someone offline) closes soon."""
    encounter = read_encounter(DEMO)
    encounter["name"] = name
    encounter["seed"] = seed
    encounter["settings"] = {
        **encounter.get("settings", {}),
        "planning_seconds": 6.0,
        "reaction_seconds": 3.0,
        "adapt_seconds": 3.0,
    }
    for combatant in encounter["combatants"]:
        combatant["sheet"] = {**combatant["sheet"], "health": 999}
    return encounter


def noted_goblin(combatant_id: str, notes: int, x: int, y: int) -> dict[str, Any]:
    """A goblin whose GM notes are `notes` bytes long: every event that carries it
    (`CombatantAdded`, `CombatantRemoved`) is that big for a GM connection, and small
    for the others (no one but the GM sees notes)."""
    sheet = evolve(load_sheet(ROOT / "server" / "samples" / "goblin.toml"), notes="n" * notes)
    combatant = VerseCombatant.from_sheet(combatant_id, "goblins", sheet, Cell(x, y))
    data: dict[str, Any] = to_data(combatant)
    return data


async def create_room(url: str, host_token: str, encounter: dict[str, Any]) -> Created:
    host = await Wire.join(url, host_token)
    try:
        await host.send({"type": "create", "cid": "create", "encounter": encounter})
        created = await host.expect(lambda m: isinstance(m, Created | Refused), 10.0)
    finally:
        await host.close()
    assert isinstance(created, Created), created
    return created


async def bounded(awaitable: Awaitable[T], seconds: float, what: str) -> T:
    try:
        return await asyncio.wait_for(awaitable, seconds)
    except TimeoutError:
        raise AssertionError(f"{what}: not done in {seconds} s") from None


async def read_for(wire: Wire, seconds: float) -> None:
    """Read what comes for `seconds`, however busy the room (a client that reads all
    the time; `Wire.drain` waits for a quiet moment that a busy room never has)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    with contextlib.suppress(TimeoutError):
        while (left := deadline - loop.time()) > 0:
            wire.pending.append(await wire.receive(left))


# -- figures ---------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    """The `share` quantile (0.5, 0.95) of `values`, nearest rank; 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def latency_line(label: str, seconds: list[float]) -> str:
    ms = [1000 * s for s in seconds]
    if not ms:
        return f"{label}: no commands"
    return (
        f"{label}: {len(ms)} commands, p50 {percentile(ms, 0.5):.1f} ms, "
        f"p95 {percentile(ms, 0.95):.1f} ms, max {max(ms):.1f} ms"
    )


def report(test: str, lines: list[str]) -> None:
    """Print a test's figures (shown by `pytest -s`), one per line, tagged."""
    for line in lines:
        print(f"[{test}] {line}")


async def metrics(url: str) -> dict[str, float]:
    """`/metrics` as {sample name with labels: value}."""
    status, _, body = await http_get(url, "/metrics")
    assert status == 200
    samples = {}
    for line in body.decode().splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


def connections(samples: dict[str, float]) -> int:
    """Open websocket connections, every role together (`combat_connections{role}`)."""
    return round(sum(v for k, v in samples.items() if k.startswith("combat_connections{")))


async def settle(url: str, expected: int, seconds: float = 10.0) -> int:
    """Wait (bounded) for the connection gauge to show `expected`; what it shows then."""
    deadline = time.monotonic() + seconds
    shown = connections(await metrics(url))
    while shown != expected and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
        shown = connections(await metrics(url))
    return shown


@dataclass(frozen=True)
class ProcessFigures:
    rss_kib: int
    fds: int

    def __str__(self) -> str:
        return f"VmRSS {self.rss_kib / 1024:.1f} MiB, {self.fds} open files"


def process_figures(pid: int) -> ProcessFigures:
    """The server process's resident memory and open file descriptors (/proc)."""
    status = Path(f"/proc/{pid}/status").read_text()
    rss = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    return ProcessFigures(rss, len(os.listdir(f"/proc/{pid}/fd")))


# -- the log on disk -------------------------------------------------------------------


@dataclass
class StoredLog:
    """A room's log as the SQLite file holds it (read-only, beside the live server)."""

    initial: Encounter
    events: list[tuple[int, dict[str, Any]]]  # (seq, the event as plain data)
    commands: dict[str, tuple[int, int]]  # command key -> (first_seq, last_seq)

    @property
    def version(self) -> int:
        return self.events[-1][0] if self.events else 0

    def replayed(self, up_to: int) -> Encounter:
        events: list[Event] = [from_data(data) for seq, data in self.events if seq <= up_to]
        return replay(self.initial, events)


def stored_log(data_dir: Path, room: str) -> StoredLog:
    uri = f"file:{data_dir / LOG_FILE}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=5.0)) as db:
        (initial,) = db.execute("SELECT initial FROM rooms WHERE room_id = ?", (room,)).fetchone()
        events = [
            (seq, json.loads(data))
            for seq, data in db.execute(
                "SELECT seq, data FROM events WHERE room_id = ? ORDER BY seq", (room,)
            )
        ]
        commands = {  # a key given again points at its later batch
            key: (first, last)
            for key, first, last in db.execute(
                "SELECT command_key, batch_first, seq FROM events"
                " WHERE room_id = ? AND command_key IS NOT NULL ORDER BY seq",
                (room,),
            )
        }
    return StoredLog(encounter_from_data(json.loads(initial)), events, commands)


def gm_view_of(state: Encounter) -> dict[str, Any]:
    """The state as a GM's `snapshot` shows it, in the wire's plain types."""
    view: dict[str, Any] = json.loads(json.dumps(state_view(state, GM_AUDIENCE)))
    return view


def view_digest(view: dict[str, Any]) -> str:
    return digest(view)


# -- bots ------------------------------------------------------------------------------


@dataclass
class Stream:
    """What one client holds of the room: every event by seq, across its connections,
    and every way the stream broke its promise (a gap, a repeat)."""

    last: int | None = None
    events: dict[int, dict[str, Any]] = field(default_factory=dict)
    snapshots: list[int] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)

    def snapshot(self, seq: int) -> None:
        if self.last is not None and seq < self.last:
            self.broken.append(f"a snapshot at {seq} after event {self.last}")
        self.snapshots.append(seq)
        self.last = seq

    def went_back(self, seq: int) -> None:
        """The server said the log no longer holds what came after `seq`: forget it
        (the snapshot that follows carries on from the log)."""
        for later in [held for held in self.events if held > seq]:
            del self.events[later]
        self.last = None

    def event(self, seq: int, event: dict[str, Any]) -> None:
        if self.last is None:
            self.broken.append(f"event {seq} before any snapshot")
        elif seq != self.last + 1:
            kind = "repeat" if seq <= self.last else "gap"
            self.broken.append(f"a {kind}: event {seq} after {self.last}")
        self.events[seq] = event
        self.last = seq


_cids = itertools.count(1)


RETRY = {"rate_limited", "room_busy", "unavailable", "version_conflict"}
"""Refusals that ask for the same command again a little later, with the same cid."""
RETRIES = 20


@dataclass
class Sent:
    cid: str
    command: dict[str, Any]
    window: int  # the window it answers
    tries: int = 0
    dropped: int = 0  # sent on a connection that dropped before the answer came
    think: float = 0.0  # seconds to wait before sending it
    answers: list[Ack | Refused] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)  # from sending to the answer
    answered_at: list[float] = field(default_factory=list)  # time.monotonic()

    @property
    def waiting(self) -> bool:
        """Sent, and neither answered nor dropped yet."""
        return self.tries > len(self.answers) + self.dropped

    @property
    def final(self) -> Ack | Refused | None:
        return self.answers[-1] if self.answers else None


class Bot:
    """One person at the table (a player seat, or the GM playing the goblins): answers
    every window that asks a combatant it plays, one command at a time; declares the
    attack `PLAN` gives (`PassWindow` if it is refused), dodges or blocks when offered
    (as the seeded dice of its `rng` say), else passes.

    A dropped connection is not an error: the bot reconnects (for up to
    `RECONNECT_SECONDS`) with `resume_from_seq` set to the last event it holds, and
    sends the command it had no answer to again with the same `cid`, as
    docs/protocol.md asks. What it must never see: a gap or a repeat in its events, a
    command left unanswered on a live connection.
    """

    def __init__(
        self,
        name: str,
        url: str,
        token: str,
        rng: random.Random,
        plays: Callable[[str], bool],
        think: tuple[float, float] = (0.0, 0.0),
        subprotocol: str = MSGPACK_SUBPROTOCOL,
    ) -> None:
        self.name = name
        self.think = think
        self.subprotocol = subprotocol
        self.binary = subprotocol == MSGPACK_SUBPROTOCOL
        self.url = url
        self.token = token
        self.rng = rng
        self.plays = plays
        self.stream = Stream()
        self.sent: list[Sent] = []
        self.queue: list[Sent] = []
        self.planned: set[tuple[int, str]] = set()
        self.slots: Counter[str] = Counter()  # turns a round per combatant
        self.window: Window | None = None
        self.ws: ClientConnection | None = None
        self.connections = 0
        self.resumed_with_snapshot = 0
        self.closes: list[int | None] = []
        self.reconnect_seconds: list[float] = []
        self.problems: list[str] = []
        self.unarmed: set[str] = set()
        self.on_send: Callable[[], object] | None = None
        self._answers: dict[str, tuple[ClientConnection, asyncio.Future[Ack | Refused]]] = {}
        self._changed = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self._welcomed = asyncio.Event()

    # -- the connection --------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.ws is not None

    async def connect(self) -> None:
        """Join (the first time) or resume from the last event held; retried until the
        server answers, within `RECONNECT_SECONDS`."""
        started = time.monotonic()
        deadline = started + RECONNECT_SECONDS
        for attempt in itertools.count():
            try:
                await self._join()
                break
            except (OSError, ConnectionClosed, TimeoutError, AssertionError) as error:
                if time.monotonic() > deadline:
                    raise AssertionError(f"{self.name} could not reconnect: {error}") from None
                await asyncio.sleep(min(0.05 * (attempt + 1), 0.3))
        if self.connections > 1:
            self.reconnect_seconds.append(time.monotonic() - started)

    async def _join(self) -> None:
        ws = await open_socket(self.url, [self.subprotocol])
        self._welcomed.clear()
        hello = Hello(
            token=self.token, resume_from_seq=self.stream.last, client="reliability", events=True
        )
        held = self.stream.last
        await ws.send(encode(hello, binary=self.binary))
        self.ws = ws
        self._reader = asyncio.create_task(self._read(ws, held))
        try:
            await asyncio.wait_for(self._welcomed.wait(), REPLY_SECONDS)
        except TimeoutError:
            await ws.close()
            raise
        if self.ws is not ws:
            raise ConnectionClosed(None, None)
        self.connections += 1

    async def _read(self, ws: ClientConnection, held: int | None) -> None:
        try:
            async for frame in ws:
                self._dispatch(decode_server(frame), held)
        except ConnectionClosed:
            pass
        except ProtocolError as error:  # the server sent what the protocol does not allow
            self.problems.append(f"an undecodable frame: {error}")
            await ws.close()
        finally:
            self.closes.append(ws.close_code)
            if self.ws is ws:
                self.ws = None
            for connection, future in self._answers.values():
                if connection is ws and not future.done():
                    future.set_exception(ConnectionClosed(None, None))
            self._changed.set()

    def _dispatch(self, message: Any, held: int | None) -> None:
        if isinstance(message, Welcome):
            self._welcomed.set()
        elif isinstance(message, Snapshot):
            if held is not None:
                self.resumed_with_snapshot += 1
            self.stream.snapshot(message.seq)
            self.slots = slots_of(message.view["turn_order"])
        elif isinstance(message, Events | Update):
            for item in message.events or ():
                self.stream.event(item.seq, item.event)
                if item.event["$type"] == "InitiativeRolled":
                    self.slots = slots_of(item.event["order"])
        elif isinstance(message, WentBack):
            self.stream.went_back(message.seq)
        elif isinstance(message, Window):
            self.window = message
            self._changed.set()
        elif isinstance(message, Ack | Refused):
            _, future = self._answers.get(message.cid, (None, None))
            if future is not None and not future.done():
                future.set_result(message)
        elif isinstance(message, Error):
            self.problems.append(f"error {message.code}: {message.message}")

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, REPLY_SECONDS)

    # -- playing ---------------------------------------------------------------------

    async def play(self, stop: asyncio.Event, seconds: float = 90.0) -> None:
        """Play until `stop` is set, then finish what is queued (the command in flight
        included), within `seconds` in all."""
        deadline = time.monotonic() + seconds
        if not self.connected:
            await self.connect()
        for _ in range(1_000_000):
            assert time.monotonic() < deadline, f"{self.name} still playing after {seconds} s"
            if not self.connected:
                await self.connect()
                continue
            if not stop.is_set():
                self._plan()
            if not self.queue:
                if stop.is_set():
                    return
                self._changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), 0.2)
                continue
            head = self.queue[0]
            if head.think:  # a person reads the prompt before typing
                await asyncio.sleep(head.think)
                head.think = 0.0
            answer = await self._send(head)
            if answer is None:
                continue  # the connection dropped: reconnect, then the same cid again
            if isinstance(answer, Refused) and answer.code in RETRY and head.tries < RETRIES:
                await asyncio.sleep(0.05 * head.tries)
                continue
            self.queue.pop(0)
            if isinstance(answer, Refused) and head.command["type"] == "Declare":
                actor = head.command["actor"]
                if answer.code == "weapon_unusable":  # dropped or broken: fists from now on
                    self.unarmed.add(actor)
                passing = {"type": "PassWindow", "actor": actor, "window": head.window}
                self.queue.insert(0, self._new(passing, head.window))
        raise AssertionError(f"{self.name} went round its loop too often")

    async def _send(self, sent: Sent) -> Ack | Refused | None:
        ws = self.ws
        assert ws is not None
        future: asyncio.Future[Ack | Refused] = asyncio.get_running_loop().create_future()
        self._answers[sent.cid] = (ws, future)
        sent.tries += 1
        started = time.perf_counter()
        try:
            await ws.send(encode(Send(cid=sent.cid, command=sent.command), binary=self.binary))
            if self.on_send is not None:
                self.on_send()
            answer = await asyncio.wait_for(future, REPLY_SECONDS)
        except ConnectionClosed:
            sent.dropped += 1
            if self.ws is ws:  # dead: reconnect now rather than wait for the reader
                self.ws = None
            return None
        except TimeoutError:
            sent.dropped += 1
            if self.ws is ws:
                self.problems.append(f"no answer to {sent.command['type']} {sent.cid}")
                self.ws = None
            await ws.close()
            return None
        finally:
            self._answers.pop(sent.cid, None)
        sent.seconds.append(time.perf_counter() - started)
        sent.answered_at.append(time.monotonic())
        sent.answers.append(answer)
        return answer

    async def command(self, command: dict[str, Any]) -> Ack | Refused | None:
        """Send one command outside play (connected); its answer, None if it dropped."""
        return await self._send(self._new(command, 0))

    def _new(self, command: dict[str, Any], window: int) -> Sent:
        sent = Sent(f"{self.name}-{next(_cids)}", command, window)
        self.sent.append(sent)
        return sent

    def _plan(self) -> None:
        """Queue what the open window asks of the combatants this bot plays."""
        window = self.window
        if window is None:
            return
        answered = set(window.answered)
        for ask in window.asked:
            key = (window.window, ask.combatant)
            if not self.plays(ask.combatant) or ask.combatant in answered or key in self.planned:
                continue
            self.planned.add(key)
            for command in self._answer(window, ask.combatant, ask.options):
                self.queue.append(self._new(command, window.window))
                self.queue[-1].think = self.rng.uniform(*self.think)

    def _answer(self, window: Window, actor: str, options: list[str]) -> list[dict[str, Any]]:
        passing = {"type": "PassWindow", "actor": actor, "window": window.window}
        if window.kind == "planning":
            target, weapon = PLAN.get(actor, ("", ""))
            weapon = "" if actor in self.unarmed else weapon
            if not target or self.rng.random() < 0.15:
                return [passing]
            attack = {"$type": "Attack", "actor": actor, "target": target, "weapon": weapon}
            turns = max(1, self.slots[actor])
            return [
                {"type": "Declare", "actor": actor, "actions": [attack], "turn": turn}
                for turn in range(turns)
            ]
        defences = [option for option in options if option in DEFENCES]
        if defences and self.rng.random() < 0.6:
            option = self.rng.choice(defences)
            return [{"type": "Answer", "actor": actor, "window": window.window, "option": option}]
        return [passing]

    # -- what it saw -----------------------------------------------------------------

    @property
    def acks(self) -> dict[str, Ack]:
        """Each acked command's ack, by cid."""
        return {s.cid: s.final for s in self.sent if isinstance(s.final, Ack)}

    @property
    def latencies(self) -> list[float]:
        return [seconds for sent in self.sent for seconds in sent.seconds]

    def latencies_between(self, start: float, end: float) -> list[float]:
        """The latencies of the answers that came between `start` and `end`
        (`time.monotonic()`)."""
        return [
            seconds
            for sent in self.sent
            for seconds, at in zip(sent.seconds, sent.answered_at, strict=True)
            if start <= at < end
        ]

    def answered(self) -> Iterator[Sent]:
        return (sent for sent in self.sent if sent.answers)


def slots_of(turn_order: Any) -> Counter[str]:
    """How many turns a round each combatant has, from a turn order (`TurnSlot`s)."""
    return Counter(str(slot["combatant"]) for slot in turn_order)


def gm_plays(combatant: str) -> bool:
    return combatant not in SEATS


def table(
    url: str, created: Created, seed: int, think: tuple[float, float] = (0.0, 0.0)
) -> list[Bot]:
    """The GM (playing the goblins) and the three seats, each with its own dice, each
    taking `think` seconds (a seeded draw in that range) before each command; two of
    them speak msgpack, two JSON (a browser's subprotocol)."""
    rng = random.Random(seed)
    names = ("gm", *SEATS)
    tokens = (created.gm, *(created.players[seat] for seat in SEATS))
    plays = (gm_plays, *(seat.__eq__ for seat in SEATS))
    subprotocols = (MSGPACK_SUBPROTOCOL, JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL, JSON_SUBPROTOCOL)
    return [
        Bot(name, url, token, random.Random(rng.random()), play, think, subprotocol)
        for name, token, play, subprotocol in zip(names, tokens, plays, subprotocols, strict=True)
    ]


def stream_problems(bots: list[Bot]) -> list[str]:
    return [
        f"{bot.name}: {problem}" for bot in bots for problem in bot.stream.broken + bot.problems
    ]


def answer_counts(bots: list[Bot]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for bot in bots:
        for sent in bot.answered():
            final = sent.final
            assert final is not None
            counts["acked" if isinstance(final, Ack) else f"refused {final.code}"] += 1
    return counts
