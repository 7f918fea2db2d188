"""Network partitions of a Sentinel cluster, on private hosts: what is acknowledged and
then lost, whether two processes run one room at once, and where the clients end.

The cluster (tests/cluster/partitioned.py) is the deployment's: Redis r1 (the primary)
with replicas r2 and r3, three sentinels (quorum 2, a primary down after 5 s), servers
a1 and a2 with 5 s leases, each on a host of its own. The room is created through a1,
so a1 runs it. A GM client on a1 and another on a2 (which forwards to the room's runner,
or runs it after a takeover) each send one `SetHealth` after another, every one with a
fresh cid and a value that makes an event. Then one set of hosts is cut off from the
others for 12 s (longer than the sentinels' 5 s and a lease's 5 s together), and healed:

1. `room-primary-replica`: {a1, r1, r2, s1}, the room's process with the primary, one
   replica and one sentinel (the sentinels on the other side promote r3);
2. `primary`: {r1} alone;
3. `room-process`: {a1} alone (a2 takes the room when a1's lease runs out);
4. `sentinel-primary`: {r1, s1}.

The clients are on a host of their own that no cut includes: each keeps reaching its
server, as players whose own connection did not break.

After the heal the cluster settles (every sentinel names one primary, the other two
Redis servers replicate it), each client sends on until it has acks after that, then
resumes once more and reads until it is quiet. Measured against the room's log as the
surviving primary holds it:

* acknowledged cids missing from the log (`lost`), or in it under other seqs than
  their ack's (`moved`: applied again after their first application was lost);
* acknowledged seqs the log gives to another command (`reused`), and seqs a client was
  sent two different events for (`told twice`);
* the seconds in which both processes acknowledged commands of the room (each ack is
  the runner's: the process the client talks to when it ran the room then, by its own
  log lines, else the other), and in which both ran it; docs/deploy.md, "Limits",
  bounds this by a lease's time to live;
* whether each client ends on the log's state (its last snapshot, if it is the log's,
  and every event it was sent after it, replayed: the same state hash as the log's).

Every durability must show no two processes acknowledging at once past the bound, no
seq given to another event without a `went_back` first, and every client on the log's
state. A durability that promises nothing acknowledged is lost (`every-replica`) must
also show no loss and no reused seq. `local` and `replicated` promise less
(docs/deploy.md, "Durability": what a process cut off with its primary acknowledges
before its sentinels' vouches run out is taken back): for them the test prints what
was lost (`pytest tests/cluster/test_partition.py -s`).

Needs root (network namespaces, as in CI) and `redis-server`; skipped otherwise.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from protocol.messages import Ack
from tests.cluster.partitioned import (
    LEASE_TTL,
    MAX_HEALTH,
    SERVER_HOSTS,
    FinalLog,
    Gm,
    PartitionedCluster,
    client_state,
    durability_refused,
    fences_taken,
    merge,
    overlap,
    read_log,
    redis_version,
    running_intervals,
    seqs_told_twice,
    within,
)
from tests.reliability.support import create_room
from tests.server.wire import lone_goblin
from tests.support.netns import Network, network
from tests.support.redis import require_redis_server

__all__ = ["network"]

CUT_SECONDS = 12.0
"""How long a partition lasts: past the sentinels' down-after (5 s) and the vote, and
past a lease's time to live (5 s)."""
PAUSE = 0.05
"""Seconds a GM waits between an answer and its next command."""
BEFORE = 10
"""Acks each GM has before the cut."""
AFTER = 10
"""Acks each GM has after the cluster settled, before the clients stop."""
SETTLE_SECONDS = 90.0
"""The longest the cluster may take to be whole again after the heal."""
SCENARIO_SECONDS = 240.0
"""The longest one scenario may take, from the first host to the last figure."""
ACK_GAP = 1.0
"""Acks of one process less than this apart make one span of its acknowledging."""
PROMISES = frozenset({"every-replica"})
"""The durabilities that promise no acknowledged command is ever lost."""


@dataclass(frozen=True)
class Scenario:
    name: str
    cut_off: tuple[str, ...]  # the hosts cut off from every other member


SCENARIOS = (
    Scenario("room-primary-replica", ("a1", "r1", "r2", "s1")),
    Scenario("primary", ("r1",)),
    Scenario("room-process", ("a1",)),
    Scenario("sentinel-primary", ("r1", "s1")),
)
DURABILITIES = ("local", "replicated", "fsync", "every-replica")


