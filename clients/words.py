"""One rule system's words at the table, as the ruleset table (`rulesets.py`) holds them.

The program's shared parts (`commands.parse`, the console) know no
rule system by name: they look the room's ruleset (`welcome.ruleset`) up and use its
`Words`, so adding a rule system is a module of its own and one entry in the table
(the issue for the second ruleset: no `if ruleset == ...` in shared code). A ruleset
this program does not know gets `raw_only` words: `raw {...}` commands and the numbered
choices, so a newer server can still be played, if roughly. What happens in the fight
is told by the server's log lines, never here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from clients.lines import AddFromSheet, CommandError, Context, Data, Role

LineReader = Callable[[str, list[str], Context], Data | AddFromSheet]
"""Reads a line's verb and the words after it into an engine command map (or, for a
GM's `add`, the sheet file to read and the combatant to make of it)."""


def _never(verb: str, args: list[str]) -> bool:
    return False


def _no_advice(command: Data, context: Context) -> str | None:
    return None


@dataclass(frozen=True)
class Words:
    """A rule system's grammar and help: how a typed line becomes a command.

    `read` takes a line once the words every room knows (help, quit, look, raw, as)
    are read; `gm_only` are the verbs refused to players before `read` sees them;
    `help` is the text for a GM or a player; `claims` says a line that starts with a
    shared word is this system's own (Tael's `help <ally>`, T9); `advice` is what the
    screen adds once a command is accepted, from the command and the context it was
    typed in (Verse: a health override that leaves the Dead condition as it was), or
    None; `new_combatant` makes the combatant record `AddCombatant` takes from a sheet
    file's data (None: the room's rules add none). How a combatant looks is the
    server's card (`protocol.table.Card`), drawn by `table_screen.py`; what happens,
    the server's log lines."""

    name: str
    """As `welcome.ruleset` says it."""
    read: LineReader
    gm_only: frozenset[str]
    help: Callable[[Role], str]
    claims: Callable[[str, list[str]], bool] = _never
    advice: Callable[[Data, Context], str | None] = _no_advice
    new_combatant: Callable[[Data, AddFromSheet], Data] | None = None


def raw_only(ruleset: str) -> Words:
    """The words for a ruleset this program does not know: only `raw {...}` commands."""

    def read(verb: str, args: list[str], context: Context) -> Data:
        raise CommandError("unknown_ruleset", f"{unknown_ruleset(ruleset)} (type 'help')")

    def help_text(role: Role) -> str:
        return (
            f"{unknown_ruleset(ruleset)}:\n"
            '  raw {"type": "...", ...}   (docs/protocol.md, "Engine commands")\n'
            "Any time: look (the fight at a glance) | help | quit"
        )

    return Words(ruleset, read, frozenset(), help_text)


def unknown_ruleset(ruleset: str) -> str:
    """What the screen says of a ruleset it has no words for."""
    return (
        f"this program does not know the words of the {ruleset!r} rules: "
        'only raw commands work here (raw {"type": ...})'
    )
