"""Encounters from files: who fights, on which sheets, where they stand, who plays them.

An encounter file (TOML or JSON; `docs/protocol.md`, "Creating an encounter") names
the ruleset, the mode (Live Combat or turn based), the room settings and each
combatant: an id, a side, a sheet, a cell and a facing, and the player seat that plays
it (a combatant with no seat is the GM's). A sheet is either inline data or, in a file
on disk, the path of a sheet file relative to the encounter file; `combat create`
inlines the sheets before sending, so the server never reads a client's paths.

An encounter may carry a conditions table (`conditions`: what the conditions the rules
leave open do, Verse V27, World of Tael TR40; `server/conditions.py`), inline or as the
path of a table file relative to the encounter file.

`build(spec)` validates the whole thing and returns the initial `Encounter` and the
seats, or raises `EncounterError` listing every problem with its place
(`combatants[1].sheet: health: ...`). Sheets are read by their ruleset's loader
(`SHEET_KINDS`), so a ruleset joins by adding its entry there; no code here looks at
a ruleset's name.
"""

from __future__ import annotations

import json
import secrets
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from server.conditions import Table, problems_of, rules_of
from server.engine.authority import RESERVED_NAMES
from server.engine.flow import Mode
from server.engine.grid import Cell, Grid, GridKind
from server.engine.rng import SeededDice
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.state import Encounter, Environment, Settings
from server.sheets import SheetError
from server.sheets import tael as tael_sheets
from server.sheets import verse as verse_sheets
from server.sheets.schema import path_of

Identifier = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")]


@dataclass(frozen=True)
class SheetKind:
    """How one ruleset reads a sheet and places a combatant made from it, and the modes
    it plays (the first is the default)."""

    sheet_from_data: Callable[[Any, str], Any]
    combatant: Callable[..., Any]  # (id, side, sheet, cell, facing=...) -> combatant
    modes: tuple[str, ...]


SHEET_KINDS: dict[str, SheetKind] = {
    "verse": SheetKind(
        verse_sheets.sheet_from_data, VerseCombatant.from_sheet, (Mode.LIVE, Mode.TURN_BASED)
    ),
    # World of Tael plays turn by turn (docs/rules.md, TR1).
    "tael": SheetKind(tael_sheets.sheet_from_data, TaelCombatant.from_sheet, (Mode.TURN_BASED,)),
}


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


class CombatantSpec(_Spec):
    id: Identifier
    side: Identifier
    sheet: dict[str, Any]
    source: Annotated[str, StringConstraints(max_length=200)] = ""  # the sheet's file name
    seat: Identifier | Literal[""] = ""
    at: Annotated[list[int], Field(min_length=2, max_length=2)] = [0, 0]
    facing: Annotated[int, Field(ge=0, le=7)] = 0


class SettingsSpec(_Spec):
    critical_tables: bool = False
    planning_seconds: Annotated[float, Field(gt=0, le=3600)] = 45.0
    reaction_seconds: Annotated[float, Field(gt=0, le=3600)] = 8.0
    adapt_seconds: Annotated[float, Field(gt=0, le=3600)] = 8.0
    undeclared: Literal["pass", "hold"] = "pass"
    roll_visibility: Literal["open", "faces", "hidden"] = "faces"  # R77


class EncounterSpec(_Spec):
    name: Annotated[str, StringConstraints(max_length=100)] = ""
    ruleset: str = "verse"
    mode: Literal["live", "turn_based"] | None = None  # None: the ruleset's first mode
    grid: Literal["square", "hex"] = GridKind.SQUARE.value
    cell_ft: Annotated[int, Field(ge=1, le=100)] = 5
    environment: Literal["land", "water", "air", "underground"] = Environment.LAND.value
    seed: Annotated[int, Field(ge=0, le=2**63 - 1)] | None = None
    settings: SettingsSpec = SettingsSpec()
    combatants: Annotated[list[CombatantSpec], Field(min_length=1, max_length=200)]
    conditions: Table = {}  # the conditions table (V27, TR40): server/conditions.py
    conditions_source: Annotated[str, StringConstraints(max_length=200)] = ""  # its file


class EncounterError(ValueError):
    """An encounter that cannot be built; `problems` lists each as `place: reason`."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems

    def __reduce__(self) -> tuple[type[EncounterError], tuple[list[str]]]:
        """Pickled with its problems: it comes back from a workshop's worker process."""
        return type(self), (self.problems,)


@dataclass(frozen=True)
class Built:
    """A validated encounter: its initial state and each seat's combatants."""

    encounter: Encounter
    seats: dict[str, tuple[str, ...]]
    name: str


