"""The combat server (`python -m server`) with a census of its memory, taken when it
gets SIGUSR1: a full garbage collection, then its resident memory and the live
objects of each kind a connection makes, appended as one JSON line to `census.jsonl`
in its data dir (`take` asks for one and reads it).

Why not read VmRSS from outside whenever: between two readings the allocator keeps
or returns arenas as it likes, cyclic garbage waits for the collector's next full
pass, and the room's own bounded caches (the events kept for resuming, the tables)
fill up, so a few hundred connections that leave nothing behind can still show
megabytes. After `gc.collect()` every reading is taken the same way, and a
connection object the server kept shows as exactly one more.

Run as `python -m tests.reliability.census --data-dir DIR ...` (the server's options;
`ServerProcess(..., module=MODULE)`).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import signal
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

MODULE = "tests.reliability.census"
CENSUS_FILE = "census.jsonl"
COUNTED = (
    "Session",  # server.gateway.session: one per websocket connection
    "Connection",  # server.gateway.connection: its protocol state
    "Socket",  # its websockets connection (server.gateway.session.Socket)
    "ServerProtocol",  # websockets' protocol core
    "_SelectorSocketTransport",  # asyncio's transport: one per TCP connection
    "socket",  # the socket itself
    "Task",  # asyncio tasks: each connection runs some
)
"""The kinds of objects counted, by type name: what every connection makes, and so
what a server that kept its closed connections would keep."""


@dataclass(frozen=True)
class Census:
    rss_kib: int  # VmRSS after the collection
    counts: dict[str, int]  # live objects of each kind in `COUNTED`

    def __str__(self) -> str:
        return f"VmRSS {self.rss_kib / 1024:.1f} MiB, {self.counts['Session']} sessions"


def count(out: Path) -> None:
    """Collect the garbage, count, and append the census to `out` (in the server)."""
    gc.collect()
    kinds = Counter(type(o).__name__ for o in gc.get_objects())
    status = Path("/proc/self/status").read_text()
    rss = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    line = {
        "rss_kib": rss,
        "counts": {name: kinds[name] for name in COUNTED},
    }
    with out.open("a") as file:
        file.write(json.dumps(line) + "\n")


async def take(pid: int, data_dir: Path, seconds: float = 10.0) -> Census:
    """Ask the server `pid` (run as `MODULE` on `data_dir`) for a census; wait for it
    (bounded)."""
    out = data_dir / CENSUS_FILE
    taken = len(out.read_text().splitlines()) if out.exists() else 0
    os.kill(pid, signal.SIGUSR1)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        text = out.read_text() if out.exists() else ""
        lines = text.splitlines()
        if len(lines) > taken and text.endswith("\n"):  # one write a line: it is whole
            data = json.loads(lines[taken])
            return Census(data["rss_kib"], data["counts"])
        await asyncio.sleep(0.05)
    raise AssertionError(f"the server wrote no census in {seconds} s")


def main(argv: list[str]) -> int:
    out = Path(argv[argv.index("--data-dir") + 1]) / CENSUS_FILE

    def on_signal(signum: int, frame: FrameType | None) -> None:
        count(out)

    signal.signal(signal.SIGUSR1, on_signal)
    from server.app import main as serve  # after the handler: a census any time it serves

    return serve(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
