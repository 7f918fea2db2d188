"""The load generator against the embedded server and against the server on Redis.

    .venv/bin/python -m bench.cluster [--encounters 20] [--seconds 10] [--period 1]
                                      [--mode steady|saturate] [--fsync everysec]
                                      [--durability local,replicated,fsync]
                                      [--processes 1,2] [--runs 1]

Setups in one run, each with fresh servers (`python -m server`, child processes):

* **embedded**: one process, its SQLite log and in-process bus (the default server);
* **redis, one per `--durability`** (`redis-local`, ...): one process on a private
  Redis primary (`redis-server` started here on a free loopback port, append-only file
  on with `--fsync`) that has one replica, every connection of every table on it,
  appends acknowledged as `--redis-durability` says (`local`: once the primary has
  them; `replicated`: once the replica has them too; `fsync`: once the primary's file
  is synced, which needs Redis 7.2: an older one is reported as refusing it). Next to
  the embedded server this is what Redis mode costs a process: the same tables, the
  log and the fan-out going through Redis;
* **split, with `--processes 2`** (`redis-local-split`, ...): two processes on the
  same kind of Redis, the rooms created on the first. Each table is split across them:
  the GM and the spectators on the first (which runs the room), the players on the
  second, so every command is forwarded through Redis to the room's runner and every
  event reaches the players through Redis pub/sub. On one small machine, where the
  bots, Redis and both processes share the cores, this is not a scaling figure.

`--runs N` plays every setup N times, alternating them (embedded, redis, ..., then
again), so a busy neighbour weighs on all of them alike; each run prints its table,
with each setup's events a second as a share of the embedded server's in the same run
(`x embedded`), and the last lines give the medians over the runs (the share's median
is that of the runs' shares).

The bots are `bench.load_bots`'s (the load generator of the server issue), playing the
table of `bench.load_encounter` (1 GM, 4 players, 5 spectators per encounter): in
`steady` every player declares every `--period` seconds; in `saturate` each declares
again as soon as it is answered. Printed per setup: events delivered a second (to
every client), the time from sending a command to the arrival, at its sender, of the
first event it caused (p50, p99), the time to its ack (p50, p99), the servers' CPU and
the Redis primary's (100% is one core). Every figure is over `--seconds` after
`--warmup` seconds. Compare the setups' events a second in `--mode saturate`: in
`steady` they only say the bots' rate.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import redis

from bench.load import Child
from bench.load_bots import (
    SPECTATORS,
    Bot,
    Table,
    Tally,
    bounded,
    create_encounters,
    handshake,
    timings,
)
from bench.load_encounter import SEATS, declare, weapons
from bench.load_proc import cpu_seconds, raise_fd_limit
from protocol.messages import Created

DURABILITIES = ("local", "replicated", "fsync")


@dataclass(frozen=True)
class Options:
    encounters: int = 20
    seconds: float = 10.0
    warmup: float = 2.0
    period: float = 1.0
    mode: str = "steady"
    fsync: str = "everysec"
    deflate: bool = True
    durabilities: tuple[str, ...] = DURABILITIES
    processes: tuple[int, ...] = (1,)
    runs: int = 1

    @property
    def setups(self) -> list[str]:
        names = ["embedded"]
        for count, suffix in ((1, ""), (2, SPLIT)):
            if count in self.processes:
                names += [f"redis-{durability}{suffix}" for durability in self.durabilities]
        return names


SPLIT = "-split"
"""The end of a setup's name whose tables are split across two processes."""


def processes_of(setup: str) -> int:
    return 2 if setup.endswith(SPLIT) else 1


