"""The event log in Redis: one Stream per room, so several server processes share it.

Keys (`prefix` first, `{id}` a hash tag so one room's keys share a cluster slot):

- `room:{id}:events`, a Stream: one entry per event, with the explicit entry id
  `<seq>-1`, so the id is the sequence number and XADD itself refuses a duplicate or
  out-of-order one. Fields: `type` (the record's name, for people reading the Stream),
  `data` (the JSON of `records.to_data(event)`; decoding uses it alone), `ends` ("1" on
  the last event of a batch, else "0"), `fence` (the lease token the append named, ""
  for an unfenced one: which runner wrote it, for people auditing a failover);
- `room:{id}:commands`, a hash from each command key to the first sequence number of
  its batch, and `room:{id}:recent`, a sorted set of the same keys scored by the last
  sequence number of their batch (a key given again moves to its later batch);
- `room:{id}:initial`, the JSON of the initial encounter, set once (`SET NX`), and
  `rooms`, the set of the room ids that have one;
- `room:{id}:snapshot`, a hash of `seq` and `state`: the room's latest snapshot;
- `invite:<code>`, a hash of one invite code's `room`, `role`, `seat`, `controls`
  (JSON) and `revoked` ("1" once revoked: kept, so the code is never given again), and
  `room:{id}:invites`, the list of the room's codes in the order they were added;
- `room:{id}:card`, the JSON of what the host said of the room (its `RoomCard`).

Optimistic concurrency (ARCHITECTURE, convention 5): an append is one Lua script, which
Redis runs atomically: it reads the Stream's last id, compares it with the expected
version, and only then adds every entry and records the command key. A conflict
appends nothing. Everything that can fail (encoding the events) happens before the
script, so the script never stops halfway. A snapshot is a script too: it checks the
sequence number against the Stream and replaces the kept snapshot only with one at the
same or a later sequence number.

Fencing (`server.leases`): an append may name the room's lease and the token of its
writer (`append(..., fence=...)`, or through `fenced(...)`, which gives an `EventLog`
for the room's runner); the script then refuses it with `LeaseLost` unless the lease
holds that token, in the same atomic step as the version check.

Durability: Redis acknowledges a write once it is applied in memory; what survives a
crash depends on the server's persistence, which belongs to its configuration:

- `appendonly yes` with `appendfsync always`: every write is in the append-only file
  and synced to disk (fsync) before Redis answers, so nothing acknowledged is lost,
  not to a killed `redis-server` and not to a power cut; each append costs an fsync.
- `appendonly yes` with `appendfsync everysec` (Redis's default for the AOF): the file
  is synced once a second. A killed `redis-server` normally loses nothing, since the
  write reached the operating system before Redis answered; but a crash of the
  machine, or of Redis while a slow disk makes it hold back its writes, loses up to
  about two seconds of acknowledged appends.
- `appendonly no`: whatever was written since the last RDB save is lost with the
  process; only for tests and throwaway servers.
- Replicas copy asynchronously: a failover to a replica can lose the last acknowledged
  appends whatever the fsync policy, unless the append waits for them (below).
  Redis must run with `maxmemory-policy noeviction`, or it may evict a room's log.

The room acknowledges a command only after `append` returns, so the window above is
the window of acknowledged commands that a crash can take back. The log's
`durability` (`server/redis_clients.py`) narrows it: `replicated` sends the append
and `WAIT 1 <timeout>` on one connection (a pipeline), so `append` returns only once a
replica has the entries (the appends of every room that come while one pipeline is on
its way share the next one and its one wait: `server/redis_batches.py`); `fsync`
sends `WAITAOF 1 0 <timeout>` instead (the primary's append-only file synced; Redis
7.2+); `every-replica` sends `WAIT n <timeout>` for the `n` replicas the sentinels
find up (`server/primacy.py`). A confirmation that does not come in time raises
`Unconfirmed`: the entries are in the primary's Stream (its script ran) but must not
be acknowledged. Whoever reads the log afterwards may find them, which is what makes
a retry safe: the command's key is there, so a retry with the same client id gets
their ack instead of a second application. `confirm` is the same wait for everything
the primary holds of a room (a write of the room's own, then the wait): a room
rebuilt after `Unconfirmed` confirms first, so the acks it gives from the log are
durable too. `save_initial` waits as an append does; snapshots do not (they are
derived from the log). Appends, `save_initial`, `confirm` and the invites' writes go
through those batches whatever the durability: under load a round trip carries the
writes of many rooms.

Behind Sentinel, every batch's reply is also held against its primary's primacy
(`server/primacy.py`): past the moment the sentinels' vouches for its primary last,
every write of the batch raises `Unconfirmed`, whatever the durability, so a process
cut off with its primary stops acknowledging before a failover can begin elsewhere.

An append whose connection fails may or may not have been applied (the script may have
run before the reply was lost); redis-py retries connection errors, and a retried
append that had landed finds the log moved on and raises `VersionConflict`. Either
way, `version` (and `recent_commands`) tell what the log holds.

Scripts touch only the room's own keys, except `save_initial`, which also adds to the
`rooms` set, and the invites' scripts, which touch the codes' own keys: fine on one
Redis (with replicas), not on Redis Cluster.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.exceptions import ResponseError

from server.engine.core import Event
from server.engine.records import from_data, to_data
from server.engine.state import Encounter
from server.eventlog import (
    Applied,
    Entry,
    EventLog,
    Invite,
    InviteTaken,
    RoomCard,
    RoomExists,
    Snapshot,
    VersionConflict,
    card_from_data,
    card_to_data,
    encounter_from_data,
)
from server.leases import Fence, LeaseLost, room_key
from server.primacy import RUN_ID, Primacy
from server.redis_batches import Batches
from server.redis_clients import SOCKET_TIMEOUT, RedisSettings, Unconfirmed, Unsuitable, text

READ_PAGE = 1000  # Stream entries per XRANGE, so a long history never blocks Redis long
__all__ = ["SOCKET_TIMEOUT", "FencedEventLog", "RedisEventLog", "Unconfirmed"]

# The room's version: the sequence number in the Stream's last entry id, 0 if none.
_VERSION = """
local version = 0
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last > 0 then version = tonumber(string.match(last[1][1], '^(%d+)-')) end
"""

# KEYS: events, commands, recent, lease (unused without a fence).
# ARGV: expected version, fence token ('' for none), command key ('' for none),
# then type and data of each event.
_APPEND = (
    _VERSION
    + """
