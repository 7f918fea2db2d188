"""Rides: mounting, riding along and being thrown when the ride goes down ("Ride Combat").

"Ride Combat is any combat performed with a Ride including mounts, Land Rides, Water
Rides, and Air Rides." A ride is a combatant whose sheet has `is_ride=True`: it has
its own turns, field of view, "Dodges and Resistances just as normal combat", so an
attack on a ride already uses the ride's own sheet defences (attacks.py, damage.py).

Our readings where the text is open (docs/rules.md):
- `Mount` is a Move action of the rider on its turn: the ride must be adjacent (at
  most one cell away), on the same Ascension level, able to act and on the rider's
  side (the text says nothing; a GM who wants otherwise moves the ride to the
  rider's side first). A ride carries any number of riders ("the rider(s)"); a ride
  does not mount another ride. The rider then stands in the ride's cell.
- `Dismount` is a Move action too, to a free cell adjacent to the ride. A cell is free
  when no other able (`active`) combatant on the same Ascension level holds it
  (`positions.blocker_at`, the test every move uses): a dead or unconscious body does
  not block.
- Mount and Dismount being Move actions, they break a spell being charged (V12), like
  every move (`interruptions.movement_side_effects`).
- Riders move with their ride: a ride's `Move` (movement.py) and its change of
  Ascension level (ascension.py) append the `RiderCarried` events of
  `carry_riders_events`. A rider does not move or change level on its own while
  mounted: it dismounts first.
- "Hexagon grids are used during Ride Combat": ride encounters should be created with
  `Grid(kind="hex")`; we do not refuse a mount on a square grid.
- "When a ride is destroyed or disabled in combat, the rider(s) must make a DC20 Dex
  Save or Athletics Check": the sheet has no Athletics, so every rider makes the Dex
  save `d20 + Dexterity` against 20 (meets or beats, V19; a save has no natural
  20/1 rule, V3 is about attacks), riders in the order of their ids.
  "Destroyed or disabled" is read as: the ride can no longer act (Dead, Unconscious,
  Stunned, Knocked Out). Success: "landing on their feet in an adjacent square".
  Failure: "pinned under the Ride, thrown prone while taking damage, or even killed if
  the ride explodes": the rider gains Prone and is dismounted the same way; damage,
  pinning and death are left to the GM (the text gives no numbers). Either way the
  rider lands in the first free neighbour of the ride's cell in `grid.neighbours`
  order not taken by an earlier rider; if none is free it stays in the ride's cell.
  Falls from a flying ride's Ascension are the GM's too.
- Weapon and spell damage that kills a ride throws its riders at once
  (`riders_thrown_by`, called by attacks.py and spells.py with the damage events).
  A ride disabled otherwise (Stunned, Knocked Out, Unconscious from a critical-table
  row or Constitution overdraw) throws nobody by itself: the room or the GM then
  issues `RideDestroyed`.
"""

from __future__ import annotations

from typing import ClassVar

from server.engine.core import Command, Event
from server.engine.dice import DiceCup, Roll
from server.engine.errors import (
    ALREADY_MOUNTED,
    BLOCKED,
    INVALID_COMMAND,
    NOT_A_RIDE,
    NOT_MOUNTED,
    OTHER_ASCENSION,
    OTHER_SIDE,
    OUT_OF_REACH,
    RIDE_STANDING,
    TARGET_DOWN,
    CommandRefused,
)
from server.engine.grid import Cell
from server.engine.records import evolve, record
from server.engine.rulesets.verse.combatant import PRONE, VerseCombatant
from server.engine.rulesets.verse.condition_rules import save_bonuses
from server.engine.rulesets.verse.conditions import gained, killed
from server.engine.rulesets.verse.interruptions import movement_side_effects
from server.engine.rulesets.verse.positions import blocker_at
from server.engine.rulesets.verse.ruleset import VERSE, acting, combatant
from server.engine.rulesets.verse.sheet import ActionType
from server.engine.rulesets.verse.turns import check_action, spend
from server.engine.state import Encounter

THROWN_DC = 20  # "a DC20 Dex Save"


# --- commands -------------------------------------------------------------------


@record
class Mount(Command):
    """Climb onto an adjacent ride of one's own side (a Move action)."""

    actor: str
    ride: str