class PrivateRedis:
    """A `redis-server` of this run's own, on a free loopback port (never a shared one);
    a replica of `primary` when given."""

    def __init__(self, directory: Path, fsync: str, primary: PrivateRedis | None = None) -> None:
        found = shutil.which("redis-server")
        if found is None:
            raise RuntimeError("redis-server is not installed: the redis setup needs it")
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        following = [] if primary is None else ["--replicaof", "127.0.0.1", str(primary.port)]
        directory.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                found,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(directory),
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                fsync,
                "--logfile",
                str(directory / "redis.log"),
                *following,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)

    def wait_in_step(self, timeout: float = 20.0) -> None:
        """Wait until this replica's link to its primary is up."""
        deadline = time.monotonic() + timeout
        with redis.Redis(port=self.port, socket_timeout=5, socket_connect_timeout=5) as client:
            while client.info("replication").get("master_link_status") != "up":
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the replica on port {self.port} did not catch up")
                time.sleep(0.05)

    def version(self) -> str:
        with redis.Redis(port=self.port, socket_timeout=5, socket_connect_timeout=5) as client:
            return str(client.info("server")["redis_version"])

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as link:
                link.sendall(b"PING\r\n")
                return link.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_servers(setup: str, work: Path, primary: PrivateRedis | None) -> list[Child]:
    """One embedded server, or one or two (a split setup) on `primary` (the first one
    starts alone), with the durability the setup's name says."""
    count = processes_of(setup)
    servers: list[Child] = []
    try:
        for index in range(count):
            argv = [sys.executable, "-m", "server", "--port", "0", "--no-demo", "--no-web"]
            argv += ["--data-dir", str(work / f"{setup}-{index}")]
            if primary is not None:
                durability = setup.removeprefix("redis-").removesuffix(SPLIT)
                argv += ["--redis", primary.url, "--redis-durability", durability]
            servers.append(Child(argv, work / f"{setup}-{index}.log", None))
    except RuntimeError:
        for server in servers:
            server.stop()
        raise
    return servers


async def join_table(
    runner_url: str, players_url: str, created: Created, tally: Tally, deflate: bool
) -> Table:
    """The GM and spectators on the room's runner, the players on `players_url`."""

    async def bot(url: str, token: str, kind: str) -> Bot:
        wire, _, seq = await handshake(url, token, deflate)
        return Bot(wire, kind, tally, seq)

    gm = await bot(runner_url, created.gm, "gm")
    players = {seat: await bot(players_url, created.players[seat], "player") for seat in SEATS}
    spectators = [await bot(runner_url, created.spectator, "spectator") for _ in range(SPECTATORS)]
    return Table(gm, players, spectators)


async def _player(
    bot: Bot, actor: str, weapon: str, options: Options, offset: float, stop: asyncio.Event
) -> None:
    """Declare every `period` seconds (steady), or again as soon as answered (saturate)."""
    loop = asyncio.get_running_loop()
    command = declare(actor, weapon)
    due = loop.time() + offset
    while not stop.is_set():
        if options.mode == "steady":
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), max(0.0, due - loop.time()))
            if stop.is_set():
                return
            due += options.period
        reply = await bot.command(command)
        if reply["type"] == "refused" and options.mode == "saturate":
            await asyncio.sleep(0.05)  # over the connection's rate: back off a little


async def play(
    urls: Sequence[str],
    pids: Sequence[int],
    host_token: str,
    options: Options,
    redis_pid: int | None = None,
) -> dict[str, Any]:
    runner_url, players_url = urls[0], urls[-1]
    made = await create_encounters(runner_url, host_token, options.encounters, options.deflate)
    tally = Tally()
    tables: list[Table] = await bounded(
        [partial(join_table, runner_url, players_url, c, tally, options.deflate) for c in made], 6
    )
    started = await asyncio.gather(*(t.gm.command({"type": "StartCombat"}) for t in tables))
    if any(s["type"] != "ack" for s in started):
        raise RuntimeError(f"a fight did not start: {started}")
    await asyncio.sleep(0.5)
    stop = asyncio.Event()
    arms = weapons()
    pick = random.Random(1)
    tasks = [
        asyncio.create_task(
            _player(bot, seat, arms[seat], options, pick.uniform(0, options.period), stop)
        )
        for table in tables
        for seat, bot in table.players.items()
    ]
    await asyncio.sleep(options.warmup)
    tally.measuring = True
    watched = [*pids, *([] if redis_pid is None else [redis_pid])]
    before, cpu_before, began = (
        tally.counters(),
        [cpu_seconds(p) for p in watched],
        time.perf_counter(),
    )
    await asyncio.sleep(options.seconds)
    seconds = time.perf_counter() - began
    after, cpu_after = tally.counters(), [cpu_seconds(p) for p in watched]
    tally.measuring = False
    stop.set()
    await asyncio.gather(*tasks)
    players = [bot for table in tables for bot in table.players.values()]
    deadline = time.perf_counter() + 10
    while any(bot.awaiting for bot in players) and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)
    figures = timings(tally)
    figures["events_per_second"] = (after[1] - before[1]) / seconds
    figures["commands_per_second"] = (after[5] - before[5]) / seconds
    cpu = [(a - b) / seconds for a, b in zip(cpu_after, cpu_before, strict=True)]
    figures["server_cpu"] = cpu[: len(pids)]
    figures["redis_cpu"] = cpu[len(pids)] if redis_pid is not None else None
    busy = sum(figures["server_cpu"])
    figures["events_per_cpu_second"] = figures["events_per_second"] / busy if busy else 0.0
    figures["connections"] = len(tables) * (1 + len(SEATS) + SPECTATORS)
    for bot in (b for t in tables for b in (t.gm, *t.players.values(), *t.spectators)):
        bot.wire.close()
    return figures


