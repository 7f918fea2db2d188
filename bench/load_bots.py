"""The bots: one process that plays every encounter and reports what it saw.

    python -m bench.load_bots PHASE --url URL [options]

`bench.load` starts this process once per phase, pinned to its own core, and reads the
one JSON line it prints last. Phases:

* `steady`: create the encounters, join each with 1 GM, 4 players and 5 spectators,
  the GM starts the fight, then every player declares every `--period` seconds (each
  at its own offset in the period). Measured: for each command, the time from sending
  it to the arrival, at the sender, of the first event of the seq range its `ack`
  names; the time to the `ack`; what every client received.
* `saturate`: the same table, but each player declares again as soon as the previous
  one is acknowledged. Measured: events and frames delivered to all clients a second.
  After the window two players of the first table declare once more, one after the
  other, in the quiet room, and the one-event `update` frame each kind of client gets
  for the second is written to `--frames-out`, for the floor server and the bare
  broadcast to send the very same bytes (a busy room's updates carry several
  commands' events; `sample`).
* `bare`: as many clients as `saturate` had, on the bare broadcast server
  (`bench.load_bare`): what they receive a second, read the same way.
* `idle`: create the encounters, open `--connections` spectator connections (each
  handshaked: hello, welcome, table) spread over them, and report the server's
  resident memory before and after.
* `idle_bare`: the same number of connections to `bench.load_bare` without frames, a
  bare websockets server that echoes what it reads: each sends a hello as long as a
  spectator's and reads it back. The yardstick of `idle`.

The bots are thin clients of protocol version 2, as the clients people use: their
`hello` does not ask for the raw events, so after the handshake (`welcome`, the
joining history as `log`, the `table`, the open `window`, the player's `choices`) each
batch of events comes as one `update` frame, the table's patch and one log line per
event. Events delivered are counted as those lines (`len(update["log"])`); an update
follows the last one when its `from_seq` is the seq the client holds, else a gap is
counted.

Clients speak the protocol with `protocol.codec` over `bench.load_wire`: websockets'
own handshake and framing for what they send, a lean reader for what they receive,
so that one core of bots can read what a bare broadcast server sends (the bots must
not be what limits the figures). They offer permessage-deflate, as browsers and
websockets' own client do, unless `--no-deflate`. Handshake messages are checked with
`decode_server`; the stream of `update` frames is read with a bare msgpack decode.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import msgpack

from bench.load_encounter import SEATS, declare, encounter, weapons
from bench.load_proc import (
    cpu_seconds,
    machine_busy_seconds,
    main_thread_cpu_seconds,
    percentile,
    raise_fd_limit,
    rss_kib,
)
from bench.load_wire import Wire
from protocol import MSGPACK_SUBPROTOCOL, decode_server, encode, pack
from protocol.messages import Create, Created, Hello, Log, Refused, Welcome
from protocol.messages import Table as TableMessage

SPECTATORS = 5
SAMPLED = frozenset({"gm", "player", "spectator"})
"""The kinds of client whose one-event `update` the floor replays (`sample`)."""
OPENING = 64  # connections being opened at once
REPLY_SECONDS = 30.0
SETTLE_SECONDS = 240.0
"""How long the table's first declarations may take to be answered (`settle`)."""
QUIET = 0.05
QUIET_SECONDS = 0.25
"""The server is quiet when it used under `QUIET` of a core over `QUIET_SECONDS`."""
T = TypeVar("T")


@dataclass
class Tally:
    """What every client of this process received, and the command timings."""

    frames: int = 0
    events: int = 0  # log lines of `update` frames: one per event
    received_bytes: int = 0
    event_frames: int = 0  # `update` frames
    event_bytes: int = 0
    gaps: int = 0
    sent: int = 0
    acked: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    to_event: list[float] = field(default_factory=list)
    to_ack: list[float] = field(default_factory=list)
    measuring: bool = False
    sampling: bool = False  # keep the first one-event `update` of each kind (`sample`)
    samples: dict[str, bytes] = field(default_factory=dict)

    def counters(self) -> tuple[int, int, int, int, int, int]:
        return (
            self.frames,
            self.events,
            self.received_bytes,
            self.event_frames,
            self.event_bytes,
            self.sent,
        )


