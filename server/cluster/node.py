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

import logging
import os
import secrets
import socket
import uuid
from collections.abc import Callable

from redis.asyncio import Redis
from redis.exceptions import AuthenticationError, RedisError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.bus.redis import RedisBus
from server.cluster.codec import Message, decode_message, encode_message
from server.cluster.forwarding import Forwarder
from server.cluster.outage import Outage
from server.cluster.ownership import ClusteredRoom, Settings
from server.engine.state import Encounter
from server.eventlog.redis import RedisEventLog
from server.gateway.feed import Source
from server.hosting import Runner
from server.leases import Leases
from server.redis_clients import RedisSettings, Unsuitable, explain
from server.room.clock import Clock
from server.room.rewind import Replayer, in_thread

logger = logging.getLogger(__name__)

SECRET_KEY = "token-secret"
DEMO_KEY = "demo-offered"


class RedisUnreachable(Exception):
    """The cluster's Redis did not answer when this process started (or refused it)."""


class RedisUnsuitable(Exception):
    """The cluster's Redis cannot give what this process's settings ask for."""


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
        where: str | RedisSettings,
        clock: Clock,
        *,
        prefix: str = "",
        settings: Settings | None = None,
        node_id: str | None = None,
    ) -> None:
        self.redis = RedisSettings.of(where)
        self.url = self.redis.where()  # for people: no password
        self.prefix = prefix
        self.clock = clock
        self.settings = settings or Settings()
        self.node_id = node_id or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        # logs this process's Redis outages, two lines each (and what an operator must fix)
        self.outage = Outage(self.node_id, explain=explain)
        self.log = RedisEventLog(self.redis, prefix=prefix)
        self.events: RedisBus[Message] = RedisBus(
            self.redis,
            encode_message,
            decode_message,
            prefix=prefix,
            limit=4096,
            on_lost=lambda error: self.outage.failed("the subscription connection", error),
        )
        self._client: Redis = self.redis.client()
        self.leases = Leases(
            self._client,
            ttl_ms=round(self.settings.lease_ttl * 1000),
            prefix=prefix,
            taker=self.node_id,
        )
        self.forwarder = Forwarder(self.redis, self.node_id, prefix=prefix, outage=self.outage)
        self._rooms: list[ClusteredRoom] = []

    async def start(self) -> None:
        """Join the cluster: look at the sentinels (behind Sentinel), check that Redis
        can give the durability asked for, and listen for the answers to forwarded
        commands."""
        try:
            await self.log.start()
            warning = await self.log.check_durability()
            await self.forwarder.start()
        except Unsuitable as error:
            raise RedisUnsuitable(str(error)) from error
        except (RedisError, OSError) as error:
            raise RedisUnreachable(unreachable(self.redis, error)) from error
        if warning is not None:
            logger.warning(warning, extra={"node": self.node_id})

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
        self,
        room_id: str,
        initial: Encounter,
        *,
        queue_limit: int,
        snapshot_every: int,
        replayer: Replayer = in_thread,
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
            replayer=replayer,
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


def shared_secret(where: str | RedisSettings, prefix: str = "") -> bytes:
    """The token secret every process of the cluster signs with, kept in Redis: made
    by the first process that asks (SET NX), read by the others. Blocking: called once
    at start, before the event loop serves anyone."""
    settings = RedisSettings.of(where)
    client = settings.blocking_client()
    try:
        key = prefix + SECRET_KEY
        client.set(key, secrets.token_hex(32), nx=True)
        stored = client.get(key)
    except (RedisConnectionError, RedisTimeoutError, OSError) as error:
        raise RedisUnreachable(unreachable(settings, error)) from error
    finally:
        client.close()
    if not isinstance(stored, bytes):
        raise RuntimeError(f"Redis at {settings.where()} lost the token secret it just kept")
    return stored


def unreachable(settings: RedisSettings, error: BaseException) -> str:
    """Why a process could not start on its Redis, for the operator."""
    if isinstance(error, AuthenticationError):
        return f"Redis at {settings.where()}: {explain(error)}"
    return f"cannot reach Redis at {settings.where()}: {explain(error) or error}"
