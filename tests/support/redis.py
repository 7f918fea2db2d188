"""A private Redis for tests: a `redis-server` of our own on a free loopback port.

Tests never use a Redis they did not start, unless `REDIS_URL` names one (a CI service,
say): then the contract suites run against it, each test under its own key prefix, and
remove their keys afterwards. Fault tests (a killed server, a restart) always start
their own `redis-server`, since they kill it.

Without `redis-server` on the PATH and without `REDIS_URL`, Redis tests are skipped on a
developer's machine and fail under CI (`CI` set), where `.ci/run` installs it.

Beyond one plain server: a password (`requirepass`), TLS (`make_certificates`: a
throwaway authority and certificates made with `openssl` in the test's directory), a
replica of another server, and `SentinelGroup`: a primary, its replica and three
sentinels (`redis-server --sentinel`) watching them, for failover tests.

A server or a sentinel may also run on a private test host (tests/support/netns.py):
`host` is the address it binds and is reached at, `prefix` the command line that runs
it inside that host (`ip netns exec NAME`); its client, its PING and its replicas use
that address. Such a test talks to it from a thread inside a host of the same network.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import ssl
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.asyncio import Redis

REDIS_URL = "REDIS_URL"


def require_redis_server() -> str:
    """The path of `redis-server`, or skip (fail under CI) when it is missing."""
    found = shutil.which("redis-server")
    if found is None:
        message = "redis-server is not installed (and REDIS_URL is not set)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class Certificates:
    """A throwaway certificate authority and what it signed, as PEM files."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def make_certificates(directory: Path) -> Certificates:
    """An authority, a certificate for 127.0.0.1 and a client certificate, made with
    `openssl` (EC keys: fast) in `directory`; skip (fail under CI) without openssl."""
    found = shutil.which("openssl")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("openssl is not installed")
        pytest.skip("openssl is not installed")
    directory.mkdir(parents=True, exist_ok=True)

    def run(*args: str) -> None:
        subprocess.run([found, *args], cwd=directory, check=True, capture_output=True, timeout=30)

    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("req", "-x509", "-new", *key, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
        "-subj", "/CN=combat test authority")  # fmt: skip
    (directory / "server.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for name, extra in (("server", ["-extfile", "server.ext"]), ("client", [])):
        run("req", "-new", *key, "-keyout", f"{name}.key", "-out", f"{name}.csr",
            "-subj", f"/CN=combat test {name}")  # fmt: skip
        run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", f"{name}.crt", "-days", "2", *extra)  # fmt: skip
    return Certificates(
        directory / "ca.crt",
        directory / "server.crt",
        directory / "server.key",
        directory / "client.crt",
        directory / "client.key",
    )


class RedisServer:
    """One `redis-server` process with its files in `directory`.

    `appendfsync` None runs without persistence (`--save '' --appendonly no`): a
    restart starts empty. "always" or "everysec" turns the append-only file on, so a
    restart on the same directory finds what was acknowledged. `password` asks every
    client for it (`requirepass`; a replica gives it to its primary too); a test may
    change it between a stop and a start. `tls` serves TLS only (no plain port),
    asking clients for a certificate if `client_certificates`. `replica_of` makes it
    a replica of that server. `host`, `port` and `prefix` put it on a private host
    (the module's docstring; a free loopback port by default); `options` are more
    `redis-server` options (`--maxmemory-policy noeviction`, ...).
    """

    def __init__(
        self,
        directory: Path,
        *,
        appendfsync: str | None = None,
        password: str | None = None,
        tls: Certificates | None = None,
        client_certificates: bool = False,
        replica_of: RedisServer | None = None,
        host: str = "127.0.0.1",
        port: int | None = None,
        prefix: Sequence[str] = (),
        options: Sequence[str] = (),
    ) -> None:
        self.directory = directory
        self.appendfsync = appendfsync
        self.password = password
        self.tls = tls
        self.client_certificates = client_certificates
        self.replica_of = replica_of
        self.host = host
        self.port = free_port() if port is None else port
        self.prefix = list(prefix)
        self.options = list(options)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        scheme = "redis" if self.tls is None else "rediss"
        return f"{scheme}://{self.host}:{self.port}/0"

    def client(self, timeout: float = 5.0) -> redis.Redis:
        """A blocking client of this server alone (its owner closes it)."""
        options: dict[str, Any] = {}
        if self.tls is not None:
            options = {
                "ssl": True,
                "ssl_ca_certs": str(self.tls.ca),
                "ssl_certfile": str(self.tls.client_cert),
                "ssl_keyfile": str(self.tls.client_key),
            }
        return redis.Redis(
            host=self.host,
            port=self.port,
            password=self.password,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            **options,
        )

    def start(self, timeout: float = 10.0) -> str:
        """Start on `port` (the same one after a stop or kill) and wait for PING."""
        persistence = (
            ["--appendonly", "no"]
            if self.appendfsync is None
            else ["--appendonly", "yes", "--appendfsync", self.appendfsync]
        )
        listening = ["--port", str(self.port)]
        if self.tls is not None:
            listening = [
                *("--port", "0", "--tls-port", str(self.port)),
                *("--tls-cert-file", str(self.tls.server_cert)),
                *("--tls-key-file", str(self.tls.server_key)),
                *("--tls-ca-cert-file", str(self.tls.ca)),
                *("--tls-auth-clients", "yes" if self.client_certificates else "no"),
                *("--tls-replication", "yes"),
            ]
        if self.password is not None:
            listening += ["--requirepass", self.password, "--masterauth", self.password]
        if self.replica_of is not None:
            listening += ["--replicaof", self.replica_of.host, str(self.replica_of.port)]
        command = [
            *self.prefix,
            require_redis_server(),
            *listening,
            "--bind",
            self.host,
            "--dir",
            str(self.directory),
            "--save",
            "",
            *persistence,
            "--daemonize",
            "no",
            "--logfile",
            str(self.directory / "redis.log"),
            *self.options,
        ]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + timeout
        while not self.answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                log = self.directory / "redis.log"
                raise RuntimeError(
                    f"redis-server on port {self.port} did not start: "
                    + (log.read_text() if log.exists() else "no log")
                )
            time.sleep(0.01)
        return self.url

    def answers(self) -> bool:
        """Does the server answer PING with PONG (given its password, over its TLS)?"""
        return _pings(self.port, self.password, self.tls, self.host)

    def kill(self) -> None:
        """SIGKILL: no goodbye, no flush; only what reached the append-only file survives."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        """SIGTERM and wait: the graceful way."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def _pings(
    port: int, password: str | None, tls: Certificates | None = None, host: str = "127.0.0.1"
) -> bool:
    """Does the server at `host:port` answer PING with PONG (bounded: half a second a
    read)?"""
    try:
        with socket.create_connection((host, port), timeout=0.5) as plain:
            link: socket.socket = plain
            if tls is not None:
                context = ssl.create_default_context(cafile=str(tls.ca))
                context.load_cert_chain(str(tls.client_cert), str(tls.client_key))
                link = context.wrap_socket(plain, server_hostname="127.0.0.1")
            auth = b"" if password is None else _command("AUTH", password)
            link.sendall(auth + _command("PING"))
            heard = b""
            while b"\r\n" not in heard or (auth and heard.count(b"\r\n") < 2):
                chunk = link.recv(64)
                if not chunk:
                    return False
                heard += chunk
            return heard.split(b"\r\n")[-2].startswith(b"+PONG")
    except OSError:
        return False


