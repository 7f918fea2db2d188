"""Reading sheet files: TOML or JSON text to plain data, and the error every loader raises.

A sheet is written by a person, so every problem is reported in terms of the file: its
name, the field's path in it and the reason, one line per problem.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from server.sheets.schema import Problem

FORMATS = ("toml", "json")


class SheetError(ValueError):
    """A sheet file that cannot be used. `str(error)` has one line per problem:
    `ayla.toml: weapons[1].damage: cannot read dice expression '1x8' at 'x8'`."""

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        self.source = source
        self.problems = tuple(problems)
        super().__init__("\n".join(p.line(source) for p in self.problems))


def format_of(path: Path) -> str:
    """The format a file's name promises: `.toml` or `.json`."""
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise SheetError(
            str(path), [Problem("", f"unknown sheet format {path.suffix!r}; use .toml or .json")]
        )
    return suffix


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise SheetError(str(path), [Problem("", f"cannot read the file: {reason}")]) from error


def parse_text(text: str, format: str, source: str) -> dict[str, Any]:
    """The top-level table of a TOML or JSON document."""
    if format not in FORMATS:
        reason = f"unknown sheet format {format!r}; use toml or json"
        raise SheetError(source, [Problem("", reason)])
    try:
        data: Any = tomllib.loads(text) if format == "toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        raise SheetError(source, [Problem("", f"not valid {format.upper()}: {error}")]) from error
    if not isinstance(data, dict):
        raise SheetError(source, [Problem("", "a sheet must be a table (an object) of fields")])
    return data
