"""The command and event reference of `docs/protocol.md`, generated from the engine.

`docs/protocol.md` holds two generated blocks, between `<!-- BEGIN GENERATED: name -->`
and `<!-- END GENERATED: name -->`: every command registered on the Verse ruleset and
on COMMON (who may send it, its fields, an example) and every event (its fields).
`tests/protocol/test_docs.py` fails when a block differs from what `render` makes now,
so the doc cannot fall behind the engine. After changing a command or an event:

    .venv/bin/python -m tests.protocol.command_reference --write

Each command needs an example in `EXAMPLES`, written as a client sends it (nested
records tagged with `$type`); `wire_to_record` reads it the way the server does, so an
example with a wrong or missing field fails here, not in a reader's client.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any

import server.engine.rulesets.verse  # noqa: F401  (registers the Verse commands)
from server.engine.core import COMMON
from server.engine.records import _TYPES, from_data, to_data
from server.engine.rulesets.verse.ruleset import VERSE

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

# Every command, as a client writes it in `Send.command`.
EXAMPLES: dict[str, dict[str, Any]] = {
    "Pause": {"type": "Pause", "by": "ayla"},
    "Resume": {"type": "Resume", "by": "ayla"},
    "RefusePause": {"type": "RefusePause"},
    "Rewind": {"type": "Rewind", "to_version": 41},
    "CloseWindow": {"type": "CloseWindow", "window": 7},
    "WindowExpired": {"type": "WindowExpired", "window": 7},
    "StartCombat": {"type": "StartCombat"},
    "EndTurn": {"type": "EndTurn", "actor": "ayla"},
    "Declare": {
        "type": "Declare",
        "actor": "ayla",
        "actions": [
            {"$type": "Move", "actor": "ayla", "path": [{"$type": "Cell", "x": 1, "y": 0}]},
            {"$type": "Attack", "actor": "ayla", "target": "g1", "weapon": "longsword"},
        ],
        "turn": 0,
    },
    "Withdraw": {"type": "Withdraw", "actor": "ayla", "turn": 0},
    "Answer": {
        "type": "Answer",
        "actor": "bram",
        "window": 8,
        "option": "hold",
        "action": {"$type": "Attack", "actor": "bram", "target": "g1", "weapon": "mace"},
    },
    "PassWindow": {"type": "PassWindow", "actor": "ayla", "window": 8},
    "Attack": {"type": "Attack", "actor": "ayla", "target": "g1", "weapon": "longsword"},
    "Counter": {"type": "Counter", "actor": "ayla", "target": "g1", "weapon": "longsword"},
    "OpportunityAttack": {
        "type": "OpportunityAttack",
        "actor": "ayla",
        "target": "g1",
        "weapon": "longsword",
    },
    "KnockAway": {"type": "KnockAway", "actor": "ayla", "target": "g1", "item": "potion"},
    "HoldAction": {"type": "HoldAction", "actor": "ayla"},
    "UseItem": {"type": "UseItem", "actor": "ayla", "item": "potion"},
    "Move": {
        "type": "Move",
        "actor": "ayla",
        "path": [{"$type": "Cell", "x": 1, "y": 0}, {"$type": "Cell", "x": 2, "y": 1}],
    },
    "Face": {"type": "Face", "actor": "ayla", "facing": 4},
    "SetStance": {"type": "SetStance", "actor": "ayla", "stance": "defensive"},
    "SetAwareness": {"type": "SetAwareness", "actor": "ayla", "awareness": "on_guard"},
    "StealthCheck": {"type": "StealthCheck", "sneaker": "ayla", "observer": "g1"},
    "ChangeAscension": {"type": "ChangeAscension", "actor": "ayla", "levels": 1},
    "AscendAttack": {"type": "AscendAttack", "actor": "ayla", "target": "wyrm", "weapon": "spear"},
    "Mount": {"type": "Mount", "actor": "ayla", "ride": "horse"},
    "Dismount": {"type": "Dismount", "actor": "ayla", "cell": {"$type": "Cell", "x": 3, "y": 2}},
    "RideDestroyed": {"type": "RideDestroyed", "ride": "horse"},
    "CastSpell": {
        "type": "CastSpell",
        "actor": "corvin",
        "spell": "Mana Rain",
        "targets": [],
        "target": {"$type": "Cell", "x": 6, "y": 2},
        "extra_spell_dice": 1,
        "options": [["diameter_ft", 10]],
        "helpers": [["bram", 2]],
    },
    "ChargeSpell": {"type": "ChargeSpell", "actor": "corvin", "targets": ["g1"], "target": None},
    "ConcentrationCheck": {
        "type": "ConcentrationCheck",
        "combatant": "corvin",
        "reason": "took damage",
    },
    "DecipherSpell": {
        "type": "DecipherSpell",
        "actor": "corvin",
        "spell": {"$type": "Spell", "name": "Acute Senses", "min_mc": 2, "rarity": "rare"},
    },
    "ChooseCriticalRow": {
        "type": "ChooseCriticalRow",
        "table": "critical_hit",
        "combatant": "g1",
        "row": 7,
        "weapon": "",
    },
    "SetHealth": {"type": "SetHealth", "combatant": "g1", "health": 5},
    "SetMana": {"type": "SetMana", "combatant": "corvin", "mana": 12},
    "SetArmour": {"type": "SetArmour", "combatant": "ayla", "durability": 3},
    "SetAbility": {"type": "SetAbility", "combatant": "ayla", "ability": "strength", "score": 2},
    "SetCondition": {
        "type": "SetCondition",
        "combatant": "g1",
        "condition": "Shaken",
        "rounds": 2,
    },
    "RemoveCondition": {"type": "RemoveCondition", "combatant": "g1", "condition": "Shaken"},
    "SetPosition": {
        "type": "SetPosition",
        "combatant": "g1",
        "cell": {"$type": "Cell", "x": 4, "y": 4},
        "ascension": None,
        "facing": 2,
    },
    "AddCombatant": {
        "type": "AddCombatant",
        "combatant": {
            "$type": "VerseCombatant",
            "id": "g2",
            "side": "gm",
            "sheet": {"$type": "VerseSheet", "...": "a whole sheet: docs/sheets.md"},
            "health": 12,
            "mana": 0,
            "abilities": {"$type": "Abilities", "...": "the six current scores"},
            "armour_durability": 4,
            "position": {"$type": "Cell", "x": 8, "y": 3},
        },
    },
    "RemoveCombatant": {"type": "RemoveCombatant", "combatant": "g2"},
    "SkipTurn": {"type": "SkipTurn"},
    "SetSetting": {"type": "SetSetting", "name": "reaction_seconds", "value": 10.0},
}
ABBREVIATED = {"AddCombatant"}  # its example elides a whole sheet; the others are checked

# What a client writer needs to know that the engine's docstrings do not say.
NOTES: dict[str, str] = {
    "Pause": "The server checks `by`: a player names a combatant its seat controls, the GM "
    '`"gm"`; anything else is refused with `forbidden`.',
    "Resume": "`by` is checked as for `Pause`. Only the GM or whoever paused may resume.",
    "PassWindow": "Answer window `window` with nothing: the combatant lets it go by.",
    "Withdraw": "Take back the declaration for the actor's `turn` while the planning "
    "window is open.",
    "SetHealth": "Set current health (a GM override).",
    "RemoveCombatant": "Take a combatant out of the fight (a GM override).",
    "RemoveCondition": "Remove a condition (a GM override).",
    "Rewind": "The events after `to_version` stay in the log; the fight goes on from the "
    "`Rewound` event, which carries the restored view.",
}

_SCALARS = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}


def commands() -> list[type]:
    """Every command class a client can name: on the Verse ruleset and on COMMON."""
    found = {cls.__name__: cls for cls in [*COMMON.deciders, *VERSE.deciders]}
    return sorted(found.values(), key=lambda cls: cls.__name__)


def events() -> list[type]:
    found = {cls.__name__: cls for cls in [*COMMON.appliers, *VERSE.appliers]}
    return sorted(found.values(), key=lambda cls: cls.__name__)


def wire_to_record(command: dict[str, Any]) -> Any:
    """A command as sent in `Send.command`, read the way the server reads it: its `type`
    names the command, nested records carry `$type`, lists become tuples."""
    fields = {k: v for k, v in command.items() if k != "type"}
    record = from_data({"$type": command["type"], **fields})
    check_types(record)
    return record


def check_types(record: Any) -> None:
    """Each field's value has the field's declared type (scalars, tuples, records)."""
    hints = typing.get_type_hints(type(record))
    for field in dataclasses.fields(record):
        value = getattr(record, field.name)
        if not _matches(value, hints[field.name]):
            raise TypeError(f"{type(record).__name__}.{field.name}={value!r} is not {field.type}")


def _matches(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if hint is Any:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, arg) for arg in typing.get_args(hint))
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_matches(v, args[0]) for v in value)
        if len(args) != len(value):
            return False
        return all(_matches(v, a) for v, a in zip(value, args, strict=True))
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return value in {member.value for member in hint}
    if isinstance(hint, type):
        if dataclasses.is_dataclass(hint):
            if isinstance(value, hint):
                check_types(value)
                return True
            return False
        return isinstance(value, hint)
    return True


# --- rendering ---------------------------------------------------------------------------


def wire_type(annotation: str) -> str:
    """A field's type as the wire sees it: `tuple[Cell, ...]` is a list of `Cell` maps."""
    parts = _split(annotation, "|")
    if len(parts) > 1:
        return " or ".join(wire_type(p) for p in parts)
    text = annotation.strip()
    if text == "None":
        return "null"
    if text in _SCALARS:
        return _SCALARS[text]
    if text == "Any":
        return "any plain value"
    match = re.fullmatch(r"tuple\[(.*)\]", text)
    if match:
        args = _split(match.group(1), ",")
        if len(args) == 2 and args[1] == "...":
            return f"list of {wire_type(args[0])}"
        return "[" + ", ".join(wire_type(a) for a in args) + "]"
    if text == "Command":
        return "command (`$type`-tagged)"
    return f"`{text}`"


