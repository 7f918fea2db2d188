"""Who is where: reach, range and being engaged in melee, measured on the grid."""

from __future__ import annotations

from collections.abc import Iterator

from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.state import Encounter

MELEE_REACH_FT = 5


def distance_ft(state: Encounter, a: VerseCombatant, b: VerseCombatant) -> int:
    return state.grid.distance_ft(a.position, b.position)


def engaged_foes(state: Encounter, c: VerseCombatant) -> Iterator[VerseCombatant]:
    """Able foes on the same Ascension level within 5 ft: those `c` is in melee with.

    The text never defines "engaged"; we read it as standing in melee reach of an
    able enemy (docs/rules.md).
    """
    for other in state.combatants.values():
        if (
            other.side != c.side
            and other.id != c.id
            and other.ascension == c.ascension
            and other.active
            and state.grid.distance_ft(c.position, other.position) <= MELEE_REACH_FT
        ):
            yield other


def is_engaged(state: Encounter, c: VerseCombatant, besides: str = "") -> bool:
    """Is `c` in melee with any able foe other than `besides`?"""
    return any(foe.id != besides for foe in engaged_foes(state, c))