class Bot:
    """One connection: counts every frame it receives and times its own commands."""

    def __init__(self, wire: Wire, kind: str, tally: Tally, seq: int) -> None:
        self.wire = wire
        self.kind = kind  # "gm", "player", "spectator" or "bare"
        self.tally = tally
        self.last_seq = seq
        self._count = 0
        self._replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._sent_at: dict[str, tuple[float, bool]] = {}
        self._seen_at: dict[int, float] = {}
        self._waiting: dict[int, tuple[float, bool]] = {}
        wire.listen(self._received)

    @property
    def awaiting(self) -> bool:
        """Is an acknowledged command's first event still on its way?"""
        return bool(self._waiting)

    async def command(
        self, command: dict[str, Any], seconds: float = REPLY_SECONDS
    ) -> dict[str, Any]:
        """Send `command` and wait (up to `seconds`) for its `ack` or `refused`."""
        self._count += 1
        cid = f"{self.kind}-{self._count}"
        reply = asyncio.get_running_loop().create_future()
        self._replies[cid] = reply
        self._sent_at[cid] = (time.perf_counter(), self.tally.measuring)
        if self.tally.measuring:
            self.tally.sent += 1
        self.wire.send(pack({"type": "send", "cid": cid, "command": command}))
        return await asyncio.wait_for(reply, seconds)

    def _received(self, data: bytes, now: float) -> None:
        tally = self.tally
        tally.frames += 1
        tally.received_bytes += len(data)
        message = msgpack.unpackb(data, raw=False)
        kind = message.get("type")
        if kind == "update":
            self._update(message, now, len(data))
            if tally.sampling and len(message.get("log", ())) == 1:
                tally.samples.setdefault(self.kind, data)
        elif kind in ("ack", "refused"):
            self._reply(message, now)
        elif kind == "table":  # a whole table (its audience changed): it holds this seq
            self.last_seq = message["seq"]

    def _update(self, update: dict[str, Any], now: float, size: int) -> None:
        """One batch: its events are its log lines; it follows the table this client
        holds when its `from_seq` is that table's seq."""
        tally = self.tally
        tally.events += len(update["log"])
        tally.event_frames += 1
        tally.event_bytes += size
        if self.kind == "bare":
            return
        first, seq = update["from_seq"], update["seq"]
        if first != self.last_seq:
            tally.gaps += 1
        self.last_seq = seq
        for each in range(first + 1, seq + 1):
            if self._waiting:
                waiting = self._waiting.pop(each, None)
                if waiting is not None and waiting[1]:
                    tally.to_event.append(now - waiting[0])
            self._seen_at[each] = now
        if len(self._seen_at) > 512:
            keep = self.last_seq - 256
            self._seen_at = {s: t for s, t in self._seen_at.items() if s > keep}

    def _reply(self, message: dict[str, Any], now: float) -> None:
        tally = self.tally
        cid = message["cid"]
        sent, counted = self._sent_at.pop(cid, (now, False))
        if message["type"] == "ack":
            if counted:
                tally.acked += 1
                tally.to_ack.append(now - sent)
            first = message["first_seq"]
            seen = self._seen_at.get(first)
            if seen is not None:
                if counted:
                    tally.to_event.append(seen - sent)
            else:
                self._waiting[first] = (sent, counted)
        elif counted:
            code = message["code"]
            tally.refused[code] = tally.refused.get(code, 0) + 1
        reply = self._replies.pop(cid, None)
        if reply is not None and not reply.done():
            reply.set_result(message)


