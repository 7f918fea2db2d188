"""The pieces every ruleset's narration is told with: no rule system's words here.

An event reads as a sentence by its narrator (`Narrator`), which tells it through a
`Story`: the names of the combatants (`View.name_of`) and the rule systems it may meet,
so that an action or a window answer inside a shared event (`ActionStarted`,
`Answered`) reads in its own rule system's words. Each rule system gathers its own in
a `Telling` (`verse_narration.py`, `tael_narration.py`); `narration.py` tells the
events the engine shares and picks the `Telling` of the room's ruleset.

A roll reads `d20 14 + Strength 3 + Training 2 = 19` in every rule system, and a record
nobody has words for prints compactly as its type and fields (`compact`), so nothing
that happens is hidden from the log. Another side's roll may come without its
numbers (docs/protocol.md, "Rolls of another side"): `d20 14 (modifiers hidden)` when
the room shows only the faces, `a hidden roll` when it shows only the outcome; a number
an event leaves out for this audience reads `(hidden)` (`number`).

The server tells each audience's log lines (`log.py`) from the data that audience
receives, so a line says no more than the raw event would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Data = dict[str, Any]
Names = Callable[[str], str]
Turns = Callable[[str], Sequence[int]]
"""A combatant's turns this round, as indexes into the turn order (the view's
`View.turns_of`); empty when not known."""
Knows = Callable[[str], bool]
"""Whether this screen sees a combatant's secrets (its declarations): the GM, or a
player of its side."""


def _no_turns(combatant: str) -> Sequence[int]:
    return ()


def _knows_nothing(combatant: str) -> bool:
    return False


@dataclass(frozen=True)
class Telling:
    """One rule system's narration: its own events, its own game actions as verb
    phrases (`attack Ayla with scimitar`), and how answering a window with one of its
    options reads (`answers with` a Verse option, `uses the prepared move` in Tael)."""

    events: Mapping[str, Narrator] = field(default_factory=dict)
    actions: Mapping[str, ActionTeller] = field(default_factory=dict)
    answering: Callable[[str], str | None] = lambda option: None
    """The verb phrase for answering with `option`; None when it is not this system's."""


@dataclass(frozen=True)
class Story:
    """What a narrator tells with: names for ids, the rule systems in play (the room's,
    or every one known when the room is not said), and what the screen knows of the
    round: each combatant's turns (`turns`, so a fast one's declarations read `turn 2`)
    and whose secrets it sees (`knows`, so an empty declaration of its own reads as a
    pass rather than as hidden), and the room's mode. Without the last three, a
    narrator says less, never something wrong."""

    names: Names = str
    tellings: tuple[Telling, ...] = ()
    turns: Turns = _no_turns
    knows: Knows = _knows_nothing
    mode: str = ""
    """The room's mode as the view says (`live`, `turn_based`; "" when not known): what
    a player types differs (a Live Combat action is declared, V20)."""

    def turn_number(self, combatant: str, slot: Any) -> int | None:
        """Which of `combatant`'s turns (counted from 1) the turn-order index `slot` is;
        None when the screen does not know, or the combatant has one turn only."""
        turns = list(self.turns(combatant))
        if len(turns) < 2 or slot not in turns:
            return None
        return turns.index(slot) + 1

    def action(self, action: Any) -> str:
        """A game action as a verb phrase, in the words of the system it belongs to."""
        if not isinstance(action, dict):
            return "nothing"
        kind = str(action.get("$type") or action.get("type"))
        for telling in self.tellings:
            teller = telling.actions.get(kind)
            if teller is not None:
                return teller(action, self)
        return compact(action)

    def answer(self, option: str) -> str:
        """`answers with dodge`, `uses the prepared move Riposte`: the first system in
        play that knows the option says how; one none knows is simply answered with."""
        for telling in self.tellings:
            verb = telling.answering(option)
            if verb is not None:
                return f"{verb} {option}"
        return f"answers with {option}"