@record
class Dismount(Command):
    """Climb down from one's ride into a free cell next to it (a Move action)."""

    actor: str
    cell: Cell


@record
class RideDestroyed(Command):
    """The ride is down: every rider makes the DC 20 Dex save (the room or GM issues it)."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm", "room"})
    ride: str


# --- events ---------------------------------------------------------------------


@record
class Mounted(Event):
    rider: str
    ride: str
    cell: Cell
    ascension: int
    action: str


@record
class Dismounted(Event):
    rider: str
    ride: str
    cell: Cell
    action: str


@record
class RiderCarried(Event):
    """A rider moves with its ride (no action of its own)."""

    rider: str
    ride: str
    cell: Cell
    ascension: int


@record
class RiderThrown(Event):
    """The DC 20 Dex save of a rider whose ride went down, and where it landed."""

    rider: str
    ride: str
    roll: Roll
    dc: int
    success: bool  # on its feet; a failure is followed by ConditionGained Prone
    cell: Cell

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)

    def describe(self) -> str:
        result = "lands on its feet" if self.success else "is thrown prone"
        return f"Dex save {self.roll.describe()} vs DC {self.dc}: {result}"


# --- the rules ------------------------------------------------------------------


def riders_of(state: Encounter, ride_id: str) -> tuple[VerseCombatant, ...]:
    """Everyone mounted on `ride_id`, by id (the order their saves are rolled in)."""
    riders = (state.combatants[i] for i in sorted(state.combatants))
    return tuple(c for c in riders if c.mounted_on == ride_id)


def carry_riders_events(
    state: Encounter, ride_id: str, to_cell: Cell, ascension: int | None = None
) -> list[Event]:
    """The events that move `ride_id`'s riders along with it to `to_cell`.

    Appended after a ride's `Moved` (movement.py) and `AscensionChanged` (ascension.py)
    ("Ride Combat": riders go where their ride goes); `ascension` is the ride's new
    level when it ascends or descends.
    """
    events: list[Event] = []
    for rider in riders_of(state, ride_id):
        level = rider.ascension if ascension is None else ascension
        events.append(RiderCarried(rider.id, ride_id, to_cell, level))
    return events


def landing_cells(state: Encounter, ride: VerseCombatant, count: int) -> list[Cell]:
    """Where `count` thrown riders land: the free neighbours of the ride's cell in
    `grid.neighbours` order, one each; the ride's own cell when none is left."""
    free = [
        cell
        for cell in state.grid.neighbours(ride.position)
        if blocker_at(state, ride, cell, ride.ascension) is None
    ]
    return [free[i] if i < len(free) else ride.position for i in range(count)]


def riders_thrown_by(
    state: Encounter, cup: DiceCup, target: VerseCombatant, damage: list[Event]
) -> list[Event]:
    """The riders' saves when `damage` (events just decided) kills the ride `target`.

    Called wherever damage is dealt with dice at hand (weapon attacks, spells).
    """
    if target.sheet.is_ride and killed(damage, target.id):
        return ride_destroyed_events(state, cup, target.id)
    return []


def ride_destroyed_events(state: Encounter, cup: DiceCup, ride_id: str) -> list[Event]:
    """ "When a ride is destroyed or disabled in combat, the rider(s) must make a DC20
    Dex Save": success lands on its feet next to the ride, failure lands Prone.

    Call it from damage handling with the state the damage was decided against (the
    ride need not be Dead in it yet); no riders, no events.
    """
    ride = state.combatants[ride_id]
    riders = riders_of(state, ride_id)
    cells = landing_cells(state, ride, len(riders))
    events: list[Event] = []
    for rider, cell in zip(riders, cells, strict=True):
        bonuses = save_bonuses(state.condition_rules, rider, "dexterity")  # V27
        roll = cup.d20((("Dexterity", rider.abilities.dexterity), *bonuses))
        success = roll.total >= THROWN_DC
        events.append(RiderThrown(rider.id, ride_id, roll, THROWN_DC, success, cell))
        if not success:
            events.append(gained(rider, PRONE, reason=f"thrown from {ride_id}"))
    return events


def _ride(state: Encounter, ride_id: str) -> VerseCombatant:
    ride = combatant(state, ride_id)
    if not ride.sheet.is_ride:
        raise CommandRefused(NOT_A_RIDE, f"{ride_id} is not a ride")
    return ride


