"""A flooding client, in a process of its own: `python -m tests.support.flooder URL
TOKEN SECONDS KIND`.

It joins with TOKEN and sends frames as fast as the socket takes them, never reading
what comes back; when the server closes it, it joins again, as an attacker would,
until SECONDS have passed. KIND is what it sends: `malformed` (binary frames that are
not msgpack), `pings` (websocket pings) or `app-pings` (`ping` messages); `idle` only
makes frames for SECONDS and sends none (the CPU a flood costs its sender). It prints
one JSON line: frames sent, connections opened, and the close codes it got.

In a process of its own so that the flood competes with the server for the CPU as a
remote client would, not with the test's event loop that measures the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections import Counter

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.typing import Subprotocol

from protocol.codec import MSGPACK_SUBPROTOCOL

MSGPACK = Subprotocol(MSGPACK_SUBPROTOCOL)

MAX_CONNECTIONS = 10_000  # a bound, whatever the time


async def flood(url: str, token: str, seconds: float, kind: str) -> dict[str, object]:
    if kind == "idle":
        return idle(seconds)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    sent = 0
    connections = 0
    codes: Counter[str] = Counter()
    hello = msgpack.packb({"type": "hello", "token": token})
    app_ping = msgpack.packb({"type": "ping", "nonce": 1})
    while loop.time() < deadline and connections < MAX_CONNECTIONS:
        connections += 1
        try:
            async with asyncio.timeout(max(0.1, deadline - loop.time())):
                ws = await connect(
                    url, subprotocols=[MSGPACK], ping_interval=None, max_queue=None
                )  # reads all the server sends, so it learns why it was closed
                try:
                    await ws.send(hello)
                    while True:
                        if kind == "pings":
                            await ws.ping()
                        elif kind == "app-pings":
                            await ws.send(app_ping)
                        else:
                            await ws.send(b"\xc1")  # never used in msgpack
                        sent += 1
                finally:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(ws.close(), 1)
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
            codes[str(code)] += 1
        except (TimeoutError, OSError, InvalidHandshake) as error:
            codes[type(error).__name__] += 1
    return {"sent": sent, "connections": connections, "codes": dict(codes)}


def idle(seconds: float) -> dict[str, object]:
    """Make frames for `seconds` and send none: the CPU a flood costs its sender, for
    a baseline measured beside it."""
    deadline = time.monotonic() + seconds
    made = 0
    while time.monotonic() < deadline:
        for _ in range(1_000):
            msgpack.packb({"type": "ping", "nonce": made})
            made += 1
    return {"sent": 0, "made": made, "connections": 0, "codes": {}}


def main() -> None:
    url, token, seconds, kind = sys.argv[1:5]
    print(json.dumps(asyncio.run(flood(url, token, float(seconds), kind))), flush=True)


if __name__ == "__main__":
    main()
