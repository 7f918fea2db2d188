"""Character sheets as files people edit: read, validated and turned into engine records.

This is an edge of the system (it reads files and uses pydantic); the engine only ever
sees the validated, immutable records. The file format is documented in docs/sheets.md.
"""

from typing import Any

from server.engine.rulesets.tael.sheet import TaelSheet
from server.engine.rulesets.verse.sheet import VerseSheet
from server.sheets import tael as _tael
from server.sheets import verse as _verse
from server.sheets.files import SheetError
from server.sheets.schema import Problem
from server.sheets.verse import load_sheet, load_sheet_text, sheet_from_data, sheet_to_data

_FORMATS: dict[type, Any] = {VerseSheet: _verse.FORMAT, TaelSheet: _tael.FORMAT}


def sheet_problems(sheet: Any) -> list[Problem]:
    """What a sheet file's checks would find in a sheet record that did not come from a
    file (a combatant a GM adds over the wire): the same rules, whatever the way in. An
    object that is no ruleset's sheet has none here (its own reader checks its type)."""
    format = _FORMATS.get(type(sheet))
    if format is None:
        return []
    try:
        format.from_data(format.to_data(sheet))
    except SheetError as error:
        return list(error.problems)
    return []


__all__ = [
    "Problem",
    "SheetError",
    "load_sheet",
    "load_sheet_text",
    "sheet_from_data",
    "sheet_problems",
    "sheet_to_data",
]
