"""What reading a typed line needs: the context it is read in, what a line means, its
errors, and the small readers of words.

`commands.parse` reads a line in its `Context` (what the screen holds: the table, the
choices offered, the windows seen); a rule system's few commands of its own
(`words.Words.commands`) use the readers here, so a cell, a number or a missing
argument reads and fails the same way in every room.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Data = dict[str, Any]
Role = Literal["gm", "player", "spectator", "host"]
GM_CONSOLE = "gm"
"""The seat of the GM's console in the choices (docs/protocol.md, "Choices"): the
room's commands and overrides, never prompted by itself (it changes with every event),
shown by `console`, picked with `as gm <number>`."""

DEFAULT_RULESET = "verse"
"""The ruleset a line is read in until the room says its own (`welcome.ruleset`):
Verse Chronicles, the first rule system the server played."""


class CommandError(ValueError):
    """A line that is not a command: `code` is stable, `message` says how to write it;
    `combatant` is the one the line was for, when the screen should show its prompt
    again (an answer to a window that closed: `window_closed`)."""

    def __init__(self, code: str, message: str, combatant: str = "") -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.combatant = combatant


@dataclass(frozen=True)
class OpenWindow:
    """A window the screen shows: its id, kind, whose action it answers, who is asked
    (with their options) and who has answered; `closed` says how it closed
    (`expired`, ...), "" while it is open."""

    id: int
    kind: str
    about: str = ""
    asked: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    answered: tuple[str, ...] = ()
    closed: str = ""


@dataclass(frozen=True)
class Context:
    """What the screen knows when a line is typed. `ruleset` is the room's
    (`welcome.ruleset`): it picks the rule system's few words (`rulesets.words_for`).
    `fight` is the table the screen holds (`HeldTable.view`, `protocol.table.TableView`):
    each combatant's card (its name, which a line may say for its id); empty before the
    first table. `choices` are what each combatant may do now (`SeatChoices` by
    combatant), which a typed line is read against (`matching.py`) and a typed number
    picks from (`picking.py`); `window` is the open window (`close` closes it)."""

    role: Role
    controls: tuple[str, ...] = ()
    actor: str = ""  # who acts when the line does not say (`as <id>`)
    window: OpenWindow | None = None
    ruleset: str = DEFAULT_RULESET
    fight: Mapping[str, Any] = field(default_factory=dict)
    seen: Mapping[str, OpenWindow] = field(default_factory=dict)
    """For each combatant, the window a line typed now answers for it: the open one, once
    shown asking it, or one that closed just as the line was typed (its `closed` set:
    the line was meant for it, not for the window that opened meanwhile, and is refused,
    `refuse_closed`; `Console._late` says when)."""
    choices: Mapping[str, Data] = field(default_factory=dict)
    """What each combatant this screen may act for may do now (`SeatChoices`), and the
    GM's console (`GM_CONSOLE`)."""
    prompted: tuple[str, ...] | None = None
    """The combatants this screen is prompted for (the GM's `plays`), whose choices a
    bare number picks from; None: all of `choices`."""

    def combatant(self, combatant: str) -> Mapping[str, Any]:
        """`combatant`'s card (`protocol.table.Card`); empty when the table has none."""
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


@dataclass(frozen=True)
class AddFromSheet:
    """The GM adds a combatant made from a sheet file (`add goblin.toml g3 goblins 2,1`):
    the screen reads the file, then sends `AddCombatant` (reading a file is not the
    parser's business)."""

    path: str
    combatant: str
    side: str
    at: Data
    facing: int = 0


@dataclass(frozen=True)
class ShowConsole:
    """The GM's console: the room's commands and overrides the server offers it now, as
    numbers to pick with `as gm <number>` (a screen-side command: nothing is sent)."""


@dataclass(frozen=True)
class Plays:
    """The GM says which combatants it plays (`plays g1 g2`), to be prompted for them;
    none named: list them (a screen-side command: nothing is sent)."""

    combatants: tuple[str, ...] = ()


@dataclass(frozen=True)
class Invitations:
    """The GM asks for the room's invite codes (`invites`), or revokes one (`revoke
    CODE`; `reissue`: its seat gets a fresh one). Sent as the protocol's own requests,
    not as engine commands."""

    revoke: str = ""
    reissue: bool = False


Parsed = (
    Command
    | ActAs
    | ShowHelp
    | Look
    | ShowConsole
    | Quit
    | Nothing
    | AddFromSheet
    | Plays
    | Invitations
)


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


def refuse_closed(window: OpenWindow, who: str, kind: str = "") -> None:
    """Refuse a line meant for `window`, the last shown asking `who`, if it has closed
    since (`window_closed`: the screen shows the prompt of now again)."""
    if window.closed:
        raise CommandError(
            "window_closed",
            f"{kind}window {window.id}, the last shown asking {who}, has closed "
            f"({window.closed}): nothing sent",
            who,
        )


def whole_number(word: str, what: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise CommandError("bad_number", f"{what} must be a whole number, not {word!r}") from None


def cell(word: str) -> Data:
    parts = word.strip("()").split(",")
    if len(parts) != 2:
        raise CommandError("bad_cell", f"a cell is x,y (like 3,2), not {word!r}")
    return {"$type": "Cell", "x": whole_number(parts[0], "x"), "y": whole_number(parts[1], "y")}


def one(args: list[str], usage: str) -> str:
    if len(args) != 1:
        raise CommandError("missing_argument" if not args else "too_many_arguments", usage)
    return args[0]


def two(args: list[str], usage: str) -> tuple[str, str]:
    if len(args) != 2:
        raise CommandError("missing_argument" if len(args) < 2 else "too_many_arguments", usage)
    return args[0], args[1]
