"""What the load generator reads about processes (Linux `/proc`), and small figures.

CPU time and resident memory are read from `/proc/PID/stat` and `/proc/PID/status`
so that the bots can tell how busy the server was during exactly their measuring
window, and the idle test can tell how much memory each connection costs the server.
"""

from __future__ import annotations

import math
import os
import resource
from collections.abc import Sequence

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time `pid` has used so far (all its threads)."""
    return _stat_cpu(f"/proc/{pid}/stat")


def main_thread_cpu_seconds(pid: int) -> float:
    """The CPU time of `pid`'s main thread alone: the event loop, in the server (the
    rest is its worker threads, such as the SQLite event log's writer)."""
    return _stat_cpu(f"/proc/{pid}/task/{pid}/stat")


def _stat_cpu(path: str) -> float:
    with open(path, encoding="ascii") as file:
        text = file.read()
    fields = text[text.rindex(")") + 2 :].split()  # the name may hold spaces
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14, 15)


def machine_busy_seconds() -> float:
    """CPU time all processes of the machine have used so far (`/proc/stat`), so that
    a figure can say how much of the machine something else was using meanwhile."""
    with open("/proc/stat", encoding="ascii") as file:
        fields = file.readline().split()[1:]
    idle = int(fields[3]) + int(fields[4])  # idle, iowait
    return (sum(int(f) for f in fields[:8]) - idle) / TICKS  # up to steal; guests are in user


def rss_kib(pid: int) -> int:
    """Resident memory of `pid` in KiB (`VmRSS`)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as file:
        for line in file:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"process {pid} has no VmRSS")


def raise_fd_limit() -> int:
    """Open files allowed: the soft limit raised to the hard one (children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def percentile(ordered: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of already sorted values (0.0 when there are none)."""
    if not ordered:
        return 0.0
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]
