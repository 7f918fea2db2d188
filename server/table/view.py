"""The table: the whole fight as one audience may see it (`protocol.table.TableView`).

`table_view(state, audience)` builds the table as plain dicts; `TableCache` builds the
same table reusing the cards of the combatants that did not change, which is what the
feed calls once per audience and batch (`patch.diff` then skips them by identity).

Everything comes from the redacted data of `server.engine.views`:

* each combatant's `Card` from its redacted plain data (the GM: `to_data`; anyone
  else: the ruleset's `views_of(ruleset).combatant`), drawn by the ruleset's card
  function (`cards.register_cards`; `verse_cards`, `tael_cards`);
* the turn order from `slot_view`: another side's initiative is its own number (R77),
  so its slot shows only whose turn it is;
* the open window from `window_view` (who it asks and who has answered: its asks'
  options are never on the table);
* `declared`: who has declared this round, never what (V20 keeps the declarations'
  actions secret while the planning window is open; who declared is public, as each
  `DeclarationMade` shows everyone).

The rest is the table's for everyone: mode, phase, round, whose turn, the pause, the
grid, the room's settings (public in `state_view` too) and the version.

`result`: the state records only that the fight ended (`CombatEnded` sets the phase,
`commands.apply_combat_ended`); the sides out of it and whether it ended by agreement
are the event's, which the log shows. So an ended table says it ended, no more.

Fail closed: a ruleset whose combatants no view rule covers cannot be drawn for
anyone but the GM (`views_of` raises `LookupError`), and one with no card function
gets minimal cards (id, name, side, cell).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from server.engine.records import to_data
from server.engine.state import Encounter, Phase
from server.engine.views import Audience, Data, slot_view, views_of, window_view
from server.table import tael_cards, verse_cards  # noqa: F401 (they register their cards)
from server.table.cards import CardOf, card_of, register_cards

__all__ = ["CardOf", "TableCache", "register_cards", "table_view"]

ENDED = "The fight has ended."


def table_view(state: Encounter, audience: Audience) -> Data:
    """The `TableView` of `state` as `audience` may see it, as plain data."""
    card = card_of(state.ruleset)
    redact = _redactor(state, audience)
    combatants = {cid: card(redact(c), audience) for cid, c in state.combatants.items()}
    parts = {name: make(state, audience) for name, (make, _) in PARTS.items()}
    return _table(state, combatants, _settings(state), _grid(state), parts)


def _redactor(state: Encounter, audience: Audience) -> Callable[[Any], Data]:
    """How one combatant's plain data is made for `audience` (`state_view`'s rule)."""
    if audience.sees_everything:
        return to_data
    combatant = views_of(state.ruleset).combatant
    return lambda c: combatant(c, audience)


def _table(state: Encounter, combatants: Data, settings: Data, grid: Data, parts: Data) -> Data:
    return {
        "ruleset": state.ruleset,
        "mode": str(state.mode),
        "phase": str(state.phase),
        "result": ENDED if state.phase == Phase.ENDED else "",
        "round": state.round,
        "turn": "" if state.phase == Phase.ENDED else state.current or "",  # nobody's, once over
        "order": parts["order"],
        "declared": parts["declared"],
        "window": parts["window"],
        "paused_by": state.paused_by,
        "grid": grid,
        "combatants": combatants,
        "settings": settings,
        "version": state.version,
    }


def _order(state: Encounter, audience: Audience) -> list[Data]:
    """The turn order; each slot's initiative only where `slot_view` shows it (R77)."""
    order = []
    for slot in state.turn_order:
        seen = slot_view(slot, state, audience)
        shown: Data = {"combatant": seen["combatant"]}
        if "initiative" in seen:
            shown["initiative"] = seen["initiative"]
        order.append(shown)
    return order


def _declared(state: Encounter, audience: Audience) -> list[str]:
    """Who has a declaration this round, in the order they declared (V20: who, not what)."""
    return list(dict.fromkeys(d.combatant for d in state.declarations))


def _window(state: Encounter, audience: Audience) -> Data | None:
    seen = window_view(state.window, state, audience)
    if seen is None:
        return None
    return {
        "id": seen["id"],
        "kind": seen["kind"],
        "about": seen["about"],
        "asked": [ask["combatant"] for ask in seen["asked"]],
        "answered": list(seen["answered"]),
        "seconds": seen["seconds"],
    }


