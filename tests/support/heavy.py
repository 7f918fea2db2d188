"""A client of heavy requests, in a process of its own: `python -m tests.support.heavy
URL TOKEN SECONDS KIND`.

Every second it pipelines `BATCH` requests (within the command rate: 20 a second,
bursts of 40), then reads their answers, until SECONDS have passed and every answer is
in. KIND is what it sends: `sheets` (a GM's `read_sheet` of a sheet of about 60 KB),
`creates` (a host's `create` of an encounter whose combatants share such a sheet) or
`idle`, which only makes the frames and sends none (the CPU the load costs its sender,
for a baseline measured beside it). It prints one JSON line: requests sent, answers by
type, refusals by code, and the seconds it took.

In a process of its own so that the answers it reads (60 KB each) cost the process
that measures another room's latency nothing.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from protocol.codec import MAX_SERVER_FRAME, MSGPACK_SUBPROTOCOL

BATCH = 20
SHEET_BYTES = 60_000
CREATE_COMBATANTS = 2
"""Combatants of a `create`, each naming the one big sheet (each is built from it)."""
ANSWERS = 120.0  # seconds the last answers may take: a bound, never reached when served
GOBLIN = Path(__file__).resolve().parents[2] / "server" / "samples" / "goblin.toml"


def sheet_text() -> str:
    """The sample goblin with as many weapons more as fit in `SHEET_BYTES`: a valid
    sheet, every weapon of which is read and checked."""
    text = GOBLIN.read_text()
    head = text.split("[[weapons]]", 1)[0]
    head, tables = head.split("[abilities]", 1)
    weapons = [
        '{name = "scimitar", damage = "1d6", category = "one_handed"}',
        '{name = "dagger", damage = "1d4", category = "one_handed"}',
    ]
    room = SHEET_BYTES - len(head) - len(tables) - 40
    while True:
        weapon = f'{{name = "blade {len(weapons)}", damage = "1d6", category = "one_handed"}}'
        if sum(len(w) + 2 for w in weapons) + len(weapon) > room:
            break
        weapons.append(weapon)
    return f"{head}weapons = [{', '.join(weapons)}]\n[abilities]{tables}"


def encounter_files(sheet: str) -> dict[str, str]:
    """An encounter of `CREATE_COMBATANTS` combatants sharing the sheet `sheet`."""
    lines = ['name = "Heavy"']
    for n in range(CREATE_COMBATANTS):
        lines += ["[[combatants]]", f'id = "c{n}"', 'side = "s"', 'sheet = "big.toml"']
        lines.append(f"at = [{n}, 0]")
    return {"heavy.toml": "\n".join(lines) + "\n", "big.toml": sheet}


def requests(kind: str, batch: int) -> list[bytes]:
    sheet = sheet_text()
    frames = []
    for n in range(BATCH):
        cid = f"{kind}-{batch}-{n}"
        if kind == "creates":
            message: dict[str, Any] = {
                "type": "create",
                "cid": cid,
                "files": encounter_files(sheet),
                "file": "heavy.toml",
            }
        else:
            message = {"type": "read_sheet", "cid": cid, "file": "big.toml", "text": sheet}
        frames.append(msgpack.packb(message))
    return frames


async def load(url: str, token: str, seconds: float, kind: str) -> dict[str, Any]:
    started = time.monotonic()
    if kind == "idle":
        made = 0
        while time.monotonic() - started < seconds:
            made += len(requests("sheets", made))
            await asyncio.sleep(0.2)
        return {"sent": 0, "made": made, "answers": {}, "refused": {}, "seconds": seconds}
    sent = 0
    answers: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    async with connect(
        url,
        subprotocols=[Subprotocol(MSGPACK_SUBPROTOCOL)],
        max_size=MAX_SERVER_FRAME,
        ping_interval=None,
    ) as ws:
        await ws.send(msgpack.packb({"type": "hello", "token": token}))
        await answer(ws, {"welcome"})
        batch = 0
        while time.monotonic() - started < seconds:
            tick = started + batch  # a batch a second, within the command rate
            await asyncio.sleep(max(0.0, tick - time.monotonic()))
            frames = requests(kind, batch)
            sending = asyncio.create_task(send_all(ws, frames))
            for _ in frames:
                message = await asyncio.wait_for(answer(ws, set()), ANSWERS)
                answers[message["type"]] += 1
                if message["type"] == "refused":
                    refused[message["code"]] += 1
            await sending
            sent += len(frames)
            batch += 1
    return {
        "sent": sent,
        "answers": dict(answers),
        "refused": dict(refused),
        "seconds": time.monotonic() - started,
    }


async def send_all(ws: ClientConnection, frames: list[bytes]) -> None:
    for frame in frames:
        await ws.send(frame)


async def answer(ws: ClientConnection, types: set[str]) -> dict[str, Any]:
    """The next message answering a request (a `cid`), or of one of `types`."""
    while True:
        message: dict[str, Any] = msgpack.unpackb(await ws.recv())
        if "cid" in message or message["type"] in types:
            return message


def main() -> None:
    url, token, seconds, kind = sys.argv[1:5]
    print(json.dumps(asyncio.run(load(url, token, float(seconds), kind))), flush=True)


if __name__ == "__main__":
    main()
