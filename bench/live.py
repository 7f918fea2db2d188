"""Live Combat benchmark: full rounds per second, engine alone and through the room.

    .venv/bin/python -m bench.live [--runs 7] [--rounds 300]

Eight combatants, four against four in adjacent pairs facing each other (V20–V22).
Every round: a planning window in which everyone declares an attack on its partner,
except one holder (`pc3` holds, V19, and spends its held Standard on an attack on its
partner in the first window it is offered "hold"); then each attack opens a reaction
window in which the target dodges when it may (one Defensive Action a round, V22); a
defended or missed attack opens a counter window in which every Counter-feat fighter
asked counters; a counter is an attack too and gets its own windows. Scripted bots
answer every window at once (no clock runs): a round ends when the last action has
resolved, the next planning window opens.

Printed: medians over several runs of
- rounds/s of the engine alone (`execute` = `decide` + `apply` of every bot command;
  only the `execute` calls are timed, not the bots choosing them),
- rounds/s through the room actor (`Room` with a fake clock, memory log and bus,
  `await room.submit(principal, command)` for every command),
- their ratio, and how many commands, events and windows a round has on average;
- rounds/s of replaying the same rounds (`apply` alone over their events): what the
  engine would reach if deciding cost nothing, since every event must be applied;
- rounds/s of the floor: building the same rounds' commands and events as records
  and one new encounter state per event, with no rule run at all. Any engine of
  immutable states and recorded events (ARCHITECTURE: replay, rewind) pays this much
  in CPython, so it shows how much of the target's time is left for the rules;
- the processor it ran on: the machines we share change model from day to day, and
  the same code has run at less than half the speed on one model as on another.

Target (issue: Live Combat): at least 2,000 rounds per second in the engine.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import platform
import statistics
import time
from dataclasses import dataclass, field

from server.bus.memory import MemoryBus
from server.engine import Encounter, execute
from server.engine.authority import Principal, Role
from server.engine.core import Command, Event, apply
from server.engine.flow import Mode, WindowKind
from server.engine.grid import Cell
from server.engine.records import evolver_of
from server.engine.rng import SeededDice
from server.engine.rulesets.verse import reactions as r
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.live import Answer, Declare, PassWindow
from server.engine.rulesets.verse.live_actions import Counter, HoldAction
from server.engine.rulesets.verse.sheet import (
    Abilities,
    Defences,
    Feat,
    FeatKind,
    VerseSheet,
    Weapon,
)
from server.engine.rulesets.verse.turns import StartCombat
from server.engine.rulesets.verse.windows import WindowOpened
from server.eventlog import Entry, EventLog
from server.eventlog.memory import MemoryEventLog
from server.room import FakeClock, Room

PAIRS = 4
HOLDER = "pc3"
WEAPON = "longsword"
TARGET = 2_000
FACING_UP = 2  # facing 2 looks along +y (45 degrees a step, grid.facing_deg)
FACING_DOWN = 6


def _fighter(cid: str, side: str, cell: Cell, facing: int) -> VerseCombatant:
    sheet = VerseSheet(
        name=cid,
        level=3,
        abilities=Abilities(3, 3, 3, 1, 1, 1),
        defences=Defences(14, 2, 12, 1),
        health=1_000_000,  # nobody falls: every round is a full round of eight
        mana=10,
        armour_durability=1_000_000,
        training=(("one_handed", 2),),
        weapons=(Weapon(WEAPON, "1d8", "one_handed"),),
        feats=(Feat("Riposte", FeatKind.COUNTER),),
    )
    return VerseCombatant.from_sheet(cid, side, sheet, cell, facing=facing)


def weapon_in_hand(state: Encounter, cid: str) -> str:
    """The longsword, or bare hands once a fumble dropped or broke it (V6)."""
    c = state.combatants[cid]
    return "" if WEAPON in c.dropped or WEAPON in c.broken else WEAPON


def partner(cid: str) -> str:
    side, number = cid[:2], cid[2:]
    return ("gm" if side == "pc" else "pc") + number


def live_encounter(seed: int, pairs: int = PAIRS) -> Encounter:
    """Pairs `pc{i}` / `gm{i}` adjacent, three cells apart from the next pair."""
    fighters = []
    for i in range(pairs):
        fighters.append(_fighter(f"pc{i}", "players", Cell(3 * i, 0), FACING_UP))
        fighters.append(_fighter(f"gm{i}", "gm", Cell(3 * i, 1), FACING_DOWN))
    return Encounter(
        "bench-live",
        "verse",
        {f.id: f for f in fighters},
        dice=SeededDice(seed),
        mode=Mode.LIVE,
    )


def may_attack_held(state: Encounter, cid: str) -> bool:
    """The holder's Standard is unused and no held attack of its own waits on the stack."""
    if state.combatants[cid].actions.standard:
        return False
    return not any(p.actor == cid and p.source != "declared" for p in state.pending)


