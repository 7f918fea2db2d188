"""The ruleset table: each rule system's words (`Words`) by the name a room gives it.

The shared parts of the program look the room's ruleset up here (`words_for`) and never
compare its name: a typed line is read against the choices the server offers, the
same in every room, and a rule system adds only its few words (`<name>_words.py`).
A ruleset with no entry plays with the choices' own words and numbers.
"""

from __future__ import annotations

from clients.tael_words import TAEL
from clients.verse_words import VERSE
from clients.words import Words, plain

RULESETS: dict[str, Words] = {words.name: words for words in (VERSE, TAEL)}
"""Every rule system this program has words for, by `welcome.ruleset`."""


def words_for(ruleset: str) -> Words:
    """The room's words; a ruleset this program does not know gets the choices' own."""
    return RULESETS.get(ruleset) or plain(ruleset)


def known(ruleset: str) -> bool:
    """Whether this program has words for `ruleset`."""
    return ruleset in RULESETS
