"""An encounter sent as its files' text (`create` with `files`): a browser cannot parse
TOML, so it sends the files as they are and the server reads them as `combat create`
reads them from disk (`clients/encounters.py`).

The files are named by their paths relative to one another (`encounters/demo.toml`,
`ayla.toml`). A sheet or conditions table the encounter names by path is looked up
relative to the encounter file's name, as on disk; when no file has that name, by its
last part alone, since a browser's upload keeps file names and not folders (so
`sheet = "../ayla.toml"` finds an uploaded `ayla.toml`).

Every problem is reported at once, each with its file and place: files that cannot be
parsed, paths that name no file sent, and what `build` finds in the rest (the parts
that could not be read are left out of its report, which could only repeat them).
A file nested deeper than any encounter or sheet is (`MAX_DEPTH`) is refused as it is
parsed. A sheet that several combatants name is parsed once and shared, but each
combatant is built from it: the sheets are counted for each combatant that names them
(`MAX_SHEETS_TEXT`), so a small frame cannot make the server build a large encounter
(one sheet of 60 KB named by 200 combatants made a state of 27 MB in 4 s of CPU).

This is the host's work, done in its workshop (`server/workshop.py`), never on the
event loop.
"""

from __future__ import annotations

import copy
import json
import posixpath
import tomllib
from collections.abc import Mapping
from typing import Any

from server.encounters import Built, EncounterError, build

MAX_DEPTH = 32
"""Levels of tables and lists a file may nest: a sheet needs five or six."""
MAX_SHEETS_TEXT = 256 * 1024
"""Characters of sheet files an uploaded encounter may build from, each file counted
once for every combatant that names it: 200 combatants of 1.3 KB sheets (the samples
have 0.8 to 1.3 KB), or 4 of the largest sheet a frame can carry. The rest of a
`create` is bounded by its frame (64 KiB). What a room holds, the process holds for as
long as it runs, and its garbage collector walks it: a room of 8 sheets of 60 KB made
full collections of 100 to 200 ms once a few dozen were running."""


def built_of(encounter: Mapping[str, Any], files: Mapping[str, str], file: str) -> Built:
    """The encounter a `create` describes, built (as a fresh room): its `encounter`
    map, or the file `file` of `files` with its sheets inlined; `EncounterError`
    listing every problem."""
    if not file:
        if files:
            raise EncounterError(["file: name the encounter file among the files sent"])
        return build(encounter)
    if encounter:
        raise EncounterError(["send the encounter as a map or as files, not both"])
    return read_files(files, file)


def read_files(files: Mapping[str, str], main: str) -> Built:
    """The encounter file `main` of `files`, its sheet and table paths replaced by the
    data of the files they name, checked whole and built (module docstring)."""
    parsed: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    for name, text in files.items():
        try:
            parsed[name] = parse_file(name, text)
        except EncounterError as error:
            problems.extend(error.problems)
    if main not in files:
        sent = ", ".join(sorted(files)) or "none"
        raise EncounterError([f"file: no file named {main!r} was sent (sent: {sent})", *problems])
    if main not in parsed:
        raise EncounterError(problems)
    data = copy.deepcopy(parsed[main])  # its entries get their sheets in place
    unread: list[str] = []  # places whose file could not be read: build's word on them is noise
    by_name: dict[str, list[str]] = {}
    for sent in files:
        by_name.setdefault(posixpath.basename(sent), []).append(sent)

    def inline(place: str, path: Any) -> Any:
        name = _find(files, by_name, main, str(path))
        if name is None:
            problems.append(f"{main}: {place}: no file {path!r} among the files sent")
        elif name in parsed:
            return name, parsed[name]  # shared: build reads a sheet, never changes it
        unread.append(f"{main}: {place}")
        return None

    if isinstance(data.get("conditions"), str):
        found = inline("conditions", data["conditions"])
        data["conditions"] = {} if found is None else found[1]
        if found is not None:
            data.setdefault("conditions_source", posixpath.basename(found[0]))
    entries = data.get("combatants")
    sheets_text = 0  # of the sheet files named, once for each combatant naming one
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        if isinstance(entry, dict) and isinstance(entry.get("sheet"), str):
            found = inline(f"combatants[{index}].sheet", entry["sheet"])
            entry["sheet"] = {} if found is None else found[1]
            if found is not None:
                entry.setdefault("source", posixpath.basename(found[0]))
                sheets_text += len(files[found[0]])
    if sheets_text > MAX_SHEETS_TEXT:  # before building any: that is the work bounded
        raise EncounterError(
            [
                f"{main}: combatants: their sheet files hold {sheets_text // 1024} KiB,"
                f" counted for each combatant that names one; at most"
                f" {MAX_SHEETS_TEXT // 1024} KiB",
                *problems,
            ]
        )
    try:
        built = build(data)
    except EncounterError as error:
        problems.extend(
            f"{main}: {p}" for p in error.problems if not _under(f"{main}: {p}", unread)
        )
        raise EncounterError(problems) from None  # what it left out was reported above
    if problems:
        raise EncounterError(problems)
    return built


def _find(
    files: Mapping[str, str], by_name: Mapping[str, list[str]], main: str, path: str
) -> str | None:
    """The name among `files` of the file `path` names, relative to `main` (or by its
    last part alone: `by_name`, the files by their last part)."""
    name = posixpath.normpath(posixpath.join(posixpath.dirname(main), path))
    if name in files:
        return name
    alike = by_name.get(posixpath.basename(path), [])
    return alike[0] if len(alike) == 1 else None


def _under(problem: str, places: list[str]) -> bool:
    return any(problem.startswith((f"{place}:", f"{place} (", f"{place}.")) for place in places)


def parse_file(name: str, text: str) -> dict[str, Any]:
    """File `name`'s text as data (JSON when its name ends in `.json`, else TOML), or
    `EncounterError` saying why not; also read by `server/sheet_files.py`."""
    kind = "JSON" if name.lower().endswith(".json") else "TOML"
    try:
        parsed = json.loads(text) if kind == "JSON" else tomllib.loads(text)
    except ValueError as error:
        raise EncounterError([f"{name}: not valid {kind}: {error}"]) from None
    except RecursionError:  # the parsers recurse: a file of brackets alone runs out
        raise EncounterError([f"{name}: nested more than {MAX_DEPTH} levels deep"]) from None
    if not isinstance(parsed, dict):
        raise EncounterError([f"{name}: must hold a table (a map), not a list"])
    if _deeper_than(parsed, MAX_DEPTH):
        raise EncounterError([f"{name}: nested more than {MAX_DEPTH} levels deep"])
    return parsed


def _deeper_than(data: Any, most: int) -> bool:
    """Does `data` nest more than `most` levels of maps and lists? Walked without
    recursion, so any depth the parser produced is measured."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        )
        for child in children:
            if isinstance(child, dict | list):
                if depth + 1 > most:
                    return True
                stack.append((child, depth + 1))
    return False
