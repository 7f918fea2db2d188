"""Movement on the grid (the text's "Movement" paragraph, T9 Dash and Sprint).

"During the Action Phase, a Character can move a number of tiles equal to his Movement
Speed ... When playing on a grid, diagonal movement counts as one tile. A Character can
not walk through other character, unless they are allies. A Character must end his turn
on a free space (with the exception of Xeragar's Blade Warriors, which can share a tile
with an ally)."

A move is a path of tiles, each a neighbour of the one before (diagonals count one
tile); it may be split over the Action Phase, the tiles adding up to Movement Speed
times this turn's factor (Dash, Sprint, or 0 after a Sprint). Walking needs no Action.
Every tile of the path must be free of anyone but allies, and the last one free of
everyone (a sheet with `shares_tiles` may end on allies' tiles). "End his turn on a
free space" is checked where each move ends, since a turn may end after any move
(TR21); the dead do not block.
"""

from __future__ import annotations

from server.engine.core import Command, Event
from server.engine.dice import DiceCup
from server.engine.effects import describe_changes
from server.engine.errors import (
    BLOCKED,
    INVALID_COMMAND,
    NOT_ADJACENT,
    TOO_FAR,
    CommandRefused,
)
from server.engine.grid import Cell
from server.engine.records import evolve, record
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.condition_rules import changed
from server.engine.rulesets.tael.positions import occupants
from server.engine.rulesets.tael.ruleset import TAEL, on_turn
from server.engine.state import Encounter

MAX_PATH = 64


@record
class MoveTiles(Command):
    """Walk `path`, tile by tile, from where `actor` stands."""

    actor: str
    path: tuple[Cell, ...]


@record
class TilesMoved(Event):
    combatant: str
    path: tuple[Cell, ...]
    tiles: int


def allowance(state: Encounter, c: TaelCombatant) -> tuple[int, tuple[tuple[str, int], ...]]:
    """The tiles this turn allows in all: Movement Speed, after what the statuses do to
    it (TR40, each named), times Dash/Sprint (0 winded)."""
    speed, changes = changed(state.condition_rules, c, "speed", c.sheet.movement)
    return max(0, speed) * c.turn.movement_factor, changes


@TAEL.decides(MoveTiles)
def decide_move(state: Encounter, command: MoveTiles, cup: DiceCup) -> list[Event]:
    actor = on_turn(state, command.actor)
    path = command.path
    if not isinstance(path, tuple) or not path or not all(isinstance(c, Cell) for c in path):
        raise CommandRefused(INVALID_COMMAND, "a move is a path of at least one tile")
    if len(path) > MAX_PATH:
        raise CommandRefused(TOO_FAR, f"a path has at most {MAX_PATH} tiles")
    tiles, changes = allowance(state, actor)
    left = tiles - actor.turn.moved
    if len(path) > left:
        why = f" ({describe_changes(changes)})" if changes else ""
        raise CommandRefused(
            TOO_FAR, f"{actor.id} may walk {left} more tile(s) this turn{why}, not {len(path)}"
        )
    here = actor.position
    for step in path:
        if state.grid.cells_between(here, step) != 1:
            raise CommandRefused(
                NOT_ADJACENT, f"({step.x}, {step.y}) is not next to ({here.x}, {here.y})"
            )
        for other in occupants(state, step, besides=actor.id):
            if other.side != actor.side:
                raise CommandRefused(
                    BLOCKED, f"{other.id} stands on ({step.x}, {step.y}): only allies let pass"
                )
        here = step
    others = occupants(state, here, besides=actor.id)
    if others and not (actor.sheet.shares_tiles and all(o.side == actor.side for o in others)):
        raise CommandRefused(
            BLOCKED, f"({here.x}, {here.y}) is taken by {others[0].id}: a move ends on a free tile"
        )
    return [TilesMoved(actor.id, path, len(path))]


@TAEL.applies(TilesMoved)
def apply_tiles_moved(state: Encounter, event: TilesMoved) -> Encounter:
    c: TaelCombatant = state.combatants[event.combatant]
    c = evolve(c, position=event.path[-1])
    return state.with_combatant(c.with_turn(moved=c.turn.moved + event.tiles))
