"""A cluster on private test hosts (tests/support/netns.py) that a test can partition.

Every member runs on a host of its own, as on machines of their own: Redis `r1` (the
primary at start) and `r2`, `r3` (its replicas), sentinels `s1`, `s2`, `s3`, and combat
servers `a1`, `a2`, which find the primary through the sentinels
(`redis+sentinel://`). The settings are the deployment's (deploy/k8s/redis/
start-redis.sh and start-sentinel.sh, deploy/compose.yaml): a password, an append-only
file synced every second, no RDB saves, `noeviction`; the sentinels count a silent
primary down after 5 s and agree a failover by two of three; the servers' leases live
5 s.

The test's clients and its reads of Redis run on one more host, `client`, which no
cut ever includes: an observer that reaches every member whatever the partition, as
players whose connection to their server is not what broke.

What a partition test reads afterwards is here too: the room's log as the primary
holds it (`FinalLog`), the servers' own account of when each ran the room
(`running_intervals`, from their log lines), and GM clients that send one command after
another and remember everything they were told (`Gm`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import secrets
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import redis

from protocol.messages import Ack, Refused, Snapshot, WentBack
from server.engine.core import Event, replay
from server.engine.records import from_data
from server.engine.state import Encounter
from server.eventlog import encounter_from_data
from tests.reliability.support import RETRY, Bot, gm_view_of
from tests.support.netns import Host, Network
from tests.support.redis import SERVICE, RedisServer, SentinelServer, info, poll_until
from tests.support.server import ROOT, ServerProcess

REDIS_PORT = 6379
SENTINEL_PORT = 26379
SERVER_PORT = 8765
DOWN_AFTER_MS = 5000
"""deploy/k8s/redis/start-sentinel.sh: a primary silent this long is down."""
FAILOVER_TIMEOUT_MS = 60_000
"""deploy/k8s/redis/start-sentinel.sh's `failover-timeout`."""
LEASE_TTL = 5.0
"""deploy/compose.yaml's `COMBAT_LEASE_TTL`."""
REDIS_OPTIONS = ("--maxmemory-policy", "noeviction")
"""deploy/k8s/redis/start-redis.sh's settings beyond the append-only file."""
REDIS_HOSTS = ("r1", "r2", "r3")
SENTINEL_HOSTS = ("s1", "s2", "s3")
SERVER_HOSTS = ("a1", "a2")
OBSERVER = "client"
FINISH = 30.0
"""Seconds a client may go on trying its last command after it was told to stop."""
MAX_HEALTH = 999
"""The health of the room's goblins' sheets: what a GM may set it to at most."""
STEP = 30.0
"""Seconds any one step of starting the cluster may take on a busy machine."""


