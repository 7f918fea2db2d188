"""Who is where: reach, range, facing, held cells and being engaged in melee, on the grid.

Whatever picks or lists combatants goes by id (`sorted(state.combatants)`), never by
the dict's insertion order: two states with the same hash (which sorts the keys) must
decide the same events.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

from server.engine.grid import Cell, Grid
from server.engine.memo import last_answer
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.state import Encounter

MELEE_REACH_FT = 5


def distance_ft(state: Encounter, a: VerseCombatant, b: VerseCombatant) -> int:
    return state.grid.distance_ft(a.position, b.position)


def facing_toward(grid: Grid, origin: Cell, cell: Cell) -> int:
    """The grid facing (of its 8 or 6) nearest the direction from `origin` to `cell`.

    A direction exactly between two facings (on hexes, e.g. 30 degrees) takes the
    counter-clockwise one, the higher facing (`grid.angle_deg` counts counter-clockwise).
    Used for where a mover faces after its last step and where a Cone or Line points.
    """
    step = 360.0 / grid.directions
    return math.floor(grid.angle_deg(origin, cell) / step + 0.5 + 1e-9) % grid.directions


def blocker_at(
    state: Encounter, mover: VerseCombatant, cell: Cell, ascension: int
) -> VerseCombatant | None:
    """Another able combatant holding `cell` on `ascension`, or None when it is free.

    The mover, its ride and its riders do not block it; a dead or unconscious body does
    not block anyone. Moves, level changes, Dismount and thrown riders use this test.
    """
    for other in _holders(state.combatants).get((cell, ascension), ()):
        if (
            other.id != mover.id
            and other.active
            and other.id != mover.mounted_on
            and other.mounted_on != mover.id
        ):
            return other
    return None


@last_answer
def _holders(
    combatants: Mapping[str, VerseCombatant],
) -> dict[tuple[Cell, int], list[VerseCombatant]]:
    """Who stands on each cell and level, by id: a move's choices ask about every cell
    within its reach (`memo`)."""
    found: dict[tuple[Cell, int], list[VerseCombatant]] = {}
    for other_id in sorted(combatants):
        other = combatants[other_id]
        found.setdefault((other.position, other.ascension), []).append(other)
    return found


def engaged_with(state: Encounter, c: VerseCombatant, other: VerseCombatant) -> bool:
    """Is `other` an able foe on `c`'s Ascension level within 5 ft: one `c` is in melee with?

    The text never defines "engaged"; we read it as standing in melee reach of an
    able enemy (docs/rules.md).
    """
    return (
        other.side != c.side
        and other.id != c.id
        and other.ascension == c.ascension
        and other.active
        and state.grid.distance_ft(c.position, other.position) <= MELEE_REACH_FT
    )


def engaged_foes(state: Encounter, c: VerseCombatant) -> Iterator[VerseCombatant]:
    """The foes `c` is engaged with (`engaged_with`), by id."""
    for other_id in sorted(state.combatants):
        other: VerseCombatant = state.combatants[other_id]
        if engaged_with(state, c, other):
            yield other


def is_engaged(state: Encounter, c: VerseCombatant, besides: str = "") -> bool:
    """Is `c` in melee with any able foe other than `besides`? (Order-free: no sort.)"""
    return any(
        other.id != besides and engaged_with(state, c, other) for other in state.combatants.values()
    )