def _split(text: str, sep: str) -> list[str]:
    """Split at `sep` outside brackets."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += char == "["
        depth -= char == "]"
        if char == sep and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return parts


def _default(field: dataclasses.Field[Any]) -> str:
    if field.default is dataclasses.MISSING:
        return "required"
    return f"`{json.dumps(to_data(field.default))}`"


def _summary(cls: type) -> str:
    """The record's docstring, paragraphs joined, and the protocol's note on it."""
    doc = cls.__doc__ or ""
    if doc.startswith(cls.__name__ + "("):  # the dataclass's generated signature
        doc = ""
    paragraphs = [" ".join(p.split()) for p in doc.strip().split("\n\n") if p.strip()]
    if cls.__name__ in NOTES:
        paragraphs.append(NOTES[cls.__name__])
    return "\n\n".join(paragraphs)


def _who(cls: type) -> str:
    issuers = cls.issuers  # type: ignore[attr-defined]
    who = []
    if "gm" in issuers:
        who.append("the GM")
    if "player" in issuers:
        who.append("any player")
    if "controller" in issuers:
        who.append(f"the player controlling `{_acting_field(cls)}`")
    if "room" in issuers:
        who.append("the room's timers" if who else "the room's timers only: clients cannot")
    paused = "; accepted while paused" if cls.while_paused else ""  # type: ignore[attr-defined]
    return "Sent by " + " or ".join(who) + paused + "."


def _acting_field(cls: type) -> str:
    """The field naming the combatant a "controller" must control (`actor` mostly)."""
    command = wire_to_record(EXAMPLES[cls.__name__])
    for field in dataclasses.fields(command):
        if getattr(command, field.name) == command.acting_for:
            return field.name
    raise AssertionError(f"the example of {cls.__name__} acts for no field")


def _category(cls: type) -> int:
    issuers = cls.issuers  # type: ignore[attr-defined]
    if cls in VERSE.actions:
        return 0
    if issuers & {"player", "controller"}:
        return 1
    if "gm" in issuers:
        return 2
    return 3


CATEGORIES = (
    "Game actions",
    "Other commands for players",
    "GM commands",
    "Room commands",
)
CATEGORY_NOTES = (
    "In Live Combat these are declared inside `Declare` during the planning window, or "
    "given as the `action` of an `Answer`; sent on their own they are refused with "
    "`wrong_phase` unless their actor is resolving. In Turn Based Combat the combatant "
    "whose turn it is sends them directly. The GM may send any of them for any combatant.",
    "Players send these for the combatants their seat controls; the GM for anyone.",
    "The GM's alone; players get `forbidden`.",
    "The room sends these itself; from a client they are refused with `forbidden`.",
)


def render_commands() -> str:
    lines: list[str] = []
    by_category: dict[int, list[type]] = {}
    for cls in commands():
        by_category.setdefault(_category(cls), []).append(cls)
    for index, title in enumerate(CATEGORIES):
        lines += [f"### {title}", "", CATEGORY_NOTES[index], ""]
        for cls in by_category.get(index, []):
            lines += _render_command(cls)
    lines += ["### Records inside commands", ""]
    lines += [
        "Nested records are maps tagged with `$type`, exactly as they appear in events.",
        "",
    ]
    for name in _nested_records():
        lines += _render_record(_TYPES[name])
    return "\n".join(lines).rstrip() + "\n"


def _render_command(cls: type) -> list[str]:
    name = cls.__name__
    example = EXAMPLES[name]
    lines = [f"#### `{name}`", ""]
    summary = _summary(cls)
    if summary:
        lines += [summary, ""]
    lines += [_who(cls), ""]
    lines += _field_table(cls)
    note = " (abbreviated)" if name in ABBREVIATED else ""
    lines += [f"Example{note}:", "", "```json", json.dumps(example), "```", ""]
    return lines


def _field_table(cls: type) -> list[str]:
    fields = dataclasses.fields(cls)
    if not fields:
        return ["No fields.", ""]
    lines = ["| field | type | default |", "|---|---|---|"]
    for field in fields:
        lines.append(f"| `{field.name}` | {wire_type(str(field.type))} | {_default(field)} |")
    return [*lines, ""]


def _nested_records() -> list[str]:
    names: set[str] = set()
    for cls in commands():
        for field in dataclasses.fields(cls):
            names.update(re.findall(r"\b([A-Z][A-Za-z]+)\b", str(field.type)))
    names.discard("Command")
    names.discard("None")
    return sorted(n for n in names if n in _TYPES)


def _render_record(cls: type) -> list[str]:
    lines = [f"#### `{cls.__name__}`", ""]
    summary = _summary(cls)
    if summary:
        lines += [summary, ""]
    return lines + _field_table(cls)


def render_events() -> str:
    lines = ["| event | fields |", "|---|---|"]
    for cls in events():
        fields = ", ".join(f"`{f.name}`" for f in dataclasses.fields(cls)) or "none"
        lines.append(f"| `{cls.__name__}` | {fields} |")
    return "\n".join(lines) + "\n"


BLOCKS = {"commands": render_commands, "events": render_events}


def _span(text: str, name: str) -> tuple[int, int]:
    begin, end = f"<!-- BEGIN GENERATED: {name} -->\n", f"<!-- END GENERATED: {name} -->"
    start = text.index(begin) + len(begin)
    return start, text.index(end, start)


def block(text: str, name: str) -> str:
    """The generated block `name` of the doc `text` (without its markers)."""
    start, stop = _span(text, name)
    return text[start:stop]


def write(path: Path = DOC) -> None:
    text = path.read_text()
    for name, render in BLOCKS.items():
        start, stop = _span(text, name)
        text = text[:start] + render() + text[stop:]
    path.write_text(text)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write()
    else:
        print(render_commands())
        print(render_events())