# --- deciders -------------------------------------------------------------------


@VERSE.decides(Mount)
def decide_mount(state: Encounter, command: Mount, cup: DiceCup) -> list[Event]:
    actor = acting(state, command.actor)
    check_action(actor, ActionType.MOVE, state.condition_rules)
    ride = _ride(state, command.ride)
    if actor.sheet.is_ride:
        raise CommandRefused(INVALID_COMMAND, f"{actor.id} is a ride and cannot mount another")
    if actor.mounted_on:
        raise CommandRefused(ALREADY_MOUNTED, f"{actor.id} already rides {actor.mounted_on}")
    if not ride.active:
        raise CommandRefused(TARGET_DOWN, f"{ride.id} cannot carry anyone now")
    if ride.side != actor.side:
        raise CommandRefused(OTHER_SIDE, f"{ride.id} is not on {actor.id}'s side")
    if ride.ascension != actor.ascension:
        raise CommandRefused(
            OTHER_ASCENSION,
            f"{ride.id} is on Ascension {ride.ascension}, {actor.id} on {actor.ascension}",
        )
    if state.grid.cells_between(actor.position, ride.position) > 1:
        raise CommandRefused(OUT_OF_REACH, f"{ride.id} is not next to {actor.id}")
    mounted = Mounted(actor.id, ride.id, ride.position, ride.ascension, ActionType.MOVE)
    return [mounted, *movement_side_effects(state, actor)]  # V12: a Move action


@VERSE.decides(Dismount)
def decide_dismount(state: Encounter, command: Dismount, cup: DiceCup) -> list[Event]:
    actor = acting(state, command.actor)
    check_action(actor, ActionType.MOVE, state.condition_rules)
    if not actor.mounted_on:
        raise CommandRefused(NOT_MOUNTED, f"{actor.id} is not riding anything")
    if not isinstance(command.cell, Cell):
        raise CommandRefused(INVALID_COMMAND, "Dismount names the cell to step down into")
    ride = state.combatants[actor.mounted_on]
    if state.grid.cells_between(ride.position, command.cell) != 1:
        raise CommandRefused(OUT_OF_REACH, f"{command.cell} is not next to {ride.id}")
    blocker = blocker_at(state, actor, command.cell, actor.ascension)
    if blocker is not None:
        raise CommandRefused(BLOCKED, f"{blocker.id} stands in {command.cell}")
    dismounted = Dismounted(actor.id, ride.id, command.cell, ActionType.MOVE)
    return [dismounted, *movement_side_effects(state, actor)]  # V12: a Move action


@VERSE.decides(RideDestroyed)
def decide_ride_destroyed(state: Encounter, command: RideDestroyed, cup: DiceCup) -> list[Event]:
    ride = _ride(state, command.ride)
    if ride.active:
        raise CommandRefused(RIDE_STANDING, f"{ride.id} is neither destroyed nor disabled")
    if not riders_of(state, ride.id):
        raise CommandRefused(NOT_MOUNTED, f"nobody rides {ride.id}")
    return ride_destroyed_events(state, cup, ride.id)


# --- appliers -------------------------------------------------------------------


@VERSE.applies(Mounted)
def apply_mounted(state: Encounter, event: Mounted) -> Encounter:
    c: VerseCombatant = state.combatants[event.rider]
    return state.with_combatant(
        evolve(
            c,
            position=event.cell,
            ascension=event.ascension,
            mounted_on=event.ride,
            actions=spend(c.actions, event.action),
        )
    )


@VERSE.applies(Dismounted)
def apply_dismounted(state: Encounter, event: Dismounted) -> Encounter:
    c: VerseCombatant = state.combatants[event.rider]
    return state.with_combatant(
        evolve(c, position=event.cell, mounted_on="", actions=spend(c.actions, event.action))
    )


@VERSE.applies(RiderCarried)
def apply_rider_carried(state: Encounter, event: RiderCarried) -> Encounter:
    c: VerseCombatant = state.combatants[event.rider]
    return state.with_combatant(evolve(c, position=event.cell, ascension=event.ascension))


@VERSE.applies(RiderThrown)
def apply_rider_thrown(state: Encounter, event: RiderThrown) -> Encounter:
    c: VerseCombatant = state.combatants[event.rider]
    return state.with_combatant(evolve(c, position=event.cell, mounted_on=""))