async def handshake(url: str, token: str, deflate: bool) -> tuple[Wire, Welcome, int]:
    """A connection past hello: its welcome and the seq of the table it was sent.

    A thin client's hello (no raw events). A room's connection then gets the history
    as `log` frames and its `table`; the `window` and `choices` after it are left to
    the bot's reader, which counts them as frames and nothing else."""
    wire = await Wire.open(url, MSGPACK_SUBPROTOCOL, deflate=deflate)
    wire.send(encode(Hello(token=token, client="bench-load")))
    welcome = decode_server(await wire.recv())
    if not isinstance(welcome, Welcome):
        raise RuntimeError(f"no welcome: {welcome}")
    seq = welcome.seq
    if welcome.role != "host":
        table = decode_server(await wire.recv())
        while isinstance(table, Log):
            table = decode_server(await wire.recv())
        if not isinstance(table, TableMessage):
            raise RuntimeError(f"no table after the welcome: {table}")
        seq = table.seq
    return wire, welcome, seq


async def create_encounters(url: str, host_token: str, count: int, deflate: bool) -> list[Created]:
    wire, _, _ = await handshake(url, host_token, deflate)
    made: list[Created] = []
    for index in range(count):
        create = encode(Create(cid=f"new-{index}", encounter=encounter(index)))
        wire.send(create)
        answer = decode_server(await wire.recv())
        while isinstance(answer, Refused) and answer.code == "rate_limited":
            await asyncio.sleep(0.1)  # a host connection's creates count against its rate
            wire.send(create)
            answer = decode_server(await wire.recv())
        if not isinstance(answer, Created):
            raise RuntimeError(f"encounter {index} was not created: {answer}")
        made.append(answer)
    wire.close()
    return made


async def bounded(jobs: list[Callable[[], Awaitable[T]]], at_once: int = OPENING) -> list[T]:
    """Run `jobs` with at most `at_once` running together (so the server's listen
    backlog never overflows into SYN retries, which would show as seconds)."""
    gate = asyncio.Semaphore(at_once)

    async def one(job: Callable[[], Awaitable[T]]) -> T:
        async with gate:
            return await job()

    return await asyncio.gather(*(one(job) for job in jobs))


@dataclass
class Table:
    """One encounter's clients."""

    gm: Bot
    players: dict[str, Bot]
    spectators: list[Bot]


async def join_table(url: str, created: Created, tally: Tally, deflate: bool) -> Table:
    async def bot(token: str, kind: str) -> Bot:
        wire, _, seq = await handshake(url, token, deflate)
        return Bot(wire, kind, tally, seq)

    gm = await bot(created.gm, "gm")
    players = {seat: await bot(created.players[seat], "player") for seat in SEATS}
    spectators = [await bot(created.spectator, "spectator") for _ in range(SPECTATORS)]
    return Table(gm, players, spectators)


@dataclass
class Window:
    """The measuring window's counters and CPU use, taken at its start."""

    started: float
    counters: tuple[int, ...]
    bots_cpu: float
    server_cpu: float
    loop_cpu: float
    machine_cpu: float


def open_window(tally: Tally, server_pid: int) -> Window:
    tally.measuring = True
    return Window(
        time.perf_counter(),
        tally.counters(),
        time.process_time(),
        cpu_seconds(server_pid),
        main_thread_cpu_seconds(server_pid),
        machine_busy_seconds(),
    )


def close_window(tally: Tally, window: Window, server_pid: int) -> dict[str, Any]:
    seconds = time.perf_counter() - window.started
    server_cpu = cpu_seconds(server_pid) - window.server_cpu
    loop_cpu = main_thread_cpu_seconds(server_pid) - window.loop_cpu
    bots_cpu = time.process_time() - window.bots_cpu
    machine_cpu = machine_busy_seconds() - window.machine_cpu
    tally.measuring = False
    frames, events, size, event_frames, event_bytes, sent = (
        now - then for now, then in zip(tally.counters(), window.counters, strict=True)
    )
    return {
        "seconds": seconds,
        "frames": frames,
        "events": events,
        "bytes": size,
        "event_frames": event_frames,
        "event_frame_bytes": event_bytes / event_frames if event_frames else 0.0,
        "sent": sent,
        "server_cpu": server_cpu / seconds,
        "server_loop_cpu": loop_cpu / seconds,
        "bots_cpu": bots_cpu / seconds,
        "other_cpu": max(0.0, machine_cpu - server_cpu - bots_cpu) / seconds,
    }