def two_goblins() -> dict[str, Any]:
    """A room of two goblins the GM plays, g1 for the GM on a1 and g2 for the one on a2,
    with health enough that every `SetHealth` of a run sets a value never set before."""
    encounter = lone_goblin("Partition")
    (goblin,) = encounter["combatants"]
    goblin["sheet"]["health"] = MAX_HEALTH
    other = {**goblin, "id": "g2", "sheet": {**goblin["sheet"]}, "at": [2, 0]}
    encounter["combatants"] = [goblin, other]
    return encounter


@dataclass
class Measured:
    """What one run measured (the module's docstring)."""

    scenario: str
    durability: str
    took: float = 0.0
    cut: float = 0.0
    settled_after: float = 0.0  # seconds from the heal until the cluster was whole
    primary: str = ""
    acked: dict[str, int] = field(default_factory=dict)  # per GM
    acked_before_cut: dict[str, int] = field(default_factory=dict)
    acked_after_settle: dict[str, int] = field(default_factory=dict)
    by_runner: dict[str, int] = field(default_factory=dict)
    phases: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    """Per runner, per `PHASES`: (acks it gave, how many of them the log lacks)."""
    lost: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    reused: list[int] = field(default_factory=list)
    told_twice: dict[str, int] = field(default_factory=dict)
    ack_overlap: float = 0.0
    run_overlap: float = 0.0
    last_ack_after_heal: dict[str, float] = field(default_factory=dict)  # per runner
    on_log_state: dict[str, bool] = field(default_factory=dict)
    client_seq: dict[str, int | None] = field(default_factory=dict)
    log_version: int = 0
    fences: dict[str, list[str]] = field(default_factory=dict)
    entries_by_fence: dict[str, int] = field(default_factory=dict)
    gave_up: dict[str, int] = field(default_factory=dict)
    acks: list[dict[str, Any]] = field(default_factory=list)
    """Every ack: gm, cid, first_seq, last_seq, at (wall clock), runner, in the log."""
    clients: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per GM: its connections, the seqs of the snapshots it was sent, how many events
    it was sent, and what broke in its stream (gaps, repeats, unanswered commands)."""
    moments: dict[str, float] = field(default_factory=dict)
    runs: dict[str, list[tuple[float, float]]] = field(default_factory=dict)

    def line(self) -> str:
        def each(values: dict[str, Any], fmt: Callable[[Any], str] = str) -> str:
            return ", ".join(f"{key} {fmt(value)}" for key, value in values.items())

        return (
            f"[partition] {self.scenario} / {self.durability}: "
            f"acked {sum(self.acked.values())} ({each(self.acked)}; "
            f"{sum(self.acked_before_cut.values())} before the cut, "
            f"{sum(self.acked_after_settle.values())} after the cluster settled), "
            f"lost {len(self.lost)}, moved {len(self.moved)}, reused seqs {len(self.reused)} "
            f"(told twice: {each(self.told_twice)}); both processes acknowledged at once "
            f"{self.ack_overlap:.1f}s and ran the room at once {self.run_overlap:.1f}s "
            f"(bound {LEASE_TTL:g}s); acks by runner: {each(self.by_runner)}, "
            f"acked/lost {' | '.join(PHASES)}: {each(self.phases, _phases)}; last ack "
            f"after the heal: {each(self.last_ack_after_heal, lambda s: f'{s:+.1f}s')}; "
            f"clients on the surviving log's state: "
            f"{each(self.on_log_state, lambda on: 'yes' if on else 'NO')} "
            f"(at seq {each(self.client_seq)} of {self.log_version}); "
            f"cut {self.cut:.1f}s, whole again {self.settled_after:.1f}s after the heal "
            f"(primary {self.primary}); fences taken: {each(self.fences)}; "
            f"took {self.took:.0f}s"
        )

    def dump(self, path: Path) -> None:
        """Everything measured, as JSON, for a closer look after the run."""
        path.write_text(json.dumps(dataclasses.asdict(self), indent=1, default=str))


PHASES = ("before the cut", "during it", "after the heal", "once settled")


def _phases(counts: list[tuple[int, int]]) -> str:
    return " | ".join(f"{acked}/{lost}" for acked, lost in counts)


@pytest.mark.timeout(SCENARIO_SECONDS + 60)
@pytest.mark.parametrize("durability", DURABILITIES)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_a_partition_loses_nothing_the_durability_promises(
    network: Network, tmp_path: Path, scenario: Scenario, durability: str
) -> None:
    require_redis_server()
    if durability == "fsync" and redis_version() < (7, 2):
        pytest.skip("--redis-durability fsync needs Redis 7.2 (WAITAOF); this one is older")
    refused = durability_refused(durability)
    if refused is not None:
        pytest.fail(f"the server refuses --redis-durability {durability}: {refused}")
    cluster = PartitionedCluster(network, tmp_path, durability)
    cluster.make_hosts()
    try:
        measured = cluster.observer.run(
            lambda: partitioned_run(cluster, scenario), timeout=SCENARIO_SECONDS
        )
    finally:
        cluster.stop()
    measured.dump(tmp_path / "measured.json")
    print(f"\n{measured.line()}")

    assert all(count >= BEFORE for count in measured.acked_before_cut.values()), measured
    assert all(count >= AFTER for count in measured.acked_after_settle.values()), measured
    # Whatever the durability: one process acknowledges at a time (the sentinels vouch
    # for its primary: server/primacy.py), a seq is never given to another event without
    # a `went_back` first, and every client ends on the surviving log's state.
    assert measured.ack_overlap <= LEASE_TTL, measured.ack_overlap
    assert not any(measured.told_twice.values()), measured.told_twice
    assert all(measured.on_log_state.values()), measured.on_log_state
    if durability in PROMISES:
        assert not measured.lost, f"acknowledged, then lost: {measured.lost[:10]}"
        assert not measured.moved, f"acknowledged, then applied again: {measured.moved[:10]}"
        assert not measured.reused, f"acknowledged seqs given to others: {measured.reused[:10]}"


async def partitioned_run(cluster: PartitionedCluster, scenario: Scenario) -> Measured:
    """The whole run of one scenario, in the observer's thread (its event loop)."""
    began = time.monotonic()
    measured = Measured(scenario.name, cluster.durability)
    await asyncio.to_thread(cluster.start_redis)
    await asyncio.to_thread(cluster.start_servers)
    created = await create_room(cluster.url("a1"), cluster.servers["a1"].host_token, two_goblins())
    room = created.room
    gms = [
        Gm("gm1", "a1", cluster.url("a1"), created.gm, "g1"),
        Gm("gm2", "a2", cluster.url("a2"), created.gm, "g2"),
    ]
    for gm in gms:
        await gm.connect()
    stop = asyncio.Event()
    deadline = time.monotonic() + SCENARIO_SECONDS - 60
    sending = [asyncio.create_task(gm.keep_sending(stop, PAUSE, deadline)) for gm in gms]
    try:
        await until(
            lambda: all(len(gm.acks) >= BEFORE for gm in gms), 60, "acks before the cut", sending
        )
        cut_off = [cluster.host_of(name) for name in scenario.cut_off]
        rest = [name for name in cluster.members() if name not in scenario.cut_off]
        others = [cluster.host_of(name) for name in rest]
        cut_at = time.time()
        await asyncio.to_thread(cluster.network.cut, cut_off, others)
        await asyncio.sleep(CUT_SECONDS)
        await asyncio.to_thread(cluster.network.heal)
        healed_at = time.time()
        measured.cut = healed_at - cut_at

        primary: list[str] = []

        async def whole() -> bool:
            found = await asyncio.to_thread(cluster.healed)
            if found is not None:
                primary.append(found)
            return found is not None

        await until(
            whole,
            SETTLE_SECONDS,
            "the cluster to be whole again",
            sending,
            step=0.5,
            explain=lambda: f"sentinels name {cluster.views()}, Redis says {cluster.roles()}",
        )
        settled_at = time.time()
        measured.settled_after = settled_at - healed_at
        measured.primary = primary[0]
        await until(
            lambda: all(acked_since(gm, settled_at) >= AFTER for gm in gms),
            60,
            "acks after the cluster settled",
            sending,
        )
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*sending, return_exceptions=True), 60)
    survivor = await asyncio.to_thread(cluster.primary)
    log = await asyncio.to_thread(read_log, survivor, room)
    for gm in gms:
        await gm.resume_and_catch_up(log.version, 10)
    log = await asyncio.to_thread(read_log, survivor, room)
    for gm in gms:
        await gm.close()
    ended = time.time()
    lines = {name: cluster.servers[name].log_lines() for name in SERVER_HOSTS}
    runs = {name: running_intervals(lines[name], room, ended) for name in SERVER_HOSTS}
    measured.fences = {name: fences_taken(lines[name], room) for name in SERVER_HOSTS}
    figure(measured, gms, log, runs, cut_at, healed_at, settled_at)
    measured.took = time.monotonic() - began
    return measured