PARTS: dict[
    str, tuple[Callable[[Encounter, Audience], Any], Callable[[Encounter], tuple[Any, ...]]]
] = {
    "order": (_order, lambda s: (s.turn_order, s.settings, s.combatants)),
    "window": (_window, lambda s: (s.window, s.combatants)),
    "declared": (_declared, lambda s: (s.declarations,)),
}
"""The parts of a table made from more than one record, with what each is made from
(the cache makes a part again only when one of those is another object)."""


def _settings(state: Encounter) -> Data:
    """The room's settings, every one (they are public: `state_view` shows them)."""
    data: Data = to_data(state.settings)
    del data["$type"]
    return data


def _grid(state: Encounter) -> Data:
    grid = state.grid
    return {"kind": str(grid.kind), "cell_ft": grid.cell_ft, "directions": grid.directions}


class TableCache:
    """Tables for the feed, built again each batch from the cards that did not change.

    Per audience key (`Audience.key`: every audience of one key sees the same table)
    it keeps, for each combatant, the card last made and the record it was made from.
    States are copy-on-write (`Encounter.with_combatant`): a combatant no event touched
    is the same object in the next state, so `state.combatants[cid] is record` means
    its card is still right and the same dict is reused; `patch.diff` then skips it by
    identity. A card depends on nothing but its record, the audience key and the
    ruleset's card function (the card functions read only the combatant's redacted
    data), and those three are the cache's keys. The settings and the grid dicts are
    reused the same way, while their records are.

    Memory stays bounded: each view keeps only the combatants of the state it was
    given, so a removed combatant's card goes with the next view.

    The dicts a view returns are shared with the next one: read-only, like every view.
    """

    def __init__(self) -> None:
        self._cards: dict[tuple[Any, ...], dict[str, tuple[Any, Data]]] = {}
        self._combatants: dict[tuple[Any, ...], Data] = {}
        self._settings: tuple[Any, Data] | None = None
        self._grid: tuple[Any, Data] | None = None
        self._parts: dict[tuple[Any, ...], tuple[tuple[Any, ...], Data]] = {}

    def view(self, state: Encounter, audience: Audience) -> Data:
        """The same table as `table_view(state, audience)`, reusing unchanged cards."""
        card = card_of(state.ruleset)
        key = (state.ruleset, card, audience.key)
        before = self._cards.get(key, {})
        made: dict[str, tuple[Any, Data]] = {}
        redact: Callable[[Any], Data] | None = None
        changed = len(before) != len(state.combatants)
        for cid, c in state.combatants.items():
            kept = before.get(cid)
            if kept is not None and kept[0] is c:
                made[cid] = kept
                continue
            if redact is None:
                redact = _redactor(state, audience)
            made[cid] = (c, card(redact(c), audience))
            changed = True
        self._cards[key] = made
        combatants = self._combatants.get(key)
        if changed or combatants is None:
            combatants = self._combatants[key] = {cid: kept[1] for cid, kept in made.items()}
        return _table(
            state,
            combatants,
            self._settings_of(state),
            self._grid_of(state),
            self._parts_of(state, audience),
        )

    def _parts_of(self, state: Encounter, audience: Audience) -> Data:
        """The order, the window and who declared: made again only when what they are
        made from changed (the same objects otherwise, which the diff skips)."""
        parts: Data = {}
        for name, (make, made_from) in PARTS.items():
            sources = made_from(state)
            kept = self._parts.get((audience.key, name))
            if kept is not None and all(a is b for a, b in zip(kept[0], sources, strict=True)):
                parts[name] = kept[1]
            else:
                made = make(state, audience)
                if kept is not None and made == kept[1]:
                    made = kept[1]  # made again, the same: the same object, which the diff skips
                parts[name] = made
                self._parts[audience.key, name] = (sources, made)
        return parts

    def _settings_of(self, state: Encounter) -> Data:
        if self._settings is None or self._settings[0] is not state.settings:
            self._settings = (state.settings, _settings(state))
        return self._settings[1]

    def _grid_of(self, state: Encounter) -> Data:
        if self._grid is None or self._grid[0] is not state.grid:
            self._grid = (state.grid, _grid(state))
        return self._grid[1]
