"""Encounter files for `combat create`: read one, put each sheet file's data in place
of its path, so the server gets everything in one `create` and never reads a path
of the client's machine (docs/protocol.md, "Creating an encounter").

An encounter file is TOML, or JSON when its name ends in `.json`; so is a sheet file.
A combatant's `sheet = "../ayla.toml"` is a path relative to the encounter file; it is
replaced by the parsed sheet, and `source` (the name the server quotes in its error
messages) is set to the sheet file's name unless the file gives one. A sheet given
inline (a table) is left as it is. So is the encounter's conditions table: given as a
string (`conditions = "../conditions/verse.toml"`) it is the path of a table file,
replaced by its data, with `conditions_source` naming the file. The fields themselves
are checked by the server, which lists every problem with its place; here only reading
and parsing can fail.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any


class EncounterFileError(ValueError):
    """A file that cannot be read or parsed; `problems` lists each as `place: reason`."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def read_encounter(path: Path) -> dict[str, Any]:
    """The encounter in `path`, with its sheet files and conditions table inlined."""
    data = _parse(path)
    problems: list[str] = []
    if isinstance(data.get("conditions"), str):
        table_path = path.parent / data["conditions"]
        try:
            data["conditions"] = _parse(table_path)
            data.setdefault("conditions_source", table_path.name)
        except EncounterFileError as error:
            problems.extend(f"conditions: {p}" for p in error.problems)
    combatants = data.get("combatants")
    if not isinstance(combatants, list):
        if problems:
            raise EncounterFileError(problems)
        return data  # the server says what is missing
    for index, entry in enumerate(combatants):
        if not isinstance(entry, dict) or not isinstance(entry.get("sheet"), str):
            continue
        sheet_path = path.parent / entry["sheet"]
        try:
            entry["sheet"] = _parse(sheet_path)
        except EncounterFileError as error:
            problems.extend(f"combatants[{index}].sheet: {p}" for p in error.problems)
            continue
        entry.setdefault("source", sheet_path.name)
    if problems:
        raise EncounterFileError(problems)
    return data


def _parse(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise EncounterFileError([f"{path.name}: cannot read: {error.strerror}"]) from None
    except UnicodeDecodeError:
        raise EncounterFileError([f"{path.name}: not UTF-8 text"]) from None
    kind = "JSON" if path.suffix.lower() == ".json" else "TOML"
    try:
        parsed = json.loads(text) if kind == "JSON" else tomllib.loads(text)
    except ValueError as error:
        raise EncounterFileError([f"{path.name}: not valid {kind}: {error}"]) from None
    if not isinstance(parsed, dict):
        raise EncounterFileError([f"{path.name}: must hold a table (a map), not a list"])
    return parsed


def read_sheet(path: Path) -> dict[str, Any]:
    """A sheet file's data as written (TOML, or JSON when the name ends in `.json`): the
    GM's `add` makes a combatant of it (`Words.new_combatant`)."""
    return _parse(path)


def gm_combatants(encounter: dict[str, Any]) -> list[str]:
    """The combatants of an encounter file that no seat plays: the GM's, in file order
    (`combat gm --plays` prompts the GM for them)."""
    entries = encounter.get("combatants")
    return [
        str(entry["id"])
        for entry in (entries if isinstance(entries, list) else [])
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and not entry.get("seat")
    ]


def seats_of(encounter: dict[str, Any]) -> dict[str, list[str]]:
    """Each player seat of an encounter file and the combatants it plays, in file order
    (`combat renew` asks the server for their tokens again)."""
    seats: dict[str, list[str]] = {}
    entries = encounter.get("combatants")
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("seat") and isinstance(entry.get("id"), str):
            seats.setdefault(str(entry["seat"]), []).append(entry["id"])
    return seats
