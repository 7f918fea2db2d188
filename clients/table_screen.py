"""The held table drawn as lines of text for the terminal (protocol version 2).

Each function draws one piece of what the server sent (`protocol/table.py`) and knows
no rule: names, words, notes, sheet rows and roll labels are shown as the server wrote
them, so a ruleset this client has never heard of draws like the others. A number
shows where the audience may see it and a word where it may not: health as `12/20` or
as its word (`wounded`), a roll whole, by its faces, or hidden (R77).

`draw` puts the pieces together: the header, the turn order, one line per combatant
(`*` before those this screen plays), the open window and the choices; `log_lines`
draws a line of the log with its roll cards.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from clients.table import HeldTable, waiting

Data = dict[str, Any]
Names = Callable[[str], str]
GAP = "  "  # between the parts of a line
HIDDEN_MODIFIERS = "(modifiers hidden)"
"""In place of another side's modifiers and total (R77: the faces only)."""
HIDDEN_ROLL = "a hidden roll"
"""In place of a roll another side may not see at all (R77: its outcome only)."""


def cell(where: Any) -> str:
    """A cell as `(x, y)`, from the card's `[x, y]`."""
    if isinstance(where, list | tuple) and len(where) == 2:
        return f"({where[0]}, {where[1]})"
    return str(where)


def who(by: str, names: Names) -> str:
    """Who paused the fight: the GM (`gm`) or a combatant."""
    return "the GM" if by in ("gm", "") else names(by)


def draw(held: HeldTable, mine: Collection[str] = ()) -> list[str]:
    """The table as this screen shows it: everything but the log. `mine` are the
    combatants this screen plays (marked `*`)."""
    view = held.view
    if not view:
        return ["(no table yet)"]
    names = told_apart(view, held.name_of)
    lines = [header(view, names), turn_order(view, names)]
    if view.get("declared"):
        lines.append("Declared: " + ", ".join(names(cid) for cid in view["declared"]))
    for cid, card in view.get("combatants", {}).items():
        lines.append(combatant_line(card, names, mine=cid in mine))
    if view.get("window"):
        lines.append(window_line(view["window"], names))
    for seat in held.choices:
        lines.extend(choice_lines(seat, names))
    return lines


def told_apart(view: Data, names: Names) -> Names:
    """`names`, with the id added to a name two combatants share (`Goblin (g1)`), so a
    turn order or a list of who is waited on says which goblin."""
    cards = view.get("combatants", {})
    seen = [names(cid) for cid in cards]

    def name(cid: str) -> str:
        text = names(cid)
        return f"{text} ({cid})" if cid in cards and seen.count(text) > 1 else text

    return name


def named(cid: str, names: Names) -> str:
    """`Goblin (g1)`: a name with its id, for lines where ids are typed."""
    text = names(cid)
    return text if text.endswith(f"({cid})") else f"{text} ({cid})"


# --- the fight --------------------------------------------------------------------------


def header(view: Data, names: Names) -> str:
    """`Round 2  combat  live  turn: Ayla (ayla)  paused by Bram`."""
    parts = [f"Round {view.get('round', 0)}", view["phase"], view["mode"].replace("_", " ")]
    if view.get("turn"):
        parts.append("turn: " + named(view["turn"], names))
    if view.get("paused_by"):
        parts.append("paused by " + who(view["paused_by"], names))
    if view.get("result"):
        parts.append("result: " + view["result"])
    return GAP.join(parts)


def turn_order(view: Data, names: Names) -> str:
    """`Order: Ayla 14, [Goblin], Bram`: each slot with its initiative where this screen
    sees it, the combatant whose turn it is in brackets (each of its slots: the table
    names whose turn it is, not which of its turns)."""
    slots = []
    for slot in view.get("order", []):
        text = names(slot["combatant"])
        if slot.get("initiative") is not None:
            text += f" {slot['initiative']}"
        slots.append(f"[{text}]" if slot["combatant"] == view.get("turn") else text)
    return "Order: " + (", ".join(slots) or "none yet")


def combatant_line(card: Data, names: Names, mine: bool = False) -> str:
    """One combatant: `* Ayla (ayla)  heroes  (3, 4)  health 12/20  mana 5/8  prone (2
    rounds)  hands: longsword  notes: holding`."""
    parts = [("* " if mine else "  ") + f"{card['name']} ({card['id']})", card["side"]]
    parts.append(cell(card["position"]))
    if card.get("ascension"):
        parts.append(f"ascension {card['ascension']}")
    if card.get("mounted_on"):
        parts.append("on " + names(card["mounted_on"]))
    parts.append("health " + health(card))
    if card.get("mana"):
        parts.append("mana " + meter(card["mana"]))
    if card.get("active") is False:
        parts.append("out of the fight")
    if card.get("conditions"):
        parts.append(", ".join(tag(t) for t in card["conditions"]))
    for field in ("hands", "dropped", "broken", "notes"):
        if card.get(field):
            parts.append(f"{field}: " + ", ".join(card[field]))
    return GAP.join(parts)


def health(card: Data) -> str:
    """`12/20` where this screen sees the number, else the table's word (`wounded`)."""
    if card.get("health"):
        return meter(card["health"])
    return str(card.get("health_word") or "unknown")


def meter(value: Data) -> str:
    return f"{value['now']}/{value['max']}"


