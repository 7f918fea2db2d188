"""A client that presses on a server from a process of its own, for the tests that
measure another room's latency under it (floods, heavy requests): its CPU is not the
test's, nor the server's."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from protocol.messages import Created
from tests.server.wire import Wire, lone_goblin
from tests.support.server import ROOT


@asynccontextmanager
async def pressing(module: str, *args: str) -> AsyncIterator[subprocess.Popen[str]]:
    """`python -m module args...` while the block runs; its stdout is the caller's to
    read (`communicate`). Killed if still running at the end."""
    process = subprocess.Popen(
        [sys.executable, "-m", module, *args], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)


async def another_room(url: str, host_token: str) -> Created:
    """A room of its own on the server, made by its host: the one whose latency the test
    measures while the pressing client works on another."""
    host = await Wire.join(url, host_token)
    await host.send({"type": "create", "cid": "other", "encounter": lone_goblin("Other")})
    created = await host.expect(lambda m: isinstance(m, Created))
    assert isinstance(created, Created)
    await host.close()
    return created
