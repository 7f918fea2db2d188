"""The ruleset table: each rule system's words (`Words`) by the name a room gives it.

The shared parts of the program look the room's ruleset up here (`words_for`) and never
compare its name: adding a rule system is its own module (its grammar in
`<name>_commands.py`) and one line below. Everything else the program shows (the
table, the log, the choices) the server sends as data no rule is needed to draw.
"""

from __future__ import annotations

from clients.tael_commands import TAEL
from clients.verse_commands import VERSE
from clients.words import Words, raw_only

RULESETS: dict[str, Words] = {words.name: words for words in (VERSE, TAEL)}
"""Every rule system this program has words for, by `welcome.ruleset`."""


def words_for(ruleset: str) -> Words:
    """The room's words; a ruleset this program does not know gets raw commands only."""
    return RULESETS.get(ruleset) or raw_only(ruleset)


def known(ruleset: str) -> bool:
    """Whether this program has words for `ruleset` (else only raw commands work)."""
    return ruleset in RULESETS