def durability_refused(durability: str) -> str | None:
    """The server's words if it refuses `--redis-durability durability` outright (its
    argument parser does not know it), else None. Costs a start of the interpreter."""
    done = subprocess.run(
        [sys.executable, "-m", "server", "--redis-durability", durability, "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=STEP,
    )
    if done.returncode == 0:
        return None
    lines = done.stderr.strip().splitlines()
    return lines[-1] if lines else f"exit status {done.returncode}"


def redis_version() -> tuple[int, ...]:
    """The version of the `redis-server` on the PATH, as numbers."""
    done = subprocess.run(
        ["redis-server", "--version"], capture_output=True, text=True, timeout=STEP
    )
    word = next(part for part in done.stdout.split() if part.startswith("v="))
    return tuple(int(piece) for piece in word[2:].split("."))


class PartitionedCluster:
    """The hosts and members of the module's docstring, on `network`, with files in
    `directory`; the servers append with `--redis-durability durability`."""

    def __init__(self, network: Network, directory: Path, durability: str) -> None:
        self.network = network
        self.directory = directory
        self.durability = durability
        self.hosts: dict[str, Host] = {}
        self.redis: dict[str, RedisServer] = {}
        self.sentinels: dict[str, SentinelServer] = {}
        self.servers: dict[str, ServerProcess] = {}
        self.password = secrets.token_hex(12)

    def make_hosts(self) -> None:
        """One host for each member and one for the observer (blocking: `ip` calls)."""
        for name in (*REDIS_HOSTS, *SENTINEL_HOSTS, *SERVER_HOSTS, OBSERVER):
            self.hosts[name] = self.network.add(name)

    @property
    def observer(self) -> Host:
        return self.hosts[OBSERVER]

    def host_of(self, member: str) -> Host:
        return self.hosts[member]

    def members(self) -> list[str]:
        """Every member's host name (the observer is none)."""
        return [*REDIS_HOSTS, *SENTINEL_HOSTS, *SERVER_HOSTS]

    @property
    def sentinel_url(self) -> str:
        hosts = ",".join(f"{self.hosts[name].address}:{SENTINEL_PORT}" for name in SENTINEL_HOSTS)
        return f"redis+sentinel://{hosts}/{SERVICE}"

    # -- starting (blocking: called in a thread inside the observer) --------------------

    def start_redis(self) -> None:
        """r1 as the primary, r2 and r3 its replicas, then the sentinels, and wait until
        every sentinel knows both replicas and the two other sentinels."""
        deadline = time.monotonic() + 2 * STEP
        first: RedisServer | None = None
        for name in REDIS_HOSTS:
            host = self.hosts[name]
            place = self.directory / name
            place.mkdir(parents=True, exist_ok=True)
            server = RedisServer(
                place,
                appendfsync="everysec",
                password=self.password,
                replica_of=first,
                host=host.address,
                port=REDIS_PORT,
                prefix=host.command(),
                options=REDIS_OPTIONS,
            )
            server.start()
            self.redis[name] = server
            first = first or server
        assert first is not None
        for name in REDIS_HOSTS[1:]:
            poll_until(
                lambda name=name: _link_up(self.redis[name]),
                deadline - time.monotonic(),
                lambda name=name: f"{name} did not catch up with r1",
            )
        for name in SENTINEL_HOSTS:
            host = self.hosts[name]
            sentinel = SentinelServer(
                self.directory / name,
                first,
                down_after_ms=DOWN_AFTER_MS,
                failover_timeout_ms=FAILOVER_TIMEOUT_MS,
                host=host.address,
                port=SENTINEL_PORT,
                prefix=host.command(),
            )
            sentinel.start()
            self.sentinels[name] = sentinel
        poll_until(
            self._watching,
            deadline - time.monotonic(),
            lambda: f"the sentinels did not find the replicas and each other: {self.views()}",
        )

    def _watching(self) -> bool:
        for sentinel in self.sentinels.values():
            try:
                with sentinel.client(timeout=2.0) as client:
                    state: Any = client.sentinel_master(SERVICE)
            except redis.RedisError:
                return False
            if state.get("num-slaves") != 2 or state.get("num-other-sentinels") != 2:
                return False
        return True

    def start_servers(self) -> None:
        """a1, then a2 (each serving before the next starts)."""
        for name in SERVER_HOSTS:
            host = self.hosts[name]
            server = ServerProcess(
                self.directory / name,
                port=SERVER_PORT,
                options=[
                    *("--host", host.address, "--no-demo", "--no-web"),
                    *("--redis", self.sentinel_url, "--lease-ttl", f"{LEASE_TTL:g}"),
                    *("--redis-durability", self.durability),
                    *("--redis-password", self.password),
                ],
                prefix=host.command(),
            )
            self.servers[name] = server
            server.start(timeout=STEP)

    def url(self, server: str) -> str:
        return self.servers[server].url

    def stop(self) -> None:
        """Kill every member (the network's teardown would too; this is quicker)."""
        for server in self.servers.values():
            server.kill()
        for sentinel in self.sentinels.values():
            sentinel.kill()
        for each in self.redis.values():
            each.kill()

    # -- what the sentinels and the Redis servers say (blocking) --------------------------

    def views(self) -> dict[str, str]:
        """Which Redis each sentinel names as the primary now ("?" if it does not
        answer)."""
        by_address = {f"{s.host}:{s.port}": name for name, s in self.redis.items()}
        named: dict[str, str] = {}
        for name, sentinel in self.sentinels.items():
            try:
                with sentinel.client(timeout=2.0) as client:
                    found: Any = client.sentinel_get_master_addr_by_name(SERVICE)
            except redis.RedisError:
                named[name] = "?"
                continue
            address = ":".join(_text(part) for part in found) if found else ""
            named[name] = by_address.get(address, address or "none")
        return named

    def roles(self) -> dict[str, str]:
        """Each Redis's own word: `master`, or `slave of rN (up|down)`."""
        by_address = {s.host: name for name, s in self.redis.items()}
        roles: dict[str, str] = {}
        for name, server in self.redis.items():
            replication = info(server, "replication")
            role = replication.get("role", "?")
            if role == "slave":
                primary = by_address.get(str(replication.get("master_host")), "?")
                role = f"slave of {primary} ({replication.get('master_link_status')})"
            roles[name] = role
        return roles

    def healed(self) -> str | None:
        """The primary's name once the cluster is whole again: every sentinel names it,
        it says it is the primary, and the two others replicate it with their links up,
        directly or through the other (a replica of the old primary keeps following it
        when it rejoins as a replica itself, until the sentinels move it, which they do
        only after the failover timeout: a minute). None until then."""
        named = set(self.views().values())
        if len(named) != 1:
            return None
        (primary,) = named
        if primary not in self.redis:
            return None
        roles = self.roles()
        if roles[primary] != "master":
            return None
        for name in self.redis:
            hops, at = 0, name
            while at != primary and hops < len(self.redis):
                role = roles[at]
                if not (role.startswith("slave of ") and role.endswith("(up)")):
                    return None
                at, hops = role.split()[2], hops + 1
            if at != primary:
                return None
        return primary

    def primary(self) -> RedisServer:
        """The Redis most sentinels name now (`RuntimeError` if none does)."""
        named = [name for name in self.views().values() if name in self.redis]
        if not named:
            raise RuntimeError("no sentinel names a primary")
        return self.redis[max(set(named), key=named.count)]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _link_up(server: RedisServer) -> bool:
    return info(server, "replication").get("master_link_status") == "up"


# -- the room's log, as the primary holds it --------------------------------------------


@dataclass
class FinalLog:
    """A room's log read from one Redis: its events, the span of each command key, and
    the fence token each entry was written under."""

    initial: Encounter
    events: list[tuple[int, dict[str, Any]]]  # (seq, the event as plain data)
    fences: dict[int, str]  # seq -> the lease token its append named
    spans: dict[str, tuple[int, int]]  # cid -> (first_seq, last_seq) of its batch

    @property
    def version(self) -> int:
        return self.events[-1][0] if self.events else 0

    def owner(self) -> dict[int, str]:
        """The cid whose batch holds each seq (a seq of no command's batch: absent)."""
        found: dict[int, str] = {}
        for cid, (first, last) in self.spans.items():
            for seq in range(first, last + 1):
                found[seq] = cid
        return found

    def state(self, up_to: int | None = None) -> Encounter:
        """The room's state after event `up_to` (the last by default)."""
        chosen: list[Event] = [
            from_data(data) for seq, data in self.events if up_to is None or seq <= up_to
        ]
        return replay(self.initial, chosen)


def read_log(server: RedisServer, room: str) -> FinalLog:
    """Room `room`'s log as `server` holds it (blocking)."""
    with server.client(timeout=10.0) as client:
        initial: Any = client.get(f"room:{{{room}}}:initial")
        entries: Any = client.xrange(f"room:{{{room}}}:events")
        first: Any = client.hgetall(f"room:{{{room}}}:commands")
        last: Any = client.zrange(f"room:{{{room}}}:recent", 0, -1, withscores=True)
    assert initial is not None, f"{room} has no initial encounter on {server.host}"
    ends = {key.decode(): int(score) for key, score in last}
    spans = {
        key.decode().rsplit("\x1f", 1)[-1]: (int(seq), ends[key.decode()])
        for key, seq in first.items()
    }
    events = [
        (int(entry_id.split(b"-")[0]), json.loads(fields[b"data"])) for entry_id, fields in entries
    ]
    fences = {
        int(entry_id.split(b"-")[0]): fields.get(b"fence", b"").decode()
        for entry_id, fields in entries
    }
    return FinalLog(encounter_from_data(json.loads(initial)), events, fences, spans)


# -- who ran the room when, as the servers logged it -------------------------------------


RUNNING = "room running here"
STOPPED = ("stopped here", "rebuilding it from the log", "room handed over")
"""Log lines that begin (`RUNNING`) or end (`STOPPED`) a process's running of a room
(server/cluster/ownership.py)."""


def running_intervals(
    lines: Iterable[dict[str, Any]], room: str, until: float
) -> list[tuple[float, float]]:
    """The wall-clock spans (seconds since the epoch) in which a server, by its log
    lines, ran `room`: from each `room running here` to the next line saying it stopped
    or rebuilt it, or to `until`."""
    spans: list[tuple[float, float]] = []
    began: float | None = None
    for line in lines:
        message = str(line.get("message", ""))
        if line.get("room") != room and room not in message:
            continue
        at = datetime.fromisoformat(str(line["time"])).timestamp()
        if message == RUNNING:
            if began is None:
                began = at
        elif any(word in message for word in STOPPED) and began is not None:
            spans.append((began, at))
            began = None
    if began is not None:
        spans.append((began, until))
    return spans


def fences_taken(lines: Iterable[dict[str, Any]], room: str) -> list[str]:
    """The lease tokens a server took `room` with (its `room taken` lines)."""
    return [
        str(line.get("fence"))
        for line in lines
        if line.get("message") == "room taken" and line.get("room") == room
    ]


def within(spans: Sequence[tuple[float, float]], moment: float, slack: float = 0.0) -> bool:
    """Is `moment` in one of `spans` (give or take `slack` seconds: a log line's time
    and an answer's arrival are read on the same clock, but not at the same instant)?"""
    return any(start - slack <= moment <= end + slack for start, end in spans)


def merge(moments: Iterable[float], gap: float) -> list[tuple[float, float]]:
    """The spans that `moments` make when those less than `gap` apart join up."""
    spans: list[tuple[float, float]] = []
    for moment in sorted(moments):
        if spans and moment - spans[-1][1] <= gap:
            spans[-1] = (spans[-1][0], moment)
        else:
            spans.append((moment, moment))
    return spans


def overlap(first: Sequence[tuple[float, float]], second: Sequence[tuple[float, float]]) -> float:
    """Seconds that two sets of (non-overlapping, each) spans have in common."""
    total = 0.0
    for start, end in first:
        for other_start, other_end in second:
            total += max(0.0, min(end, other_end) - max(start, other_start))
    return total


# -- GM clients --------------------------------------------------------------------------


@dataclass
class Told:
    """One answer a GM client received: to which command, from which server's
    connection, when (wall clock)."""

    cid: str
    answer: Ack | Refused
    server: str
    at: float


@dataclass
class Heard:
    """What a GM client was sent of the room, across all its connections."""

    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    snapshots: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)
    """(how many events had come before it, its seq, its view)"""
    went_back: list[tuple[int, int]] = field(default_factory=list)
    """(how many events had come before it, the seq it went back to)"""


