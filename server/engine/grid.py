"""The battle map: square or hexagon cells, distances in feet, facing and arcs.

Verse, "Combat Styles": every square is 5 feet; a hexagon is 5 feet unless the
Verse Master sets another scale. The rule text does not say how diagonals count;
we count every step to a neighbouring cell, diagonals included, as one cell
(Chebyshev distance on squares, hex distance on hexagons) - see docs/rules.md.
"""

from __future__ import annotations

import math
from enum import StrEnum

from server.engine.records import record


class GridKind(StrEnum):
    SQUARE = "square"
    HEX = "hex"


@record
class Cell:
    """A square `(x, y)` or a hexagon in axial coordinates `(q, r)` stored as `(x, y)`."""

    x: int
    y: int


@record
class Grid:
    kind: str = GridKind.SQUARE
    cell_ft: int = 5

    @property
    def directions(self) -> int:
        """How many facings a combatant can have: 8 on squares, 6 on hexagons."""
        return 6 if self.kind == GridKind.HEX else 8

    def cells_between(self, a: Cell, b: Cell) -> int:
        dx = b.x - a.x
        dy = b.y - a.y
        if self.kind == GridKind.HEX:
            return (abs(dx) + abs(dy) + abs(dx + dy)) // 2
        return max(abs(dx), abs(dy))

    def distance_ft(self, a: Cell, b: Cell) -> int:
        return self.cells_between(a, b) * self.cell_ft

    def angle_deg(self, a: Cell, b: Cell) -> float:
        """Direction from `a` to `b`, counter-clockwise from the +x axis."""
        dx, dy = self._plane(b.x - a.x, b.y - a.y)
        return math.degrees(math.atan2(dy, dx)) % 360.0

    def facing_deg(self, facing: int) -> float:
        """Facing 0 looks along +x; each step turns 45 degrees (squares) or 60 (hexes)."""
        return (facing % self.directions) * 360.0 / self.directions

    def within_arc(self, origin: Cell, facing: int, target: Cell, half_angle: float) -> bool:
        """Is `target` within `half_angle` degrees either side of where `origin` looks?"""
        if origin == target:
            return True
        diff = abs(self.angle_deg(origin, target) - self.facing_deg(facing)) % 360.0
        return min(diff, 360.0 - diff) <= half_angle + 1e-9

    def lateral_ft(self, origin: Cell, facing: int, target: Cell) -> float:
        """How far `target` lies to the side of the line `origin` looks along, in feet."""
        return abs(self._along(origin, facing, target)[1])

    def forward_ft(self, origin: Cell, facing: int, target: Cell) -> float:
        """How far `target` lies along the line `origin` looks along, in feet (negative
        behind it): how far a Cone has spread out when it reaches the target's cell."""
        return self._along(origin, facing, target)[0]

    def _along(self, origin: Cell, facing: int, target: Cell) -> tuple[float, float]:
        """`target` in feet along and across the line `origin` looks along."""
        dx, dy = self._plane(target.x - origin.x, target.y - origin.y)
        rad = math.radians(self.facing_deg(facing))
        scale = self.cell_ft if self.kind == GridKind.SQUARE else self.cell_ft / math.sqrt(3)
        cos, sin = math.cos(rad), math.sin(rad)
        return (cos * dx + sin * dy) * scale, (-sin * dx + cos * dy) * scale

    def _plane(self, dx: int, dy: int) -> tuple[float, float]:
        if self.kind == GridKind.HEX:
            return math.sqrt(3) * (dx + dy / 2), 1.5 * dy
        return float(dx), float(dy)

    def neighbours(self, cell: Cell) -> tuple[Cell, ...]:
        if self.kind == GridKind.HEX:
            steps: tuple[tuple[int, int], ...] = (
                (1, 0),
                (1, -1),
                (0, -1),
                (-1, 0),
                (-1, 1),
                (0, 1),
            )
        else:
            steps = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
        return tuple(Cell(cell.x + dx, cell.y + dy) for dx, dy in steps)
