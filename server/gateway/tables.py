"""What a feed sends each audience in protocol version 2: its table, patches, log, choices.

A `Feed` follows one room and hands every batch of events to `Tables`, which keeps for
each audience key (`Audience.key`: the GM, each set of sides) the last table it sent
and builds the batch's `update` message once per key: the RFC 6902 patch from that
table to the new one (`view.TableCache`), the batch's log lines (each told once for
the keys that read it alike, `log.tell_all`) and, for connections that asked for them
(`Hello.events`), the raw events. The feed encodes each message once per encoding and
shares the bytes among the key's connections, so the cost grows with the audiences,
not with the connections.

Every connection of one key holds the same table after each batch: it got the key's
table when it joined and every patch since. A connection whose audience changes key
(a player's combatant added, removed or turned to another side) gets a whole `table`
instead of a patch it could not apply.

Choices go to each connection that plays combatants (`Listener.plays`). They are
worked out per combatant, when what they depend on changes (`Tables.seat_key`), and sent only
when they differ from the last ones that connection got, and then only the seats that
changed. They cost: the engine checks every option it offers (a move to each cell in
reach), several milliseconds a seat; so another combatant's declaration does not make
them again, and the feed asks for them one combatant at a time, between other work.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from operator import attrgetter
from typing import Any, Protocol

from server.engine.flow import Mode
from server.engine.state import Encounter
from server.engine.views import Audience
from server.table.choices import seat_choices
from server.table.log import Teller, tell_all
from server.table.overrides import GM, gm_seat
from server.table.view import TableCache

Data = dict[str, Any]
Key = tuple[str, ...]
CHOICES_KEPT = 256
"""Combatants' choices remembered at most (a room has few combatants and the keys of
past windows are never asked again)."""


class Step(Protocol):
    @property
    def seq(self) -> int: ...
    @property
    def event(self) -> Any: ...
    @property
    def state(self) -> Encounter: ...


def _seats(state: Encounter, combatant: str) -> list[Data]:
    """The choices of `combatant`, or of the GM's console (`overrides.GM`)."""
    if combatant == GM:
        seat = gm_seat(state)
        return [] if seat is None else [seat]
    return seat_choices(state, (combatant,))


_declarer = attrgetter("combatant")


def _place(combatant: Any) -> tuple[Any, ...]:
    """Where a combatant stands and whether it can act: what reach and targets read.
    Only Verse has Ascension levels (V26)."""
    return (combatant.id, combatant.position, getattr(combatant, "ascension", 0), combatant.active)