class Gm(Bot):
    """A GM at the table, connected to one server (`server`), who sets one combatant's
    health again and again, each time to a value it never set before (so each command
    makes an event), one command at a time with a fresh cid; a command refused as
    retryable or left unanswered by a dropped connection is sent again with its cid, as
    docs/protocol.md asks (after reconnecting and resuming).

    It keeps every answer (`told`) and everything it was sent (`heard`), so a test can
    tell which acknowledged commands the final log lacks, which seqs it was told of
    twice, and which state it ends on."""

    def __init__(self, name: str, server: str, url: str, token: str, combatant: str) -> None:
        super().__init__(name, url, token, random.Random(0), lambda _: False)
        self.server = server
        self.combatant = combatant
        self.told: list[Told] = []
        self.heard = Heard()
        self.gave_up: list[str] = []
        self.deadline = 0.0
        self._offset = time.time() - time.monotonic()

    def _dispatch(self, message: Any, held: int | None) -> None:
        if isinstance(message, WentBack):
            self.heard.went_back.append((len(self.heard.events), message.seq))
        if isinstance(message, Snapshot):
            self.heard.snapshots.append((len(self.heard.events), message.seq, message.view))
        events = getattr(message, "events", None)
        if message.type in ("events", "update") and events:
            self.heard.events.extend((item.seq, item.event) for item in events)
        super()._dispatch(message, held)

    async def keep_sending(self, stop: asyncio.Event, pause: float, deadline: float) -> None:
        """Send until `stop` is set, or until `deadline` (monotonic). The command in
        flight when `stop` is set is finished, for `FINISH` seconds at most."""
        self.deadline = deadline
        number = 0
        while not stop.is_set() and time.monotonic() < self.deadline:
            number += 1
            health = 1 + number % MAX_HEALTH
            command = {"type": "SetHealth", "combatant": self.combatant, "health": health}
            await self.until_answered(command, stop)
            await asyncio.sleep(pause)

    async def until_answered(self, command: dict[str, Any], stop: asyncio.Event) -> None:
        """Send `command` with one cid until it is acked or refused for good,
        reconnecting as needed; given up at the deadline, or `FINISH` seconds after
        `stop` is set."""
        sent = self._new(command, 0)
        while time.monotonic() < self.deadline:
            if stop.is_set():
                self.deadline = min(self.deadline, time.monotonic() + FINISH)
            if not self.connected:
                try:
                    await self.connect()
                except AssertionError as error:  # the server is out of reach: go on trying
                    self.gave_up.append(str(error))
                    continue
            answer = await self._send(sent)
            if answer is None:
                continue  # dropped: reconnect, then the same cid again
            self.told.append(Told(sent.cid, answer, self.server, self.wall(sent.answered_at[-1])))
            if isinstance(answer, Refused) and answer.code in RETRY:
                await asyncio.sleep(0.2)
                continue
            return

    def wall(self, monotonic: float) -> float:
        """A `time.monotonic()` reading as seconds since the epoch."""
        return monotonic + self._offset

    async def resume_and_catch_up(self, version: int, seconds: float) -> None:
        """Reconnect (resuming from the last event held) and read until this client is
        up to `version` and nothing more comes, within `seconds`."""
        with contextlib.suppress(Exception):
            await self.close()
        await self.connect()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        quiet_since = loop.time()
        seen = len(self.heard.events) + len(self.heard.snapshots)
        while loop.time() < deadline:
            await asyncio.sleep(0.1)
            now_seen = len(self.heard.events) + len(self.heard.snapshots)
            if now_seen != seen:
                seen, quiet_since = now_seen, loop.time()
            if self.stream.last == version and loop.time() - quiet_since > 1.0:
                return


