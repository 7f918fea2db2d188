"""Verse's GM overrides as choices (`overrides.py`): health, mana, conditions, a
position, adding another of a sheet in play, removing a combatant, skipping a turn."""

from __future__ import annotations

from typing import Any

from server.engine.core import Command
from server.engine.grid import Cell
from server.engine.rulesets.verse.combatant import (
    DEAD,
    EXHAUSTED,
    KNOCKED_OUT,
    PRONE,
    STUNNED,
    UNCONSCIOUS,
    VerseCombatant,
)
from server.engine.rulesets.verse.criticals_tables import (
    ARMOUR_FRAGILE,
    BLEED,
    BLINDED,
    PARANOID_INSANITY,
    SHAKEN,
)
from server.engine.rulesets.verse.overrides import (
    AddCombatant,
    RemoveCombatant,
    RemoveCondition,
    SetCondition,
    SetHealth,
    SetMana,
    SetPosition,
    SkipTurn,
)
from server.engine.state import Encounter
from server.table.choices import Probe
from server.table.overrides import Data, choice, number, pick, register_overrides, whom


def verse_overrides(probe: Probe) -> list[tuple[Data, Command]]:
    state = probe.state
    first = next(iter(state.combatants.values()))
    found: list[tuple[Data, Command]] = [
        (
            choice(
                "set_health",
                "Set health",
                SetHealth("", 0),
                whom(probe),
                number("/health", "health"),
            ),
            SetHealth(first.id, first.health),
        ),
        (
            choice("set_mana", "Set mana", SetMana("", 0), whom(probe), number("/mana", "mana")),
            SetMana(first.id, first.mana),
        ),
        (
            choice(
                "set_position",
                "Place",
                SetPosition("", Cell(0, 0)),
                whom(probe),
                number("/cell/x", "x", least=None),
                number("/cell/y", "y", least=None),
            ),
            SetPosition(first.id, first.position),
        ),
        (
            choice("remove_combatant", "Remove from the fight", RemoveCombatant(""), whom(probe)),
            RemoveCombatant(first.id),
        ),
        (choice("skip_turn", "Skip the turn", SkipTurn()), SkipTurn()),
    ]
    found += reinforcements(state)
    names = condition_names(state)
    options = [(n, n) for n in names]
    found += [
        (
            choice(
                "set_condition",
                "Lay a condition until removed",
                SetCondition("", names[0]),
                whom(probe),
                pick("/condition", "condition", options),
            ),
            SetCondition(first.id, names[0]),
        ),
        (
            choice(
                "set_condition_rounds",
                "Lay a condition for some rounds",
                SetCondition("", names[0], 1),
                whom(probe),
                pick("/condition", "condition", options),
                number("/rounds", "rounds", least=1),
            ),
            SetCondition(first.id, names[0], 1),
        ),
    ]
    for c in state.combatants.values():
        for condition in c.conditions:
            command = RemoveCondition(c.id, condition.name)
            label = f"Remove {condition.name} from {probe.name(c.id)}"
            found.append(
                (choice(f"remove_condition:{c.id}:{condition.name}", label, command), command)
            )
    return found


NAMED_CONDITIONS: tuple[str, ...] = (DEAD, UNCONSCIOUS, STUNNED, KNOCKED_OUT, EXHAUSTED, PRONE)
NAMED_CONDITIONS += (BLEED, SHAKEN, BLINDED, PARANOID_INSANITY, ARMOUR_FRAGILE)
"""The conditions the Verse text names (docs/rules.md; V27): those the engine gives an
effect (`combatant.py`) and those the critical tables lay (`criticals_tables.py`)."""


def condition_names(state: Encounter) -> list[str]:
    """What the GM may lay: the conditions the text names and the room's conditions
    table's, each once (names match whatever their case, the text's spelling kept),
    sorted. The engine takes any name; these are the ones the fight gives meaning."""
    names = {name.casefold(): name for name in NAMED_CONDITIONS}
    for rule in state.condition_rules:
        names.setdefault(rule.name.casefold(), rule.name)
    return sorted(names.values())


ADDED_SHEETS = 8
"""Sheets in play offered as "add another" at most: each option carries a whole
combatant, so a fight of many sheets does not make the GM's console heavy."""

_MADE: dict[int, tuple[Any, str, str, Cell, Data, Command]] = {}
"""Each sheet's last "add another" option, by the sheet object (kept in the entry, so
its id is not another's): the console is worked out again after most batches, and
writing a whole combatant out costs more than the rest of it."""


def reinforcements(state: Encounter) -> list[tuple[Data, Command]]:
    """ "Add another Goblin": one more combatant of each sheet in play (the first
    `ADDED_SHEETS`), on its side, with a fresh id, fresh from its sheet, on a free
    cell the GM may change (its x and y). A combatant of a sheet nobody plays yet
    comes with a sheet file (the terminal's `add`). The first is tried on the engine
    for all: they differ by their sheet alone."""
    found: list[tuple[Data, Command]] = []
    seen: set[str] = set()
    cell = _free_cell(state)
    for c in state.combatants.values():
        if c.sheet.name in seen or len(seen) >= ADDED_SHEETS:
            continue
        seen.add(c.sheet.name)
        option, command = _reinforcement(c, _fresh_id(state, c.id), cell)
        found.append((option, found[0][1] if found else command))
    return found


def _reinforcement(like: VerseCombatant, new_id: str, cell: Cell) -> tuple[Data, Command]:
    kept = _MADE.get(id(like.sheet))
    if kept is not None and kept[0] is like.sheet and kept[1:4] == (like.side, new_id, cell):
        return kept[4], kept[5]
    command = AddCombatant(VerseCombatant.from_sheet(new_id, like.side, like.sheet, cell))
    option = choice(
        f"reinforce:{like.id}",
        f"Add another {like.sheet.name} ({new_id}, {like.side})",
        command,
        number("/combatant/position/x", "x", least=None),
        number("/combatant/position/y", "y", least=None),
    )
    if len(_MADE) >= 64:
        _MADE.clear()
    _MADE[id(like.sheet)] = (like.sheet, like.side, new_id, cell, option, command)
    return option, command


def _fresh_id(state: Encounter, like: str) -> str:
    """An id no combatant has, after `like`: g1 -> g3 when g2 is taken."""
    stem = like.rstrip("0123456789") or like
    n = 2
    while f"{stem}{n}" in state.combatants:
        n += 1
    return f"{stem}{n}"


def _free_cell(state: Encounter) -> Cell:
    """The first cell nobody stands on, row by row from the fight's corner."""
    used = {(c.position.x, c.position.y) for c in state.combatants.values()}
    xs = [x for x, _ in used] or [0]
    ys = [y for _, y in used] or [0]
    for y in range(min(ys), max(ys) + 2):
        for x in range(min(xs), max(xs) + 2):
            if (x, y) not in used:
                return Cell(x, y)
    return Cell(max(xs) + 1, max(ys) + 1)  # never reached: the last row is free


register_overrides("verse", verse_overrides)
