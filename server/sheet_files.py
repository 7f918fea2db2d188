"""A sheet file sent as its text (`read_sheet`): the combatant `AddCombatant` takes.

A browser cannot parse TOML, so a GM adding a creature of a new kind sends the sheet
file as it is; the server reads it as `create` reads an uploaded sheet
(`server/encounter_files.py`: the same parsers and depth limit) and checks it with
the room's ruleset's sheet reader (`server/encounters.py`, `SHEET_KINDS`), so a sheet
the GM adds meets the rules an encounter's sheets meet. Every problem is reported at
once, each with its place in the file.

The answer is the combatant record itself, made as an encounter makes one
(`from_sheet`: full health, its weapons in hand, ...), in the wire's plain-data form:
the page sets its `id`, `side`, `position` and `facing` and sends it in
`AddCombatant` unchanged, whatever the ruleset, without knowing a sheet's fields.
"""

from __future__ import annotations

from typing import Any

from server.encounter_files import parse_file
from server.encounters import SHEET_KINDS, EncounterError
from server.engine.grid import Cell
from server.engine.records import to_data
from server.sheets import SheetError


def combatant_from_file(ruleset: str, name: str, text: str) -> dict[str, Any]:
    """The combatant the sheet file `name` (its `text`) makes in a room of `ruleset`,
    with an empty id and side at cell 0,0; `EncounterError` listing every problem."""
    kind = SHEET_KINDS.get(ruleset)
    if kind is None:  # every room's ruleset has its entry; kept for a clear word
        raise EncounterError([f"{name}: a {ruleset} room reads no sheet files"])
    data = parse_file(name, text)
    try:
        sheet = kind.sheet_from_data(data, name)
    except SheetError as error:
        raise EncounterError(
            [f"{name}: {p.path or '(sheet)'}: {p.reason}" for p in error.problems]
        ) from None
    combatant: dict[str, Any] = to_data(kind.combatant("", "", sheet, Cell(0, 0)))
    return combatant
