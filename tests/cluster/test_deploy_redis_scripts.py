"""The scripts that start each Redis and sentinel in `deploy/compose.yaml` and
`deploy/k8s` (`deploy/k8s/redis/start-*.sh`), run here on loopback on free ports: the
first Redis starts as the primary and the second as its replica, the sentinels find
them, a killed primary is replaced, and the old one, started again by the same script,
rejoins as a replica of the new primary instead of a second primary."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.support.redis import free_port, poll_until, require_redis_server
from tests.support.server import ROOT

SCRIPTS = ROOT / "deploy" / "k8s" / "redis"
PASSWORD = "deployed"


class Started:
    """The processes this test started (each script ends in `exec`: the pid is the
    server's), killed at the end, and only those."""

    def __init__(self, directory: Path, sentinels: list[int], first: int) -> None:
        self.directory = directory
        self.processes: list[subprocess.Popen[bytes]] = []
        self.env = {
            **os.environ,
            "ME": "127.0.0.1",
            "REDIS_PASSWORD": PASSWORD,
            "FIRST_PRIMARY": f"127.0.0.1:{first}",
            "SENTINELS": " ".join(f"127.0.0.1:{port}" for port in sentinels),
            # Not 1 s: on a busy machine a promoted primary answering late was taken
            # for dead and failed over back, before the test could look at it.
            "DOWN_AFTER_MS": "3000",
        }

    def start(self, script: str, port: int, name: str) -> subprocess.Popen[bytes]:
        data = self.directory / name
        data.mkdir(parents=True, exist_ok=True)
        process = subprocess.Popen(
            ["sh", str(SCRIPTS / script)],
            env={**self.env, "PORT": str(port), "DATA": str(data)},
            stdout=(data / "out.log").open("ab"),
            stderr=subprocess.STDOUT,
        )
        self.processes.append(process)
        return process

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                process.wait(10)


def replication(port: int) -> dict[str, Any]:
    try:
        with redis.Redis(port=port, password=PASSWORD, socket_timeout=2) as client:
            found: dict[str, Any] = client.info("replication")
            return found
    except redis.RedisError:
        return {}


def named_primary(port: int) -> int | None:
    try:
        with redis.Redis(port=port, socket_timeout=2) as client:
            found: Any = client.sentinel_get_master_addr_by_name("combat")
    except redis.RedisError:
        return None
    return int(found[1]) if found else None


@pytest.fixture
def started(tmp_path: Path) -> Iterator[tuple[Started, list[int], list[int]]]:
    require_redis_server()
    servers = [free_port(), free_port()]
    sentinels = [free_port() for _ in range(3)]
    running = Started(tmp_path, sentinels, servers[0])
    try:
        yield running, servers, sentinels
    finally:
        running.stop()


def test_a_failed_over_primary_comes_back_as_a_replica(
    started: tuple[Started, list[int], list[int]],
) -> None:
    running, (first, second), sentinels = started
    old = running.start("start-redis.sh", first, "redis-1")
    running.start("start-redis.sh", second, "redis-2")
    for n, port in enumerate(sentinels):
        running.start("start-sentinel.sh", port, f"sentinel-{n}")
    poll_until(
        lambda: replication(second).get("master_link_status") == "up",
        20,
        lambda: "the second Redis did not become the first one's replica",
    )
    assert replication(first).get("role") == "master"

    def watching() -> bool:
        for port in sentinels:
            with redis.Redis(port=port, socket_timeout=2) as client:
                try:
                    state: Any = client.sentinel_master("combat")
                except redis.RedisError:
                    return False
            if state.get("num-slaves") != 1 or state.get("num-other-sentinels") != 2:
                return False
        return True

    poll_until(watching, 20, lambda: "the sentinels did not find each other and the replica")

    old.send_signal(signal.SIGKILL)
    old.wait(10)
    poll_until(
        lambda: all(named_primary(port) == second for port in sentinels),
        30,
        lambda: "the sentinels did not promote the replica",
    )
    running.start("start-redis.sh", first, "redis-1")  # the old primary restarts
    poll_until(
        lambda: replication(first).get("master_link_status") == "up",
        20,
        lambda: f"the old primary did not rejoin as a replica: {replication(first)}",
    )
    assert replication(first).get("master_port") == second
    assert replication(second).get("role") == "master"