class Tables:
    """The tables, log lines and choices of one room's audiences (module docstring)."""

    def __init__(self) -> None:
        self._cache = TableCache()
        self._choices: dict[tuple[Any, ...], list[Data]] = {}
        self._batch: tuple[Encounter | None, dict[str, list[Data]]] = (None, {})
        self._last: dict[str, tuple[tuple[Any, ...], list[Data]]] = {}  # latest key, choices
        self._basis: tuple[Encounter, tuple[Any, ...]] | None = None
        self._own: tuple[Any, dict[str, tuple[Any, ...]]] = (None, {})
        self._tellers: dict[Key, tuple[tuple[Any, ...], Teller]] = {}
        self._places: tuple[Any, tuple[Any, ...], int] = (None, (), 0)
        self._roster: tuple[Any, Any, int] = (None, None, 0)

    # -- tables -------------------------------------------------------------------------

    def table(self, state: Encounter, audience: Audience) -> Data:
        """`audience`'s table of `state`, now held by every connection of its key."""
        return self._cache.view(state, audience)

    def forget(self, keys: Container[Key]) -> None:
        """Drop the tables of keys no connection holds any more."""
        self._cache.forget(keys)
        for key in [key for key in self._tellers if key not in keys]:
            del self._tellers[key]

    def advance(self, state: Encounter, audience: Audience) -> tuple[list[Data] | None, Data]:
        """`audience`'s table of `state` and the patch to it from the table its key's
        connections hold (None when none holds one: each gets the whole table)."""
        return self._cache.advance(state, audience)

    def rewound(self) -> None:
        """A rewind: window ids and turns come again with other states, so choices
        remembered by them no longer hold (the last choices stay, to compare with)."""
        self._choices.clear()
        self._last = {combatant: ((), seats) for combatant, (_, seats) in self._last.items()}

    # -- log --------------------------------------------------------------------------

    def lines(
        self, steps: Sequence[Step], views: Sequence[Data], table: Data, key: Key
    ) -> list[Data]:
        """The log lines of `steps` (their events as audience `key` sees them: `views`),
        named after `table`."""
        teller = self._teller(table, key)
        return [teller.line(step.seq, view) for step, view in zip(steps, views, strict=True)]

    def batch_lines(
        self, steps: Sequence[Step], views: dict[Key, list[Data]], tables: dict[Key, Data]
    ) -> dict[Key, list[Data]]:
        """The log lines of `steps` for every key of `tables` (`views[key]`: the events
        as that key sees them), each line told once for the keys that would read it
        alike (`log.tell_all`)."""
        tellers = {key: self._teller(table, key) for key, table in tables.items()}
        lines: dict[Key, list[Data]] = {key: [] for key in tables}
        for index, step in enumerate(steps):
            told = tell_all(step.seq, {key: views[key][index] for key in tables}, tellers)
            for key, line in told.items():
                lines[key].append(line)
        return lines

    def _teller(self, table: Data, key: Key) -> Teller:
        """The key's teller, kept while the table's cards and order are the same
        objects (what it reads names, turns and secrets from)."""
        kept = self._tellers.get(key)
        cards: Data = table["combatants"]
        order, mode, ruleset = table["order"], table["mode"], table["ruleset"]
        if kept is not None:
            reads = kept[0]
            if reads[0] is cards and reads[1] is order and reads[2] is mode and reads[3] is ruleset:
                return kept[1]
        sides = set(key[1:]) if key[0] != "gm" else None

        def knows(combatant: str) -> bool:
            """Does this audience see `combatant`'s secrets: the GM, or its side's."""
            card = cards.get(combatant)
            return sides is None or (card is not None and card.get("side") in sides)

        teller = Teller(table, knows=knows)
        self._tellers[key] = ((cards, order, mode, ruleset), teller)
        return teller

    # -- choices ----------------------------------------------------------------------

    def choices(self, state: Encounter, combatant: str) -> list[Data]:
        """What `combatant` may do now: its seat alone, or none (nothing now), worked
        out once per `seat_key` and, within a batch (one state), looked up once for
        every connection. Equal choices are the same object from one batch to the next,
        so a connection's feed tells a changed seat by identity.

        One combatant at a time, so that the feed may work out a big fight's seats
        between other work (`Feed._offer`)."""
        if self._batch[0] is not state:
            self._batch = (state, {})
            self._basis = None
        known = self._batch[1]
        seats = known.get(combatant)
        if seats is None:
            seats = known[combatant] = self._seats_of(state, combatant)
        return seats

    def _seats_of(self, state: Encounter, combatant: str) -> list[Data]:
        key = self.seat_key(state, combatant)
        last = self._last.get(combatant)
        if last is not None and last[0] == key:  # as in the last batch: no lookup
            return last[1]
        seats = self._choices.get(key)
        if seats is None:
            if len(self._choices) > CHOICES_KEPT:
                self._choices.clear()
            seats = _seats(state, combatant)
            if last is not None and last[1] == seats:
                seats = last[1]  # the same choices under a new key: the same object, not re-sent
            self._choices[key] = seats
        self._last[combatant] = (key, seats)
        return seats

    @staticmethod
    def offer_basis(state: Encounter) -> tuple[Any, ...]:
        """What every `seat_key` of `state` is made of, the GM's console's included, in
        one tuple: while it equals the last batch's, no combatant's choices can have
        changed, so a batch that changes nothing else (a declaration made again) costs
        one comparison instead of a look-up per connection and combatant.

        The roster and the conditions table are compared whole (by identity first, as
        tuples compare), which says more than the places `seat_key` reads."""
        window = state.window
        turn_based = state.mode == Mode.TURN_BASED and window is None
        return (
            None if window is None else (window.id, window.answered),
            # grouped by combatant as `_own_of` reads them: who declared first matters not
            tuple(sorted(state.declarations, key=_declarer)),
            state.round,
            state.turn,
            state.paused_by,
            state.phase,
            state.combatants,
            state.condition_rules,
            state.version if turn_based else 0,
        )

    def seat_key(self, state: Encounter, combatant: str) -> tuple[Any, ...]:
        """What `combatant`'s choices depend on, in short: the open window and whether
        it answered it, its own declarations (V20), the turn, the pause, where everyone
        stands and who can still act (reach, targets), and, outside a window in
        turn-based combat (where each action changes what the next may be, V25), the
        state's version.

        Left out on purpose: what a GM override changes besides places and who is up (a
        sheet, a setting) until the next window or turn. The server checks every command
        anyway; a choice it then refuses changes nothing."""
        window = state.window
        if combatant == GM:  # the console: the room's commands, each combatant's overrides
            return (
                GM,
                None if window is None else window.id,
                state.phase,
                state.paused_by,
                state.round,
                state.turn,
                self._roster_of(state),
            )
        basis = self._basis_of(state)
        return (
            combatant,
            window is not None and combatant in window.answered,
            # by value: the same declaration made again offers the same choices
            self._own_of(state).get(combatant, ()),
            basis,
        )

    def _basis_of(self, state: Encounter) -> tuple[Any, ...]:
        """What every combatant's choices depend on alike, once per state (`seat_key`)."""
        if self._basis is None or self._basis[0] is not state:
            window = state.window
            turn_based = state.mode == Mode.TURN_BASED and window is None
            basis = (
                None if window is None else window.id,
                state.round,
                state.turn,
                state.paused_by,
                state.phase,
                self._places_of(state),
                state.version if turn_based else 0,
            )
            self._basis = (state, basis)
        return self._basis[1]

    def _own_of(self, state: Encounter) -> dict[str, tuple[Any, ...]]:
        """Each combatant's declarations, grouped once per declarations tuple."""
        declarations, own = self._own
        if declarations is not state.declarations:
            grouped: dict[str, list[Any]] = {}
            for declaration in state.declarations:
                grouped.setdefault(declaration.combatant, []).append(declaration)
            own = {combatant: tuple(made) for combatant, made in grouped.items()}
            self._own = (state.declarations, own)
        return own

    def _roster_of(self, state: Encounter) -> int:
        """A number that changes whenever any combatant changes (a new roster object:
        copy on write) or the conditions table does, for the GM's overrides, which name
        who is there, their conditions and the table's."""
        roster, rules, number = self._roster
        if roster is not state.combatants or rules is not state.condition_rules:
            self._roster = (state.combatants, state.condition_rules, number + 1)
        return self._roster[2]

    def _places_of(self, state: Encounter) -> int:
        """A number that changes when a combatant moves, changes level, comes, goes or
        can no longer act: worked out once per roster object (copy on write)."""
        combatants, places, number = self._places
        if combatants is not state.combatants:
            now = tuple(_place(c) for c in state.combatants.values())
            if now != places:
                number += 1
            self._places = (state.combatants, now, number)
        return self._places[2]
