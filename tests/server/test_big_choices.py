"""A big fight's choices are made between other work (server/gateway/feed.py, `_offer`).

The GM of a Live fight of 64 plays every combatant: when the planning window opens, the
feed makes 64 seats, several milliseconds each. It makes them a few at a time and sends
what it made before each pause, so a command sent meanwhile is answered before they are
all made; a newer batch drops the set half made, and once the fight stands still the
GM holds exactly the choices a fresh connection is sent whole.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import ClientConnection, connect

from bench.live import live_encounter
from bench.served import served
from clients.table import held_choices
from server.engine.records import evolve
from server.eventlog.sqlite import SqliteEventLog
from server.gateway.server import WS_PATH

pytestmark = pytest.mark.timeout(120)

WAIT = 30.0
"""Seconds any one wait may take: 64 seats on a busy machine, with room to spare."""


class Reader:
    """One msgpack connection's frames, and the choices they build."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.choices: list[dict[str, Any]] = []

    async def next(self, deadline: float) -> dict[str, Any]:
        left = deadline - asyncio.get_running_loop().time()
        frame = dict(msgpack.unpackb(await asyncio.wait_for(self.ws.recv(), max(0.0, left))))
        self.frames.append(frame)
        if frame["type"] == "choices":
            self.choices = held_choices(self.choices, frame)
        return frame

    async def until(self, done: Any, what: str) -> None:
        deadline = asyncio.get_running_loop().time() + WAIT
        while not done():
            try:
                await self.next(deadline)
            except TimeoutError:
                raise AssertionError(f"not within {WAIT} s: {what}") from None

    async def send(self, cid: str, command: dict[str, Any]) -> None:
        await self.ws.send(msgpack.packb({"type": "send", "cid": cid, "command": command}))

    def answered(self, cid: str) -> bool:
        return any(f.get("cid") == cid for f in self.frames if f["type"] in ("ack", "refused"))


async def hello(url: str, token: str) -> Reader:
    ws = await connect(url, subprotocols=["verse.msgpack.v2"], max_size=2**24)  # type: ignore[list-item]
    await ws.send(msgpack.packb({"type": "hello", "protocol": 2, "token": token}))
    return Reader(ws)


async def test_a_command_is_answered_while_a_big_fights_choices_are_made(tmp_path: Path) -> None:
    path, room = tmp_path / "big.sqlite3", "big"
    initial = live_encounter(seed=11, pairs=32)
    slow = evolve(initial.settings, planning_seconds=600.0, reaction_seconds=600.0)
    log = SqliteEventLog(path)
    await log.save_initial(room, evolve(initial, settings=slow))
    await log.close()
    async with served(path, room) as served_gm:
        host, port = served_gm.ws.remote_address[:2]
        url = f"ws://{host}:{port}{WS_PATH}"
        gm = await hello(url, served_gm.token)
        await gm.until(lambda: any(f["type"] == "choices" for f in gm.frames), "the console")
        await gm.send("start", {"type": "StartCombat"})
        await gm.until(lambda: gm.answered("start"), "StartCombat answered")
        await gm.send("pause", {"type": "Pause", "by": "gm"})
        await gm.until(lambda: gm.answered("pause"), "Pause answered")
        # answered before the planning window's 64 seats were all made and sent
        assert len(gm.choices) < 65
        await gm.send("resume", {"type": "Resume", "by": "gm"})
        await gm.until(lambda: gm.answered("resume"), "Resume answered")
        await gm.until(lambda: len(gm.choices) == 65, "the console and 64 seats")
        fresh = await hello(url, served_gm.token)
        await fresh.until(lambda: bool(fresh.choices), "a fresh connection's choices")
        (whole,) = [f for f in fresh.frames if f["type"] == "choices"]
        assert whole["whole"] and len(whole["seats"]) == 65
        await gm.until(lambda: gm.choices == fresh.choices, "the GM's choices settled")
        # the 64 seats came a few at a time (one at a time on a slow machine, where one
        # seat outlasts a slice), not in one frame
        made = [len(f["seats"]) for f in gm.frames if f["type"] == "choices" and f["seats"]]
        assert len(made) > 2 and max(made) < 64, made
        await fresh.ws.close()
        await gm.ws.close()