def build(data: Any, room_id: str | None = None) -> Built:
    """The encounter `data` describes, as room `room_id` (a fresh id when None)."""
    try:
        spec = EncounterSpec.model_validate(data)
    except ValidationError as error:
        raise EncounterError(
            [f"{path_of(e['loc']) or '(encounter)'}: {e['msg']}" for e in error.errors()]
        ) from None
    kind = SHEET_KINDS.get(spec.ruleset)
    if kind is None:
        known = ", ".join(sorted(SHEET_KINDS))
        raise EncounterError([f"ruleset: {spec.ruleset!r} is not one of {known}"])
    mode = spec.mode or kind.modes[0]
    problems: list[str] = []  # every problem found, each with its place, not the first alone
    if mode not in kind.modes:
        problems.append(f"mode: {spec.ruleset} plays {' or '.join(kind.modes)}, not {mode}")
    combatants: dict[str, Any] = {}
    seats: dict[str, list[str]] = {}
    cells: dict[tuple[int, int], str] = {}
    seen: set[str] = set()
    for index, entry in enumerate(spec.combatants):
        place = f"combatants[{index}]"
        for field, value in (("id", entry.id), ("seat", entry.seat)):
            if value.lower() in RESERVED_NAMES:
                problems.append(f"{place}.{field}: {value!r} is reserved; choose another name")
        if entry.id in seen:
            problems.append(f"{place}.id: {entry.id!r} is used twice")
            continue
        seen.add(entry.id)
        cell = (entry.at[0], entry.at[1])
        if cell in cells:
            problems.append(f"{place}.at: {entry.at} is {cells[cell]}'s cell too")
        cells[cell] = entry.id
        try:
            sheet = kind.sheet_from_data(entry.sheet, entry.source or f"{place}.sheet")
        except SheetError as error:
            where = f"{place}.sheet ({entry.source})" if entry.source else f"{place}.sheet"
            problems.extend(f"{where}: {p.path or '(sheet)'}: {p.reason}" for p in error.problems)
            continue
        combatants[entry.id] = kind.combatant(
            entry.id, entry.side, sheet, Cell(*cell), facing=entry.facing
        )
        if entry.seat:
            seats.setdefault(entry.seat, []).append(entry.id)
    rules = rules_of(spec.conditions)
    where = f"conditions ({spec.conditions_source})" if spec.conditions_source else "conditions"
    problems.extend(f"{where}.{p}" for p in problems_of(spec.ruleset, rules))
    if problems:
        raise EncounterError(problems)
    room = room_id or new_room_id(spec.name)
    seed = spec.seed if spec.seed is not None else secrets.randbits(63)
    encounter = Encounter(
        id=room,
        ruleset=spec.ruleset,
        combatants=combatants,
        dice=SeededDice(seed),
        grid=Grid(spec.grid, spec.cell_ft),
        environment=spec.environment,
        settings=Settings(**spec.settings.model_dump()),
        mode=mode,
        condition_rules=rules,
    )
    return Built(encounter, {seat: tuple(ids) for seat, ids in seats.items()}, spec.name)


def new_room_id(name: str = "") -> str:
    """A room id people can read out: the name's first letters and a random part."""
    stem = "".join(ch for ch in name.lower().replace(" ", "-") if ch.isalnum() or ch == "-")
    stem = stem.strip("-")[:24] or "fight"
    return f"{stem}-{secrets.token_hex(3)}"


def read_file(path: Path) -> dict[str, Any]:
    """An encounter file with its sheet paths replaced by the sheets' data.

    A sheet given as a string is a path relative to the encounter file (TOML or JSON),
    and so is a conditions table given as a string. Raises `EncounterError` for a file,
    sheet or table that cannot be read or parsed.
    """
    data = _parse(path)
    if isinstance(data.get("conditions"), str):
        table_path = path.parent / data["conditions"]
        try:
            data["conditions"] = _parse(table_path)
        except EncounterError as error:
            raise EncounterError([f"conditions: {p}" for p in error.problems]) from None
        data.setdefault("conditions_source", table_path.name)
    entries = data.get("combatants")
    if isinstance(entries, list):
        for index, entry in enumerate(entries):
            if isinstance(entry, dict) and isinstance(entry.get("sheet"), str):
                sheet_path = path.parent / entry["sheet"]
                try:
                    entry["sheet"] = _parse(sheet_path)
                except EncounterError as error:
                    raise EncounterError(
                        [f"combatants[{index}].sheet: {p}" for p in error.problems]
                    ) from None
                entry.setdefault("source", sheet_path.name)
    return data


def _parse(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise EncounterError([f"{path.name}: cannot read: {error.strerror}"]) from None
    try:
        parsed = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except ValueError as error:
        kind = "JSON" if path.suffix == ".json" else "TOML"
        raise EncounterError([f"{path.name}: not valid {kind}: {error}"]) from None
    if not isinstance(parsed, dict):
        raise EncounterError([f"{path.name}: must hold a table (a map), not a list"])
    return parsed
