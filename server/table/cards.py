"""The card registry: how each ruleset draws one combatant as a `Card`.

A ruleset gives one function, `CardOf`, from a combatant's plain data, already
redacted for the audience (for the GM `to_data(combatant)`, for anyone else the
ruleset's `views_of(ruleset).combatant(combatant, audience)`), to the plain dict of a
`protocol.table.Card`. It never sees the record: a card can hold nothing the redacted
data does not, so the table shows no more than `state_view` would (the package
docstring). A ruleset with no card function still gets a card, the smallest one
(`minimal_card`): fail closed, never a guess at fields.

A card function may read the audience only through what `Audience.key` says (its kind
and sides), like the views: `view.TableCache` shares cards among audiences of one key.

The helpers below keep every string within the bounds the contract sets (`Word`,
`Text`), so a long name on a sheet shortens on the card instead of failing the frame.

This module imports nothing of the table but the engine's views, so the rulesets'
card modules (`verse_cards`, `tael_cards`) register themselves here at import and
`view` imports them without a cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from server.engine.errors import cut
from server.engine.views import Audience, Data

CardOf = Callable[[Data, Audience], Data]
"""A ruleset's card: (the combatant's redacted plain data, the audience) -> a Card dict."""

WORD = 64  # protocol.table.Word, protocol.messages.MAX_NAME
TEXT = 1024  # protocol.messages.MAX_TEXT

CARDS: dict[str, CardOf] = {}


def register_cards(ruleset: str, card: CardOf) -> CardOf:
    """Make `card` the way `ruleset`'s combatants are drawn (a ruleset's module calls
    it at import); returns `card`, so it works as a decorator's body too."""
    CARDS[ruleset] = card
    return card


def card_of(ruleset: str) -> CardOf:
    """The card function of `ruleset`, or `minimal_card` when it has none."""
    return CARDS.get(ruleset, minimal_card)


def minimal_card(data: Data, audience: Audience) -> Data:
    """The card of a ruleset that has no card function: only its id, name, side and
    cell, read from the redacted data (a field the views left out stays out)."""
    card: Data = {"id": data["id"], "name": "", "side": word(data.get("side", ""))}
    sheet = data.get("sheet")
    name = data.get("name", sheet.get("name") if isinstance(sheet, dict) else None)
    if isinstance(name, str):
        card["name"] = text(name)
    card["position"] = cell(data.get("position"))
    return card


# --- pieces of a card ---------------------------------------------------------------------


def word(value: str) -> str:
    """`value` cut to a `Word`'s length."""
    return cut(value, WORD - 3)


def text(value: str) -> str:
    """`value` cut to a `Text`'s length."""
    return cut(value, TEXT - 3)


def words(values: Iterable[str]) -> list[str]:
    return [text(v) for v in values]


def cell(data: Any) -> list[int]:
    """A `Cell`'s plain data as the card's `[x, y]` ([0, 0] when there is none)."""
    if isinstance(data, dict):
        return [data.get("x", 0), data.get("y", 0)]
    return [0, 0]


def meter(now: Any, most: Any) -> Data | None:
    """A `Meter` when both numbers are there (the audience sees them), else None."""
    if type(now) is int and type(most) is int:
        return {"now": now, "max": most}
    return None


def tag(name: str, rounds_left: int | None) -> Data:
    return {"name": word(name), "rounds_left": rounds_left}


def row(label: str, value: object) -> list[str]:
    """One line of `Card.details`: a label and its value, both text."""
    return [text(label), text(str(value))]


def signed(value: int) -> str:
    """A modifier as a sheet writes it: "+2", "-1", "+0"."""
    return f"{value:+d}"


def listed(values: Iterable[str]) -> str:
    """Items of a row, comma-separated ("-" for none)."""
    return ", ".join(values) or "-"
