"""Every Redis client of a cluster process, built in one place from its settings.

Where Redis is, as `--redis URL` (or `REDIS_URL`) names it:

- `redis://[[user]:password@]host[:port][/db]`: one Redis (the primary);
- `rediss://...`: the same over TLS;
- `redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/service[/db]`: the
  primary that the Redis Sentinels at those addresses (port 26379 unless given) name
  for `service`; `rediss+sentinel://...` speaks TLS to the sentinels and to Redis.
  `--redis-sentinel host:port,... --redis-service NAME` says the same without a URL.

The user and password of the URL are Redis's (`AUTH`: the `default` user with
`requirepass`, or an ACL user); `--redis-username` and `--redis-password` (or
`REDIS_USERNAME`, `REDIS_PASSWORD`: a password kept out of the command line and of
the URL) win over the URL's. Sentinels that have a password of their own
(`requirepass` in the sentinel's configuration) are given `--redis-sentinel-password`.
TLS checks Redis's certificate against the system's authorities or `--redis-tls-ca`;
`--redis-tls-cert` and `--redis-tls-key` give a client certificate, for a Redis that
asks for one (`tls-auth-clients yes`, Redis's default).

Behind Sentinel every connection follows the primary: a connection asks a sentinel
for the primary's address each time it connects (redis-py's `SentinelConnectionPool`),
and one that finds itself on a demoted primary (`READONLY`) drops and connects again.
So after a failover each pool, and the bus's subscription connection, reconnects to
the new primary at the next attempt; what runs meanwhile fails as Redis out of reach.

The durability of an append (`--redis-durability`) is a setting here too; the event
log acts on it (`server/eventlog/redis.py`, docs/deploy.md "Durability").
"""

from __future__ import annotations

import asyncio
import ssl
import weakref
from dataclasses import dataclass, replace
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

import redis
import redis.sentinel
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import MasterNotFoundError, Sentinel
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import AuthenticationError, RedisError, ResponseError

from server.logs import brief

SOCKET_TIMEOUT = 5.0
"""Seconds a command waits on Redis: one that does not answer in that time (stopped, cut
off) is down, and its caller hears so instead of hanging."""
SENTINEL_PORT = 26379
REDIS_PORT = 6379

Durability = Literal["local", "replicated", "every-replica", "fsync"]
DURABILITIES: tuple[Durability, ...] = ("local", "replicated", "every-replica", "fsync")
"""`local`: an append is acknowledged once the primary applied it (Redis's own persistence
decides what a crash takes back); `replicated`: once a replica has it too (`WAIT 1`);
`every-replica` (Sentinel only): once every replica the sentinels find up has it
(`WAIT n`), so whichever a failover promotes holds it; `fsync`: once the primary's
append-only file is synced to disk (`WAITAOF`, Redis 7.2+)."""

SCHEMES = ("redis", "rediss", "redis+sentinel", "rediss+sentinel")


class Unconfirmed(RedisError):
    """Redis applied a write but did not confirm it as durable as asked in time: no
    replica acknowledged it (`replicated`), or the append-only file was not synced
    (`fsync`). The write may stay in the primary's data (and be read back), but it may
    also be lost with the primary: it must not be acknowledged."""


class Unsuitable(Exception):
    """This Redis cannot give what the settings ask for (a durability it lacks, a
    setting it refuses): the server does not start."""


