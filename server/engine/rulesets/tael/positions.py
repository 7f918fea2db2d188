"""Where combatants stand on the grid, in tiles (Tael counts a diagonal step as one tile).

"The default range of most weapons is 1 meter or one tile when playing on a grid";
"When playing on a grid, diagonal movement counts as one tile" - so distances are
counted in steps to a neighbouring tile, diagonals included (`Grid.cells_between`).
"""

from __future__ import annotations

from server.engine.grid import Cell
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.state import Encounter

MELEE_RANGE = 1  # tiles: "the default range of most weapons is ... one tile"


def tiles_between(state: Encounter, a: TaelCombatant, b: TaelCombatant) -> int:
    return state.grid.cells_between(a.position, b.position)


def enemy_in_melee_range(state: Encounter, c: TaelCombatant) -> bool:
    """T3: "If an enemy is within melee range of you": an able foe within one tile. A
    fainted or dead foe hinders nobody's aim (TR7)."""
    for other in state.combatants.values():
        if (
            other.side != c.side
            and other.active
            and state.grid.cells_between(c.position, other.position) <= MELEE_RANGE
        ):
            return True
    return False


def occupants(state: Encounter, cell: Cell, besides: str = "") -> list[TaelCombatant]:
    """Who stands on `cell` (the dead do not block a tile, TR21)."""
    return [
        c
        for c in state.combatants.values()
        if c.position == cell and not c.dead and c.id != besides
    ]
