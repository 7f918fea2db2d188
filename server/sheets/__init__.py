"""Character sheets as files people edit: read, validated and turned into engine records.

This is an edge of the system (it reads files and uses pydantic); the engine only ever
sees the validated, immutable records. The file format is documented in docs/sheets.md.
"""

from server.sheets.files import SheetError
from server.sheets.schema import Problem
from server.sheets.verse import load_sheet, load_sheet_text, sheet_from_data, sheet_to_data

__all__ = [
    "Problem",
    "SheetError",
    "load_sheet",
    "load_sheet_text",
    "sheet_from_data",
    "sheet_to_data",
]