@dataclass
class Bots:
    """Scripted players: one command at a time for whoever the open window waits on."""

    commands: int = 0
    principals: dict[str, Principal] = field(default_factory=dict)

    def principal(self, cid: str) -> Principal:
        found = self.principals.get(cid)
        if found is None:
            found = self.principals[cid] = Principal(Role.PLAYER, controls=(cid,), name=cid)
        return found

    def next(self, state: Encounter) -> tuple[str, Command]:
        window = state.window
        assert window is not None, "the bench fight is stuck: no window"
        actor = window.waiting_for[0]
        self.commands += 1
        if window.kind == WindowKind.PLANNING:
            if actor == HOLDER:
                return actor, Declare(actor, (HoldAction(actor),))
            attack = Attack(actor, partner(actor), weapon_in_hand(state, actor))
            return actor, Declare(actor, (attack,))
        ask = window.ask_of(actor)
        assert ask is not None
        options = ask.options
        if r.DODGE in options:
            return actor, Answer(actor, window.id, r.DODGE)
        if r.COUNTER in options:
            counter = Counter(actor, window.about, weapon_in_hand(state, actor))
            return actor, Answer(actor, window.id, r.COUNTER, counter)
        if r.HOLD in options and may_attack_held(state, actor):
            held = Attack(actor, partner(actor), weapon_in_hand(state, actor))
            return actor, Answer(actor, window.id, r.HOLD, held)
        return actor, PassWindow(actor, window.id)


@dataclass
class Tally:
    rounds: int = 0
    commands: int = 0
    events: int = 0
    windows: int = 0
    seconds: float = 0.0

    def count(self, events: list[Event] | tuple[Event, ...]) -> None:
        self.events += len(events)
        for event in events:
            if isinstance(event, WindowOpened):
                self.windows += 1


def engine_rounds(seed: int, rounds: int, pairs: int = PAIRS) -> Tally:
    """Play `rounds` full rounds with `execute` alone (`pairs` pairs of fighters)."""
    state, _ = execute(live_encounter(seed, pairs), StartCombat())
    bots = Bots()
    tally = Tally()
    last = state.round + rounds
    clock = time.perf_counter
    spent = 0.0  # only `execute` is timed: the bots' choices are not the engine's work
    while state.round < last:
        _, command = bots.next(state)
        start = clock()
        state, events = execute(state, command)
        spent += clock() - start
        tally.count(events)
    tally.seconds = spent
    tally.rounds = rounds
    tally.commands = bots.commands
    return tally


def replay_rounds(seed: int, rounds: int) -> Tally:
    """Fold `apply` over the events of `rounds` rounds played (untimed) beforehand."""
    state, _ = execute(live_encounter(seed), StartCombat())
    first = state
    bots = Bots()
    events: list[Event] = []
    last = state.round + rounds
    while state.round < last:
        _, command = bots.next(state)
        state, made = execute(state, command)
        events.extend(made)
    start = time.perf_counter()
    for event in events:
        first = apply(first, event)
    tally = Tally(rounds=rounds, events=len(events), seconds=time.perf_counter() - start)
    assert first.state_hash() == state.state_hash(), "the replay did not reach the played state"
    return tally


def floor_rounds(seed: int, rounds: int) -> Tally:
    """Build the records of `rounds` rounds played (untimed) beforehand, and nothing else.

    Every command and event is made again from its field values by its own class, and
    each event gets one copy of the encounter state (its version moved on): the least
    work a round of these records costs, with no rule checked or applied.
    """
    state, _ = execute(live_encounter(seed), StartCombat())
    bots = Bots()
    made: list[tuple[type, tuple[object, ...]]] = []
    last = state.round + rounds
    events = 0
    while state.round < last:
        _, command = bots.next(state)
        state, produced = execute(state, command)
        made.append((type(command), _field_values(command)))
        made.extend((type(event), _field_values(event)) for event in produced)
        events += len(produced)
    copy_state = evolver_of(Encounter)
    copied = state
    start = time.perf_counter()
    for kind, values in made:
        if issubclass(kind, Event):
            copied = copy_state(copied, {"version": copied.version + 1})
        kind(*values)
    tally = Tally(rounds=rounds, events=events, seconds=time.perf_counter() - start)
    assert copied.version == state.version + events
    return tally