def timings(tally: Tally) -> dict[str, Any]:
    to_event = sorted(tally.to_event)
    to_ack = sorted(tally.to_ack)
    ms = 1000.0
    return {
        "acked": tally.acked,
        "refused": tally.refused,
        "gaps": tally.gaps,
        "latencies": len(to_event),
        "event_p50_ms": percentile(to_event, 0.50) * ms,
        "event_p99_ms": percentile(to_event, 0.99) * ms,
        "event_max_ms": (to_event[-1] if to_event else 0.0) * ms,
        "ack_p50_ms": percentile(to_ack, 0.50) * ms,
        "ack_p99_ms": percentile(to_ack, 0.99) * ms,
    }


async def play(args: argparse.Namespace) -> dict[str, Any]:
    """`steady` or `saturate`: the full table on every encounter."""
    host_token = Path(args.host_token_file).read_text().strip()
    made = await create_encounters(args.url, host_token, args.encounters, args.deflate)
    tally = Tally()
    tables: list[Table] = await bounded(
        [partial(join_table, args.url, c, tally, args.deflate) for c in made], OPENING // 10
    )
    started = await asyncio.gather(*(t.gm.command({"type": "StartCombat"}) for t in tables))
    failed = [s for s in started if s["type"] != "ack"]
    if failed:
        raise RuntimeError(f"the fight did not start: {failed[0]}")
    await asyncio.sleep(0.5)  # let the start's frames reach everyone
    arms = weapons()
    settled = await settle(tables, arms, args.server_pid)
    stop = asyncio.Event()
    steady = args.phase == "steady"
    pick = random.Random(1)
    tasks = [
        asyncio.create_task(
            _steady(bot, seat, arms[seat], args.period, pick.uniform(0, args.period), stop)
            if steady
            else _saturate(bot, seat, arms[seat], stop)
        )
        for table in tables
        for seat, bot in table.players.items()
    ]
    await asyncio.sleep(args.warmup)
    window = open_window(tally, args.server_pid)
    await asyncio.sleep(args.seconds)
    figures = close_window(tally, window, args.server_pid)
    stop.set()
    await asyncio.gather(*tasks)
    players = [bot for table in tables for bot in table.players.values()]
    deadline = time.perf_counter() + REPLY_SECONDS
    while any(bot.awaiting for bot in players) and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)  # the events of the last commands acked
    figures.update(timings(tally))
    figures["connections"] = len(tables) * (1 + len(SEATS) + SPECTATORS)
    figures["settle_seconds"] = settled
    if args.frames_out:
        await sample(tables[0], arms, tally)
        samples = {kind: frame.hex() for kind, frame in tally.samples.items()}
        Path(args.frames_out).write_text(json.dumps(samples))
        figures["sample_bytes"] = {kind: len(frame) for kind, frame in tally.samples.items()}
    for bot in (b for t in tables for b in (t.gm, *t.players.values(), *t.spectators)):
        bot.wire.close()
    return figures


async def settle(tables: list[Table], arms: dict[str, str], server_pid: int) -> float:
    """Every player declares once, all together; return the seconds until every
    declaration was answered, its update came back and the server fell quiet.

    Why, before any measuring: a first declaration changes the planning window's
    answers, so the server sends the table new `window` and `choices` messages
    (docs/protocol.md), and works out every seat's choices again; declaring again
    changes neither (`tests/bench/test_load_findings.py`). Those are the set-up's costs,
    once per table, not those of the repeated declaration the phases measure, and with
    a hundred tables they take longer than a command's usual `REPLY_SECONDS`.

    The answer and the update are not the end of it: the server works out the new
    choices after every update is out, seat by seat, for every table, and with a hundred
    tables that goes on for seconds after the last update came back. Measuring then
    would count the set-up's choices as the repeated declaration's cost, so the settle
    ends only once the server has been idle for a moment (`QUIET`)."""
    started = time.perf_counter()
    players = [(seat, bot) for table in tables for seat, bot in table.players.items()]
    replies = await asyncio.gather(
        *(bot.command(declare(seat, arms[seat]), SETTLE_SECONDS) for seat, bot in players)
    )
    refused = [reply for reply in replies if reply["type"] != "ack"]
    if refused:
        raise RuntimeError(f"a first declaration was refused: {refused[0]}")
    deadline = started + SETTLE_SECONDS
    while any(bot.awaiting for _, bot in players) and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)
    await quiet(server_pid, deadline)
    return time.perf_counter() - started


