"""The choices: what each combatant a seat plays may do now (`protocol.table.SeatChoices`).

A thin client knows no rule, so the server lists for each combatant of a seat the
commands it may send now, whole or with holes (`Hole`) to fill from lists: a player
picks "Attack with scimitar", then "Goblin (g1)", and never types an id or a cell.

Legality is the engine's alone. Each ruleset's part (`register_choices`) only proposes
candidates, the ones its sheets and the map suggest (each weapon in hand, each
combatant, each cell a move could reach), and every candidate, every option of every
hole, is kept only if the engine itself accepts the command it makes
(`Probe.accepts`): `decide` on the state as it is, with dice of a dry run
(`stack.DRY_RUN_DICE`), so nothing is rolled and the check stops at the first roll,
as the engine's own flows ask "would this be refused?" (`stack.dry_run`). No rule is
written twice: what is offered is what `decide` would take now, and a change to a rule
changes the choices by itself. A Live declaration's part is tested as the `Declare`
that holds it alone, so its checks are the declaration's (V20, R71, R72, R78).

What a choice may name: a combatant by its id and the name another side sees (the
ruleset's view of it for a spectator, `views_of(...).combatant`), a cell, a window's
id, and the combatant's own weapons, spells, items and moves, which its own side's
view holds whole. Nothing of another side's sheet, no GM note.

When the fight is paused (V24) the choices stay listed: the window and the turn are
frozen, not gone, and a player may well think about the next move during the pause.
The server refuses every command but a resume while paused (`core.decide`), so a
client may show them greyed out. `Probe` tests the commands as if the fight ran.

A ruleset with no part of its own gets the answers every window takes (`Answer` with
each option of the combatant's `Ask`, and `PassWindow`), as far as the engine accepts
them with no action attached.

Pure and without I/O like the rest of the package; the cost is one dry `decide` per
candidate (the gateway's feed computes the choices once per window or turn change and
seat).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from server.engine.core import Command, decide
from server.engine.errors import CommandRefused, cut
from server.engine.flow import Window, WindowKind
from server.engine.grid import Cell, Grid
from server.engine.records import evolve, to_data
from server.engine.stack import DRY_RUN_DICE, Answer, ChecksPassed, PassWindow
from server.engine.state import Encounter, Phase
from server.engine.turns import EndTurn
from server.engine.views import SPECTATORS, views_of

Data = dict[str, Any]
SeatOf = Callable[["Probe", str], Data | None]
"""A ruleset's part: (the probe, a combatant id) -> its `SeatChoices` dict, or None
when it may do nothing now."""

KEY = 64  # protocol.messages.MAX_NAME: a choice's `key`
TEXT = 1024  # protocol.messages.MAX_TEXT: labels

CHOICES: dict[str, SeatOf] = {}


def register_choices(ruleset: str, seat_of: SeatOf) -> SeatOf:
    """Make `seat_of` the way `ruleset`'s combatants get their choices (a ruleset's
    choices module calls it at import)."""
    CHOICES[ruleset] = seat_of
    return seat_of


def seat_choices(state: Encounter, combatants: Sequence[str]) -> list[Data]:
    """One `SeatChoices` dict for each of `combatants` that may do something now, in
    the order given. The caller says whose choices it wants (a player's combatants; the
    GM's); a combatant not in the fight, or with nothing to do, gets none."""
    if state.phase != Phase.COMBAT:
        return []
    probe = Probe(state)
    seat_of = CHOICES.get(state.ruleset, window_seat)
    seats = []
    for combatant in combatants:
        if combatant not in state.combatants:
            continue
        seat = seat_of(probe, combatant)
        if seat is not None and (seat["options"] or seat.get("compose") is not None):
            seats.append(seat)
    return seats


# --- the engine's word on a command ------------------------------------------------------


class Probe:
    """The state the choices are worked out from, and the engine's test of a command.

    `accepts` decides a command on `dry`: the state unpaused, its dice those of a dry
    run. A command that gets as far as its first roll has passed every check (the
    engine's resolvers check everything before they roll, `stack.DryRunDice`); one that
    rolls nothing is accepted when `decide` returns."""

    __slots__ = ("_names", "dry", "state")

    def __init__(self, state: Encounter) -> None:
        self.state = state
        self.dry = evolve(state, paused_by="", dice=DRY_RUN_DICE)
        self._names: dict[str, str] = {}

    def accepts(self, command: Command) -> bool:
        return accepts(self.dry, command)

    def name(self, combatant: str) -> str:
        """`Goblin (g1)`: the name every side sees (the ruleset's view for a spectator)
        and the id, which tells two goblins apart."""
        found = self._names.get(combatant)
        if found is None:
            c = self.state.combatants[combatant]
            try:
                seen = views_of(self.state.ruleset).combatant(c, SPECTATORS)
            except LookupError:  # a ruleset with no views shows nobody anything: the id
                seen = {}
            sheet = seen.get("sheet")
            # Verse and Tael name a combatant in its sheet; a ruleset may name it at the top
            name = sheet.get("name") if isinstance(sheet, dict) else seen.get("name")
            found = f"{name} ({combatant})" if isinstance(name, str) and name else combatant
            self._names[combatant] = found
        return found


# --- candidates: what a ruleset proposes ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Option:
    """One value a hole may take, as the engine record's field holds it (a combatant
    id, a tuple of cells), and how the table says it."""

    value: Any
    label: str


@dataclass(frozen=True, slots=True)
class Candidate:
    """An action a ruleset proposes: `make(value)` builds it with `value` in the field
    `field` (the hole, labelled `asks`, with `options`); with no `field` it has no hole
    and `make` is called with None. `key` and `label` are the choice's."""

    key: str
    label: str
    make: Callable[[Any], Command]
    field: str = ""
    asks: str = ""
    options: tuple[Option, ...] = ()
    blind: bool = False
    """Whether the engine's taking an option can hang on what the option's subject hides
    (sneaking past a foe: on its sight, a number of its sheet): then every option is
    offered when the engine takes any, so which ones it takes tells nothing hidden."""
    alike: Callable[[Any], Hashable] | None = None
    """Options whose values give the same `alike(value)` get the same answer from the
    engine (a move's path: only its length counts, the module's paths never skip a
    cell), so it is asked once for each: a move offers a hundred cells or more, and a
    big fight has many movers. `tests/table/test_choices.py` holds every grouping to the
    engine's answer for each option alone."""


def fixed(key: str, label: str, action: Command) -> Candidate:
    """A candidate with no hole."""
    return Candidate(key, label, lambda _: action)


def same(action: Command) -> Command:
    return action


def accepts(state: Encounter, command: Command) -> bool:
    """Would `decide` take `command` on `state`? `state`'s dice must be a dry run's
    (`DRY_RUN_DICE`): a command that gets as far as its first roll has passed every
    check."""
    try:
        decide(state, command)
    except ChecksPassed:
        return True
    except CommandRefused:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Offer:
    """How candidates become choices in one situation.

    `shown(action)` is the command the choice holds (the action itself on a turn, an
    `Answer` carrying it in a window) and `below` the JSON Pointer of the action in it
    ("" or "/action"); `tested(shown)` is what the engine is asked about (the command
    itself, or for a Live declaration's part the `Declare` holding it alone). With
    `part`, the choice carries the action as a `part` of the seat's compose instead of a
    command. `key` and `label` prefix the candidate's own."""

    shown: Callable[[Command], Command] = same
    tested: Callable[[Command], Command] = same
    below: str = ""
    part: bool = False
    key: str = ""
    label: str = ""

    def choice(self, probe: Probe, candidate: Candidate) -> Data | None:
        """The choice `candidate` makes here, with only the options the engine accepts;
        None when it accepts none."""

        def build(value: Any) -> Command:
            return self.shown(candidate.make(value))

        if not candidate.field:
            command = build(None)
            if not probe.accepts(self.tested(command)):
                return None
            return self._choice(candidate, command, [])
        kept = self.kept(probe, candidate, build)
        if not kept:
            return None
        path = f"{self.below}/{candidate.field}"
        hole: Data = {"path": path, "label": label(candidate.asks)}
        if all(_is_path(o.value) for o in kept):  # a move's cells: as short as they go
            hole["kind"] = "path"
            hole["options"] = [{"value": _cells(o.value), "label": label(o.label)} for o in kept]
        else:
            hole["options"] = [{"value": to_data(o.value), "label": label(o.label)} for o in kept]
        return self._choice(candidate, build(kept[0].value), [hole], path)

    def kept(
        self, probe: Probe, candidate: Candidate, build: Callable[[Any], Command]
    ) -> list[Option]:
        """The options the engine takes (all of them for a blind candidate if it takes
        any), asking it once for each group of alike options."""

        def taken(option: Option) -> bool:
            return probe.accepts(self.tested(build(option.value)))

        if candidate.blind:
            return list(candidate.options) if any(map(taken, candidate.options)) else []
        if candidate.alike is None:
            return [o for o in candidate.options if taken(o)]
        answers: dict[Hashable, bool] = {}
        kept = []
        for option in candidate.options:
            group = candidate.alike(option.value)
            answer = answers.get(group)
            if answer is None:
                answer = answers[group] = taken(option)
            if answer:
                kept.append(option)
        return kept

    def _choice(
        self, candidate: Candidate, command: Command, holes: list[Data], path: str = ""
    ) -> Data:
        data: Data = to_data(command) if self.part else wire(command)
        if path:
            blank(data, path)
        return {
            "key": key(self.key + candidate.key),
            "label": label(self.label + candidate.label),
            "command": None if self.part else data,
            "part": data if self.part else None,
            "holes": holes,
        }

    def choices(self, probe: Probe, candidates: Iterable[Candidate]) -> list[Data]:
        return [c for c in (self.choice(probe, cand) for cand in candidates) if c is not None]


def _is_path(value: Any) -> bool:
    return isinstance(value, tuple) and bool(value) and all(isinstance(c, Cell) for c in value)


def _cells(path: tuple[Cell, ...]) -> list[list[int]]:
    """A path as a `"path"` hole's option holds it: `[x, y]` for each cell, where the
    command holds `{"$type": "Cell", "x": x, "y": y}` (`protocol.table.filling`). A
    fast mover's seat offers a hundred cells and more, each with its whole path: the
    short form makes it a third as long."""
    return [[c.x, c.y] for c in path]


def wire(command: Command) -> Data:
    """A command as `send.command` takes it: its name in `type`, nested records tagged
    with `$type` (`protocol.messages.command`)."""
    data = to_data(command)
    return {"type": data.pop("$type"), **data}


def blank(data: Data, path: str) -> None:
    """Leave the place of a hole empty (null): the client fills it."""
    *parents, last = path.split("/")[1:]
    for name in parents:
        data = data[name]
    data[last] = None


def key(text: str) -> str:
    return cut(text, KEY - 3)


def label(text: str) -> str:
    return cut(text, TEXT - 3)


def turn_seat(probe: Probe, combatant: str, actions: Iterable[Candidate]) -> Data:
    """A combatant's own turn in turn-based combat (V25): its actions, then end turn."""
    options = Offer().choices(probe, [*actions, fixed("end_turn", "End turn", EndTurn(combatant))])
    return seat(combatant, None, options)


def seat(
    combatant: str, window: Window | None, options: list[Data], compose: Data | None = None
) -> Data:
    """A `SeatChoices` dict."""
    return {
        "combatant": combatant,
        "window": window.id if window is not None else None,
        "compose": compose,
        "options": options,
    }


# --- what every window takes ------------------------------------------------------------

AnswersOf = Callable[[Probe, Window, str, str], list[Data] | None]
"""A ruleset's answers to one option of an ask: (probe, window, combatant, option) ->
the choices that answer it, or None for the plain `Answer` with no action."""


def asked(state: Encounter, combatant: str) -> Window | None:
    """The open window, if it asks `combatant` and waits for its answer (planning aside:
    a declaration may change until the window closes, V20)."""
    window = state.window
    if window is None or window.ask_of(combatant) is None:
        return None
    if window.kind != WindowKind.PLANNING and combatant in window.answered:
        return None
    return window


def window_seat(probe: Probe, combatant: str, answers: AnswersOf | None = None) -> Data | None:
    """The answers to a window that is not a planning window (V21-V23, T2): for each
    option of the combatant's ask, the ruleset's answers (`answers`) or the plain
    `Answer`; and passing."""
    window = asked(probe.state, combatant)
    if window is None or window.kind == WindowKind.PLANNING:
        return None
    ask = window.ask_of(combatant)
    assert ask is not None
    options: list[Data] = []
    for option in ask.options:
        made = answers(probe, window, combatant, option) if answers is not None else None
        if made is None:
            plain = fixed(
                option, option.replace("_", " ").capitalize(), Answer(combatant, window.id, option)
            )
            made = Offer().choices(probe, [plain])
        options += made
    options += Offer().choices(probe, [fixed("pass", "Pass", PassWindow(combatant, window.id))])
    return seat(combatant, window, options)


# --- the map ------------------------------------------------------------------------------


def paths_from(
    grid: Grid, start: Cell, steps: int, passable: Callable[[Cell], bool]
) -> dict[Cell, tuple[Cell, ...]]:
    """A shortest path (every cell it passes through, `start` left out) to each cell
    within `steps` steps of `start`, stepping only onto cells `passable` allows:
    breadth first, neighbours in the grid's order, so the same map gives the same
    paths."""
    found: dict[Cell, tuple[Cell, ...]] = {start: ()}
    frontier: deque[Cell] = deque([start])
    while frontier:
        here = frontier.popleft()
        path = found[here]
        if len(path) >= steps:
            continue
        for there in grid.neighbours(here):
            if there not in found and passable(there):
                found[there] = (*path, there)
                frontier.append(there)
    del found[start]
    return found


def cell_options(paths: dict[Cell, tuple[Cell, ...]], verb: str) -> tuple[Option, ...]:
    """Each reachable cell as an option whose value is the path there, nearest first."""
    ordered = sorted(paths.items(), key=lambda item: (len(item[1]), item[0].y, item[0].x))
    return tuple(Option(path, f"{verb} ({cell.x}, {cell.y})") for cell, path in ordered)


def combatant_options(
    probe: Probe, ids: Iterable[str], before: str, after: str = "", alone: bool = False
) -> tuple[Option, ...]:
    """Combatants as options, each said `before` its name `after` ("Attack ", " with
    scimitar"); the value is the id, or with `alone` a tuple of the id alone (a spell's
    `targets`)."""
    return tuple(
        Option((cid,) if alone else cid, f"{before}{probe.name(cid)}{after}") for cid in ids
    )


def others(state: Encounter, combatant: str) -> Iterator[str]:
    """Every other combatant: those of other sides first, then its own, each by id (the
    engine says which an action takes)."""
    side = state.combatants[combatant].side
    ids = sorted(cid for cid in state.combatants if cid != combatant)
    yield from (cid for cid in ids if state.combatants[cid].side != side)
    yield from (cid for cid in ids if state.combatants[cid].side == side)


# The rulesets' parts register themselves on `CHOICES` when imported; they import this
# module for its registry and helpers, so they come last.
from server.table import tael_choices as tael_choices  # noqa: E402
from server.table import verse_choices as verse_choices  # noqa: E402