Narrator = Callable[[Data, Story], str]
ActionTeller = Callable[[Data, Story], str]


class Narrators(dict[str, Narrator]):
    """A table of narrators by event type, filled by the `tells` decorator."""

    def tells(self, *types: str) -> Callable[[Narrator], Narrator]:
        def register(fn: Narrator) -> Narrator:
            for name in types:
                self[name] = fn
            return fn

        return register


# --- pieces ---------------------------------------------------------------------------


HIDDEN_MODIFIERS = "(modifiers hidden)"
HIDDEN_ROLL = "a hidden roll"


def describe_roll(roll: Any) -> str:
    """`d20 14 + Strength 3 + Training 2 = 19`; `2x(2d6 3+5) + Training 1 = 17`; another
    side's roll shown by its faces, `d20 14 (modifiers hidden)`, or not at all, `a
    hidden roll` (`x2` after it for a critical's multiplied dice)."""
    if not isinstance(roll, dict):
        return "no roll"
    multiplier = roll.get("multiplier", 1)
    if "dice" not in roll:
        return HIDDEN_ROLL + (f" (x{multiplier})" if multiplier != 1 else "")
    parts: list[str] = []
    for group in roll.get("dice", []):
        faces = list(group.get("faces", []))
        sides = group.get("sides")
        name = f"d{sides}" if len(faces) == 1 else f"{len(faces)}d{sides}"
        text = f"{name} {'+'.join(str(f) for f in faces)}"
        parts.append(("- " if group.get("negative") and parts else "") + text)
    text = " + ".join(parts) if parts else "0"
    if multiplier != 1:
        text = f"{multiplier}x({text})"
    if "total" not in roll:
        return f"{text} {HIDDEN_MODIFIERS}"
    for name, value in roll.get("modifiers", []):
        text += f" {'-' if value < 0 else '+'} {name} {abs(value)}"
    return f"{text} = {roll.get('total')}"


def number(event: Data, field: str, hidden: str = "(hidden)") -> str:
    """A number of the event, or `(hidden)` where the server left it out for this
    screen (another side's, R77)."""
    return str(event[field]) if field in event else hidden


def changed_by(event: Data, field: str = "defence_changes") -> str:
    """` (Prone -2)`: the conditions that changed a number, as the conditions table
    says (V27), when the event shows them to this screen; "" when none did."""
    changes = event.get(field) or []
    named = ", ".join(f"{name} {value:+d}" for name, value in changes)
    return f" ({named})" if named else ""


def compact(value: Data) -> str:
    """Any record as `TypeName field=value, ...`: the fallback for unknown events."""
    name = value.get("$type") or value.get("type") or "?"
    fields = ", ".join(
        f"{key}={_plain(item)}" for key, item in value.items() if key not in ("$type", "type")
    )
    return f"{name} {fields}" if fields else str(name)


def _plain(value: Any) -> str:
    if isinstance(value, dict):
        if value.get("$type") == "Roll":
            return f"({describe_roll(value)})"
        return f"({compact(value)})"
    if isinstance(value, list):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    if isinstance(value, str):
        return value if value and " " not in value else repr(value)
    return repr(value)


def cell(where: Any) -> str:
    """A cell or tile as `(x, y)`, from a `Cell` map or an `[x, y]` pair."""
    if isinstance(where, dict):
        return f"({where.get('x')}, {where.get('y')})"
    if isinstance(where, list) and len(where) == 2:
        return f"({where[0]}, {where[1]})"
    return str(where)


def moved_to(action: Data) -> str:
    """A move action's phrase: where its path ends."""
    path = action.get("path", [])
    return f"move to {cell(path[-1])}" if path else "stay put"


def who(by: str, names: Names) -> str:
    """Who paused or resumed: the GM (`gm`, or nobody named) or a combatant."""
    return "the GM" if by in ("gm", "") else names(by)


def reason(why: Any) -> str:
    """` (why)` after a sentence, or nothing."""
    return f" ({why})" if why else ""