def acked_since(gm: Gm, moment: float) -> int:
    return sum(1 for told in gm.told if isinstance(told.answer, Ack) and told.at >= moment)


async def until(
    done: Callable[[], Any],
    seconds: float,
    what: str,
    watched: list[asyncio.Task[None]],
    step: float = 0.1,
    explain: Callable[[], str] = lambda: "",
) -> None:
    """Wait (bounded) until `done()` (a coroutine function or not) holds; a sending
    task that failed fails the wait with its error. `explain` says what held instead
    (blocking: called once, on failure)."""
    deadline = time.monotonic() + seconds
    while True:
        held = done()
        if asyncio.iscoroutine(held):
            held = await held
        if held:
            return
        for task in watched:
            if task.done():
                task.result()
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{what}: not within {seconds:g}s {await asyncio.to_thread(explain)}"
            )
        await asyncio.sleep(step)


def figure(
    measured: Measured,
    gms: list[Gm],
    log: FinalLog,
    runs: dict[str, list[tuple[float, float]]],
    cut_at: float,
    healed_at: float,
    settled_at: float,
) -> None:
    """Fill `measured` from what the clients were told, the log, and the runs."""
    acks: dict[str, tuple[Ack, float, str, str]] = {}  # cid -> ack, when, runner, GM
    for gm in gms:
        other = next(name for name in SERVER_HOSTS if name != gm.server)
        for told in gm.told:
            if isinstance(told.answer, Ack):
                runner = gm.server if within(runs[gm.server], told.at, 0.5) else other
                acks[told.cid] = (told.answer, told.at, runner, gm.name)
        measured.acked[gm.name] = len(gm.acks)
        measured.acked_before_cut[gm.name] = sum(
            1 for t in gm.told if isinstance(t.answer, Ack) and t.at < cut_at
        )
        measured.acked_after_settle[gm.name] = acked_since(gm, settled_at)
        measured.told_twice[gm.name] = len(seqs_told_twice(gm))
        measured.gave_up[gm.name] = len(gm.gave_up)
    measured.log_version = log.version
    for token in log.fences.values():
        measured.entries_by_fence[token] = measured.entries_by_fence.get(token, 0) + 1
    owner = log.owner()
    claims: dict[int, set[str]] = {}
    for cid, (ack, _, _, _) in acks.items():
        span = log.spans.get(cid)
        if span is None:
            measured.lost.append(cid)
        elif span != (ack.first_seq, ack.last_seq):
            measured.moved.append(cid)
        for seq in range(ack.first_seq, ack.last_seq + 1):
            claims.setdefault(seq, set()).add(cid)
    bounds = [cut_at, healed_at, settled_at]
    measured.moments = {"cut": cut_at, "healed": healed_at, "settled": settled_at}
    measured.runs = runs
    measured.phases = {name: [(0, 0) for _ in PHASES] for name in SERVER_HOSTS}
    for cid, (ack, at, runner, gm_name) in acks.items():
        phase = sum(1 for bound in bounds if at >= bound)
        acked, missing = measured.phases[runner][phase]
        measured.phases[runner][phase] = (acked + 1, missing + (cid not in log.spans))
        measured.acks.append(
            {
                **{"gm": gm_name, "cid": cid, "first_seq": ack.first_seq},
                **{"last_seq": ack.last_seq, "at": at, "runner": runner},
                "in_log": log.spans.get(cid),
            }
        )
    measured.reused = sorted(
        seq
        for seq, cids in claims.items()
        if len(cids) > 1 or (seq in owner and owner[seq] not in cids)
    )
    by_runner: dict[str, list[float]] = {name: [] for name in SERVER_HOSTS}
    for _, at, runner, _ in acks.values():
        by_runner[runner].append(at)
    measured.by_runner = {name: len(moments) for name, moments in by_runner.items()}
    spans = {name: merge(moments, ACK_GAP) for name, moments in by_runner.items()}
    first, second = SERVER_HOSTS
    measured.ack_overlap = overlap(spans[first], spans[second])
    measured.run_overlap = overlap(runs[first], runs[second])
    measured.last_ack_after_heal = {
        name: max(moments) - healed_at for name, moments in by_runner.items() if moments
    }
    surviving = log.state().state_hash()
    for gm in gms:
        state = client_state(gm, log)
        measured.on_log_state[gm.name] = state is not None and state.state_hash() == surviving
        measured.client_seq[gm.name] = gm.stream.last
        measured.clients[gm.name] = {
            "connections": gm.connections,
            "snapshots": [seq for _, seq, _ in gm.heard.snapshots],
            "events": len(gm.heard.events),
            "broken": gm.stream.broken + gm.problems,
            "gave up reconnecting": gm.gave_up,
        }
