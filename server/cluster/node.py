"""One server process's share of a cluster: its Redis clients and its rooms.

A `Node` is the `Placement` (`server/hosting.py`) of a server started with `--redis`:
the log is the Redis Streams log, feeds listen to Redis pub/sub, and each room is a
`ClusteredRoom`, run here while this process holds its lease and forwarded to its
runner otherwise. Every process of a cluster is the same: there is no leader, only
one lease per room.

Things every process must agree on live in Redis too: the token secret, unless
`--secret` gives one (`shared_secret`: created once by whichever process starts
first), and whether the demo encounter was already offered (`claim_demo`).
"""

from __future__ import annotations

import os
import secrets
import socket
import uuid
from collections.abc import Callable

import redis
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.bus.redis import RedisBus
from server.cluster.codec import Message, decode_message, encode_message
from server.cluster.forwarding import Forwarder
from server.cluster.outage import Outage
from server.cluster.ownership import ClusteredRoom, Settings
from server.engine.state import Encounter
from server.eventlog.redis import SOCKET_TIMEOUT, RedisEventLog
from server.gateway.feed import Source
from server.hosting import Runner
from server.leases import Leases
from server.room.clock import Clock

SECRET_KEY = "token-secret"
DEMO_KEY = "demo-offered"


class RedisUnreachable(Exception):
    """The cluster's Redis did not answer when this process started."""


def settings_for(lease_ttl: float) -> Settings:
    """The cluster's timings for a lease living `lease_ttl` seconds: renewed every 0.3
    of it; a lease held by another process looked at again when it would run out, and
    at least every third of it (1.5 s at most: a lease given back is noticed then, or at
    once by a command); a command waiting for its room up to twice the lease (at least
    4 s): long enough to outlast a takeover, short enough for a person waiting."""
    return Settings(
        lease_ttl=lease_ttl,
        renew_every=lease_ttl * 0.3,
        poll=min(1.5, lease_ttl / 3),
        forward_timeout=max(4.0, 2 * lease_ttl),
        ask_timeout=min(2.0, lease_ttl / 2),
    )


class Node:
    """The cluster as this process takes part in it."""

    def __init__(
        self,
        url: str,
        clock: Clock,
        *,
        prefix: str = "",
        settings: Settings | None = None,
        node_id: str | None = None,
    ) -> None:
        self.url = url
        self.prefix = prefix
        self.clock = clock
        self.settings = settings or Settings()
        self.node_id = node_id or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.outage = Outage(self.node_id)  # logs this process's Redis outages, two lines each
        self.log = RedisEventLog(url, prefix=prefix)
        self.events: RedisBus[Message] = RedisBus(
            url,
            encode_message,
            decode_message,
            prefix=prefix,
            limit=4096,
            echo_timeout=None,
            on_lost=lambda error: self.outage.failed("the subscription connection", error),
        )
        self._client: Redis = Redis.from_url(
            url,
            retry=Retry(ExponentialWithJitterBackoff(cap=0.5, base=0.01), 3),
            socket_connect_timeout=SOCKET_TIMEOUT,
            socket_timeout=SOCKET_TIMEOUT,
        )
        self.leases = Leases(
            self._client, ttl_ms=round(self.settings.lease_ttl * 1000), prefix=prefix
        )
        self.forwarder = Forwarder(url, self.node_id, prefix=prefix, outage=self.outage)
        self._rooms: list[ClusteredRoom] = []

    async def start(self) -> None:
        """Join the cluster: listen for the answers to forwarded commands."""
        try:
            await self.forwarder.start()
        except (RedisConnectionError, RedisTimeoutError, OSError) as error:
            raise RedisUnreachable(f"cannot reach Redis at {self.url}: {error}") from error

    async def close(self) -> None:
        """Leave: close the connections (the rooms are stopped by the host before)."""
        await self.forwarder.close()
        await self.events.close()
        await self.log.close()
        await self._client.aclose()

    async def claim_demo(self) -> bool:
        """True for exactly one process of the cluster: the one to create the demo."""
        claimed = await self._client.set(self.prefix + DEMO_KEY, self.node_id, nx=True)
        return bool(claimed)

    # -- the Placement of server/hosting.py ------------------------------------------

    @property
    def source(self) -> Source:
        return self.events

    @property
    def running(self) -> int | None:
        return sum(1 for room in self._rooms if room.room is not None)

    @property
    def outages(self) -> tuple[type[BaseException], ...]:
        return (RedisConnectionError, RedisTimeoutError, OSError)

    def runner(
        self, room_id: str, initial: Encounter, *, queue_limit: int, snapshot_every: int
    ) -> Runner:
        room = ClusteredRoom(
            room_id,
            initial,
            log=self.log,
            bus=self.events,
            leases=self.leases,
            forwarder=self.forwarder,
            clock=self.clock,
            settings=self.settings,
            queue_limit=queue_limit,
            snapshot_every=snapshot_every,
            outage=self.outage,
        )
        self._rooms.append(room)
        return room

    def want_timing(self, runner: Runner) -> Callable[[], object] | None:
        assert isinstance(runner, ClusteredRoom)
        return runner.want_timing

    def attended(self, runner: Runner) -> Callable[[bool], object] | None:
        """None: a room's players may be connected to other processes, so one process
        seeing nobody does not mean nobody is at the table; timers keep running."""
        return None


def shared_secret(url: str, prefix: str = "") -> bytes:
    """The token secret every process of the cluster signs with, kept in Redis: made
    by the first process that asks (SET NX), read by the others. Blocking: called once
    at start, before the event loop serves anyone."""
    client = redis.Redis.from_url(url, socket_connect_timeout=SOCKET_TIMEOUT)
    try:
        key = prefix + SECRET_KEY
        client.set(key, secrets.token_hex(32), nx=True)
        stored = client.get(key)
    except (RedisConnectionError, RedisTimeoutError, OSError) as error:
        raise RedisUnreachable(f"cannot reach Redis at {url}: {error}") from error
    finally:
        client.close()
    if not isinstance(stored, bytes):
        raise RuntimeError(f"Redis at {url} lost the token secret it just kept")
    return stored