def _command(*words: str) -> bytes:
    """One command in Redis's protocol (RESP), whatever its words hold (spaces too)."""
    encoded = [word.encode() for word in words]
    return f"*{len(encoded)}\r\n".encode() + b"".join(
        b"$%d\r\n%s\r\n" % (len(word), word) for word in encoded
    )


SERVICE = "combat"
"""The name a `SentinelGroup`'s sentinels monitor its primary under."""


class SentinelServer:
    """One sentinel (`redis-server sentinel.conf --sentinel`) watching `primary` as
    `SERVICE`: down after `down_after_ms` without an answer, a failover agreed by two
    (`quorum`), a failed failover tried again after twice `failover_timeout_ms`.
    `host`, `port` and `prefix` put it on a private host, as for `RedisServer`."""

    def __init__(
        self,
        directory: Path,
        primary: RedisServer,
        *,
        down_after_ms: int,
        failover_timeout_ms: int = 10_000,
        quorum: int = 2,
        host: str = "127.0.0.1",
        port: int | None = None,
        prefix: Sequence[str] = (),
    ) -> None:
        self.directory = directory
        self.primary = primary
        self.down_after_ms = down_after_ms
        self.failover_timeout_ms = failover_timeout_ms
        self.quorum = quorum
        self.host = host
        self.port = free_port() if port is None else port
        self.prefix = list(prefix)
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        config = self.directory / "sentinel.conf"  # the sentinel rewrites it: its own file
        lines = [
            f"port {self.port}",
            f"bind {self.host}",
            f"dir {self.directory}",
            f"logfile {self.directory / 'sentinel.log'}",
            f"sentinel monitor {SERVICE} {self.primary.host} {self.primary.port} {self.quorum}",
            f"sentinel down-after-milliseconds {SERVICE} {self.down_after_ms}",
            f"sentinel failover-timeout {SERVICE} {self.failover_timeout_ms}",
            f"sentinel parallel-syncs {SERVICE} 1",
        ]
        if self.primary.password is not None:
            lines.append(f"sentinel auth-pass {SERVICE} {self.primary.password}")
        config.write_text("\n".join(lines) + "\n")
        self.process = subprocess.Popen(
            [*self.prefix, require_redis_server(), str(config), "--sentinel"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        poll_until(
            lambda: _pings(self.port, None, None, self.host),
            timeout,
            lambda: f"the sentinel on port {self.port} did not start",
            self.process,
        )

    def client(self, timeout: float = 5.0) -> redis.Redis:
        return redis.Redis(
            host=self.host, port=self.port, socket_timeout=timeout, socket_connect_timeout=timeout
        )

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)


class SentinelGroup:
    """A primary, `replicas` replicas and three sentinels on loopback, for failover tests
    (a primary down after 2 s by default: with less, a server cannot show the sentinels
    vouch for its primary between two looks, server/primacy.py).

    `url` is what a server is given (`redis+sentinel://...`). The primary keeps an
    append-only file (`appendfsync` always); the sentinels count the primary down
    after `down_after_ms`, so a killed primary is replaced within a few seconds.
    """

    def __init__(
        self,
        directory: Path,
        *,
        replicas: int = 1,
        password: str | None = None,
        down_after_ms: int = 2000,
    ) -> None:
        places = [directory / f"redis-{n}" for n in range(1 + replicas)]
        for place in places:
            place.mkdir(parents=True, exist_ok=True)
        first = RedisServer(places[0], appendfsync="always", password=password)
        self.servers = [first] + [
            RedisServer(place, appendfsync="always", password=password, replica_of=first)
            for place in places[1:]
        ]
        self.replicas = replicas
        self.sentinels = [
            SentinelServer(directory / f"sentinel-{n}", first, down_after_ms=down_after_ms)
            for n in range(3)
        ]

    @property
    def url(self) -> str:
        hosts = ",".join(f"{sentinel.host}:{sentinel.port}" for sentinel in self.sentinels)
        return f"redis+sentinel://{hosts}/{SERVICE}"

    def start(self, timeout: float = 30.0) -> None:
        """Start the servers, then the sentinels, and wait until the sentinels know the
        replica and each other (so a failover can be agreed at once)."""
        deadline = time.monotonic() + timeout
        for server in self.servers:
            server.start()
        for replica in self.servers[1:]:
            wait_for_replica(replica, deadline - time.monotonic())
        for sentinel in self.sentinels:
            sentinel.start()
        poll_until(
            self._watching,
            deadline - time.monotonic(),
            lambda: "the sentinels did not find the replica and each other",
        )

    def _watching(self) -> bool:
        for sentinel in self.sentinels:
            with sentinel.client() as client:
                try:
                    state: Any = client.sentinel_master(SERVICE)
                except redis.RedisError:
                    return False
            if state.get("num-slaves") != self.replicas or state.get("num-other-sentinels") != 2:
                return False
        return True

    @staticmethod
    def _info(server: RedisServer, section: str) -> dict[str, Any]:
        return info(server, section)

    def primary(self) -> RedisServer:
        """The server the sentinels name as the primary now."""
        for sentinel in self.sentinels:
            try:
                with sentinel.client() as client:
                    found: Any = client.sentinel_get_master_addr_by_name(SERVICE)
            except redis.RedisError:
                continue
            if found:
                port = int(found[1])
                return next(server for server in self.servers if server.port == port)
        raise RuntimeError("no sentinel names a primary")

    def wait_for_failover(self, old: RedisServer, timeout: float = 30.0) -> RedisServer:
        """Wait until the sentinels name another primary than `old` and it takes
        writes; that primary."""
        poll_until(
            lambda: (
                self.primary() is not old
                and self._info(self.primary(), "replication").get("role") == "master"
            ),
            timeout,
            lambda: "the sentinels did not promote the replica",
        )
        return self.primary()

    def stop(self) -> None:
        for sentinel in self.sentinels:
            sentinel.kill()
        for server in self.servers:
            server.kill()


def info(server: RedisServer, section: str) -> dict[str, Any]:
    """A section of the server's INFO; empty if it does not answer."""
    try:
        with server.client() as client:
            found: dict[str, Any] = client.info(section)
            return found
    except redis.RedisError:
        return {}


def wait_for_replica(replica: RedisServer, timeout: float = 20.0) -> None:
    """Wait until `replica` is in step with its primary (its link is up)."""
    poll_until(
        lambda: info(replica, "replication").get("master_link_status") == "up",
        timeout,
        lambda: f"the replica on port {replica.port} did not catch up with its primary",
    )


def poll_until(
    done: Callable[[], bool],
    timeout: float,
    what: Callable[[], str],
    process: subprocess.Popen[bytes] | None = None,
) -> None:
    """Poll `done` every 20 ms; `RuntimeError` (saying `what`) after `timeout` s, or at
    once if `process` ended."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline or (process is not None and process.poll() is not None):
            raise RuntimeError(what())
        time.sleep(0.02)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`REDIS_URL` when set, else a private server for the whole test session."""
    given = os.environ.get(REDIS_URL)
    if given:
        yield given
        return
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A server this test alone uses and may kill (never the one of `REDIS_URL`)."""
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


def fresh_prefix() -> str:
    """A key prefix no other test uses, so tests sharing one Redis never meet."""
    return f"test-{uuid.uuid4().hex[:12]}:"


async def forget_prefix(url: str, prefix: str) -> None:
    """Delete every key under `prefix`: a shared Redis is left as it was found (each
    command waits on Redis a bounded time)."""
    client = Redis.from_url(url, socket_timeout=5.0, socket_connect_timeout=5.0)
    try:
        doomed = [key async for key in client.scan_iter(match=f"{prefix}*", count=500)]
        if doomed:
            await client.delete(*doomed)
    finally:
        await client.aclose()
