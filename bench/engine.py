"""Engine benchmark: melee attack resolutions and dice rolls per second, one core.

    .venv/bin/python -m bench.engine [--runs 7] [--attacks 20000] [--rolls 20000]

Prints medians over several runs. Dice are compared with the `d20` package (the
dice engine of the Avrae bot) rolling the same expressions in the same process, so
the ratio holds on a noisy machine where absolute figures do not.

Targets (issue: foundation): >= 100,000 attack resolutions per second; dice at
least 10x the `d20` package's rate.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

from server.engine import Encounter, apply_all, decide, execute
from server.engine.dice import DiceCup
from server.engine.grid import Cell
from server.engine.rng import SeededDice
from server.engine.rulesets.verse.attacks import Attack, AttackRolled, resolve_attack
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.sheet import Abilities, Defences, VerseSheet, Weapon
from server.engine.rulesets.verse.turns import StartCombat

EXPRESSIONS = ("1d20+5", "2d6+3", "1d8+1d6+2", "4d6")
STATES = 64  # different seeds, so hits, misses and criticals mix as in play


def _fighter(cid: str, side: str, x: int) -> VerseCombatant:
    sheet = VerseSheet(
        name=cid,
        level=3,
        abilities=Abilities(3, 3, 3, 1, 1, 1),
        defences=Defences(14, 2, 12, 1),
        health=10_000,
        mana=10,
        armour_durability=10_000,
        training=(("one_handed", 2),),
        weapons=(Weapon("longsword", "1d8", "one_handed"),),
    )
    return VerseCombatant.from_sheet(cid, side, sheet, Cell(x, 0))


def attack_states() -> list[tuple[Encounter, Attack]]:
    """Encounters in round 1 with eight combatants, the one whose turn it is attacking."""
    prepared = []
    for seed in range(STATES):
        fighters = [_fighter(f"pc{i}", "players", i) for i in range(4)]
        fighters += [_fighter(f"gm{i}", "gm", i) for i in range(4)]
        for i in range(4):
            fighters[4 + i] = VerseCombatant.from_sheet(
                f"gm{i}", "gm", fighters[4 + i].sheet, Cell(i, 1)
            )
        state = Encounter("bench", "verse", {f.id: f for f in fighters}, dice=SeededDice(seed))
        state, _ = execute(state, StartCombat())
        actor = state.current
        assert actor is not None
        me = state.combatant(actor)
        foe = next(
            c
            for c in state.combatants.values()
            if c.side != me.side and state.grid.distance_ft(me.position, c.position) <= 5
        )
        prepared.append((state, Attack(actor, foe.id, "longsword")))
    return prepared


def _rate(fn: Callable[[], object], count: int, runs: int) -> list[float]:
    rates = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(count):
            fn()
        rates.append(count / (time.perf_counter() - start))
    return rates


def bench_attacks(count: int, runs: int) -> None:
    prepared = attack_states()
    index = [0]

    def full_command() -> None:
        state, command = prepared[index[0] % STATES]
        index[0] += 1
        execute(state, command)

    def resolution_only() -> None:
        state, command = prepared[index[0] % STATES]
        index[0] += 1
        actor = state.combatants[command.actor]
        target = state.combatants[command.target]
        weapon = actor.sheet.weapons[0]
        apply_all(
            state, resolve_attack(state, DiceCup(state.dice), actor, target, weapon, "standard")
        )

    outcomes = [
        next(e for e in decide(s, c) if isinstance(e, AttackRolled)).outcome for s, c in prepared
    ]
    mix = {o: outcomes.count(o) for o in sorted(set(outcomes))}
    full = statistics.median(_rate(full_command, count, runs))
    core = statistics.median(_rate(resolution_only, count, runs))
    print(f"attack outcomes over the {STATES} prepared states: {mix}")
    print(
        f"melee attacks, full command (validate, roll, hit, damage split, events applied): "
        f"{full:>10,.0f} /s  (target 100,000: {'met' if full >= 100_000 else 'NOT met'})"
    )
    print(
        f"melee attacks, resolution only (roll, hit, damage split, events applied):      "
        f"{core:>10,.0f} /s"
    )


def bench_dice(count: int, runs: int) -> None:
    import d20  # type: ignore[import-untyped]

    for expression in EXPRESSIONS:
        cup = DiceCup(SeededDice(1))

        def ours(expr: str = expression, cup: DiceCup = cup) -> None:
            cup.roll(expr)

        def theirs(expr: str = expression) -> None:
            d20.roll(expr)

        ours_rate = statistics.median(_rate(ours, count, runs))
        theirs_rate = statistics.median(_rate(theirs, max(count // 10, 100), runs))
        ratio = ours_rate / theirs_rate
        print(
            f"dice {expression:<10} ours {ours_rate:>10,.0f} /s   d20 {theirs_rate:>9,.0f} /s   "
            f"ratio {ratio:5.1f}x  (target 10x: {'met' if ratio >= 10 else 'NOT met'})"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--attacks", type=int, default=20_000)
    parser.add_argument("--rolls", type=int, default=20_000)
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    print(f"engine benchmark: medians of {args.runs} runs on one core")
    bench_attacks(args.attacks, args.runs)
    bench_dice(args.rolls, args.runs)


if __name__ == "__main__":
    main()