def client_state(gm: Gm, log: FinalLog) -> Encounter | None:
    """The state the GM's client ends on, if it can be told: the last snapshot it was
    sent (only if it is the log's own state at that seq: a snapshot of a history the log
    no longer has cannot be rebuilt) and every event it was sent after it, the latest
    one it was sent for each seq. None if its snapshot is not the log's."""
    heard_before, base_seq = 0, 0
    if gm.heard.snapshots:
        heard_before, base_seq, view = gm.heard.snapshots[-1]
        if base_seq > log.version or gm_view_of(log.state(base_seq)) != view:
            return None
    after: dict[int, dict[str, Any]] = {}
    for seq, event in gm.heard.events[heard_before:]:
        if seq > base_seq:
            after[seq] = event
    events: list[Event] = [from_data(after[seq]) for seq in sorted(after)]
    return replay(log.state(base_seq), events)


def seqs_told_twice(gm: Gm) -> list[int]:
    """The seqs the GM's client was sent two different events for with no `went_back`
    between (a seq given again to another event without a word: what a log that lost
    its tail and went on does, unless its feed tells)."""
    first: dict[int, dict[str, Any]] = {}
    twice: set[int] = set()
    went_back = dict(gm.heard.went_back)  # events heard before it -> its seq
    for heard, (seq, event) in enumerate(gm.heard.events):
        if heard in went_back:
            back = went_back[heard]
            first = {held: told for held, told in first.items() if held <= back}
        if seq in first and first[seq] != event:
            twice.add(seq)
        first.setdefault(seq, event)
    return sorted(twice)
