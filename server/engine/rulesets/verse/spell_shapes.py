"""Where a spell reaches: range, Ascension level and the Cone, Line and Area shapes (V15).

Readings of the rule text ("Spell Range Types", "The Spell List & Casting Rules"):

* Touch: an adjacent cell (any grid scale). Close 30 ft, Medium 200 ft, Long 500 ft.
  Self: the caster, with no attack roll (also a single-target spell of Self range).
  Only combatants on the caster's Ascension level can be targeted or affected.
* Single-target spells take one target, or as many as a `targets` option buys.
* Cone and Line start at the caster and point along the facing (of the grid's 8 or 6)
  nearest the direction of the target cell (or of the first target, who must be on
  the caster's Ascension level); ties between two facings go counter-clockwise
  (`positions.facing_toward`). They reach `length_ft` when the spell sells it,
  else the spell's range (Touch and Self: 5 ft). A cell is inside when it lies in
  front of the caster (less than 90 degrees off the axis, `Grid.within_arc`), within
  that reach by grid distance, and no farther to the side of the axis
  (`Grid.lateral_ft`) than half the width there. A Line is 5 ft wide throughout; a
  Cone, read literally, "doubles in width for every five feet it extends out": 5 ft
  wide at 5 ft, 10 ft at 10 ft, 20 ft at 15 ft, 40 ft at 20 ft: `5 * 2 ** (d / 5 - 1)`
  where d is how far out along its axis it has come (`Grid.forward_ft`), so a cell
  beside the caster but far to the side is not inside. The caster's own cell is never
  inside a Cone or Line.
* Area: every cell whose grid distance from the target cell is at most half the
  bought `diameter_ft` (5 ft, the target cell alone, when the spell sells no size).
  The grid's own metric (grid.py) makes this a square of cells on square grids. The
  centre must be within the spell's range; a Self-range Area is centred on the caster.
  Everyone alive inside is affected, allies and the caster included.
* The reach that counts for V15's visual-range penalty: each single target's own
  distance (`spells.resolve_spell`: each is its own attack, V1), the Area's centre, or
  the farthest combatant inside a Cone or Line. `aim` returns the farthest reach, which
  the range check uses.
* Everyone a Cone, Line or Area affects is listed by id: effects and any dice they
  need (a ride's thrown riders) follow that order, whatever the state's dict order.
* `targets` must be a tuple of ids and `target` a cell (or none): anything else is a
  malformed command (`invalid_command`).
"""

from __future__ import annotations

from server.engine.errors import INVALID_COMMAND, OTHER_ASCENSION, OUT_OF_RANGE, CommandRefused
from server.engine.grid import Cell, Grid
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.positions import facing_toward
from server.engine.rulesets.verse.ruleset import standing_target
from server.engine.rulesets.verse.sheet import Spell, SpellRange, SpellShape
from server.engine.rulesets.verse.spell_costs import (
    DEFAULT_DIAMETER_FT,
    DIAMETER,
    LENGTH,
    option_amount,
)
from server.engine.state import Encounter

RANGE_FT = {  # V15
    SpellRange.SELF: 0,
    SpellRange.TOUCH: 5,
    SpellRange.CLOSE: 30,
    SpellRange.MEDIUM: 200,
    SpellRange.LONG: 500,
}
LINE_WIDTH_FT = 5.0
CONE_STEP_FT = 5.0  # "doubling in width for every five feet it extends out"
MIN_LENGTH_FT = 5  # a Touch or Self Cone or Line
IN_FRONT = 89.9  # degrees off the axis: less than 90, so never beside or behind
TARGETS = "targets"  # an option that buys more single targets


def range_ft(spell: Spell) -> int:
    return RANGE_FT[SpellRange(spell.range)]


def affects_caster_only(spell: Spell) -> bool:
    """Self spells, and single-target spells of Self range: no attack roll."""
    return spell.shape == SpellShape.SELF or (
        spell.shape == SpellShape.SINGLE and spell.range == SpellRange.SELF
    )


def check_ascension(caster: VerseCombatant, target: VerseCombatant) -> None:
    """ "Ascension Levels": spells reach only the caster's own level."""
    if caster.ascension != target.ascension:
        raise CommandRefused(
            OTHER_ASCENSION,
            f"{target.id} is on Ascension {target.ascension}, {caster.id} on {caster.ascension}",
        )


