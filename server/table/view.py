"""The table: the whole fight as one audience may see it (`protocol.table.TableView`).

`table_view(state, audience)` builds the table as plain dicts; `TableCache` builds the
same table, and the patch to it from the last one, from the parts that changed, which
is what the feed calls once per audience key and batch.

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

from collections.abc import Callable, Container
from dataclasses import dataclass
from typing import Any

from server.engine.records import to_data
from server.engine.state import Encounter, Phase
from server.engine.views import Audience, Data, slot_view, views_of, window_view
from server.table import tael_cards, verse_cards  # noqa: F401 (they register their cards)
from server.table.cards import CardOf, card_of, register_cards
from server.table.patch import Op, changes, diff

__all__ = ["CardOf", "TableCache", "register_cards", "table_view"]

ENDED = "The fight has ended."


def table_view(state: Encounter, audience: Audience) -> Data:
    """The `TableView` of `state` as `audience` may see it, as plain data."""
    card = card_of(state.ruleset)
    redact = _redactor(state, audience)
    combatants = {cid: card(redact(c), audience) for cid, c in state.combatants.items()}
    common = _common(state, _settings(state), _grid(state), _declared(state))
    return _assembled(common, _order(state, audience), _window(state, audience), combatants)


def _redactor(state: Encounter, audience: Audience) -> Callable[[Any], Data]:
    """How one combatant's plain data is made for `audience` (`state_view`'s rule)."""
    if audience.sees_everything:
        return to_data
    combatant = views_of(state.ruleset).combatant
    return lambda c: combatant(c, audience)


def _common(state: Encounter, settings: Data, grid: Data, declared: list[str]) -> Data:
    """The parts of a table every audience of `state` sees alike."""
    return {
        "ruleset": state.ruleset,
        "mode": str(state.mode),
        "phase": str(state.phase),
        "result": ENDED if state.phase == Phase.ENDED else "",
        "round": state.round,
        "turn": "" if state.phase == Phase.ENDED else state.current or "",  # nobody's, once over
        "declared": declared,
        "paused_by": state.paused_by,
        "grid": grid,
        "settings": settings,
        "version": state.version,
    }


def _assembled(common: Data, order: list[Data], window: Data | None, combatants: Data) -> Data:
    """A table from its common parts and one audience's own (`protocol.table.TableView`'s
    order of fields)."""
    return {
        "ruleset": common["ruleset"],
        "mode": common["mode"],
        "phase": common["phase"],
        "result": common["result"],
        "round": common["round"],
        "turn": common["turn"],
        "order": order,
        "declared": common["declared"],
        "window": window,
        "paused_by": common["paused_by"],
        "grid": common["grid"],
        "combatants": combatants,
        "settings": common["settings"],
        "version": common["version"],
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


def _declared(state: Encounter) -> list[str]:
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


def _settings(state: Encounter) -> Data:
    """The room's settings, every one (they are public: `state_view` shows them)."""
    data: Data = to_data(state.settings)
    del data["$type"]
    return data


def _grid(state: Encounter) -> Data:
    grid = state.grid
    return {"kind": str(grid.kind), "cell_ft": grid.cell_ft, "directions": grid.directions}


@dataclass(slots=True)
class _Held:
    """One audience key's last table and what its own parts were made from."""

    table: Data
    common: Data
    card: CardOf
    roster: dict[str, Any]  # the `state.combatants` its cards are of
    cards: dict[str, tuple[Any, Data]]  # each combatant's record and card
    turn_order: Any  # what its order was made from, besides its roster
    settings: Any
    window: Any  # what its window was made from, besides its roster


