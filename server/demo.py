"""A demo fight, every roll explained: `make demo` (the `combat-demo` script).

Two sample sheets (`server/samples/`, default Ayla against a goblin) stand next to
each other on a square grid. Seeded dice roll initiative, then each combatant on its
turn attacks the first enemy still standing with its best weapon and ends its turn,
until one side is down or the round limit passes. Every event is printed as the GM's
log line reads it (`server.table.log`: the event as the GM receives it, told with the
GM's table), the words every client shows; a line that changed a combatant's health
ends with that health as the GM's table card shows it ("[Goblin: health 9/12]"), so
the fight can be followed without a screen. At the end the log is replayed from the
initial state to show that it rebuilds the final state exactly (same state hash).

The policy is deliberately simple and deterministic: moving is not available yet, so
the two start adjacent; "best weapon" means the highest average damage among the
weapons the engine accepts for this attack right now (in hand, in reach, not Broken),
falling back to an unarmed attack.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from server.engine import Command, CommandRefused, Encounter, Event, apply, decide, replay
from server.engine.dice import parse
from server.engine.grid import Cell, Grid, GridKind
from server.engine.rng import SeededDice
from server.engine.rulesets.verse.attacks import Attack, natural_damage
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.sheet import VerseSheet, Weapon, WeaponKind
from server.engine.rulesets.verse.turns import (
    EndTurn,
    InitiativeRolled,
    RoundEnded,
    RoundStarted,
    StartCombat,
    TurnStarted,
)
from server.engine.views import GM_AUDIENCE, Data, event_view
from server.sheets import SheetError, load_sheet
from server.table.log import Teller
from server.table.view import table_view

SAMPLES = Path(__file__).parent / "samples"
DEFAULT_SEED = 7
DEFAULT_ROUNDS = 20
FACING_EAST = 0  # facing 0 looks along +x (server/engine/grid.py)
FACING_WEST = 4  # 4 of 8 steps: half a turn on a square grid
# How far each event's text is indented: rounds, then turns, then what happens in them.
INDENT: dict[type, int] = {InitiativeRolled: 0, RoundStarted: 0, RoundEnded: 0, TurnStarted: 2}


def sample_path(name: str) -> Path:
    """A sheet file path, or the name of a sample in server/samples (`ayla`)."""
    given = Path(name)
    return given if given.suffix else SAMPLES / f"{name}.toml"


def build_encounter(
    pc: VerseSheet, foe: VerseSheet, pc_id: str, foe_id: str, seed: int
) -> Encounter:
    """The two combatants adjacent and facing each other, seeded dice, before initiative."""
    if foe_id == pc_id:
        foe_id = f"{foe_id}2"
    hero = VerseCombatant.from_sheet(pc_id, "pc", pc, Cell(0, 0), facing=FACING_EAST)
    enemy = VerseCombatant.from_sheet(foe_id, "gm", foe, Cell(1, 0), facing=FACING_WEST)
    return Encounter(
        id="demo",
        ruleset="verse",
        combatants={hero.id: hero, enemy.id: enemy},
        dice=SeededDice(seed),
        grid=Grid(GridKind.SQUARE),
    )


# --- the policy ---------------------------------------------------------------------------


def average_damage(actor: VerseCombatant, weapon: Weapon) -> float:
    """The mean of the damage roll: Damage Die (natural: Unarmed Die) + Training Ranks."""
    parsed = (
        natural_damage(actor, weapon) if weapon.kind == WeaponKind.NATURAL else parse(weapon.damage)
    )
    dice = sum((g.count * (g.sides + 1) / 2) * (-1 if g.negative else 1) for g in parsed.groups)
    return dice + parsed.flat + actor.sheet.training_in(weapon.category)


def weapons_by_preference(actor: VerseCombatant) -> list[str]:
    """Weapon names, best average damage first (ties keep sheet order), unarmed last."""
    ranked = sorted(actor.sheet.weapons, key=lambda w: -average_damage(actor, w))
    return [w.name for w in ranked] + [""]


def first_enemy(state: Encounter, actor: VerseCombatant) -> VerseCombatant | None:
    for c in state.combatants.values():
        if c.side != actor.side and c.alive:
            assert isinstance(c, VerseCombatant)
            return c
    return None


def attack_events(state: Encounter, actor: VerseCombatant) -> list[Event]:
    """The best attack the engine accepts against the first enemy standing, or none."""
    target = first_enemy(state, actor)
    if target is None:
        return []
    for weapon in weapons_by_preference(actor):
        try:
            return decide(state, Attack(actor.id, target.id, weapon))
        except CommandRefused:
            continue
    return []


def sides_standing(state: Encounter) -> set[str]:
    return {c.side for c in state.combatants.values() if c.active}


def health_changes(before: Data, after: Data) -> list[tuple[str, Data]]:
    """The combatants whose health meter differs between two tables, with the new one."""
    old, new = before["combatants"], after["combatants"]
    return [
        (cid, card["health"])
        for cid, card in new.items()
        if card.get("health") is not None and card["health"] != old.get(cid, {}).get("health")
    ]


# --- the fight ----------------------------------------------------------------------------


class Fight:
    """Plays commands against the state, keeps the log and prints every event."""

    def __init__(self, state: Encounter, max_rounds: int) -> None:
        self.initial = state
        self.state = state
        self.log: list[Event] = []
        self.max_rounds = max_rounds
        self.narrating = True
        self.table = table_view(state, GM_AUDIENCE)

    def play(self, events: list[Event]) -> None:
        for event in events:
            self.state = apply(self.state, event)
            self.log.append(event)
            if isinstance(event, RoundStarted) and event.round > self.max_rounds:
                self.narrating = False  # past the limit: keep the log whole, stop telling
            if self.narrating:
                self.tell(event)

    def tell(self, event: Event) -> None:
        """Print the GM's log line of `event`, the last one played."""
        before, self.table = self.table, table_view(self.state, GM_AUDIENCE)
        teller = Teller(self.table)
        text = teller.line(len(self.log), event_view(event, self.state, GM_AUDIENCE))["text"]
        text += "".join(
            f" [{teller.name_of(cid)}: health {health['now']}/{health['max']}]"
            for cid, health in health_changes(before, self.table)
        )
        indent = " " * INDENT.get(type(event), 4)
        print("\n".join(indent + line for line in text.splitlines()))

    def command(self, command: Command) -> None:
        self.play(decide(self.state, command))

    def over(self) -> bool:
        return len(sides_standing(self.state)) < 2 or self.state.round > self.max_rounds

    def run(self) -> None:
        self.command(StartCombat())
        while not self.over():
            actor_id = self.state.current
            if actor_id is None:
                break
            self.play(attack_events(self.state, self.state.combatant(actor_id)))
            if self.over():
                break
            self.command(EndTurn(actor_id))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="combat-demo", description="A Verse demo fight with every roll explained."
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="dice seed")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="round limit")
    parser.add_argument("--pc", default="ayla", help="sample name or sheet file (the hero)")
    parser.add_argument("--foe", default="goblin", help="sample name or sheet file (the foe)")
    args = parser.parse_args(argv)

    try:
        pc_path, foe_path = sample_path(args.pc), sample_path(args.foe)
        pc, foe = load_sheet(pc_path), load_sheet(foe_path)
    except SheetError as error:
        print(error, file=sys.stderr)
        return 2
    state = build_encounter(pc, foe, pc_path.stem, foe_path.stem, args.seed)
    name_of = Teller(table_view(state, GM_AUDIENCE)).name_of
    names = " vs ".join(name_of(cid) for cid in state.combatants)
    print(f"Verse demo fight: {names} (seed {args.seed}, square grid, adjacent)")

    fight = Fight(state, args.rounds)
    fight.run()

    standing = sides_standing(fight.state)
    if len(standing) == 1:
        winners = [name_of(c.id) for c in fight.state.combatants.values() if c.active]
        print(f"The fight is over: {', '.join(winners)} still standing.")
    elif not standing:
        print("The fight is over: nobody is standing.")
    else:
        rounds = "1 round" if args.rounds == 1 else f"{args.rounds} rounds"
        print(f"No winner after {rounds}.")

    final_hash = fight.state.state_hash()
    print(f"final state hash: {final_hash} ({len(fight.log)} events)")
    replayed = replay(fight.initial, fight.log).state_hash()
    if replayed != final_hash:
        print(f"replay: state hash DIFFERS ({replayed})")
        return 1
    print("replay: state hash matches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