@dataclass(frozen=True)
class RedisSettings:
    """How to reach the cluster's Redis, and how durable an append must be."""

    host: str = "127.0.0.1"
    port: int = REDIS_PORT
    db: int = 0
    sentinels: tuple[tuple[str, int], ...] = ()  # not empty: ask these for the primary
    service: str = ""  # the name the sentinels monitor the primary under
    username: str | None = None
    password: str | None = None
    sentinel_password: str | None = None
    tls: bool = False
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    durability: Durability = "local"
    durability_timeout: float = 1.0  # seconds an append waits for its confirmation

    @classmethod
    def parse(cls, url: str, **overrides: Any) -> RedisSettings:
        """The settings of `url` (the module's forms), then `overrides` (fields given
        as None are left as the URL says). `ValueError` for a URL of no known form."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in SCHEMES:
            raise ValueError(
                f"a Redis URL starts with redis://, rediss://, redis+sentinel:// or "
                f"rediss+sentinel://, not {parts.scheme or url!r}"
            )
        userinfo, _, hosts = parts.netloc.rpartition("@")
        username = password = None
        if userinfo:
            name, colon, secret = userinfo.partition(":")
            username = unquote(name) or None
            password = unquote(secret) if colon else None
        path = [piece for piece in parts.path.split("/") if piece]
        settings = cls(username=username, password=password, tls=scheme.startswith("rediss"))
        if scheme.endswith("+sentinel"):
            if not path:
                raise ValueError(f"a Sentinel URL names the service after the hosts: {url!r}")
            service, *rest = path
            settings = replace(
                settings,
                sentinels=tuple(_address(item, SENTINEL_PORT) for item in hosts.split(",")),
                service=unquote(service),
                db=_db(rest, url),
            )
        else:
            host, port = _address(hosts, REDIS_PORT)
            settings = replace(settings, host=host, port=port, db=_db(path, url))
        given = {name: value for name, value in overrides.items() if value is not None}
        settings = replace(settings, **given)
        settings.check()
        return settings

    @classmethod
    def of(cls, where: str | RedisSettings) -> RedisSettings:
        return where if isinstance(where, RedisSettings) else cls.parse(where)

    def check(self) -> None:
        if self.durability not in DURABILITIES:
            raise ValueError(f"unknown durability {self.durability!r}: one of {DURABILITIES}")
        if self.durability_timeout <= 0:
            raise ValueError("the durability timeout must be positive")
        if self.durability == "every-replica" and not self.sentinels:
            raise ValueError(
                "--redis-durability every-replica guards against what a Sentinel failover "
                "promotes: it needs redis+sentinel:// (use 'replicated' on a lone Redis)"
            )
        if self.sentinels and not self.service:
            raise ValueError("Sentinel needs the name of the service it monitors")
        if not self.tls and (self.tls_ca or self.tls_cert):
            raise ValueError("TLS files are given but the URL is not rediss:// (TLS)")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("a TLS client certificate needs its key, and the key its certificate")

    def where(self) -> str:
        """Where Redis is, for people and logs: never the password."""
        scheme = "rediss" if self.tls else "redis"
        user = f"{self.username}@" if self.username else ""
        if self.sentinels:
            hosts = ",".join(f"{host}:{port}" for host, port in self.sentinels)
            return f"{scheme}+sentinel://{user}{hosts}/{self.service}/{self.db}"
        return f"{scheme}://{user}{self.host}:{self.port}/{self.db}"

    # -- clients ---------------------------------------------------------------------

    def client(self, *, retries: int = 3, timeout: float = SOCKET_TIMEOUT) -> Redis:
        """A client (with its pool) of the primary; `retries`: how often a command is
        tried again after a connection error. Its owner closes it (`aclose`)."""
        options: dict[str, Any] = {
            "retry": Retry(ExponentialWithJitterBackoff(cap=0.5, base=0.01), retries),
            "socket_connect_timeout": timeout,
            "socket_timeout": timeout,
            **self._redis_options(),
        }
        if not self.sentinels:
            return Redis(host=self.host, port=self.port, **options)
        sentinel = _MajoritySentinel(
            list(self.sentinels), sentinel_kwargs=self._sentinel_options(timeout)
        )
        client = sentinel.master_for(self.service, redis_class=_FollowingPrimary, **options)
        assert isinstance(client, _FollowingPrimary)
        client.manager = sentinel
        _FOLLOWING.add(client)
        return client

    def blocking_client(self, *, timeout: float = SOCKET_TIMEOUT) -> redis.Redis:
        """A blocking client of the primary, for a start-up before the event loop serves."""
        options: dict[str, Any] = {
            "socket_connect_timeout": timeout,
            "socket_timeout": timeout,
            **self._redis_options(),
        }
        if not self.sentinels:
            return redis.Redis(host=self.host, port=self.port, **options)
        sentinel = redis.sentinel.Sentinel(
            list(self.sentinels), sentinel_kwargs=self._sentinel_options(timeout)
        )
        client: redis.Redis = sentinel.master_for(self.service, **options)
        return client

    def sentinel_clients(self, *, timeout: float = SOCKET_TIMEOUT) -> list[Redis]:
        """A client of each sentinel, each asked on its own (`server/primacy.py`): a
        sentinel that does not answer within `timeout` vouches for nothing."""
        options = self._sentinel_options(timeout)
        return [Redis(host=host, port=port, **options) for host, port in self.sentinels]

    def _redis_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {
            "db": self.db,
            "username": self.username,
            "password": self.password,
        }
        if self.tls:
            options.update(self._tls_options())
        return options

    def _sentinel_options(self, timeout: float) -> dict[str, Any]:
        options: dict[str, Any] = {
            "socket_connect_timeout": timeout,
            "socket_timeout": timeout,
            "password": self.sentinel_password,
        }
        if self.tls:
            options.update(self._tls_options())
        return options

    def _tls_options(self) -> dict[str, Any]:
        return {
            "ssl": True,
            "ssl_cert_reqs": ssl.CERT_REQUIRED,
            "ssl_ca_certs": self.tls_ca,
            "ssl_certfile": self.tls_cert,
            "ssl_keyfile": self.tls_key,
        }


class _MajoritySentinel(Sentinel):
    """redis-py's Sentinel, except that a new connection goes to the primary a majority
    of the sentinels name, never to the first answer: a sentinel cut off with the old
    primary goes on naming it after the others promoted a replica, and after the heal
    it may still name it for a while, so connections made then went to a primary about
    to be demoted (and wrote there what the demotion took back)."""

    async def discover_master(self, service_name: str) -> tuple[str, int]:
        needed = len(self.sentinels) // 2 + 1
        named: dict[tuple[str, int], int] = {}
        asks = [asyncio.ensure_future(self._named(s, service_name)) for s in self.sentinels]
        try:
            for ask in asyncio.as_completed(asks):
                address = await ask
                if address is None:
                    continue
                named[address] = named.get(address, 0) + 1
                if named[address] >= needed:
                    return address
        finally:
            for ask in asks:
                ask.cancel()
        raise MasterNotFoundError(
            f"no primary of {service_name!r} is named by {needed} of the "
            f"{len(self.sentinels)} sentinels (they name {named or 'none'})"
        )

    async def _named(self, sentinel: Redis, service_name: str) -> tuple[str, int] | None:
        try:
            masters: Any = await sentinel.sentinel_masters()
        except (RedisError, OSError):
            return None
        state = masters.get(service_name)
        if not state or not self.check_master_state(state, service_name):
            return None
        return str(state["ip"]), int(state["port"])


class _FollowingPrimary(Redis):
    """A client of the primary Sentinel names, closing its Sentinel with it."""

    manager: Sentinel | None = None

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        await super().aclose(close_connection_pool)
        if self.manager is not None:
            manager, self.manager = self.manager, None
            await manager.aclose()


_FOLLOWING: weakref.WeakSet[_FollowingPrimary] = weakref.WeakSet()
"""Every client of this process that follows the primary Sentinel names."""


async def find_the_primary_again() -> None:
    """Drop every connection of every client that follows Sentinel's primary, in use
    or not, so that each asks the sentinels anew when it next connects.

    A failover alone does not move them: a connection to a primary cut off by the
    network stalls rather than fails, and redis-py keeps using it, each command waiting
    its socket timeout, retried on the same stalled pool (measured: a process did not
    take a room on the promoted replica during a 12 s partition). `server/primacy.py`
    calls this when the sentinels name another primary than the one this process
    reaches, or when its own primary stops answering them while they answer."""
    for client in list(_FOLLOWING):
        try:
            await client.connection_pool.disconnect(inuse_connections=True)
        except Exception:  # a stalled socket's close: the others are dropped all the same
            continue


def text(reply: Any) -> str:
    """A Redis reply as text: redis-py gives bytes, or str with `decode_responses`."""
    return reply.decode() if isinstance(reply, bytes) else str(reply)


def explain(error: BaseException) -> str | None:
    """What an operator should know of a Redis failure beyond "out of reach", or None."""
    if isinstance(error, AuthenticationError) or (
        isinstance(error, ResponseError) and str(error).startswith(("NOPERM", "WRONGPASS"))
    ):
        return (
            f"Redis refuses this server's credentials ({brief(error)}): check the password "
            "(--redis-password or REDIS_PASSWORD, or the URL's) and the user"
        )
    if (
        isinstance(error, ssl.SSLError)
        or "SSL" in type(error).__name__
        or "certificate" in str(error)
    ):
        return (
            f"the TLS handshake with Redis failed ({brief(error)}): check --redis-tls-ca "
            "and the client certificate"
        )
    if isinstance(error, Unconfirmed):
        return str(error)
    return None


def _address(item: str, default_port: int) -> tuple[str, int]:
    item = item.strip()
    if not item:
        raise ValueError("a Redis address is empty")
    if item.startswith("["):  # [IPv6]:port
        host, _, rest = item[1:].partition("]")
        port = rest.removeprefix(":")
    else:
        host, _, port = item.rpartition(":") if ":" in item else (item, "", "")
    try:
        return host, int(port) if port else default_port
    except ValueError:
        raise ValueError(f"not a port: {port!r} in {item!r}") from None


def _db(path: list[str], url: str) -> int:
    if not path:
        return 0
    if len(path) > 1 or not path[0].isdigit():
        raise ValueError(f"a Redis database is a number: {url!r}")
    return int(path[0])