class TableCache:
    """Tables for the feed, each made from the last one of its audience key, and the
    patch between them, both at the cost of what changed.

    A table is its common parts (every audience of a state sees them alike: the phase,
    the round, who declared, the settings...; made once per state) and the audience's
    own: its cards, the turn order and the window. States are copy-on-write
    (`Encounter.with_combatant`): a record no event touched is the same object in the
    next state, so a part is made again only when what it is made from is another
    object, and a part made again and found equal is the old object. Per audience key
    (`Audience.key`: every audience of one key sees the same table) the cache keeps,
    for each combatant, the card last made and the record it was made from; a card
    depends on nothing but its record, the audience key and the ruleset's card
    function (the card functions read only the combatant's redacted data).

    `advance` gives the patch too (`patch.diff`'s operations): what is the same object
    is skipped at once, and the common parts' changes are worked out once per state for
    every key.

    Memory stays bounded: each key keeps only the combatants of the last state it was
    given, so a removed combatant's card goes with the next table; `forget` drops keys.

    The dicts a table holds are shared with the next one and with other keys: read-only,
    like every view.
    """

    def __init__(self) -> None:
        self._held: dict[tuple[str, ...], _Held] = {}
        self._state: Encounter | None = None  # the state `_common` is of
        self._common: Data | None = None
        self._common_patches: list[tuple[Data, list[Op]]] = []  # from an older common
        self._settings: tuple[Any, Data] | None = None
        self._grid: tuple[Any, Data] | None = None
        self._declared: tuple[Any, list[str]] | None = None

    def view(self, state: Encounter, audience: Audience) -> Data:
        """The same table as `table_view(state, audience)`, from the cached parts."""
        return self.advance(state, audience)[1]

    def advance(self, state: Encounter, audience: Audience) -> tuple[list[Op] | None, Data]:
        """`audience`'s table of `state` and the patch to it from the last table this
        cache made for its key (None when it made none)."""
        key = audience.key
        common = self._common_of(state)
        held = self._held.get(key)
        card = card_of(state.ruleset)
        roster = state.combatants
        if held is None:
            cards, combatants = self._cards_of(state, audience, card, None)
            table = _assembled(
                common, _order(state, audience), _window(state, audience), combatants
            )
            self._held[key] = _Held(
                table, common, card, roster, cards, state.turn_order, state.settings, state.window
            )
            return None, table
        before = held.table
        combatants, order, window = before["combatants"], before["order"], before["window"]
        same_roster = held.roster is roster and held.card is card
        if not same_roster:
            held.cards, combatants = self._cards_of(state, audience, card, held)
            held.card, held.roster = card, roster
        if not (
            same_roster and held.turn_order is state.turn_order and held.settings is state.settings
        ):
            made = _order(state, audience)
            if made != order:
                order = made
            held.turn_order, held.settings = state.turn_order, state.settings
        if not (same_roster and held.window is state.window):
            made_window = _window(state, audience)
            if made_window != window:
                window = made_window
            held.window = state.window
        unchanged = combatants is before["combatants"] and order is before["order"]
        if unchanged and held.common is common and window is before["window"]:
            return [], before  # nothing a table shows changed
        table = held.table = _assembled(common, order, window, combatants)
        ops = list(self._common_patch(held.common, common))
        held.common = common
        for name in ("order", "window", "combatants"):
            if before[name] is not table[name]:
                changes(before[name], table[name], "/" + name, ops)
        return ops, table

    def forget(self, keys: Container[tuple[str, ...]]) -> None:
        """Drop what is kept for the audience keys not in `keys`."""
        for key in [key for key in self._held if key not in keys]:
            del self._held[key]

    def _cards_of(
        self, state: Encounter, audience: Audience, card: CardOf, held: _Held | None
    ) -> tuple[dict[str, tuple[Any, Data]], Data]:
        """Each combatant's record and card, the unchanged ones kept, and the map of
        cards (the last one when no card changed)."""
        before = held.cards if held is not None and held.card is card else {}
        made: dict[str, tuple[Any, Data]] = {}
        redact: Callable[[Any], Data] | None = None
        changed = held is None or len(before) != len(state.combatants)
        for cid, c in state.combatants.items():
            kept = before.get(cid)
            if kept is not None and kept[0] is c:
                made[cid] = kept
                continue
            if redact is None:
                redact = _redactor(state, audience)
            made[cid] = (c, card(redact(c), audience))
            changed = True
        if changed or held is None:
            return made, {cid: kept[1] for cid, kept in made.items()}
        return made, held.table["combatants"]

    def _common_of(self, state: Encounter) -> Data:
        """The common parts of `state`'s tables, made once per state; a part equal to
        the last one's is the same object (the last common map itself when all are)."""
        last = self._common
        if state is self._state and last is not None:
            return last
        common = _common(state, self._settings_of(state), self._grid_of(state), self._who(state))
        if last is not None:
            ops: list[Op] = []  # from `last`, which most keys hold: their patch
            for name, value in common.items():
                old = last[name]
                if old is value:
                    continue
                if type(old) is type(value) and old == value:
                    common[name] = old
                else:
                    changes(old, value, "/" + name, ops)
            if not ops:
                common = last
            else:
                self._common_patches = [(last, ops)]
        self._state, self._common = state, common
        return common

    def _common_patch(self, before: Data, after: Data) -> list[Op]:
        """The operations from the common parts `before` to `after`, worked out once
        for every key that held `before`."""
        if before is after:
            return []
        for older, ops in self._common_patches:
            if older is before:
                return ops
        ops = diff(before, after)
        self._common_patches.append((before, ops))
        return ops

    def _who(self, state: Encounter) -> list[str]:
        if self._declared is None or self._declared[0] is not state.declarations:
            self._declared = (state.declarations, _declared(state))
        return self._declared[1]

    def _settings_of(self, state: Encounter) -> Data:
        if self._settings is None or self._settings[0] is not state.settings:
            self._settings = (state.settings, _settings(state))
        return self._settings[1]

    def _grid_of(self, state: Encounter) -> Data:
        if self._grid is None or self._grid[0] is not state.grid:
            self._grid = (state.grid, _grid(state))
        return self._grid[1]
