"""Load benchmark for the websocket server, next to a bare websockets broadcast.

    .venv/bin/python -m bench.load [--mode steady|saturate|idle|all] [--encounters 100]
                                   [--seconds 20] [--period 2] [--connections 10000]

Every phase starts a fresh server (`python -m server --port 0` on a temporary data
dir, SQLite log and all, as a real one runs) and a separate bots process
(`bench.load_bots`); on a machine with two cores or more the server is pinned to one
core and the bots to another, so neither steals the other's time.

* **steady**: N encounters of 1 GM, 4 players and 5 spectators (Live Combat, the GM
  starts the fight, every player declares once and the table settles: printed as the
  set-up's seconds); every player declares an attack every `--period` seconds
  (`bench.load_encounter` says why a declaration). Printed: command-to-event latency
  at the sender (p50, p99, max), command-to-ack latency, events delivered a second.
  Target: p99 under 10 ms with 100 encounters and a 2 s period.
* **saturate**: the same table, each player declaring again as soon as it is
  answered; then the floor server (`bench.load_floor`: the same bots and commands
  against the least server doing the same wire work, handshake, decode, ack and
  broadcast of the same frames, and nothing else); then a bare `websockets` server
  (`bench.load_bare`) broadcasts the same frames, byte for byte, to as many clients
  laid out the same way, as fast as it can. Printed: events delivered a second by
  each and their ratios. Target: the combat server delivers at least half as many
  events a second as the bare broadcast; the floor says how far any server doing
  this wire work gets on the same cores (`combat / floor`, `floor / bare`).
* **idle**: `--connections` handshaked spectator connections to one server process,
  spread over the N encounters; printed: the server's resident memory growth per
  connection. Target: at most 15 KiB each at 10,000. Then the same number of
  connections to a bare websockets server (`bench.load_bare` echoing, each connection
  having sent a hello as long as a spectator's and read it back), weighed the same
  way: what any websockets server pays per connection on this machine.

The bots are thin clients of protocol version 2 (`bench.load_bots`): each batch of
events reaches them as one `update` frame, the table's patch and one log line per
event, and events delivered are counted as those lines.

Each figure is measured by the bots over `--seconds` after `--warmup` seconds. CPU
use is what each process used in that window (100% is one core): the server's whole
and its event loop's (main thread) share, the bots', and what other processes of the
machine used meanwhile, since a busy neighbour makes any figure worse. Clients offer
permessage-deflate, as browsers do; `--no-deflate` measures without it. `--profile
DIR` runs the server under cProfile and leaves `DIR/server-PHASE.prof` (the event
loop's thread only; cProfile slows it several times over).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.load_proc import raise_fd_limit

ROOT = Path(__file__).resolve().parents[1]
SERVING = re.compile(r"serving on (ws://\S+)")
MODES = ("steady", "saturate", "idle")
P99_TARGET_MS = 10.0
RATIO_TARGET = 0.5
KIB_TARGET = 15.0


@dataclass(frozen=True)
class Options:
    """A run's settings: the command line's options (`parse`)."""

    mode: str = "all"
    encounters: int = 100
    seconds: float = 20.0
    warmup: float = 2.0
    period: float = 2.0
    connections: int = 10_000
    pin: bool = True
    deflate: bool = True
    profile: Path | None = None


@dataclass
class Results:
    """What `run` measured, phase by phase (each the bots' JSON figures)."""

    options: Options
    steady: dict[str, Any] | None = None
    saturate: dict[str, Any] | None = None
    floor: dict[str, Any] | None = None
    bare: dict[str, Any] | None = None
    idle: dict[str, Any] | None = None
    idle_bare: dict[str, Any] | None = None
    cores: dict[str, str] = field(default_factory=dict)


class Child:
    """A child process that prints `serving on ws://...` once it listens."""

    def __init__(self, argv: list[str], log: Path, cpus: set[int] | None) -> None:
        self.log = log
        with log.open("w") as errors:
            self.process = subprocess.Popen(
                argv,
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
        if cpus is not None:
            os.sched_setaffinity(self.process.pid, cpus)
        self.url = self._wait_serving()

    @property
    def pid(self) -> int:
        return self.process.pid

    def _wait_serving(self) -> str:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            found = SERVING.search(line)
            if found:
                return found.group(1)
        self.stop()
        raise RuntimeError(f"{self.log.name}: did not start:\n{self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        """SIGTERM (the server stops gracefully, cProfile writes its file), then wait."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        if self.process.stdout is not None:
            self.process.stdout.close()


def cores(pin: bool) -> tuple[set[int] | None, set[int] | None]:
    """The server's core and the bots' core, or no pinning (fewer than two cores)."""
    available = sorted(os.sched_getaffinity(0))
    if not pin or len(available) < 2:
        return None, None
    return {available[0]}, {available[1]}


def start_server(options: Options, work: Path, phase: str, cpus: set[int] | None) -> Child:
    data = work / f"data-{phase}"
    runner = [sys.executable]
    if options.profile is not None:
        options.profile.mkdir(parents=True, exist_ok=True)
        runner += ["-m", "cProfile", "-o", str(options.profile / f"server-{phase}.prof")]
    argv = [*runner, "-m", "server", "--port", "0", "--data-dir", str(data)]
    argv += ["--no-demo", "--no-web"]
    return Child(argv, work / f"server-{phase}.log", cpus)


def run_bots(
    phase: str,
    url: str,
    server_pid: int,
    args: list[str],
    cpus: set[int] | None,
    work: Path,
    timeout: float,
) -> dict[str, Any]:
    """Run one phase of `bench.load_bots` and return the figures it printed; a phase
    that outlives `timeout` seconds is killed (a stuck server must not hang a run)."""
    argv = [sys.executable, "-m", "bench.load_bots", phase, "--url", url]
    argv += ["--server-pid", str(server_pid), *args]
    errors = work / f"bots-{phase}.log"
    with errors.open("w") as stderr:
        process = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        if cpus is not None:
            os.sched_setaffinity(process.pid, cpus)
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise RuntimeError(
                f"bots ({phase}) still running after {timeout:g} s:\n{errors.read_text()[-3000:]}"
            ) from None
    lines = output.strip().splitlines()
    if process.returncode != 0 or not lines:
        raise RuntimeError(f"bots ({phase}) failed:\n{errors.read_text()[-3000:]}")
    figures: dict[str, Any] = json.loads(lines[-1])
    return figures


def _common(options: Options) -> list[str]:
    args = ["--encounters", str(options.encounters), "--seconds", str(options.seconds)]
    args += ["--warmup", str(options.warmup), "--period", str(options.period)]
    return args if options.deflate else [*args, "--no-deflate"]


def run(options: Options) -> Results:
    """Run the phases `options.mode` asks for; each on a fresh server."""
    raise_fd_limit()
    results = Results(options)
    server_cpus, bots_cpus = cores(options.pin)
    results.cores = {"server": _cpus(server_cpus), "bots": _cpus(bots_cpus)}
    modes = MODES if options.mode == "all" else (options.mode,)
    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        work = Path(tmp)
        for phase in modes:
            server = start_server(options, work, phase, server_cpus)
            try:
                host_token = ["--host-token-file", str(work / f"data-{phase}" / "host-token")]
                args = [*_common(options), *host_token]
                if phase == "idle":
                    args += ["--connections", str(options.connections)]
                if phase == "saturate":
                    args += ["--frames-out", str(work / "frames.json")]
                figures = run_bots(
                    phase, server.url, server.pid, args, bots_cpus, work, _budget(options)
                )
            finally:
                server.stop()
            setattr(results, phase, figures)
            if phase == "idle":
                results.idle_bare = _idle_bare(options, work, server_cpus, bots_cpus)
            if phase == "saturate":
                results.floor = _floor(options, work, server_cpus, bots_cpus)
                results.bare = _bare(options, work, figures, server_cpus, bots_cpus)
    return results


def _floor(
    options: Options,
    work: Path,
    server_cpus: set[int] | None,
    bots_cpus: set[int] | None,
) -> dict[str, Any]:
    """The saturate phase again, same bots and commands, against `bench.load_floor`
    serving the frames the combat server sent (its run's `frames.json`)."""
    token_file = work / "floor-host-token"
    argv = [sys.executable, "-m", "bench.load_floor", "--frames", str(work / "frames.json")]
    argv += ["--host-token-file", str(token_file)]
    floor = Child(argv, work / "floor.log", server_cpus)
    try:
        args = [*_common(options), "--host-token-file", str(token_file)]
        return run_bots("saturate", floor.url, floor.pid, args, bots_cpus, work, _budget(options))
    finally:
        floor.stop()


def _bare(
    options: Options,
    work: Path,
    saturate: dict[str, Any],
    server_cpus: set[int] | None,
    bots_cpus: set[int] | None,
) -> dict[str, Any]:
    clients = str(saturate["connections"])
    argv = [sys.executable, "-m", "bench.load_bare", "--clients", clients]
    argv += ["--frames", str(work / "frames.json")]
    bare = Child(argv, work / "bare.log", server_cpus)
    try:
        args = [*_common(options), "--connections", clients]
        return run_bots("bare", bare.url, bare.pid, args, bots_cpus, work, _budget(options))
    finally:
        bare.stop()


def _idle_bare(
    options: Options,
    work: Path,
    server_cpus: set[int] | None,
    bots_cpus: set[int] | None,
) -> dict[str, Any]:
    """The idle phase's connections, on a bare websockets server (`bench.load_bare`
    without frames: it echoes)."""
    bare = Child([sys.executable, "-m", "bench.load_bare"], work / "idle-bare.log", server_cpus)
    try:
        args = [*_common(options), "--connections", str(options.connections)]
        return run_bots("idle_bare", bare.url, bare.pid, args, bots_cpus, work, _budget(options))
    finally:
        bare.stop()


def _budget(options: Options) -> float:
    """Seconds a bots phase may take: its measuring, plus time to set up (creating
    encounters, opening 10,000 connections) that no healthy run comes near."""
    return options.warmup + options.seconds + 300.0


def _cpus(cpus: set[int] | None) -> str:
    return "any" if cpus is None else ",".join(str(c) for c in sorted(cpus))


# --- the report ---------------------------------------------------------------------


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def _rate(figures: dict[str, Any], key: str) -> float:
    seconds = figures["seconds"]
    return float(figures[key]) / seconds if seconds else 0.0


def report(results: Results) -> list[str]:
    """The printed table, one line each."""
    o = results.options
    lines = [
        f"bench.load: {o.encounters} encounters x (1 GM, 4 players, 5 spectators), "
        f"measured {o.seconds:g} s after {o.warmup:g} s warm-up; server on cpu "
        f"{results.cores.get('server')}, bots on cpu {results.cores.get('bots')}; "
        f"permessage-deflate {'offered' if o.deflate else 'off'}",
    ]
    if results.steady is not None:
        lines += _steady_lines(results.steady, o)
    if results.saturate is not None:
        lines += _saturate_lines(results.saturate, results.floor, results.bare)
    if results.idle is not None:
        lines += _idle_lines(results.idle, results.idle_bare)
    return lines


def _cpu(figures: dict[str, Any]) -> str:
    return (
        f"cpu: server {figures['server_cpu']:.0%} (event loop {figures['server_loop_cpu']:.0%}), "
        f"bots {figures['bots_cpu']:.0%}, "
        f"other processes {figures['other_cpu']:.0%}"
    )


def _commands(figures: dict[str, Any]) -> str:
    refused = figures["refused"]
    why = ", ".join(f"{code} {n}" for code, n in sorted(refused.items())) or "none"
    return (
        f"  commands   {figures['sent']:>8,} sent ({_rate(figures, 'sent'):,.0f}/s), "
        f"{figures['acked']:,} acked, refused: {why}; seq gaps seen: {figures['gaps']}; "
        f"set-up: every player's first declaration answered in {figures['settle_seconds']:.1f} s"
    )


def _steady_lines(figures: dict[str, Any], o: Options) -> list[str]:
    p99 = figures["event_p99_ms"]
    return [
        f"steady: {figures['connections']:,} connections, each player declares every "
        f"{o.period:g} s",
        _commands(figures),
        f"  command -> event at the sender  p50 {figures['event_p50_ms']:6.2f} ms   "
        f"p99 {p99:6.2f} ms   max {figures['event_max_ms']:6.2f} ms   "
        f"(n={figures['latencies']:,}; target p99 < {P99_TARGET_MS:g} ms: "
        f"{_met(p99 < P99_TARGET_MS and figures['latencies'] > 0)})",
        f"  command -> ack                  p50 {figures['ack_p50_ms']:6.2f} ms   "
        f"p99 {figures['ack_p99_ms']:6.2f} ms",
        f"  delivered  {_rate(figures, 'events'):>10,.0f} events/s  "
        f"{_rate(figures, 'frames'):>10,.0f} frames/s   {_cpu(figures)}",
    ]


def ratio(saturate: dict[str, Any], bare: dict[str, Any]) -> float:
    """Events `saturate` delivered a second over what `bare` did: the combat server
    over the bare broadcast, or any two phases' figures (combat / floor, floor / bare)."""
    bare_rate = _rate(bare, "events")
    return _rate(saturate, "events") / bare_rate if bare_rate else 0.0


def _saturate_lines(
    figures: dict[str, Any], floor: dict[str, Any] | None, bare: dict[str, Any] | None
) -> list[str]:
    lines = [
        f"saturate: {figures['connections']:,} connections, players declare back to back",
        _commands(figures),
        f"  combat server  {_rate(figures, 'events'):>10,.0f} events/s  "
        f"{_rate(figures, 'frames'):>10,.0f} frames/s  "
        f"(update frames {figures['event_frame_bytes']:.0f} B on average)   {_cpu(figures)}",
    ]
    if floor is not None:
        lines += [
            f"  floor server   {_rate(floor, 'events'):>10,.0f} events/s  "
            f"{_rate(floor, 'frames'):>10,.0f} frames/s  "
            f"(the same frames and bots; {_rate(floor, 'acked'):,.0f} acks/s, "
            f"seq gaps seen: {floor['gaps']})   {_cpu(floor)}",
        ]
        sizes = figures.get("sample_bytes", {})
        if sizes:  # the floor's speed follows them: a bigger frame is slower to send
            each = ", ".join(f"{kind} {size:,} B" for kind, size in sorted(sizes.items()))
            lines.append(f"    one-event update frames the floor and bare broadcast send: {each}")
    if bare is not None:
        r = ratio(figures, bare)
        lines += [
            f"  bare broadcast {_rate(bare, 'events'):>10,.0f} events/s  "
            f"{_rate(bare, 'frames'):>10,.0f} frames/s  "
            f"(the same frames, {bare['connections']:,} clients)   {_cpu(bare)}",
            f"  ratio combat / bare events per second: {r:.3f} "
            f"(target >= {RATIO_TARGET:g}: {_met(r >= RATIO_TARGET)})",
        ]
    if floor is not None:
        lines.append(
            f"  ratio combat / floor events per second: {ratio(figures, floor):.3f} "
            "(the share of the least server's rate the combat server reaches)"
        )
        if bare is not None:
            lines.append(
                f"  ratio floor / bare events per second: {ratio(floor, bare):.3f} "
                "(how high combat / bare can go with this wire work on these cores)"
            )
    return lines


def _idle_lines(figures: dict[str, Any], bare: dict[str, Any] | None) -> list[str]:
    kib = figures["kib_per_connection"]
    reached = figures["connections"]
    met = kib <= KIB_TARGET and reached >= 10_000
    lines = [
        f"idle: {reached:,} of {figures['asked']:,} spectator connections open "
        f"(handshaked in {figures['open_seconds']:.1f} s) on one server process",
        f"  server RSS {figures['server_rss_before_kib'] / 1024:,.1f} MiB -> "
        f"{figures['server_rss_after_kib'] / 1024:,.1f} MiB: {kib:.1f} KiB per connection "
        f"(target <= {KIB_TARGET:g} KiB at 10,000: {_met(met)})"
        f"; the bots' side {figures['bots_kib_per_connection']:.1f} KiB each",
    ]
    if figures["error"]:
        lines.append(f"  stopped opening at: {figures['error']}")
    if bare is not None:
        bare_kib = bare["kib_per_connection"]
        lines.append(
            f"  bare websockets server: {bare['connections']:,} connections (a hello "
            f"each, echoed), RSS {bare['server_rss_before_kib'] / 1024:,.1f} MiB -> "
            f"{bare['server_rss_after_kib'] / 1024:,.1f} MiB: {bare_kib:.1f} KiB per "
            f"connection; combat / bare {kib / bare_kib if bare_kib else 0.0:.2f}"
        )
        if bare["error"]:
            lines.append(f"  bare: stopped opening at: {bare['error']}")
    return lines


def parse(argv: Sequence[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--mode", choices=(*MODES, "all"), default="all")
    parser.add_argument("--encounters", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--period", type=float, default=2.0, help="steady: seconds between")
    parser.add_argument("--connections", type=int, default=10_000, help="idle connections")
    parser.add_argument("--no-pin", dest="pin", action="store_false")
    parser.add_argument("--no-deflate", dest="deflate", action="store_false")
    parser.add_argument("--profile", type=Path, default=None, help="cProfile output dir")
    args = parser.parse_args(argv)
    return Options(
        mode=args.mode,
        encounters=args.encounters,
        seconds=args.seconds,
        warmup=args.warmup,
        period=args.period,
        connections=args.connections,
        pin=args.pin,
        deflate=args.deflate,
        profile=args.profile,
    )


def main(argv: Sequence[str] | None = None) -> Results:
    results = run(parse(argv))
    for line in report(results):
        print(line, flush=True)
    return results


if __name__ == "__main__":
    main()