def _field_values(value: object) -> tuple[object, ...]:
    return tuple(getattr(value, f.name) for f in dataclasses.fields(value))  # type: ignore[arg-type]


def processor() -> str:
    """The CPU model, as Linux names it ("unknown" elsewhere)."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


async def room_rounds(seed: int, rounds: int) -> Tally:
    """Play `rounds` full rounds through a `Room` (fake clock, memory log and bus)."""
    initial = live_encounter(seed)
    room = Room("bench", initial, log=MemoryEventLog(), bus=MemoryBus[Entry](), clock=FakeClock())
    await room.start()
    gm = Principal(Role.GM, name="gm")
    await room.submit(gm, StartCombat())
    bots = Bots()
    tally = Tally()
    last = room.state.round + rounds
    clock = time.perf_counter
    spent = 0.0  # only `submit` is timed, as only `execute` is for the engine
    while room.state.round < last:
        actor, command = bots.next(room.state)
        principal = bots.principal(actor)
        start = clock()
        ack = await room.submit(principal, command)
        spent += clock() - start
        tally.count(ack.events)
    tally.seconds = spent
    await room.stop()
    tally.rounds = rounds
    tally.commands = bots.commands
    return tally


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args(argv)
    rounds = args.rounds
    engine_rounds(99, 20)  # warm the decider caches
    # The three kinds of run alternate, so a neighbour's load falls on all of them alike.
    played = [
        (
            engine_rounds(seed, rounds),
            replay_rounds(seed, rounds),
            asyncio.run(room_rounds(seed, rounds)),
            floor_rounds(seed, rounds),
        )
        for seed in range(args.runs)
    ]
    sample = played[0][0]
    engine, replay, room, floor = (
        statistics.median(run[kind].rounds / run[kind].seconds for run in played)
        for kind in range(4)
    )
    per = sample.rounds
    print(
        f"live combat benchmark: 8 combatants (4 vs 4, adjacent pairs), {rounds} rounds a run, "
        f"medians of {args.runs} runs on one core"
    )
    print(
        f"a round: {sample.commands / per:.1f} commands, {sample.events / per:.1f} events, "
        f"{sample.windows / per:.1f} windows (1 planning + reaction/counter)"
    )
    met = "met" if engine >= TARGET else "NOT met"
    print(
        f"engine alone (execute per command):  {engine:>8,.0f} rounds/s  (target 2,000: {met})"
        f"  = {engine * sample.commands / per:,.0f} commands/s, "
        f"{engine * sample.events / per:,.0f} events/s"
    )
    print(f"through the room (await submit):      {room:>8,.0f} rounds/s")
    print(f"room / engine: {room / engine:.2f}")
    print(
        f"replay (apply alone, same rounds):    {replay:>8,.0f} rounds/s  "
        f"(engine / replay: {engine / replay:.2f}: the rest is deciding)"
    )
    left_us = max(0.0, 1 / TARGET - 1 / floor) * 1e6 / (sample.commands / per)
    print(
        f"floor (records and state copies only): {floor:>8,.0f} rounds/s  "
        f"(at 2,000 rounds/s it takes {TARGET / floor:.0%} of the time, leaving "
        f"{left_us:.0f} us a command for the rules)"
    )
    print(f"processor: {processor()}, Python {platform.python_version()}")


if __name__ == "__main__":
    if hasattr(os, "sched_setaffinity"):  # one core, as the target says
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    main()


async def play_into(log: EventLog, room_id: str, events: int, snapshot_every: int) -> int:
    """Play Live rounds (seed 7) into `log` as room `room_id` until it holds `events`
    events, saving snapshots as the server does; the log's last seq. The long logs of
    `bench.long_fight`, on SQLite or Redis alike."""
    initial = live_encounter(seed=7)
    await log.save_initial(room_id, initial)
    room = Room(
        room_id,
        initial,
        log=log,
        bus=MemoryBus[Entry](),
        clock=FakeClock(),
        snapshot_every=snapshot_every,
    )
    await room.start()
    await room.submit(Principal(Role.GM, name="gm"), StartCombat())
    bots = Bots()
    while room.version < events:
        actor, command = bots.next(room.state)
        await room.submit(bots.principal(actor), command)
    version = room.version
    await room.stop()
    return version
