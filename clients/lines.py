"""What every ruleset's typed-line grammar shares: the context a line is read in, what
a line means, its errors, and the small readers of words.

`commands.parse` reads the words every room knows (help, quit, look, raw, as) and hands
the rest to the grammar of the room's ruleset, found in the ruleset table
(`rulesets.py`: `verse_commands.py` for Verse, `tael_commands.py` for World of Tael);
each builds its commands from these pieces, so a cell, a number or a missing argument
reads and fails the same way in every one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Data = dict[str, Any]
Role = Literal["gm", "player", "spectator", "host"]

DEFAULT_RULESET = "verse"
"""The ruleset a line is read in until the room says its own (`welcome.ruleset`):
Verse Chronicles, the first rule system the server played."""


class CommandError(ValueError):
    """A line that is not a command: `code` is stable, `message` says how to write it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class OpenWindow:
    """The window the screen shows: its id, kind, whose action it answers, who is asked
    (with their options) and who has answered."""

    id: int
    kind: str
    about: str = ""
    asked: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    answered: tuple[str, ...] = ()


@dataclass(frozen=True)
class Context:
    """What the screen knows when a line is typed. `ruleset` is the room's
    (`welcome.ruleset`): it picks the grammar (`rulesets.words_for`), since the rule
    systems' commands differ. `fight` is the view the screen holds (`View.state`): the
    room's mode, whose turn it is, the sheets this side may see; empty before the first
    snapshot."""

    role: Role
    controls: tuple[str, ...] = ()
    actor: str = ""  # who acts when the line does not say (`as <id>`)
    window: OpenWindow | None = None
    ruleset: str = DEFAULT_RULESET
    fight: Mapping[str, Any] = field(default_factory=dict)

    @property
    def turn_based(self) -> bool:
        """A room in Turn Based Combat, where a turn's actions are sent as they are
        taken (V25), not declared in a planning window (V20)."""
        return self.fight.get("mode") == "turn_based"

    def combatant(self, combatant: str) -> Mapping[str, Any]:
        """`combatant` as the view shows it; empty when the view does not hold it."""
        combatants = self.fight.get("combatants")
        found = combatants.get(combatant) if isinstance(combatants, Mapping) else None
        return found if isinstance(found, Mapping) else {}


@dataclass(frozen=True)
class Command:
    command: Data


@dataclass(frozen=True)
class ActAs:
    combatant: str


@dataclass(frozen=True)
class ShowHelp:
    text: str


@dataclass(frozen=True)
class Look:
    """Print the fight at a glance (a screen-side command: nothing is sent)."""


@dataclass(frozen=True)
class Quit:
    pass


@dataclass(frozen=True)
class Nothing:
    pass


Parsed = Command | ActAs | ShowHelp | Look | Quit | Nothing


# --- who acts -------------------------------------------------------------------------


def acting(context: Context) -> str:
    """Who acts: the one named (`as`), else a player's only combatant."""
    if context.actor:
        return context.actor
    if context.role == "gm":
        raise CommandError("who_acts", "say whose action it is: as <combatant> ...")
    if len(context.controls) == 1:
        return context.controls[0]
    if not context.controls:
        raise CommandError("no_combatant", "this seat controls no combatant")
    raise CommandError("who_acts", f"say who acts: as <{'|'.join(context.controls)}> ...")


def answering(context: Context, window: OpenWindow) -> str:
    """Who answers: the one named, else the one of a player's combatants the window
    waits for. The GM always names it: it could otherwise answer for a player."""
    found = waiting_one(context, window)
    if found:
        return found
    if context.role == "player" and not _waiting(context, window) and len(context.controls) == 1:
        return context.controls[0]  # not asked: the server says so (not_asked)
    names = "|".join(_waiting(context, window)) or "combatant"
    raise CommandError("who_acts", f"say who answers window {window.id}: as <{names}> ...")


def waiting_one(context: Context, window: OpenWindow) -> str:
    """The combatant named, or a player's one combatant the window waits for; ""."""
    if context.actor:
        return context.actor
    if context.role != "player":
        return ""
    waiting = _waiting(context, window)
    return waiting[0] if len(waiting) == 1 else ""


def _waiting(context: Context, window: OpenWindow) -> list[str]:
    waiting = [c for c in window.asked if c not in window.answered]
    if context.role == "player":
        return [c for c in waiting if c in context.controls]
    return waiting


def open_window(context: Context) -> OpenWindow:
    if context.window is None:
        raise CommandError("no_window", "no window is open")
    return context.window


def pass_window(context: Context) -> Data:
    """`pass`: let the open window go by (every ruleset's `PassWindow`)."""
    window = open_window(context)
    return {"type": "PassWindow", "actor": answering(context, window), "window": window.id}


# --- small readers --------------------------------------------------------------------


def tagged(kind: str, **fields: Any) -> Data:
    """A record nested in a command: a map tagged with `$type`."""
    return {"$type": kind, **fields}


def whole_number(word: str, what: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise CommandError("bad_number", f"{what} must be a whole number, not {word!r}") from None


def cell(word: str) -> Data:
    parts = word.strip("()").split(",")
    if len(parts) != 2:
        raise CommandError("bad_cell", f"a cell is x,y (like 3,2), not {word!r}")
    return tagged("Cell", x=whole_number(parts[0], "x"), y=whole_number(parts[1], "y"))


def one_cell(cells: list[Data]) -> Data | None:
    if len(cells) > 1:
        raise CommandError("too_many_arguments", "aim at one cell at most")
    return cells[0] if cells else None


def one(args: list[str], usage: str) -> str:
    if len(args) != 1:
        raise CommandError("missing_argument" if not args else "too_many_arguments", usage)
    return args[0]


def two(args: list[str], usage: str) -> tuple[str, str]:
    if len(args) != 2:
        raise CommandError("missing_argument" if len(args) < 2 else "too_many_arguments", usage)
    return args[0], args[1]
