"""One rule system's words at the table, as the ruleset table (`rulesets.py`) holds them.

Since protocol 2 a typed line is read against the choices the server offers
(`matching.py`), whatever the room's rules: the shared parts of the program know no
rule system by name. What a rule system still adds is small and is data, because the
server cannot send it: the words people are used to for an option (`aliases`: Tael's
`hp` for the GM's `set_hit_points`), the GM commands it offers no option for
(`commands`), another system's words it answers with its own (`instead`), the note
after an override (`advice`), and how a sheet file becomes the combatant `add` sends
(`new_combatant`). A ruleset this program has no table for gets `plain` words: the
choices' own words and numbers, and `raw {...}`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from clients.lines import AddFromSheet, Context, Data

Reader = Callable[[list[str], Context], Data]
"""A GM command the server offers no option for: the words after its verb -> the command."""


def _no_advice(command: Data, context: Context) -> str | None:
    return None


@dataclass(frozen=True)
class Words:
    """A rule system's words: see the module's docstring.

    `aliases` map a typed phrase to the words of an option's key, for a seat's options
    (`use` -> `use item`); `gm_words` likewise for the GM's console (`health` -> `set
    health`), refused to players as GM commands; both readings of a line, as typed and
    as the alias makes it, are tried. `commands` read the GM commands the console does
    not offer, with their usage in `help`; `help` is the rest of the help, one entry a
    line (`usage   (what it does)`)."""

    name: str
    """As `welcome.ruleset` says it."""
    aliases: Mapping[str, str] = field(default_factory=dict)
    gm_words: Mapping[str, str] = field(default_factory=dict)
    commands: Mapping[str, Reader] = field(default_factory=dict)
    instead: Mapping[str, str] = field(default_factory=dict)
    help: str = ""
    gm_help: str = ""
    advice: Callable[[Data, Context], str | None] = _no_advice
    new_combatant: Callable[[Data, AddFromSheet], Data] | None = None


def plain(ruleset: str) -> Words:
    """The words for a ruleset this program has no table for: the choices' own."""
    return Words(ruleset)


def unknown_ruleset(ruleset: str) -> str:
    """What the screen says of a ruleset it has no words for."""
    return (
        f"this program does not know the words of the {ruleset!r} rules: the words and "
        'numbers of the choices offered work, and raw commands (raw {"type": ...})'
    )
