"""Room leases in Redis: exactly one process runs a room at a time.

A process that wants to run a room takes the room's lease: a key `room:{id}:lease`
set only if absent, with an expiry (`SET NX PX`). The lease holds a fencing token, a
number drawn from the room's counter `room:{id}:fence` that only ever grows, so every
new holder gets a token no earlier holder had. The holder renews the lease well within
its time to live; a holder that stops renewing (crashed, paused, cut off) loses it when
it expires, and another process may take it.

Expiry alone is not enough: a holder paused for longer than the time to live (a long
garbage collection, a frozen virtual machine, a network partition) wakes up believing
it still holds the lease. Hence the fence: every append to the room's Redis event log
names the token, and the log's append script refuses it (`LeaseLost`, appending
nothing) unless the lease key holds exactly that token at that moment. Redis runs the
script atomically, so no append of an old holder can land after a new holder took the
lease; the old holder stops running the room when it sees `LeaseLost`.

Renewal and release check the token too, so an old holder can neither extend nor drop
a lease that has passed to someone else. Time is Redis's: the expiry is counted by the
Redis server, never by this process's clock; when to renew is the caller's business
(every third of the time to live is usual).

A token is the counter's number and the taker's own id (`7:host-123-ab12cd`), compared
whole. The number alone is not enough: behind Sentinel, a primary cut off from the
cluster and the replica promoted meanwhile each keep a counter of their own, and two
processes took token 2 of one room, one from each; once the old primary rejoined, the
lease key held the other's "2" and both renewed it and ran the room.

The keys share the room's hash tag (`{id}`) with its event log, so a room's append
script touches keys of one Redis Cluster slot only.
"""

from __future__ import annotations

import uuid
from typing import Any, NamedTuple

from redis.asyncio import Redis

from server.redis_clients import text

LEASE_LOST = "lease_lost"

# KEYS: lease, counter; ARGV: time to live (ms), taker. Returns the new token, or nil
# if held.
_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local token = redis.call('INCR', KEYS[2]) .. ':' .. ARGV[2]
redis.call('SET', KEYS[1], token, 'NX', 'PX', ARGV[1])
return token
"""

# KEYS: lease, counter; ARGV: time to live (ms), taker. {1, token} when taken; {0, ms}
# while another holds it, with the milliseconds its lease has left.
_ATTEMPT = """
local left = redis.call('PTTL', KEYS[1])
if left ~= -2 then return {0, left} end
local token = redis.call('INCR', KEYS[2]) .. ':' .. ARGV[2]
redis.call('SET', KEYS[1], token, 'PX', ARGV[1])
return {1, token}
"""

# KEYS: lease; ARGV: token, time to live (ms). 1 if renewed, 0 if the lease is not ours.
_RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
"""

# KEYS: lease; ARGV: token. 1 if released, 0 if the lease was not ours (any more).
_RELEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
"""


class Fence(NamedTuple):
    """What an append names to prove its writer holds the room: the lease key and the
    token the writer was given."""

    key: str
    token: str


class LeaseLost(Exception):
    """The lease named by an append, renewal or release is not held with that token:
    it expired or passed to another process. The room must stop; nothing was written."""

    code = LEASE_LOST

    def __init__(self, room_id: str, fence: Fence) -> None:
        super().__init__(f"{LEASE_LOST}: the lease on {room_id} is no longer held by {fence.token}")
        self.room_id = room_id
        self.fence = fence


def fence_number(token: str | int) -> int:
    """The counter's number in a token: later holders have greater ones."""
    return int(str(token).split(":", 1)[0])


def room_key(prefix: str, room_id: str, part: str) -> str:
    """The key of one part of a room's data: `{prefix}room:{id}:{part}`.

    The braces are a Redis hash tag: all keys of a room fall in one cluster slot.
    """
    return f"{prefix}room:{{{room_id}}}:{part}"


class Lease(NamedTuple):
    """A room's lease as taken by this process; `fence` goes with every append."""

    room_id: str
    fence: Fence


class Leases:
    """Take, renew and give back room leases on one Redis.

    `client` is a `redis.asyncio.Redis` that the caller owns (and closes); `prefix`
    goes before every key, as for the event log on the same Redis.
    """

    def __init__(
        self, client: Redis, *, ttl_ms: int = 10_000, prefix: str = "", taker: str = ""
    ) -> None:
        if ttl_ms < 1:
            raise ValueError("a lease must live at least one millisecond")
        self.ttl_ms = ttl_ms
        self.prefix = prefix
        self.taker = taker or uuid.uuid4().hex[:12]  # this process, in every token it takes
        self._client = client
        self._acquire = client.register_script(_ACQUIRE)
        self._attempt = client.register_script(_ATTEMPT)
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)

    async def acquire(self, room_id: str) -> Lease | None:
        """Take the room's lease with a fresh token, or None while another holds it."""
        key = room_key(self.prefix, room_id, "lease")
        counter = room_key(self.prefix, room_id, "fence")
        token: Any = await self._acquire(keys=[key, counter], args=[self.ttl_ms, self.taker])
        if token is None:
            return None
        return Lease(room_id, Fence(key, text(token)))

    async def attempt(self, room_id: str) -> tuple[Lease | None, float]:
        """Take the room's lease if nobody holds it: `(lease, 0.0)`; else `(None, s)`
        with the seconds the holder's lease has left (a waiting process tries again
        then, so it takes over the moment the lease expires, without polling often)."""
        key = room_key(self.prefix, room_id, "lease")
        counter = room_key(self.prefix, room_id, "fence")
        taken, found = await self._attempt(keys=[key, counter], args=[self.ttl_ms, self.taker])
        if taken:
            return Lease(room_id, Fence(key, text(found))), 0.0
        left = int(found)
        return None, (left if left >= 0 else self.ttl_ms) / 1000

    async def renew(self, lease: Lease) -> None:
        """Extend the lease by its time to live; `LeaseLost` if it is no longer ours."""
        renewed = await self._renew(keys=[lease.fence.key], args=[lease.fence.token, self.ttl_ms])
        if not renewed:
            raise LeaseLost(lease.room_id, lease.fence)

    async def release(self, lease: Lease) -> bool:
        """Give the lease back so another may take it at once; False if it was not ours
        any more (expired or taken), which changes nothing."""
        released = await self._release(keys=[lease.fence.key], args=[lease.fence.token])
        return bool(released)
