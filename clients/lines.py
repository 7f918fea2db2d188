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
    (`welcome.ruleset`): it picks the grammar (`rulesets.words_for`), since the rule
    systems' commands differ. `fight` is the table the screen holds (`HeldTable.view`,
    `protocol.table.TableView`): the room's mode, whose turn it is, each combatant's
    card; empty before the first table. `choices` are what each combatant this screen
    plays may do now (`SeatChoices` by combatant), which a typed number picks from
    (`picking.py`)."""

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
    `answer_window`; `Console._late` says when). A combatant not in it answers the open
    window (`window`)."""
    choices: Mapping[str, Data] = field(default_factory=dict)
    """What each of this screen's combatants may do now (`SeatChoices`)."""

    @property
    def turn_based(self) -> bool:
        """A room in Turn Based Combat, where a turn's actions are sent as they are
        taken (V25), not declared in a planning window (V20)."""
        return self.fight.get("mode") == "turn_based"

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


def answer_window(context: Context) -> tuple[str, OpenWindow]:
    """Who answers, and the window the answer is for: the window whose prompt the
    person last saw for that combatant (`Context.seen`), else the open one. An answer
    to a window that has closed since is refused here (`window_closed`): sent, it
    would be spent on whatever window is open now, another attack or the next round.
    The GM always names who answers: it could otherwise answer for a player."""
    who = answerer(context)
    window = window_of(context, who)
    if window is None:
        raise CommandError("no_window", "no window is open")
    refuse_closed(window, who)
    return who, window


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


def window_of(context: Context, who: str) -> OpenWindow | None:
    """The window `who` answers: the one last seen for it, else the open one."""
    return context.seen.get(who) or context.window


def answerer(context: Context) -> str:
    """Who answers: the one named, else the one of a player's combatants a window it
    saw waits for (a player with one combatant: that one, and the server says whether
    it is asked)."""
    found = waiting_one(context)
    if found:
        return found
    if context.role == "player" and not _waiting(context) and len(context.controls) == 1:
        return context.controls[0]  # not asked: the server says so (not_asked)
    names = "|".join(_waiting(context)) or "combatant"
    which = f"window {context.window.id}" if context.window is not None else "the window"
    raise CommandError("who_acts", f"say who answers {which}: as <{names}> ...")


def waiting_one(context: Context) -> str:
    """The combatant named, or a player's one combatant a window waits for; ""."""
    if context.actor:
        return context.actor
    if context.role != "player":
        return ""
    waiting = _waiting(context)
    return waiting[0] if len(waiting) == 1 else ""


def _waiting(context: Context) -> list[str]:
    """The combatants the window each answers waits for (a player's own only)."""
    if context.role == "player":
        candidates = list(context.controls)
    else:
        candidates = list(context.window.asked) if context.window is not None else []
    waiting = []
    for who in candidates:
        window = window_of(context, who)
        if window is not None and who in window.asked and who not in window.answered:
            waiting.append(who)
    return waiting


def open_window(context: Context) -> OpenWindow:
    if context.window is None:
        raise CommandError("no_window", "no window is open")
    return context.window


def end_combat(args: list[str]) -> Data:
    """`end combat`, or `end combat agreed`: everyone at the table agreed to stop (T10)."""
    rest = [a.lower() for a in args[1:]]
    if rest not in ([], ["agreed"]):
        raise CommandError("bad_argument", "end combat [agreed]")
    return {"type": "EndCombat", "agreed": True} if rest else {"type": "EndCombat"}


def pass_window(context: Context) -> Data:
    """`pass`: let the window go by (every ruleset's `PassWindow`)."""
    who, window = answer_window(context)
    return {"type": "PassWindow", "actor": who, "window": window.id}


def still_planning(context: Context, actor: str) -> None:
    """A declaration (V20) carries no window id: refuse it here when the planning
    window whose prompt the person saw for `actor` has closed since, or the server
    would take it into the next round's planning window."""
    seen = context.seen.get(actor)
    if seen is not None and seen.kind == "planning":
        refuse_closed(seen, actor, "planning ")


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
