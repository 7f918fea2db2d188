"""What a thin client draws: the table, the log and the choices (protocol version 2).

A client of version 2 knows no rule. The server sends each connection what its
audience may see as data to draw, never events to fold:

* the **table** (`TableView`): the fight now (combatants as `Card`s, the turn order,
  the round, the open window, the pause, the grid, the phase and the result), whole in a
  `table` message, then changed by the `patch` of every `update`;
* the **log** (`LogLine`): each event as a line this audience may read, with its rolls
  as `RollCard`s (dice and faces, named modifiers, total, what it was against, the
  outcome), so a client can draw roll cards without knowing what a roll is for;
* the **choices** (`SeatChoices`): what each combatant this connection plays may do
  now, as engine commands ready to send or with their holes listed (`Hole`), so a
  client offers only legal moves and a player picks from lists.

Everything here is built by the server from the data the audience may see (the same
redaction as the raw events), so a field a type here allows is never a way around it.

Patches (`PatchOp`) follow RFC 6902 (JSON Patch) with three operations, `add`,
`remove` and `replace`, and paths as RFC 6901 JSON Pointers (`/combatants/g1/health`;
`~1` stands for `/` and `~0` for `~` in a key). Lists are never patched item by item:
a changed list is replaced whole. A client applies an update's operations in order to
the table it holds; any RFC 6902 library applies them.

These models are the contract: the server builds plain dicts (fast) and the tests check
every frame a client receives against them. The messages that carry them (`table`,
`update`, `log`, `choices`) are in `messages.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints

from protocol.types import (
    MAX_NAME,
    Count,
    Int64,
    Name,
    PlainData,
    PlainValue,
    Strict,
    Text,
)


class _Message(Strict, BaseModel):
    """Strict (`types.Strict`); BaseModel named again so linters see a pydantic model."""


Word = Annotated[str, StringConstraints(max_length=MAX_NAME)]
"""A short word: an id that may be empty, a kind, a state ("wounded")."""


class Meter(_Message):
    """A number and its maximum (health, mana, armour): a bar to draw."""

    now: Int64
    max: Int64


class Tag(_Message):
    """A condition or status on a combatant: its name and, when it ends by itself,
    how many rounds are left (None: until something ends it)."""

    name: Word
    rounds_left: Int64 | None = None


class Card(_Message):
    """One combatant as this audience may see it, ready to draw on a map and a rail.

    `health` and `mana` are numbers only for an audience that sees them (the GM, the
    combatant's own side, an allied one); every audience gets `health_word`, the word
    the table uses ("unhurt", "wounded", "bloodied", "down", or a ruleset's own).
    `hands` are the items in hand, `dropped` the weapons on the ground, `broken` the
    items broken. `notes` are short words to show by the token ("holding", "charging
    Fireball 1/2", "stance: defensive"). `details` are rows of a sheet, label and
    value as text, for an audience that may read the sheet (its own side, the GM): a
    client lists them, it never reads them.
    """

    id: Name
    name: Text
    side: Word
    position: list[Int64]  # [x, y]: the cell
    ascension: Int64 = 0
    facing: Int64 = 0  # a direction index: 8 on squares, 6 on hexagons (`Grid.directions`)
    mounted_on: Word = ""
    active: bool = True  # still in the fight (not dead, fainted, fled)
    health: Meter | None = None
    health_word: Word = ""
    mana: Meter | None = None
    conditions: list[Tag] = []
    hands: list[Text] = []
    dropped: list[Text] = []
    broken: list[Text] = []
    notes: list[Text] = []
    details: list[list[Text]] = []


class Slot(_Message):
    """One turn of the round's turn order. `initiative` only where the audience may see
    it (its own side's, or every one at an open table)."""

    combatant: Name
    initiative: Int64 | None = None


class OpenWindow(_Message):
    """The open window: what kind, whose action it answers (`about`), who it waits on
    and who has answered. Its countdown comes in `window` messages."""

    id: Count
    kind: Name
    about: Word = ""
    asked: list[Name] = []
    answered: list[Name] = []
    seconds: float


class GridView(_Message):
    kind: Literal["square", "hex"]
    cell_ft: Int64 = 5
    directions: Int64 = 8


class TableView(_Message):
    """The whole fight as this audience may see it."""

    ruleset: Name
    mode: Name  # "live" or "turn_based"
    phase: Name  # "setup", "combat", "ended"
    result: Text = ""  # once ended: how it ended, as a line to show
    round: Count = 0
    turn: Word = ""  # whose turn it is now ("" outside a turn)
    order: list[Slot] = []
    declared: list[Name] = []  # who has declared this round (not what)
    window: OpenWindow | None = None
    paused_by: Word = ""  # a combatant id, "gm", or "" when the fight runs
    grid: GridView
    combatants: dict[Name, Card] = {}
    settings: dict[Name, PlainValue] = {}
    version: Count = 0


class Face(_Message):
    """One group of dice of a roll: `faces` rolled on `sides`-sided dice; `negative`
    when the group is subtracted."""

    sides: Int64
    faces: list[Int64]
    negative: bool = False


class Modifier(_Message):
    name: Text
    value: Int64


class Against(_Message):
    """What a roll was against: its name ("PD", "DC", "Dexterity save") and its number
    when this audience may see it."""

    name: Text
    value: Int64 | None = None


class RollCard(_Message):
    """One roll of a log line, as this audience may see it.

    `label` says what the roll was for ("attack", "damage", "stealth"); `by` is who
    rolled it. `dice` is None when the faces are hidden from this audience,
    `modifiers` and `total` None when the numbers are (another side's roll, R77).
    `outcome` is the word the table hears ("hit", "miss", "success", "failure",
    "critical"), "" when the roll has none of its own (damage).
    """

    label: Text
    by: Word = ""
    dice: list[Face] | None = None
    multiplier: Int64 = 1
    modifiers: list[Modifier] | None = None
    total: Int64 | None = None
    against: Against | None = None
    outcome: Word = ""


class LogLine(_Message):
    """One event as a line: `text` may hold several lines; `kind` is the event's type
    (for icons and filters); `rolls` its rolls as cards."""

    seq: Annotated[int, Field(ge=1)]
    kind: Name
    text: Annotated[str, StringConstraints(max_length=16384)]
    rolls: list[RollCard] = []


class PatchOp(_Message):
    """One RFC 6902 operation: `add` and `replace` carry `value`, `remove` does not."""

    op: Literal["add", "remove", "replace"]
    path: Annotated[str, StringConstraints(max_length=1024)]
    value: PlainValue = None


class HoleOption(_Message):
    value: PlainValue
    label: Text


class Hole(_Message):
    """A place in a choice's command the player fills: `path` is a JSON Pointer into
    `command` (or into `part`), `label` what to ask ("target", "weapon", "cell").

    A `"pick"` hole (the usual) lists the legal values in `options`. A `"number"` hole
    (a GM override: health, rounds) takes a whole number from `least` to `most` (None:
    no bound that side); its `options` are empty and the value already in the command
    is the current one, a fine default. A `"path"` hole (a move) is a pick whose values
    are paths in short, `[x, y]` for each cell, which go in the command as cell records
    (`filling`)."""

    path: Annotated[str, StringConstraints(max_length=1024)]
    label: Text
    options: list[HoleOption]
    kind: Literal["pick", "number", "path"] = "pick"
    least: Int64 | None = None
    most: Int64 | None = None


class Choice(_Message):
    """One thing a combatant may do now.

    Either `command` (an engine command, as `send.command` takes it) to send once its
    holes are filled, or `part` (an engine record such as an action) to add to the
    seat's `compose` command before it is sent (a Live declaration of several actions).
    `key` is a short stable word ("attack", "dodge", "pass") for keys and tests.
    """

    key: Name
    label: Text
    command: PlainData | None = None
    part: PlainData | None = None
    holes: list[Hole] = []


class Compose(_Message):
    """A command built from parts: the parts the player picks are appended, in order,
    to the list at `into` (a JSON Pointer into `command`), at most `most` of them."""

    label: Text
    command: PlainData
    into: Annotated[str, StringConstraints(max_length=1024)]
    most: Count = 1


class SeatChoices(_Message):
    """What one combatant may do now (`window`: the window its choices answer, None
    outside one)."""

    combatant: Name
    window: Count | None = None
    compose: Compose | None = None
    options: list[Choice] = []


def filling(hole: Mapping[str, Any], value: Any) -> Any:
    """What goes in the command at `hole["path"]` for `value`, one of `hole`'s option
    values: a `"path"` hole's `[x, y]` cells as the cell records a command holds, any
    other value as it is."""
    if hole.get("kind") == "path":
        return [{"$type": "Cell", "x": x, "y": y} for x, y in value]
    return value


def with_cells(seat: Mapping[str, Any]) -> dict[str, Any]:
    """`seat` (a `SeatChoices` as plain data, left unchanged) with each `"path"` hole's
    option values as they go in the command (`filling`): what a client that fills holes
    by `value` alone holds."""
    if not any(
        h.get("kind") == "path" for o in seat.get("options", []) for h in o.get("holes", [])
    ):
        return dict(seat)
    options = []
    for option in seat["options"]:
        holes = [_filled_hole(hole) for hole in option.get("holes", [])]
        options.append({**option, "holes": holes})
    return {**seat, "options": options}


def _filled_hole(hole: Mapping[str, Any]) -> dict[str, Any]:
    if hole.get("kind") != "path":
        return dict(hole)
    found = [{**o, "value": filling(hole, o["value"])} for o in hole["options"]]
    return {**hole, "options": found}


__all__ = [
    "Against",
    "Card",
    "Choice",
    "Compose",
    "Face",
    "GridView",
    "Hole",
    "HoleOption",
    "LogLine",
    "Meter",
    "Modifier",
    "OpenWindow",
    "PatchOp",
    "RollCard",
    "SeatChoices",
    "Slot",
    "TableView",
    "Tag",
    "Text",
    "Word",
    "filling",
    "with_cells",
]