def run_setup(setup: str, work: Path, options: Options) -> dict[str, Any]:
    """The setup's figures; `{"not_run": why}` when its servers refuse to start (a
    durability this Redis cannot give)."""
    primary = replica = None
    if setup.startswith("redis"):
        primary = PrivateRedis(work / "primary", options.fsync)
        replica = PrivateRedis(work / "replica", options.fsync, primary)
    try:
        if replica is not None:
            replica.wait_in_step()
        try:
            servers = start_servers(setup, work, primary)
        except RuntimeError as error:
            said = [line for line in str(error).splitlines() if "combat-server:" in line]
            why = said[-1].removeprefix("combat-server: ") if said else str(error)
            return {"not_run": why}
        try:
            host_token = (work / f"{setup}-0" / "host-token").read_text().strip()
            urls = [server.url for server in servers]
            pids = [server.pid for server in servers]
            redis_pid = None if primary is None else primary.process.pid
            return asyncio.run(play(urls, pids, host_token, options, redis_pid))
        finally:
            for server in servers:
                server.stop()
    finally:
        for redis_server in (replica, primary):
            if redis_server is not None:
                redis_server.stop()


def heading(options: Options) -> list[str]:
    return [
        f"bench.cluster: {options.encounters} encounters x 10 clients, {options.mode}"
        + (
            f" (a declaration per player every {options.period:g} s)"
            if options.mode == "steady"
            else ""
        )
        + f", {options.seconds:g} s measured; Redis appendfsync {options.fsync}, "
        "one replica",
        f"{'setup':<34}{'events/s':>10}{'x embedded':>11}{'per CPU s':>10}{'x embedded':>11}"
        f"{'cmd/s':>7}{'event p50':>11}{'p99':>9}{'ack p50':>10}{'p99':>9}{'gaps':>5}"
        "  server CPU (Redis)",
    ]


def _name(setup: str) -> str:
    count = processes_of(setup)
    return f"{setup} ({count} process{'es' if count > 1 else ''})"


def report(results: dict[str, dict[str, Any]]) -> list[str]:
    """One run's table: a line per setup."""
    lines = []
    embedded = results.get("embedded", {})
    for setup, figures in results.items():
        name = _name(setup)
        if "not_run" in figures:
            lines.append(f"{name:<34}not run: {figures['not_run']}")
            continue
        cpu = " + ".join(f"{share:.0%}" for share in figures["server_cpu"])
        if figures.get("redis_cpu") is not None:
            cpu += f" ({figures['redis_cpu']:.0%})"
        shares = [_share(figures, embedded, key) for key in (RATE, PER_CPU)]
        refused = figures["refused"]
        lines.append(
            f"{name:<34}{figures[RATE]:>10.0f}{shares[0]:>11}"
            f"{figures[PER_CPU]:>10.0f}{shares[1]:>11}"
            f"{figures['commands_per_second']:>7.0f}"
            f"{figures['event_p50_ms']:>9.1f}ms{figures['event_p99_ms']:>7.1f}ms"
            f"{figures['ack_p50_ms']:>8.1f}ms{figures['ack_p99_ms']:>7.1f}ms"
            f"{figures['gaps']:>5}  {cpu}" + (f"  refused: {refused}" if refused else "")
        )
    return lines


