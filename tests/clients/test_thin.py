"""The `combat` program stays thin: the server draws the fight, the client knows no rule.

Since protocol 2 the server sends each connection its table, its log lines and its
choices (docs/protocol.md, "Receiving the fight"), and a typed line is read against
those choices (`matching.py`), so what a rule system still needs in `clients/` is its
few words (`<name>_words.py`: aliases for options, the GM commands the server offers
no option for) and, for Verse, how a sheet file becomes the combatant the GM adds
(`verse_sheets.py`). These checks keep it so: a rule creeping back into the client (a
grammar, a narration, a fold of events, a card drawn from a ruleset's fields) shows as
lines here or as a ruleset's name in shared code.
"""

from __future__ import annotations

import ast
from pathlib import Path

from clients.rulesets import RULESETS

CLIENTS = Path(__file__).resolve().parents[2] / "clients"

RULESET_LINES = 297
"""A ceiling on the lines of `clients/verse_*.py` and `clients/tael_*.py` together (297
when it was set, 1,126 before the typed grammar was read from the choices). Lower it
when they shrink; never raise it without a reason a reviewer would accept (what the
server cannot send as data)."""

NAMED_HERE = {("lines.py", "DEFAULT_RULESET")}
"""Where shared code may still write a ruleset's name: the ruleset a line is read in
before the room says its own (`lines.DEFAULT_RULESET`)."""


def ruleset_modules() -> list[Path]:
    return sorted(p for name in RULESETS for p in CLIENTS.glob(f"{name}_*.py"))


def test_the_rulesets_own_modules_stay_under_their_ceiling() -> None:
    modules = ruleset_modules()
    assert {p.name for p in modules} >= {f"{name}_words.py" for name in RULESETS}
    lines = sum(len(p.read_text().splitlines()) for p in modules)
    assert lines <= RULESET_LINES, f"{lines} lines in {[p.name for p in modules]}"


def names_written(source: str) -> list[tuple[str, str]]:
    """Each string in `source`'s code (not its docstrings or comments) that is a
    ruleset's name or holds one as a word, with the name it is assigned to ("" if none)."""
    tree = ast.parse(source)
    docstrings = {  # a string standing alone: a module's, a class's, a name's docstring
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    assigned = {
        id(node.value): target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            words = set(node.value.lower().replace("_", " ").replace("/", " ").split())
            if id(node) not in docstrings and words & set(RULESETS):
                found.append((node.value, assigned.get(id(node), "")))
    return found


def test_the_finder_sees_a_name_in_code_and_not_in_a_docstring() -> None:
    source = (
        '"""Verse and tael."""\nRULES = "tael"\n"""Tael\'s."""\n'
        'if room == "verse rules":\n    pass\n'
    )
    assert names_written(source) == [("tael", "RULES"), ("verse rules", "")]


def test_no_shared_module_writes_a_rulesets_name() -> None:
    """Shared code looks the room's ruleset up in the table (`rulesets.words_for`);
    only `rulesets.py` and each rule system's own modules name one (`NAMED_HERE` says
    the one exception)."""
    own = {p.name for p in ruleset_modules()} | {"rulesets.py"}
    found = {
        (p.name, value, target)
        for p in sorted(CLIENTS.glob("*.py"))
        if p.name not in own
        for value, target in names_written(p.read_text())
    }
    assert {(name, target) for name, _, target in found} <= NAMED_HERE, sorted(found)
