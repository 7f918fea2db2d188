"""Build Point unlock tables (V14; "Basics & Combat": UD, SD and SAL tables).

Each track unlocks in order: 5 BP per step, so the step reached is BP // 5,
capped at the last row.
"""

from __future__ import annotations

from server.engine.rulesets.verse.sheet import AccessLevel, VerseSheet

DIE_STEPS = ("1d4", "1d6", "1d8", "1d10", "1d12")  # BP 0, 5, 10, 15, 20
ACCESS_STEPS = (
    AccessLevel.CANTRIP,
    AccessLevel.COMMON,
    AccessLevel.UNCOMMON,
    AccessLevel.ABNORMAL,
    AccessLevel.RARE,
    AccessLevel.VERY_RARE,
)  # BP 0, 5, 10, 15, 20, 25
BP_PER_STEP = 5


def _step(build_points: int, steps: int) -> int:
    return min(max(build_points, 0) // BP_PER_STEP, steps - 1)


def unarmed_die(sheet: VerseSheet) -> str:
    return DIE_STEPS[_step(sheet.build_points.unarmed_die, len(DIE_STEPS))]


def spell_die(sheet: VerseSheet) -> str:
    return DIE_STEPS[_step(sheet.build_points.spell_die, len(DIE_STEPS))]


def spell_access_level(sheet: VerseSheet) -> str:
    return ACCESS_STEPS[_step(sheet.build_points.spell_access, len(ACCESS_STEPS))]


def can_cast_level(sheet: VerseSheet, level: str) -> bool:
    """V14: a spell above the caster's access level may be known but not cast."""
    return ACCESS_STEPS.index(AccessLevel(level)) <= ACCESS_STEPS.index(
        AccessLevel(spell_access_level(sheet))
    )
