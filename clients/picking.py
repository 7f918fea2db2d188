"""A typed number as the command of a choice the server offered (protocol version 2).

The server lists what each combatant a screen plays may do now (`choices`,
`protocol.table.SeatChoices`), numbered on the screen (`table_screen.choice_lines`). A
person types the number of a choice, then the number of an option for each of its holes
in order: `2` sends the second choice as it is, `1 3` the first with the third option
of its first hole (`target: 1) Goblin (g1)  2) ...`). A hole with a single option fills
itself. Where the seat composes a command of parts (a Live declaration, V20), parts are
separated by commas and appended in order: `1 2, 3`.

Pure, like `commands.parse`, which hands it every line that starts with a number: the
rules are the server's, this only fills in what it offered. An answer for a window that
closed as the line was typed is refused here, as a typed answer is (`answer_window`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from jsonpointer import JsonPointer, JsonPointerException  # type: ignore[import-untyped,unused-ignore]

from clients.lines import GM_CONSOLE, CommandError, Context, Data, refuse_closed
from clients.table_screen import bounds


def is_pick(verb: str) -> bool:
    """Whether a line's first word is a choice's number."""
    return verb.split(",")[0].isdigit()


def pick(text: str, context: Context) -> Data:
    """The command the numbers in `text` pick from the choices of the one who acts."""
    who = picker(context)
    seen = context.seen.get(who)
    if seen is not None:
        refuse_closed(seen, who)
    seat = context.choices[who]
    groups = [group.split() for group in text.split(",")]
    if any(not group for group in groups):
        raise CommandError("bad_choice", "a number, then one for each blank: 2 or 1 3, 2")
    picked = [_choice(seat, group) for group in groups]
    whole = [choice for choice, _ in picked if choice.get("command") is not None]
    if whole:
        if len(picked) > 1:
            raise CommandError("bad_choice", f"'{whole[0]['label']}' goes alone")
        return filled(whole[0]["command"], whole[0], picked[0][1])
    compose = seat.get("compose")
    if not isinstance(compose, Mapping):
        raise CommandError("bad_choice", "nothing to put that choice in")
    most = int(compose.get("most", 1))
    if len(picked) > most:
        raise CommandError("too_many_arguments", f"{compose['label']}: at most {most}")
    command = copy.deepcopy(compose["command"])
    parts = JsonPointer(compose["into"]).resolve(command)
    for choice, values in picked:
        parts.append(filled(choice["part"], choice, values))
    result: Data = command
    return result


def picker(context: Context) -> str:
    """Whose choices a number picks from: the one named (`as`), else the only one of
    this screen's combatants with choices now."""
    if context.actor:
        if context.actor not in context.choices:
            raise CommandError("nothing_to_choose", f"{context.actor} has nothing to choose now")
        return context.actor
    offered = [who for who in context.choices if who != GM_CONSOLE]  # named, never guessed
    if context.role == "player":
        offered = [who for who in offered if who in context.controls]
    if context.prompted is not None:
        offered = [who for who in offered if who in context.prompted]
    if len(offered) == 1:
        return offered[0]
    if not offered:
        raise CommandError("nothing_to_choose", "nothing to choose now")
    raise CommandError("who_acts", f"say who chooses: as <{'|'.join(offered)}> <number>")


def _choice(seat: Mapping[str, Any], words: list[str]) -> tuple[Data, list[Any]]:
    """The choice a group of numbers names, and the value of each of its holes."""
    options = seat.get("options", [])
    first, given = _number(words[0]), words[1:]
    if not 1 <= first <= len(options):
        raise CommandError("no_such_choice", f"choose 1 to {len(options)}, not {first}")
    choice: Data = options[first - 1]
    holes = choice.get("holes", [])
    if len(given) > len(holes):
        raise CommandError("too_many_arguments", f"'{choice['label']}' has {len(holes)} blanks")
    values = []
    for n, hole in enumerate(holes):
        if hole.get("kind") == "number":  # the value itself, as typed
            if n >= len(given):
                raise CommandError("missing_argument", f"{hole['label']}? {bounds(hole)}")
            values.append(_amount(given[n], hole))
            continue
        found = hole["options"]
        if n < len(given):
            index = _number(given[n])
        elif len(found) == 1:
            index = 1
        else:
            listed = "  ".join(f"{i}) {o['label']}" for i, o in enumerate(found, 1))
            raise CommandError("missing_argument", f"{hole['label']}? {listed}")
        if not 1 <= index <= len(found):
            raise CommandError("no_such_choice", f"{hole['label']}: 1 to {len(found)}, not {index}")
        values.append(found[index - 1]["value"])
    return choice, values


def filled(record: Data, choice: Mapping[str, Any], values: list[Any]) -> Data:
    """A copy of `record` with each hole of `choice` set to its value."""
    filled = copy.deepcopy(record)
    for hole, value in zip(choice.get("holes", []), values, strict=True):
        try:
            filled = JsonPointer(hole["path"]).set(filled, copy.deepcopy(value))
        except JsonPointerException as error:
            raise CommandError("bad_choice", f"cannot fill {hole['label']}: {error}") from None
    result: Data = filled
    return result


def _amount(word: str, hole: Mapping[str, Any]) -> int:
    """The whole number typed for a number hole, within its bounds."""
    try:
        value = int(word)
    except ValueError:
        raise CommandError("bad_number", f"{hole['label']}: a number, not {word!r}") from None
    least, most = hole.get("least"), hole.get("most")
    if (least is not None and value < least) or (most is not None and value > most):
        raise CommandError("no_such_choice", f"{hole['label']}: {bounds(hole)}, not {value}")
    return value


def _number(word: str) -> int:
    if not word.isdigit():
        raise CommandError("bad_number", f"a choice is a number, not {word!r}")
    return int(word)
