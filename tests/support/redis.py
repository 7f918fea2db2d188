"""A private Redis for tests: a `redis-server` of our own on a free loopback port.

Tests never use a Redis they did not start, unless `REDIS_URL` names one (a CI service,
say): then the contract suites run against it, each test under its own key prefix, and
remove their keys afterwards. Fault tests (a killed server, a restart) always start
their own `redis-server`, since they kill it.

Without `redis-server` on the PATH and without `REDIS_URL`, Redis tests are skipped on a
developer's machine and fail under CI (`CI` set), where `.ci/run` installs it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
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


class RedisServer:
    """One `redis-server` process with its files in `directory`.

    `appendfsync` None runs without persistence (`--save '' --appendonly no`): a
    restart starts empty. "always" or "everysec" turns the append-only file on, so a
    restart on the same directory finds what was acknowledged.
    """

    def __init__(self, directory: Path, *, appendfsync: str | None = None) -> None:
        self.directory = directory
        self.appendfsync = appendfsync
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> str:
        """Start on `port` (the same one after a stop or kill) and wait for PING."""
        persistence = (
            ["--appendonly", "no"]
            if self.appendfsync is None
            else ["--appendonly", "yes", "--appendfsync", self.appendfsync]
        )
        command = [
            require_redis_server(),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.directory),
            "--save",
            "",
            *persistence,
            "--daemonize",
            "no",
            "--logfile",
            str(self.directory / "redis.log"),
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
        """Does the server answer PING with PONG?"""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as link:
                link.sendall(b"PING\r\n")
                return link.recv(16).startswith(b"+PONG")
        except OSError:
            return False

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
