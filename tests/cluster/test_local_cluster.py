"""`deploy/local-cluster.sh` starts Redis and three servers on loopback that share the
demo fight, and stops every one of them on SIGTERM."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from tests.cluster.support import TOKEN, hold
from tests.server.wire import Wire
from tests.support.redis import require_redis_server
from tests.support.server import ROOT

SCRIPT = ROOT / "deploy" / "local-cluster.sh"
SERVER = re.compile(r"^server (\d): (ws://\S+) \(pid (\d+)")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_the_local_cluster_serves_one_fight_from_every_server(tmp_path: Path) -> None:
    require_redis_server()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(PYTHON=sys.executable, LEASE_TTL="2")
    script = subprocess.Popen(
        ["bash", str(SCRIPT), str(tmp_path / "cluster")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert script.stdout is not None
    lines: list[str] = []
    try:
        while not lines or not lines[-1].startswith("cluster ready"):
            line = await asyncio.wait_for(asyncio.to_thread(script.stdout.readline), 60)
            assert line, "".join(lines)
            lines.append(line.rstrip("\n"))
        servers = {
            int(m.group(1)): (m.group(2), int(m.group(3))) for m in map(SERVER.match, lines) if m
        }
        tokens = {m.group(1).strip(): m.group(2) for m in map(TOKEN.match, lines) if m}
        assert sorted(servers) == [1, 2, 3] and "GM" in tokens, lines

        gm = await Wire.join(servers[1][0], tokens["GM"])
        bram = await Wire.join(servers[2][0], tokens["bram"])
        watcher = await Wire.join(servers[3][0], tokens["spectator"])
        await gm.acked({"type": "StartCombat"})
        declared = await bram.acked(hold("bram"))
        for wire in (gm, bram, watcher):
            await wire.until_seq(declared.last_seq)
            assert wire.seqs == list(range(1, declared.last_seq + 1))
    finally:
        script.send_signal(signal.SIGTERM)
        code = await asyncio.to_thread(script.wait, 30)
    assert code == 0 or code == 128 + signal.SIGTERM
    for _, pid in servers.values():
        assert not alive(pid)