def check_in_range(state: Encounter, caster: VerseCombatant, spell: Spell, cell: Cell) -> int:
    """V15: Touch is an adjacent cell, the others their range in feet. The distance."""
    distance = state.grid.distance_ft(caster.position, cell)
    if spell.range == SpellRange.TOUCH:
        if state.grid.cells_between(caster.position, cell) > 1:
            raise CommandRefused(OUT_OF_RANGE, f"{spell.name} needs touch; {distance} ft away")
    elif distance > range_ft(spell):
        raise CommandRefused(
            OUT_OF_RANGE, f"{spell.name} reaches {range_ft(spell)} ft, not {distance} ft"
        )
    return distance


def in_shape(grid: Grid, shape: str, origin: Cell, facing: int, cell: Cell, length: int) -> bool:
    """Is `cell` inside a Cone or Line from `origin` (geometry: module docstring)?"""
    distance = grid.distance_ft(origin, cell)
    if distance == 0 or distance > length or not grid.within_arc(origin, facing, cell, IN_FRONT):
        return False
    if shape == SpellShape.LINE:
        width = LINE_WIDTH_FT
    else:  # its width where it reaches the cell: how far out along its axis it has come
        out = grid.forward_ft(origin, facing, cell)
        width = CONE_STEP_FT * 2.0 ** (out / CONE_STEP_FT - 1)
    return grid.lateral_ft(origin, facing, cell) <= width / 2 + 1e-9


def aim(
    state: Encounter,
    caster: VerseCombatant,
    spell: Spell,
    bought: tuple[tuple[str, int], ...],
    targets: tuple[str, ...],
    cell: Cell | None,
) -> tuple[tuple[str, ...], int]:
    """Who the spell would affect and how far it reaches (for V15), or a refusal."""
    if not isinstance(targets, tuple) or not all(isinstance(t, str) for t in targets):
        raise CommandRefused(INVALID_COMMAND, "targets are combatant ids")
    if cell is not None and not isinstance(cell, Cell):
        raise CommandRefused(INVALID_COMMAND, "the target cell must be a cell")
    if affects_caster_only(spell):
        if targets not in ((), (caster.id,)) or cell is not None:
            raise CommandRefused(INVALID_COMMAND, f"{spell.name} affects its caster only")
        return (caster.id,), 0
    if spell.shape == SpellShape.SINGLE:
        return _aim_single(state, caster, spell, bought, targets)
    if cell is None and targets:
        aimed_at = standing_target(state, targets[0])
        check_ascension(caster, aimed_at)
        cell = aimed_at.position
    if cell is None and spell.shape == SpellShape.AREA and spell.range == SpellRange.SELF:
        cell = caster.position
    if cell is None:
        raise CommandRefused(INVALID_COMMAND, f"{spell.name} needs a target cell or target")
    grid = state.grid
    by_id = (state.combatants[i] for i in sorted(state.combatants))
    level = [c for c in by_id if c.alive and c.ascension == caster.ascension]
    if spell.shape == SpellShape.AREA:
        if spell.range == SpellRange.SELF:
            if cell != caster.position:
                raise CommandRefused(OUT_OF_RANGE, f"{spell.name} is centred on its caster")
            reach = 0
        else:
            reach = check_in_range(state, caster, spell, cell)
        diameter = option_amount(bought, DIAMETER, DEFAULT_DIAMETER_FT)
        inside = [c.id for c in level if 2 * grid.distance_ft(cell, c.position) <= diameter]
        return tuple(inside), reach
    if cell == caster.position:
        raise CommandRefused(INVALID_COMMAND, f"{spell.name} needs a direction away from you")
    facing = facing_toward(grid, caster.position, cell)
    length = option_amount(bought, LENGTH, max(range_ft(spell), MIN_LENGTH_FT))
    origin = caster.position
    in_it = [c for c in level if in_shape(grid, spell.shape, origin, facing, c.position, length)]
    reach = max((grid.distance_ft(origin, c.position) for c in in_it), default=0)
    return tuple(c.id for c in in_it), reach


def _aim_single(
    state: Encounter,
    caster: VerseCombatant,
    spell: Spell,
    bought: tuple[tuple[str, int], ...],
    targets: tuple[str, ...],
) -> tuple[tuple[str, ...], int]:
    allowed = option_amount(bought, TARGETS, 1)
    if not targets or len(targets) > allowed or len(set(targets)) != len(targets):
        raise CommandRefused(INVALID_COMMAND, f"{spell.name} takes 1 to {allowed} targets")
    farthest = 0
    for target_id in targets:
        target = standing_target(state, target_id)
        check_ascension(caster, target)
        farthest = max(farthest, check_in_range(state, caster, spell, target.position))
    return targets, farthest