async def sample(table: Table, arms: dict[str, str], tally: Tally) -> None:
    """Two players of `table` declare once more, one after the other, alone in their
    quiet room: the one-event `update` each kind of client gets for the second goes to
    `tally.samples`, the frame the floor and the bare broadcast send for every event.
    The measured updates would not do: a busy room publishes several commands' events
    in one (`server/room/room.py`). The first declaration makes sure the second moves
    its player to the end of the table's order of declarations, as nearly every
    declaration of the measured window does (a player declaring again right after
    itself changes no order, and its update is a quarter smaller)."""
    (first, opener), (seat, bot) = list(table.players.items())[:2]
    everyone = [table.gm, *table.players.values(), *table.spectators]
    deadline = time.perf_counter() + REPLY_SECONDS
    seq = await _declare_alone(opener, first, arms[first])
    while any(b.last_seq < seq for b in everyone) and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)  # the first one's update reached them all
    tally.sampling = True
    try:
        await _declare_alone(bot, seat, arms[seat])
        while not tally.samples.keys() >= SAMPLED and time.perf_counter() < deadline:
            await asyncio.sleep(0.01)
    finally:
        tally.sampling = False
    missing = SAMPLED - tally.samples.keys()
    if missing:
        raise RuntimeError(f"no one-event update reached the {', '.join(sorted(missing))}")


async def _declare_alone(bot: Bot, seat: str, weapon: str) -> int:
    """`seat` declares once; the last seq its `ack` names."""
    reply = await bot.command(declare(seat, weapon))
    while reply["type"] == "refused" and reply["code"] == "rate_limited":
        await asyncio.sleep(0.1)  # the saturated connection's budget refills
        reply = await bot.command(declare(seat, weapon))
    if reply["type"] != "ack":
        raise RuntimeError(f"a sampled declaration was refused: {reply}")
    last: int = reply["last_seq"]
    return last


async def quiet(server_pid: int, deadline: float) -> None:
    """Wait (until `deadline`, on `perf_counter`) for the server to use less than
    `QUIET` of a core over `QUIET_SECONDS`: the set-up's work done."""
    while time.perf_counter() < deadline:
        before = cpu_seconds(server_pid)
        await asyncio.sleep(QUIET_SECONDS)
        if cpu_seconds(server_pid) - before < QUIET * QUIET_SECONDS:
            return


async def _steady(
    bot: Bot, actor: str, weapon: str, period: float, offset: float, stop: asyncio.Event
) -> None:
    """Declare every `period` seconds, starting `offset` seconds in."""
    loop = asyncio.get_running_loop()
    due = loop.time() + offset
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), max(0.0, due - loop.time()))
        if stop.is_set():
            return
        await bot.command(declare(actor, weapon))
        due += period


async def _saturate(bot: Bot, actor: str, weapon: str, stop: asyncio.Event) -> None:
    """Declare again as soon as the last declaration is answered."""
    command = declare(actor, weapon)
    while not stop.is_set():
        reply = await bot.command(command)
        if reply["type"] == "refused":  # over the connection's rate: back off a little
            await asyncio.sleep(0.05)


async def bare(args: argparse.Namespace) -> dict[str, Any]:
    """As many clients as a played run has, on the bare broadcast server."""
    tally = Tally()

    async def bot() -> Bot:
        return Bot(
            await Wire.open(args.url, MSGPACK_SUBPROTOCOL, deflate=args.deflate), "bare", tally, 0
        )

    bots = await bounded([bot for _ in range(args.connections)])
    await asyncio.sleep(args.warmup)
    window = open_window(tally, args.server_pid)
    await asyncio.sleep(args.seconds)
    figures = close_window(tally, window, args.server_pid)
    figures["connections"] = len(bots)
    for each in bots:
        each.wire.close()
    return figures


