"""Loading a ruleset's sheets: the same steps for every ruleset, one place.

A ruleset's sheet module builds its `SheetSchema` and its rule checks (what the
schema cannot say: duplicate names, a weapon in hand that the sheet does not list...)
and gets a `SheetFormat` that reads files, text and parsed data the same way for all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import ValidationError

from server.engine.effects import name_problem
from server.sheets.files import SheetError, format_of, parse_text, read_text
from server.sheets.schema import Problem, SheetSchema

S = TypeVar("S")


class SheetFormat(Generic[S]):
    """How sheets of one ruleset are read: the schema, then the ruleset's own checks."""

    def __init__(self, schema: SheetSchema, rule_problems: Callable[[S], list[Problem]]) -> None:
        self.schema = schema
        self.rule_problems = rule_problems

    def from_data(self, data: Any, source_name: str = "<sheet>") -> S:
        """The sheet for already-parsed file data, or `SheetError` listing every problem."""
        try:
            sheet: S = self.schema.validate(data)
        except ValidationError as error:
            raise SheetError(source_name, self.schema.problems(error)) from None
        problems = self.rule_problems(sheet)
        if problems:
            raise SheetError(source_name, problems)
        return sheet

    def from_text(self, text: str, format: str, source_name: str = "<sheet>") -> S:
        """The sheet written in `text`, `format` "toml" or "json"."""
        return self.from_data(parse_text(text, format, source_name), source_name)

    def from_file(self, path: str | Path) -> S:
        """The sheet in a `.toml` or `.json` file."""
        path = Path(path)
        format = format_of(path)  # before reading: a `.yaml` file is refused for its name
        return self.from_text(read_text(path), format, str(path))

    def to_data(self, sheet: S, *, defaults: bool = False) -> dict[str, Any]:
        """The file form of a sheet as plain data (`json.dumps` it to write a JSON sheet)."""
        data: dict[str, Any] = self.schema.to_file_data(sheet, defaults=defaults)
        return data


def immunity_problems(immunities: tuple[str, ...]) -> list[Problem]:
    """Each immunity names a condition (V27, TR41), once whatever its case."""
    problems = []
    seen: dict[str, int] = {}
    for i, name in enumerate(immunities):
        wrong = name_problem(name)
        if wrong:
            problems.append(Problem(f"immunities[{i}]", wrong))
        elif name.casefold() in seen:
            reason = f"{name!r} is already immunities[{seen[name.casefold()]}]"
            problems.append(Problem(f"immunities[{i}]", reason))
        else:
            seen[name.casefold()] = i
    return problems


def duplicate_names(array: str, names: list[str]) -> list[Problem]:
    """A problem for every name in `array` that an earlier entry already has."""
    counts = Counter(names)
    first: dict[str, int] = {}
    problems = []
    for i, name in enumerate(names):
        if counts[name] > 1 and name in first:
            reason = f"{name!r} is already the name of {array}[{first[name]}]"
            problems.append(Problem(f"{array}[{i}].name", reason))
        first.setdefault(name, i)
    return problems
