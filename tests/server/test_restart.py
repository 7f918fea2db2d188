"""A server killed with SIGKILL and started again on its data dir carries the fight on
with every acknowledged command (server/hosting.py; the room acknowledges only what
its log holds).

The server runs as a child process: no goodbye, no flush, nothing but what is on disk
survives. The join tokens survive too (the signing key lives in the data dir), so the
same people reconnect with `resume_from_seq` to the new address.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from protocol.messages import Ack, Snapshot
from tests.server.wire import Wire, gm_view, http_get
from tests.support.server import JOIN_LINE as TOKEN
from tests.support.server import JOIN_LINES, ServerProcess


@asynccontextmanager
async def running(data_dir: Path) -> AsyncIterator[ServerProcess]:
    server = ServerProcess(data_dir)
    try:
        await asyncio.wait_for(asyncio.to_thread(server.start), 30)
        yield server
    finally:
        server.kill()


async def printed_tokens(server: ServerProcess) -> dict[str, str]:
    """The demo's tokens, from the join commands a first start prints."""
    lines = await asyncio.wait_for(asyncio.to_thread(server.read_output, JOIN_LINES), 10)
    found = {m.group(1).strip(): m.group(2) for line in lines if (m := TOKEN.match(line))}
    assert set(found) == {"GM", "ayla", "bram", "corvin", "spectator"}, lines
    return found


def hold(actor: str) -> dict[str, Any]:
    return {"$type": "HoldAction", "actor": actor}


async def test_a_killed_server_restarts_with_every_acknowledged_command(tmp_path: Path) -> None:
    async with running(tmp_path) as first:
        tokens = await printed_tokens(first)
        gm = await Wire.join(first.url, tokens["GM"])
        ayla = await Wire.join(first.url, tokens["ayla"])
        bram = await Wire.join(first.url, tokens["bram"])
        acks: list[Ack] = [
            await gm.acked({"type": "StartCombat"}, cid="start"),
            await ayla.acked({"type": "Declare", "actor": "ayla", "actions": [hold("ayla")]}),
            await gm.acked({"type": "SetHealth", "combatant": "g1", "health": 5}),
            await bram.acked({"type": "Pause", "by": "bram"}, cid="bram-pause"),
        ]
        last = acks[-1].last_seq
        assert [a.first_seq for a in acks] == [1, 4, 5, 6]
        await gm.until_seq(last)
        seen_by_gm = gm.sequenced
        ayla_held = 3  # she reconnects with only the start of the fight
        before_kill = await gm_view(first.url, tokens["GM"])
        first.kill()
        assert await gm.closed() != 1000  # the connection just broke

    async with running(tmp_path) as second:
        # the room is rebuilt from the log: the same seq and the same state
        assert await gm_view(second.url, tokens["GM"]) == before_kill
        back = await Wire.join(second.url, tokens["ayla"], resume_from_seq=ayla_held)
        assert back.welcome is not None and back.welcome.seq == last
        await back.until_seq(last)
        assert back.seqs == list(range(ayla_held + 1, last + 1))
        assert not back.snapshots

        gm_again = await Wire.join(second.url, tokens["GM"], resume_from_seq=0)
        await gm_again.until_seq(last)
        assert gm_again.sequenced == seen_by_gm  # every event, exactly as first sent

        view = before_kill[1]
        assert view["paused_by"] == "bram"
        assert view["combatants"]["g1"]["health"] == 5
        assert [d["combatant"] for d in view["declarations"]] == ["ayla"]

        # the fight goes on: bram resumes, the GM closes the planning window
        bram_again = await Wire.join(second.url, tokens["bram"], resume_from_seq=last)
        resumed = await bram_again.acked({"type": "Resume", "by": "bram"})
        assert resumed.first_seq == last + 1
        window = view["window"]["id"]
        closed = await gm_again.acked({"type": "CloseWindow", "window": window})
        assert closed.first_seq == resumed.last_seq + 1
        await back.until_seq(closed.last_seq)
        assert back.seqs == list(range(ayla_held + 1, closed.last_seq + 1))


async def test_a_retry_after_the_crash_is_not_applied_twice(tmp_path: Path) -> None:
    """The client never saw its ack (the server died first) and retries with the same
    `cid` after the restart: it gets the original ack, and the room does not move."""
    async with running(tmp_path) as first:
        tokens = await printed_tokens(first)
        gm = await Wire.join(first.url, tokens["GM"])
        await gm.acked({"type": "StartCombat"})
        pause = {"type": "Pause", "by": "gm"}
        original = await gm.acked(pause, cid="gm-pause")
        first.kill()

    async with running(tmp_path) as second:
        gm = await Wire.join(second.url, tokens["GM"], resume_from_seq=original.last_seq)
        retried = await gm.acked(pause, cid="gm-pause")
        assert retried == original
        snapshot = await Wire.join(second.url, tokens["GM"])
        seen = await snapshot.expect(lambda m: isinstance(m, Snapshot))
        assert isinstance(seen, Snapshot) and seen.seq == original.last_seq


async def test_a_restart_prints_no_new_demo_and_keeps_the_rooms(tmp_path: Path) -> None:
    """The demo is made on a first start only; the second start serves the same room,
    and no other (rooms start when someone joins them, a new demo would at once)."""
    async with running(tmp_path) as first:
        tokens = await printed_tokens(first)
        first.kill()
    async with running(tmp_path) as second:
        status, _, body = await http_get(second.url, "/healthz")
        assert (status, json.loads(body)["rooms"]) == (200, 0)
        wire = await Wire.join(second.url, tokens["spectator"])
        assert wire.welcome is not None and wire.welcome.seq == 0
        status, _, body = await http_get(second.url, "/healthz")
        assert (status, json.loads(body)["rooms"]) == (200, 1)