async def idle(args: argparse.Namespace) -> dict[str, Any]:
    """Open `--connections` handshaked spectators and weigh the server before and after."""
    host_token = Path(args.host_token_file).read_text().strip()
    made = await create_encounters(args.url, host_token, args.encounters, args.deflate)
    warm = [(await handshake(args.url, c.spectator, args.deflate))[0] for c in made]

    async def spectator(index: int) -> Wire:
        wire, _, _ = await handshake(args.url, made[index % len(made)].spectator, args.deflate)
        return wire

    return await weigh(args, spectator, warm)


async def idle_bare(args: argparse.Namespace) -> dict[str, Any]:
    """`idle`'s yardstick, on `bench.load_bare` without frames (an echo server): open
    `--connections` connections, each sending a spectator's hello (with a token as
    long as a real one) and reading it back, and weigh the server before and after."""
    token = "t" * TOKEN_CHARS
    hello = encode(Hello(token=token, client="bench-load"))

    async def connection(_: int) -> Wire:
        wire = await Wire.open(args.url, MSGPACK_SUBPROTOCOL, deflate=args.deflate)
        wire.send(hello)
        await asyncio.wait_for(wire.recv(), REPLY_SECONDS)
        return wire

    return await weigh(args, connection, [])


TOKEN_CHARS = 290
"""About the length of a spectator's join token (`server/gateway/tokens.py`)."""


async def weigh(
    args: argparse.Namespace, connect: Callable[[int], Awaitable[Wire]], warm: list[Wire]
) -> dict[str, Any]:
    """Open `--connections` with `connect` and report the server's resident memory
    before and after, per connection; then drop them all."""
    await asyncio.sleep(args.warmup)  # the rooms' feeds are running: weigh the server
    before = rss_kib(args.server_pid)
    bots_before = rss_kib_self()
    opened: list[Wire] = []
    error = ""

    async def one(index: int) -> None:
        opened.append(await connect(index))

    started = time.perf_counter()
    try:
        await bounded([partial(one, i) for i in range(args.connections)])
    except Exception as failure:  # e.g. out of file descriptors: report what was reached
        error = f"{type(failure).__name__}: {failure}"
    took = time.perf_counter() - started
    await asyncio.sleep(args.warmup)  # let the handshakes' garbage go
    after = rss_kib(args.server_pid)
    figures = {
        "connections": len(opened),
        "asked": args.connections,
        "error": error,
        "open_seconds": took,
        "server_rss_before_kib": before,
        "server_rss_after_kib": after,
        "kib_per_connection": (after - before) / len(opened) if opened else 0.0,
        "bots_kib_per_connection": (rss_kib_self() - bots_before) / len(opened) if opened else 0,
    }
    for wire in warm + opened:
        wire.abort()  # no closing handshakes for thousands: the server sees EOF
    return figures


def rss_kib_self() -> int:
    return rss_kib(os.getpid())


PHASES: dict[str, Callable[[argparse.Namespace], Coroutine[Any, Any, dict[str, Any]]]] = {
    "steady": play,
    "saturate": play,
    "bare": bare,
    "idle": idle,
    "idle_bare": idle_bare,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="bots for bench.load (one phase)")
    parser.add_argument("phase", choices=sorted(PHASES))
    parser.add_argument("--url", required=True)
    parser.add_argument("--server-pid", type=int, required=True)
    parser.add_argument("--host-token-file", default="")
    parser.add_argument("--encounters", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--period", type=float, default=2.0)
    parser.add_argument("--connections", type=int, default=0)
    parser.add_argument("--frames-out", default="")
    parser.add_argument("--no-deflate", dest="deflate", action="store_false")
    args = parser.parse_args(argv)
    raise_fd_limit()
    figures = asyncio.run(PHASES[args.phase](args))
    figures["phase"] = args.phase
    print(json.dumps(figures), flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