def tag(condition: Data) -> str:
    """`prone (2 rounds)`, `blessed` (until something ends it)."""
    left = condition.get("rounds_left")
    if left is None:
        return str(condition["name"])
    return f"{condition['name']} ({left} round{'' if left == 1 else 's'})"


def details_lines(card: Data) -> list[str]:
    """The rows of a sheet this screen may read, `label: value`, as the server wrote
    them."""
    return [": ".join(row) for row in card.get("details", [])]


def window_line(window: Data, names: Names) -> str:
    """`reaction window about Goblin (g1), waiting on: Ayla, Bram`."""
    text = f"{window['kind']} window"
    if window.get("about"):
        text += " about " + named(window["about"], names)
    left = waiting(window)
    return text + ", waiting on: " + (", ".join(names(cid) for cid in left) or "nobody")


# --- the log ----------------------------------------------------------------------------


def log_lines(line: Data, names: Names) -> list[str]:
    """A log line as the server wrote it, each of its rolls on a line below it."""
    return [*line["text"].splitlines(), *("    " + roll_card(r, names) for r in line["rolls"])]


def roll_card(card: Data, names: Names) -> str:
    """`attack by Goblin: d20 14 + Strength 3 + Training 2 = 19 vs PD 15: hit`. Another
    side's roll shows what this screen may see of it (R77): `d20 14 (modifiers hidden)`
    with its faces only, `a hidden roll` with its outcome only; a number it was against
    that this screen may not see is left out (`vs PD`)."""
    text = str(card["label"]) + (" by " + names(card["by"]) if card.get("by") else "")
    text += ": " + roll_numbers(card)
    against = card.get("against")
    if against:
        value = against.get("value")
        text += f" vs {against['name']}" + ("" if value is None else f" {value}")
    return text + (f": {card['outcome']}" if card.get("outcome") else "")


def roll_numbers(card: Data) -> str:
    """The dice, modifiers and total of a roll, as far as this screen sees them."""
    multiplier = card.get("multiplier", 1)
    if card.get("dice") is None and card.get("total") is None:
        return HIDDEN_ROLL + (f" (x{multiplier})" if multiplier != 1 else "")
    text = dice_text(card["dice"]) if card.get("dice") is not None else "(dice hidden)"
    if multiplier != 1:
        text = f"{multiplier}x({text})"
    if card.get("total") is None:
        return f"{text} {HIDDEN_MODIFIERS}"
    for modifier in card.get("modifiers") or []:
        value = modifier["value"]
        text += f" {'-' if value < 0 else '+'} {modifier['name']} {abs(value)}"
    return f"{text} = {card['total']}"


def dice_text(groups: Iterable[Data]) -> str:
    """`d20 14`, `2d6 3+5 - d4 2`: each group of dice with its faces."""
    text = ""
    for group in groups:
        faces = group["faces"]
        count = "" if len(faces) == 1 else str(len(faces))
        dice = f"{count}d{group['sides']} " + "+".join(str(face) for face in faces)
        sign = "-" if group.get("negative") else "+"
        text = f"{text} {sign} {dice}" if text else ("-" if sign == "-" else "") + dice
    return text or "0"


# --- the choices --------------------------------------------------------------------------


def choice_lines(seat: Data, names: Names) -> list[str]:
    """What one combatant may do, numbered: `1. Dodge  2. Block  3. Pass` on one line,
    or, when a choice has holes to fill, one choice a line with each hole's options
    numbered below it (`target: 1) Goblin (g1)  2) Orc (o1)`)."""
    lines = [named(seat["combatant"], names) + " may:"]
    compose = seat.get("compose")
    if compose:
        lines.append(f"  {compose['label']}: pick up to {compose.get('most', 1)}")
    options = seat.get("options", [])
    if not options:
        return [*lines, "  nothing to choose now"]
    if not any(option.get("holes") for option in options):
        numbered = (f"{n}. {option['label']}" for n, option in enumerate(options, 1))
        return [*lines, "  " + GAP.join(numbered)]
    for n, option in enumerate(options, 1):
        lines.append(f"  {n}. {option['label']}")
        lines.extend("       " + hole_line(hole) for hole in option.get("holes", []))
    return lines


HOLE_SHOWN = 12
"""How many options of a hole a prompt lists: a move may offer hundreds of cells, and a
screen of them hides the rest of the prompt; the others are still typed by number."""


def bounds(hole: Mapping[str, Any]) -> str:
    """`a number from 0`, `a number from 1 to 99`, `a number`: what a number hole takes."""
    least, most = hole.get("least"), hole.get("most")
    if least is not None and most is not None:
        return f"a number from {least} to {most}"
    if least is not None:
        return f"a number from {least}"
    return "a number" if most is None else f"a number up to {most}"


def hole_line(hole: Data) -> str:
    """`target: 1) Goblin (g1)  2) Orc (o1)`: what to fill in and its options, the first
    `HOLE_SHOWN` of them when there are more (`... 13 to 40: 28 more`)."""
    if hole.get("kind") == "number":
        return f"{hole['label']}: {bounds(hole)}"
    found = hole["options"]
    options = [f"{n}) {option['label']}" for n, option in enumerate(found[:HOLE_SHOWN], 1)]
    if len(found) > HOLE_SHOWN:
        options.append(f"... {HOLE_SHOWN + 1} to {len(found)}: {len(found) - HOLE_SHOWN} more")
    return f"{hole['label']}: " + (GAP.join(options) or "no option")