RATE = "events_per_second"
PER_CPU = "events_per_cpu_second"


def _share(figures: dict[str, Any], embedded: dict[str, Any], key: str) -> str:
    return f"{figures[key] / embedded[key]:.2f}" if embedded.get(key) else "-"


def summary(runs: Sequence[dict[str, dict[str, Any]]]) -> list[str]:
    """The medians over the runs: each setup's events a second and its share of the
    embedded server's, the share taken run by run (both measured side by side); the
    same per second of the server's CPU (what a busy neighbour disturbs least)."""
    lines = [f"medians of {len(runs)} runs:"]
    for setup in runs[0]:
        played = [run for run in runs if RATE in run[setup]]
        if not played:
            continue
        line = f"{_name(setup):<34}"
        for key, what in ((RATE, "events/s"), (PER_CPU, "per CPU s")):
            value = statistics.median(run[setup].get(key, 0.0) for run in played)
            shares = [
                run[setup][key] / run["embedded"][key]
                for run in played
                if run.get("embedded", {}).get(key)
            ]
            each = " / ".join(f"{share:.2f}" for share in shares)
            share = f"{statistics.median(shares):.2f} ({each})" if shares else "-"
            line += f"  {what} {value:.0f}, x embedded {share}"
        lines.append(line)
    return lines


def parse(argv: Sequence[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--encounters", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--period", type=float, default=1.0)
    parser.add_argument("--mode", choices=("steady", "saturate"), default="steady")
    parser.add_argument("--fsync", choices=("always", "everysec", "no"), default="everysec")
    parser.add_argument("--no-deflate", dest="deflate", action="store_false")
    parser.add_argument(
        "--durability",
        default=",".join(DURABILITIES),
        help="the Redis setups to run, by --redis-durability (default: all three)",
    )
    parser.add_argument(
        "--processes",
        default="1",
        help="1: one process on Redis; 2: split across two; 1,2: both (default 1)",
    )
    parser.add_argument(
        "--runs", type=int, default=1, help="play every setup this often, alternating them"
    )
    args = parser.parse_args(argv)
    durabilities = tuple(d for d in args.durability.split(",") if d)
    unknown = set(durabilities) - set(DURABILITIES)
    if unknown:
        parser.error(f"unknown durability: {', '.join(sorted(unknown))}")
    processes = tuple(sorted({p.strip() for p in args.processes.split(",") if p.strip()}))
    if not processes or set(processes) - {"1", "2"}:
        parser.error("--processes takes 1, 2 or 1,2")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return Options(
        args.encounters,
        args.seconds,
        args.warmup,
        args.period,
        args.mode,
        args.fsync,
        args.deflate,
        durabilities,
        tuple(int(p) for p in processes),
        args.runs,
    )


def main(argv: Sequence[str] | None = None) -> list[dict[str, dict[str, Any]]]:
    """Every run's figures, setup by setup, printed as they come."""
    options = parse(argv)
    raise_fd_limit()
    runs: list[dict[str, dict[str, Any]]] = []
    for line in heading(options):
        print(line, flush=True)
    for number in range(options.runs):
        results: dict[str, dict[str, Any]] = {}
        with tempfile.TemporaryDirectory(prefix="bench-cluster-") as work:
            for setup in options.setups:
                place = Path(work) / setup
                place.mkdir()
                results[setup] = run_setup(setup, place, options)
        runs.append(results)
        if options.runs > 1:
            print(f"run {number + 1}:", flush=True)
        for line in report(results):
            print(line, flush=True)
    if options.runs > 1:
        for line in summary(runs):
            print(line, flush=True)
    return runs


if __name__ == "__main__":
    main()
