"""docs/rules.md maps every rule to its code and its test: each one it names must exist.

A function or test renamed or removed would otherwise leave the map pointing at
nothing. Tests are named `file.py::test_name`, with the path from the repository root
(`tests/room/test_timers.py::...`) or the file's name alone (`test_overrides.py::...`);
code is named `file.py: name`, `another_name` (names after a file belong to it until
the next `;` or the next file named), the file by its name or the end of its path
(`verse/views.py`).
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = (ROOT / "docs" / "rules.md").read_text()
TEST_REFERENCE = re.compile(r"`((?:tests/)?[\w/]*test_\w+\.py)::(\w+)")
SPAN = re.compile(r"`([^`]*)`|;|\|")
CODE = re.compile(r"([\w/]+\.py): ([\w.]+)")
NAME = re.compile(r"[A-Za-z_]\w*(?:\.\w+)*")


@cache
def defined_in(path: Path) -> frozenset[str]:
    """The functions, classes and module or class level names the file defines."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return frozenset(names)


def files_named(file: str, under: tuple[str, ...]) -> list[Path]:
    if (ROOT / file).exists():
        return [ROOT / file]
    return sorted(
        path
        for folder in under
        for path in (ROOT / folder).rglob(Path(file).name)
        if path.as_posix().endswith("/" + file)
    )


def missing(references: list[tuple[str, str]], under: tuple[str, ...]) -> list[str]:
    return sorted(
        {
            f"{file}: {name}"
            for file, name in references
            if not any(name.split(".")[-1] in defined_in(p) for p in files_named(file, under))
        }
    )


def test_every_test_the_rules_map_names_exists() -> None:
    references = TEST_REFERENCE.findall(RULES)
    assert len(references) > 100  # the map is read at all
    assert missing(references, ("tests",)) == []


def code_references(text: str) -> list[tuple[str, str]]:
    """Every (file, name) of the map's code cells, names after a file included."""
    found = []
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        file = ""
        for span in SPAN.finditer(line):
            inside = span.group(1)
            if inside is None:  # a `;` or a cell border ends a file's names
                file = ""
            elif code := CODE.fullmatch(inside):
                file = code.group(1)
                found.append((file, code.group(2)))
            elif file and NAME.fullmatch(inside):
                found.append((file, inside))
    return [(f, n) for f, n in found if not Path(f).name.startswith("test_")]


def test_every_function_the_rules_map_names_exists() -> None:
    references = code_references(RULES)
    assert len(references) > 100
    assert missing(references, ("server", "protocol", "clients")) == []