if ARGV[2] ~= '' and redis.call('GET', KEYS[4]) ~= ARGV[2] then
  return {'lease_lost', version}
end
local expected = tonumber(ARGV[1])
if version ~= expected then return {'conflict', version} end
local count = (#ARGV - 3) / 2
for i = 1, count do
  local ends = '0'
  if i == count then ends = '1' end
  redis.call('XADD', KEYS[1], string.format('%d-1', version + i),
             'type', ARGV[2 + 2 * i], 'data', ARGV[3 + 2 * i], 'ends', ends,
             'fence', ARGV[2])
end
if ARGV[3] ~= '' and count > 0 then
  redis.call('HSET', KEYS[2], ARGV[3], version + 1)
  redis.call('ZADD', KEYS[3], version + count, ARGV[3])
end
return {'ok', version + count}
"""
)

# KEYS: events, snapshot. ARGV: seq, state. Keeps the snapshot unless an older one.
_SAVE_SNAPSHOT = (
    _VERSION
    + """
local seq = tonumber(ARGV[1])
if seq < 0 or seq > version then return {'outside', version} end
local kept = redis.call('HGET', KEYS[2], 'seq')
if kept and tonumber(kept) > seq then return {'older', tonumber(kept)} end
redis.call('HSET', KEYS[2], 'seq', ARGV[1], 'state', ARGV[2])
return {'ok', seq}
"""
)

# KEYS: initial, rooms. ARGV: room id, initial encounter. 1 if saved, 0 if it existed.
_SAVE_INITIAL = """
if not redis.call('SET', KEYS[1], ARGV[2], 'NX') then return 0 end
redis.call('SADD', KEYS[2], ARGV[1])
return 1
"""

# KEYS: commands, recent. ARGV: limit (> 0). Flat: key, first, last, ... oldest first.
_RECENT_COMMANDS = """
local keys = redis.call('ZRANGE', KEYS[2], -tonumber(ARGV[1]), -1, 'WITHSCORES')
local found = {}
for i = 1, #keys, 2 do
  found[#found + 1] = keys[i]
  found[#found + 1] = redis.call('HGET', KEYS[1], keys[i])
  found[#found + 1] = keys[i + 1]
end
return found
"""


# KEYS: for each invite its key, then its room's list of codes. ARGV: for each invite
# its code, room, role, seat and controls (JSON). {'taken', code} if a code is in use.
_ADD_INVITES = """
local count = #KEYS / 2
for i = 1, count do
  if redis.call('EXISTS', KEYS[2 * i - 1]) == 1 then return {'taken', ARGV[5 * i - 4]} end
end
for i = 1, count do
  redis.call('HSET', KEYS[2 * i - 1], 'room', ARGV[5 * i - 3], 'role', ARGV[5 * i - 2],
             'seat', ARGV[5 * i - 1], 'controls', ARGV[5 * i], 'revoked', '0')
  redis.call('RPUSH', KEYS[2 * i], ARGV[5 * i - 4])
end
return {'ok', count}
"""

# KEYS: the invite's key. ARGV: the room. The invite's fields if it was live there.
_REVOKE_INVITE = """
local found = redis.call('HMGET', KEYS[1], 'room', 'revoked', 'role', 'seat', 'controls')
if found[1] ~= ARGV[1] or found[2] ~= '0' then return false end
redis.call('HSET', KEYS[1], 'revoked', '1')
return {found[3], found[4], found[5]}
"""


class RedisEventLog:
    """The `EventLog` on the Redis `where` names (a URL, `redis://host:port/db`, or
    `RedisSettings`: Sentinel, credentials, TLS, durability).

    `prefix` goes before every key (several logs, or tests, on one Redis); `retries`
    is how often redis-py retries a command after a connection error.
    """

    def __init__(self, where: str | RedisSettings, *, prefix: str = "", retries: int = 3) -> None:
        self.prefix = prefix
        self.settings = RedisSettings.of(where)
        self.durability = self.settings.durability
        waits = 0.0 if self.durability == "local" else self.settings.durability_timeout
        # a command waiting for its confirmation is not a Redis that stopped answering
        self._client: Redis = self.settings.client(retries=retries, timeout=SOCKET_TIMEOUT + waits)
        self._append = self._client.register_script(_APPEND)
        self._save_snapshot = self._client.register_script(_SAVE_SNAPSHOT)
        self._save_initial = self._client.register_script(_SAVE_INITIAL)
        self._recent_commands = self._client.register_script(_RECENT_COMMANDS)
        self._add_invites = self._client.register_script(_ADD_INVITES)
        self._revoke_invite = self._client.register_script(_REVOKE_INVITE)
        # behind Sentinel, what this process may acknowledge (server/primacy.py)
        self.primacy = Primacy(self.settings, self._client) if self.settings.sentinels else None
        # every write that must be durable goes through here: appends of many rooms
        # share a round trip and, with `replicated`, `every-replica` or `fsync`, one wait
        local = self.durability == "local"
        self._waiting_for = 0  # replicas the batch on its way waits for (`every-replica`)
        self._batches = Batches(
            self._client,
            confirm=None if local and self.primacy is None else self._wait,
            check=None if local and self.primacy is None else self._check,
        )
        self._closed = False

    async def start(self) -> None:
        """Begin to look at the sentinels, behind Sentinel (until then nothing written
        is acknowledged)."""
        if self.primacy is not None:
            await self.primacy.start()

    def _key(self, room_id: str, part: str) -> str:
        return room_key(self.prefix, room_id, part)

    # -- the EventLog protocol ---------------------------------------------------------

    async def append(
        self,
        room_id: str,
        events: Sequence[Event],
        expected_version: int,
        command_key: str | None = None,
        *,
        fence: Fence | None = None,
    ) -> int:
        """The protocol's append; with a `fence`, also `LeaseLost` unless it holds."""
        fields: list[str] = []
        for event in events:  # encode all before the script, so it never fails halfway
            fields += [type(event).__name__, _json(to_data(event))]
        keys = [
            self._key(room_id, "events"),
            self._key(room_id, "commands"),
            self._key(room_id, "recent"),
            fence.key if fence is not None else self._key(room_id, "lease"),
        ]
        token = fence.token if fence is not None else ""
        args: list[str | int] = [expected_version, token, command_key or "", *fields]
        outcome, number = await self._batches.script(self._append, keys, args)
        if outcome == b"conflict":
            raise VersionConflict(room_id, expected_version, int(number))
        if outcome == b"lease_lost":
            assert fence is not None, "only a fenced append checks the lease"
            raise LeaseLost(room_id, fence)
        return int(number)

    def _wait(self, pipe: Pipeline) -> None:
        """After the batch, on its connection: the run id of the Redis that ran it
        (behind Sentinel), then the wait its durability asks for."""
        if self.primacy is not None:
            pipe.execute_command("EVAL", RUN_ID, 0)  # its text: a new primary knows no sha
        timeout_ms = max(1, round(self.settings.durability_timeout * 1000))
        if self.durability == "local":
            return
        if self.durability == "replicated":
            pipe.execute_command("WAIT", 1, timeout_ms)
        elif self.durability == "every-replica":
            assert self.primacy is not None
            self._waiting_for = max(1, self.primacy.replicas)
            pipe.execute_command("WAIT", self._waiting_for, timeout_ms)
        else:
            pipe.execute_command("WAITAOF", 1, 0, timeout_ms)

    def _check(self, replies: list[Any]) -> None:
        """`Unconfirmed` unless the Redis that ran the batch is the primary the
        sentinels vouch for now (behind Sentinel) and the wait's reply says the write
        is durable enough."""
        if self.primacy is not None:
            (ran_on, _), *replies = replies
            if not self.primacy.holds_for(text(ran_on)):
                raise Unconfirmed(self.primacy.why_not())
        if self.durability == "local":
            return
        confirmed = replies[0]
        seconds = self.settings.durability_timeout
        if self.durability == "every-replica" and int(confirmed) < self._waiting_for:
            raise Unconfirmed(
                f"{int(confirmed)} of the {self._waiting_for} replicas the sentinels find up "
                f"confirmed the write within {seconds:g}s (--redis-durability every-replica)"
            )
        if self.durability == "replicated" and int(confirmed) < 1:
            raise Unconfirmed(
                f"no replica confirmed the write within {seconds:g}s "
                "(--redis-durability replicated)"
            )
        if self.durability == "fsync" and int(confirmed[0]) < 1:
            raise Unconfirmed(
                f"Redis did not sync its append-only file within {seconds:g}s "
                "(--redis-durability fsync)"
            )

    async def confirm(self, room_id: str) -> None:
        """Return once everything the primary holds of the room is as durable as the
        settings ask (a write of the room's own, then the wait); `Unconfirmed` if that
        takes longer than the durability timeout. Nothing to wait for with `local`."""
        if self.durability == "local":
            return
        await self._batches.command("INCR", self._key(room_id, "confirmed"))

    async def check_durability(self) -> str | None:
        """`Unsuitable` if this Redis cannot give the durability asked for; a warning
        (or None) if it can but cannot right now (no replica connected)."""
        if self.durability == "fsync":
            try:
                await self._client.waitaof(1, 0, 1)
            except ResponseError as error:
                version = (await self._client.info("server")).get("redis_version", "?")
                if "unknown command" in str(error).lower():
                    raise Unsuitable(
                        f"--redis-durability fsync needs Redis 7.2 or later (WAITAOF); "
                        f"this Redis is {version}: use 'replicated', or 'local' with "
                        "Redis's 'appendfsync always'"
                    ) from None
                raise Unsuitable(
                    f"--redis-durability fsync: this Redis ({version}) refuses WAITAOF "
                    f"({error}): turn its append-only file on (appendonly yes)"
                ) from None
        if self.primacy is not None and not self.primacy.holds():
            refused = "every command is refused with 'unavailable' until it can"
            return f"{self.primacy.why_not()}; {refused}"
        if self.durability == "every-replica":
            assert self.primacy is not None
            if self.primacy.replicas < 1:
                return (
                    "--redis-durability every-replica: the sentinels find no replica up; "
                    "every command is refused with 'unavailable' until one is"
                )
        elif self.durability == "replicated":
            replication: Any = await self._client.info("replication")
            if int(replication.get("connected_slaves", 0)) < 1:
                return (
                    "--redis-durability replicated: the primary has no replica connected; "
                    "every command is refused with 'unavailable' until one is"
                )
        return None

    def fenced(self, room_id: str, fence: Fence) -> EventLog:
        """This log as seen by the holder of `room_id`'s lease: every append names `fence`."""
        return FencedEventLog(self, room_id, fence)

    async def recent_commands(self, room_id: str, limit: int) -> list[Applied]:
        if limit <= 0:
            return []
        keys = [self._key(room_id, "commands"), self._key(room_id, "recent")]
        flat: list[bytes] = await self._recent_commands(keys=keys, args=[limit])
        return [
            Applied(flat[i].decode(), int(flat[i + 1]), int(flat[i + 2]))
            for i in range(0, len(flat), 3)
        ]

    async def read(
        self, room_id: str, after_seq: int = 0, until_seq: int | None = None
    ) -> list[Entry]:
        key = self._key(room_id, "events")
        entries: list[Entry] = []
        start = max(0, after_seq) + 1
        end = "+" if until_seq is None else f"{until_seq}-1"  # ids are `<seq>-1`
        if until_seq is not None and until_seq < start:
            return entries
        while True:
            # replies are bytes: the client does not decode (no decode_responses)
            page: Any = await self._client.xrange(key, min=f"{start}-0", max=end, count=READ_PAGE)
            for entry_id, fields in page:
                seq = _seq(entry_id)
                event = from_data(json.loads(fields[b"data"]))
                entries.append(Entry(seq, event, fields[b"ends"] == b"1"))
            if len(page) < READ_PAGE:
                return entries
            start = entries[-1].seq + 1

    async def version(self, room_id: str) -> int:
        last: Any = await self._client.xrevrange(self._key(room_id, "events"), count=1)
        return _seq(last[0][0]) if last else 0

    async def save_initial(self, room_id: str, state: Encounter) -> None:
        data = _json(to_data(state))
        keys = [self._key(room_id, "initial"), self.prefix + "rooms"]
        saved = await self._batches.script(self._save_initial, keys, [room_id, data])
        if not saved:
            raise RoomExists(room_id)

    async def load_initial(self, room_id: str) -> Encounter | None:
        data = await self._client.get(self._key(room_id, "initial"))
        return None if data is None else encounter_from_data(json.loads(data))

    async def rooms(self) -> list[str]:
        members: Any = await self._client.smembers(self.prefix + "rooms")
        return sorted(member.decode() for member in members)

    async def save_snapshot(self, room_id: str, seq: int, state: Encounter) -> None:
        data = _json(to_data(state))
        keys = [self._key(room_id, "events"), self._key(room_id, "snapshot")]
        outcome, version = await self._save_snapshot(keys=keys, args=[seq, data])
        if outcome == b"outside":
            raise ValueError(f"no event {seq} in the log of {room_id} (version {version})")

    async def latest_snapshot(self, room_id: str) -> Snapshot | None:
        kept: Any = await self._client.hgetall(self._key(room_id, "snapshot"))
        if not kept:
            return None
        return Snapshot(int(kept[b"seq"]), encounter_from_data(json.loads(kept[b"state"])))

    def _invite_key(self, code: str) -> str:
        return f"{self.prefix}invite:{code}"

    async def add_invites(self, invites: Sequence[Invite]) -> None:
        if not invites:
            return
        codes = [invite.code for invite in invites]
        for code in codes:
            if codes.count(code) > 1:  # the script checks the codes kept before, not these
                raise InviteTaken(code)
        keys: list[str] = []
        args: list[str] = []
        for invite in invites:
            keys += [self._invite_key(invite.code), self._key(invite.room_id, "invites")]
            controls = _json(list(invite.controls))
            args += [invite.code, invite.room_id, invite.role, invite.seat, controls]
        outcome, found = await self._batches.script(self._add_invites, keys, args)
        if outcome == b"taken":
            raise InviteTaken(found.decode())

    async def find_invite(self, code: str) -> Invite | None:
        fields: Any = await self._client.hgetall(self._invite_key(code))
        return _invite(code, fields)

    async def invites(self, room_id: str) -> list[Invite]:
        codes: Any = await self._client.lrange(self._key(room_id, "invites"), 0, -1)
        if not codes:
            return []
        async with self._client.pipeline(transaction=False) as pipe:
            for code in codes:
                pipe.hgetall(self._invite_key(code.decode()))
            found: list[Any] = await pipe.execute()
        live = (_invite(code.decode(), fields) for code, fields in zip(codes, found, strict=True))
        return [invite for invite in live if invite is not None and invite.room_id == room_id]

    async def revoke_invite(self, room_id: str, code: str) -> Invite | None:
        keys, args = [self._invite_key(code)], [room_id]
        found = await self._batches.script(self._revoke_invite, keys, args)
        if not found:
            return None
        role, seat, controls = (part.decode() for part in found)
        return Invite(code, room_id, role, seat, tuple(json.loads(controls)))

    async def save_card(self, room_id: str, card: RoomCard) -> None:
        await self._client.set(self._key(room_id, "card"), _json(card_to_data(card)))

    async def load_card(self, room_id: str) -> RoomCard | None:
        data = await self._client.get(self._key(room_id, "card"))
        return None if data is None else card_from_data(json.loads(data))

    async def close(self) -> None:
        """Close the connections to Redis; the data stays in Redis."""
        if not self._closed:
            self._closed = True
            if self.primacy is not None:
                await self.primacy.close()
            await self._batches.close()
            await self._client.aclose()

    async def __aenter__(self) -> RedisEventLog:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class FencedEventLog:
    """One room's runner's view of a `RedisEventLog`: appends to that room name the
    runner's fence (and raise `LeaseLost` once the lease is gone); the rest is the log's.

    Closing it leaves the shared log open: the log belongs to whoever made it.
    """

    def __init__(self, log: RedisEventLog, room_id: str, fence: Fence) -> None:
        self._log = log
        self.room_id = room_id
        self.fence = fence

    async def append(
        self,
        room_id: str,
        events: Sequence[Event],
        expected_version: int,
        command_key: str | None = None,
    ) -> int:
        if room_id != self.room_id:
            raise ValueError(f"this log is fenced for {self.room_id}, not {room_id}")
        return await self._log.append(
            room_id, events, expected_version, command_key, fence=self.fence
        )

    async def recent_commands(self, room_id: str, limit: int) -> list[Applied]:
        return await self._log.recent_commands(room_id, limit)

    async def read(
        self, room_id: str, after_seq: int = 0, until_seq: int | None = None
    ) -> list[Entry]:
        return await self._log.read(room_id, after_seq, until_seq)

    async def version(self, room_id: str) -> int:
        return await self._log.version(room_id)

    async def save_initial(self, room_id: str, state: Encounter) -> None:
        await self._log.save_initial(room_id, state)

    async def load_initial(self, room_id: str) -> Encounter | None:
        return await self._log.load_initial(room_id)

    async def rooms(self) -> list[str]:
        return await self._log.rooms()

    async def save_snapshot(self, room_id: str, seq: int, state: Encounter) -> None:
        await self._log.save_snapshot(room_id, seq, state)

    async def latest_snapshot(self, room_id: str) -> Snapshot | None:
        return await self._log.latest_snapshot(room_id)

    async def add_invites(self, invites: Sequence[Invite]) -> None:
        await self._log.add_invites(invites)

    async def find_invite(self, code: str) -> Invite | None:
        return await self._log.find_invite(code)

    async def invites(self, room_id: str) -> list[Invite]:
        return await self._log.invites(room_id)

    async def revoke_invite(self, room_id: str, code: str) -> Invite | None:
        return await self._log.revoke_invite(room_id, code)

    async def save_card(self, room_id: str, card: RoomCard) -> None:
        await self._log.save_card(room_id, card)

    async def load_card(self, room_id: str) -> RoomCard | None:
        return await self._log.load_card(room_id)

    async def close(self) -> None:
        """Nothing of its own to let go of."""


def _seq(entry_id: bytes) -> int:
    """The sequence number of a Stream entry id `<seq>-1`."""
    return int(entry_id.split(b"-", 1)[0])


def _invite(code: str, fields: dict[bytes, bytes]) -> Invite | None:
    """The live invite a code's hash holds; None for none, or a revoked one."""
    if not fields or fields.get(b"revoked") != b"0":
        return None
    controls = tuple(json.loads(fields[b"controls"]))
    return Invite(
        code, fields[b"room"].decode(), fields[b"role"].decode(), fields[b"seat"].decode(), controls
    )


def _json(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))
