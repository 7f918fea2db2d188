"""The command and event reference of `docs/protocol.md`, generated from the engine.

`docs/protocol.md` holds five generated blocks, between `<!-- BEGIN GENERATED: name -->`
and `<!-- END GENERATED: name -->`: whose numbers each field of a roll-carrying event
holds (`rolls`, R77, from the views' tables); every command registered on the Verse
ruleset and on COMMON (who may send it, its fields, an example) and every event (its
fields); then World of Tael's own commands and events, with the shared ones a Tael room
also takes or sends, and what Tael hides from other sides (`tael-commands`,
`tael-events`).
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
from server.engine.core import COMMON, Ruleset
from server.engine.dice import DiceResult, Roll
from server.engine.flow import Ask, Window
from server.engine.records import _TYPES, from_data, to_data
from server.engine.rulesets.tael.attacks import HitChecked, HitKind
from server.engine.rulesets.tael.damage import DamagePrevented, DamageRolled, DamageTaken
from server.engine.rulesets.tael.preparations import PreparationAnnounced
from server.engine.rulesets.tael.ruleset import TAEL  # the package registers every Tael module
from server.engine.rulesets.tael.views import ROLLS as TAEL_ROLLS
from server.engine.rulesets.tael.views import TAEL_VIEWS
from server.engine.rulesets.verse.ruleset import VERSE
from server.engine.rulesets.verse.views import ROLLS as VERSE_ROLLS
from server.engine.rulesets.verse.views import VERSE_VIEWS
from server.engine.stack import Answered, WindowOpened
from server.engine.views import COMMON_EVENTS, Owned

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
    "ChangeAscension": {"type": "ChangeAscension", "actor": "ayla", "levels": 2},
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
        "helpers": [],
        "pledged": [["bram", 2]],
    },
    "PledgeMana": {
        "type": "PledgeMana",
        "actor": "bram",
        "caster": "corvin",
        "spell": "Mana Rain",
        "share": 2,
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
    "RecoverItem": {"type": "RecoverItem", "combatant": "corvin", "item": "spear"},
    "ApproveFeat": {"type": "ApproveFeat", "combatant": "bram", "kind": "counter"},
    "WithdrawApproval": {"type": "WithdrawApproval", "combatant": "bram", "kind": "counter"},
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
    "SetConditionRule": {
        "type": "SetConditionRule",
        "rule": {
            "$type": "ConditionRule",
            "name": "Prone",
            "changes": [
                {"$type": "Change", "key": "attack", "mode": "add", "value": -2},
                {"$type": "Change", "key": "defence.pd", "mode": "add", "value": -2},
                {"$type": "Change", "key": "speed", "mode": "multiply", "value": 0.5},
            ],
            "loses": [],
            "damage": "",
            "drain": [],
            "rounds": 0,
            "turns": 1,
            "save": None,
            "text": "On the ground: -2 to attack, -2 Physical Dodge, half speed.",
        },
    },
    "RemoveConditionRule": {"type": "RemoveConditionRule", "name": "Prone"},
    # World of Tael (the sample encounter's cast: server/samples/encounters/tael-ambush.toml)
    "AttackAction": {
        "type": "AttackAction",
        "actor": "kaelen",
        "target": "bandit",
        "weapon": "longsword",
        "off_hand": False,
    },
    "SpellAction": {
        "type": "SpellAction",
        "actor": "mira",
        "spell": "Ember Spray",
        "targets": ["bandit", "cultist"],
    },
    "Punch": {"type": "Punch", "actor": "bandit", "target": "kaelen", "as_bonus": False},
    "MoveTiles": {
        "type": "MoveTiles",
        "actor": "tobin",
        "path": [{"$type": "Cell", "x": 1, "y": 1}, {"$type": "Cell", "x": 2, "y": 1}],
    },
    "Dash": {"type": "Dash", "actor": "tobin"},
    "Sprint": {"type": "Sprint", "actor": "tobin"},
    "Brace": {"type": "Brace", "actor": "kaelen"},
    "Hide": {"type": "Hide", "actor": "tobin"},
    "Help": {"type": "Help", "actor": "tobin", "target": "mira"},
    "SkillCheck": {"type": "SkillCheck", "actor": "mira", "skill": "persuasion", "as_bonus": True},
    "Surrender": {"type": "Surrender", "actor": "bandit", "as_bonus": True},
    "PickUp": {"type": "PickUp", "actor": "bandit", "weapon": "hand axe", "as_bonus": True},
    "EquipWeapon": {
        "type": "EquipWeapon",
        "actor": "kaelen",
        "main_hand": "longsword",
        "off_hand": "parrying dagger",
        "as_bonus": True,
    },
    "ChooseStance": {"type": "ChooseStance", "actor": "kaelen", "stance": "tanking"},
    "Prepare": {"type": "Prepare", "actor": "kaelen", "move": "Riposte"},
    "PreparedStrike": {
        "type": "PreparedStrike",
        "actor": "kaelen",
        "target": "bandit",
        "weapon": "parrying dagger",
    },
    "SetHitPoints": {"type": "SetHitPoints", "combatant": "bandit", "hit_points": 5},
    "RemoveStatus": {"type": "RemoveStatus", "combatant": "tobin", "status": "Burning"},
    "SetStatus": {
        "type": "SetStatus",
        "combatant": "bandit",
        "status": "Frozen",
        "turns": 2,
        "damage": "",
        "skips_turn": True,
    },
    "EndCombat": {"type": "EndCombat"},
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
    "RemoveCombatant": "Take a combatant out of the fight (a GM override), with its turns, "
    "declarations and stack entries. On its own turn the turn ends there, but the answers "
    "others gave stay and resolve before the next turn starts; meanwhile the view's "
    "`turn_over` is true and nobody's turn is current (R63).",
    "RemoveCondition": "Remove a condition (a GM override).",
    "Rewind": "The events after `to_version` stay in the log; the fight goes on from the "
    "`Rewound` event, which carries the restored view.",
    # World of Tael: the records without a docstring of their own.
    "Punch": "T9: a melee hit check with Martial Combat against `target`, one tile away at "
    "most, for the Strength modifier (plus a Fist Weapon's dice); the hands hold nothing, a "
    "Buckler Shield or a Fist Weapon. With `as_bonus` it is the Bonus Action, only after an "
    "Action used as a Punch this turn, and hits by itself the target that Punch hit.",
    "Surrender": "T9: drop the weapons in hand and surrender (the GM judges whether it is "
    "accepted); unarmed until a weapon is picked up and equipped again.",
    "PickUp": "T9: pick up a weapon `actor` dropped; unarmed, it goes straight into the main hand.",
    "Dash": "T9: this turn's movement is doubled (the universal Action).",
    "Sprint": "T9: this turn's movement is quadrupled; the next turn's is 0.",
    "Brace": "T9: damage taken is halved, rounded down, until `actor`'s next turn; no more "
    "attacks this turn and no Preparation Phase after it.",
    "Hide": "T9: a Stealth check (`d20` + the sheet's stealth skill) for the GM to judge; "
    "`actor` counts as hidden until it attacks or casts.",
    "RemoveStatus": "Take a status effect off (a GM override).",
}

# World of Tael's own events without a docstring: what each says.
EVENT_NOTES: dict[str, str] = {
    "DamageTaken": "The attack roll's `damage` reached `target`: `taken` after Brace, "
    "`hit_points` left.",
    "WillpowerDcRaised": "A hit on a fainted character raised its Willpower DC (T8).",
    "PreparationAnnounced": "`combatant` announced its prepared move for this Preparation "
    "Phase (T2).",
    "SkillChecked": "A Roleplay skill check for the GM to judge (T9).",
    "Surrendered": "`combatant` surrendered and dropped the weapons in its hands (T9).",
    "PickedUp": "`combatant` picked up a weapon it dropped; `equipped`: it went into its "
    "empty hand (T9).",
    "WeaponsEquipped": "`combatant` now holds these weapons (T9).",
    "CombatEnded": "The GM ended the fight: the sides out of it (`defeated`) and those all "
    "dead or fainted (`fallen`) (T10).",
    "Died": "`combatant` is dead (T8: two failed Willpower checks in a row).",
    "HelpedUp": "`helper` stood `target` up with 1 hit point (T9 Help).",
    "Braced": "`combatant` braced until its next turn (T9).",
    "HideAttempted": "`combatant` tried to hide: the Stealth roll for the GM (T9).",
    "TilesMoved": "`combatant` walked `path`, `tiles` tiles.",
    "StatusGained": "A status effect (`TaelStatus`: name, turns left, damage, whether it "
    "takes turns, who laid it) on `target` (T6).",
    "StatusEnded": "A status effect ran out or was taken off.",
    "StanceChosen": "`combatant` took the Tanking or the Dodging Stance (T7).",
    "HitPointsSet": "The GM set `combatant`'s hit points; `stood_up`: it was fainted and is "
    "up again.",
}

# What World of Tael hides from other sides and spectators (`rulesets/tael/views.py`):
# one line per event it redacts.
TAEL_REDACTIONS: dict[str, str] = {
    "PreparationAnnounced": '`move` is `""`: another side learns that a preparation was '
    "announced, never which, until `Answered` names it as it triggers (T2)",
    "DamageTaken": "`hit_points` is replaced by `health_state` (`unhurt`, `wounded`, "
    "`bloodied`, `down`); `damage` and `taken` are left out for a side that neither dealt "
    "nor took them, unless the room's rolls are open (R77)",
    "HitChecked": "another side's numbers as the room's `roll_visibility` shows them "
    "([Rolls of another side](#rolls-of-another-side))",
    "DamageRolled": "the attacker's roll as the room's `roll_visibility` shows it",
    "ResistChecked": "the target's roll and the caster's DC as the room's `roll_visibility` "
    "shows them",
    "SkillChecked": "the roll as the room's `roll_visibility` shows it",
    "HideAttempted": "the roll as the room's `roll_visibility` shows it",
    "SpellHitChecked": "the caster's roll and each target's Defensive Value as the room's "
    "`roll_visibility` shows them",
    "WillpowerChecked": "only `combatant`, `success`, `stood_up` and `failures`: not the "
    "roll (it shows Willpower) nor the DC",
    "ConditionSaveRolled": "a save in Willpower (`ability`): `roll` as under `hidden` (no "
    "faces, modifiers or total), whatever the setting (TR33); a save in an attribute as the "
    "room's `roll_visibility` shows it",
    "WillpowerDcRaised": "only `combatant` and `by`: not the new DC",
    "HitPointsSet": "only `combatant`, `stood_up` and `health_state`: no numbers",
    "WindowOpened": "another side's asks have `options: []`: everyone sees whom the window "
    "waits for, never the prepared moves",
}

_SCALARS = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}


def _by_name(classes: list[type]) -> list[type]:
    found = {cls.__name__: cls for cls in classes}
    return sorted(found.values(), key=lambda cls: cls.__name__)


def verse_commands() -> list[type]:
    """The commands of a Verse room: on the Verse ruleset and on COMMON."""
    return _by_name([*COMMON.deciders, *VERSE.deciders])


def tael_commands() -> list[type]:
    """The commands only World of Tael has (the shared ones are in the Verse reference)."""
    documented = {cls.__name__ for cls in verse_commands()}
    return [cls for cls in _by_name(list(TAEL.deciders)) if cls.__name__ not in documented]


def shared_tael_commands() -> list[type]:
    """The commands of the Verse reference that a Tael room takes too (its own deciders
    for the shared records, and COMMON's)."""
    documented = {cls.__name__ for cls in verse_commands()}
    taken = _by_name([*COMMON.deciders, *TAEL.deciders])
    return [cls for cls in taken if cls.__name__ in documented]


def commands() -> list[type]:
    """Every command class a client can name, in either ruleset."""
    return _by_name([*verse_commands(), *tael_commands()])


def events() -> list[type]:
    """The events of a Verse room."""
    return _by_name([*COMMON.appliers, *VERSE.appliers])


def tael_events() -> list[type]:
    """The events only World of Tael has."""
    documented = {cls.__name__ for cls in events()}
    return [cls for cls in _by_name(list(TAEL.appliers)) if cls.__name__ not in documented]


def shared_tael_events() -> list[type]:
    documented = {cls.__name__ for cls in events()}
    sent = _by_name([*COMMON.appliers, *TAEL.appliers])
    return [cls for cls in sent if cls.__name__ in documented]


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


def _category(cls: type, ruleset: Ruleset = VERSE) -> int:
    issuers = cls.issuers  # type: ignore[attr-defined]
    if cls in ruleset.actions:
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


TAEL_CATEGORIES = (
    "Tael game actions",
    "Other Tael commands for players",
    "Tael GM commands",
    "Tael room commands",
)
TAEL_CATEGORY_NOTES = (
    "World of Tael is played turn by turn (TR1): the combatant whose turn it is sends these "
    "in its Action Phase, as many as its Actions, Bonus Actions and movement allow (T2, "
    "TR2), and `EndTurn` ends the phase. One aimed at someone whose prepared move it sets "
    "off waits on the stack for a reaction window first (T2); otherwise it resolves at "
    "once. `as_bonus` spends a Bonus Action instead of an Action (T9). The GM may send "
    "them for the combatant whose turn it is.",
    CATEGORY_NOTES[1],
    CATEGORY_NOTES[2],
    CATEGORY_NOTES[3],
)
# What a shared command means in a Tael room, where the Verse reference does not say it.
TAEL_SHARED_NOTES: dict[str, str] = {
    "Answer": '`option` is the name of a prepared move the window offers (`"Riposte"`); '
    "`action` is null, or for a move that strikes back a `PreparedStrike` naming another "
    "weapon in hand",
    "EndTurn": "ends the Action Phase and starts the Preparation Phase (T2); the GM's "
    '`"actor": ""` ends whoever\'s turn it is',
    "StartCombat": "rolls initiative (T1); refused with `invalid_command` when the "
    "encounter's mode is Live Combat (TR1)",
    "SetSetting": "a Tael room takes `reaction_seconds` and `roll_visibility` (R77); "
    "Verse's other settings are refused with `invalid_command`",
    "SetConditionRule": "the entry uses World of Tael's words (`defence.dv`, `loses` "
    "`turn`, `action`, `bonus`, `preparation`; no `rounds`, `turns` or `drain`, TR40); "
    "Verse's are refused with `invalid_command`",
}


def render_commands() -> str:
    lines = _render_categories(verse_commands(), VERSE, CATEGORIES, CATEGORY_NOTES)
    lines += ["### Records inside commands", ""]
    lines += [
        "Nested records are maps tagged with `$type`, exactly as they appear in events.",
        "",
    ]
    for name in _nested_records(verse_commands()):
        lines += _render_record(_TYPES[name])
    return "\n".join(lines).rstrip() + "\n"


def render_tael_commands() -> str:
    """Tael's own commands, then the shared ones a Tael room takes, and what it refuses."""
    lines = _render_categories(tael_commands(), TAEL, TAEL_CATEGORIES, TAEL_CATEGORY_NOTES)
    nested = set(_nested_records(tael_commands()))
    shown = set(_nested_records(verse_commands()))
    lines += ["### Records inside Tael commands", ""]
    lines += [
        "Nested records are maps tagged with `$type`: "
        + ", ".join(f"`{name}`" for name in sorted(nested & shown))
        + " as in the records above.",
        "",
    ]
    for name in sorted(nested - shown):
        lines += _render_record(_TYPES[name])
    lines += ["### Commands a Tael room shares with Verse", ""]
    lines += [
        "A Tael room also takes these commands of the reference above, with the same fields "
        "and the same senders:",
        "",
    ]
    for cls in shared_tael_commands():
        note = TAEL_SHARED_NOTES.get(cls.__name__)
        lines.append(f"* `{cls.__name__}`" + (f": {note}" if note else ""))
    taken = {cls.__name__ for cls in shared_tael_commands()}
    others = [cls.__name__ for cls in verse_commands() if cls.__name__ not in taken]
    lines += [
        "",
        "Every other command of the Verse reference ("
        + ", ".join(f"`{name}`" for name in others)
        + ") is refused in a Tael room with `unknown_command`, and Tael's commands in a "
        "Verse room likewise.",
    ]
    return "\n".join(lines).rstrip() + "\n"


def _render_categories(
    classes: list[type], ruleset: Ruleset, titles: tuple[str, ...], notes: tuple[str, ...]
) -> list[str]:
    lines: list[str] = []
    by_category: dict[int, list[type]] = {}
    for cls in classes:
        by_category.setdefault(_category(cls, ruleset), []).append(cls)
    for index, title in enumerate(titles):
        if index not in by_category and ruleset is not VERSE:
            continue
        lines += [f"### {title}", "", notes[index], ""]
        for cls in by_category.get(index, []):
            lines += _render_command(cls)
    return lines


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


def _nested_records(classes: list[type]) -> list[str]:
    names: set[str] = set()
    for cls in classes:
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
        lines.append(f"| `{cls.__name__}` | {_field_names(cls)} |")
    return "\n".join(lines) + "\n"


def _field_names(cls: type) -> str:
    return ", ".join(f"`{f.name}`" for f in dataclasses.fields(cls)) or "none"


def _roll(sides: int, face: int, modifiers: tuple[tuple[str, int], ...]) -> Roll:
    total = face + sum(value for _, value in modifiers)
    return Roll((DiceResult(sides, (face,)),), modifiers, total)


# A prepared move triggering out of turn (T2), as the GM and Kaelen's side see it: the
# bandit attacks Kaelen, who answers with the Riposte he announced, strikes first, and
# takes no damage.
TAEL_STORY: tuple[tuple[str, Any], ...] = (
    (
        "In his Preparation Phase Kaelen announces his move. Other sides receive it with "
        '`"move": ""`.',
        PreparationAnnounced("kaelen", "Riposte"),
    ),
    (
        "On its turn the bandit attacks him: the attack is pushed on the stack and a reaction "
        "window asks those whose move it sets off, with the moves each may use (options are "
        "move names; other sides see `[]`).",
        WindowOpened(
            Window(
                5,
                "reaction",
                (Ask("kaelen", ("Riposte",)), Ask("tobin", ("Covering Shot",))),
                8.0,
                subject=0,
                depth=1,
                about="bandit",
            )
        ),
    ),
    (
        "Kaelen answers out of his turn (`Answer` with the move's name): the answer names the "
        "move for everyone, since it has triggered.",
        Answered(5, "kaelen", "Riposte"),
    ),
    (
        "When the window closes his strike resolves first. `defence` lists what makes up the "
        "Defensive Value (T7); a hit needs more than it (T3).",
        HitChecked(
            "kaelen",
            "bandit",
            "longsword",
            HitKind.PREPARED,
            "",
            _roll(20, 14, (("Martial Combat", 4),)),
            None,
            (("Armour", 12),),
            12,
            True,
        ),
    ),
    (
        "The attack roll (T5), rolled once, then what each target took:",
        DamageRolled("kaelen", "longsword", _roll(8, 6, (("Strength", 2), ("Class", 1)))),
    ),
    (
        "Other sides see `health_state` instead of `hit_points`.",
        DamageTaken("bandit", "kaelen", 9, 9, False, 5),
    ),
    (
        "Then the bandit's attack resolves; if it hits, the Riposte keeps the damage off:",
        DamagePrevented("kaelen", "bandit", "kaelen", "Riposte"),
    ),
)


def render_tael_events() -> str:
    """Tael's own events, a preparation triggering, the shared events, the redactions."""
    lines = ["| event | fields | what it says |", "|---|---|---|"]
    for cls in tael_events():
        lines.append(f"| `{cls.__name__}` | {_field_names(cls)} | {_event_summary(cls)} |")
    lines += ["", "A prepared move triggering out of turn, as the GM sees it:", ""]
    for caption, event in TAEL_STORY:
        lines += [caption, "", "```json", json.dumps(to_data(event)), "```", ""]
    shared = ", ".join(f"`{cls.__name__}`" for cls in shared_tael_events())
    lines += [
        f"A Tael room also sends these events of the table above: {shared}.",
        "",
        "What another side (and a spectator) receives instead of the GM's event:",
        "",
    ]
    redacted = sorted(cls.__name__ for cls in TAEL_VIEWS.events)
    assert sorted(TAEL_REDACTIONS) == redacted, (
        f"say in TAEL_REDACTIONS what Tael's views hide of each of {redacted}"
    )
    lines += [f"* `{name}`: {TAEL_REDACTIONS[name]}." for name in redacted]
    return "\n".join(lines) + "\n"


def _event_summary(cls: type) -> str:
    name = cls.__name__
    doc = cls.__doc__ or ""
    if doc.startswith(name + "("):  # the dataclass's generated signature
        doc = ""
    text = " ".join(doc.split()) or EVENT_NOTES.get(name, "")
    assert text, f"{name} needs a docstring or an entry in EVENT_NOTES"
    return text.replace("|", "\\|")


# Whose numbers the fields of the roll-carrying events with a redactor of their own (not a
# table, `Owned`) hold, or a table's said in other words, as `docs/protocol.md`, "Rolls of
# another side", says it.
ROLL_NOTES: dict[str, str] = {
    "InitiativeRolled": "each `rolls_made[].roll` and `tiebreaks[].roll`: that entry's "
    "`combatant`'s; each `order[]` turn (`TurnSlot`): its `initiative`, `dexterity` and "
    "`tiebreak` its `combatant`'s (left out, the slot keeps `combatant`)",
    "CombatantAdded": "each `initiative[].roll` and each of `slots[]`: the newcomer's, as in "
    "`InitiativeRolled`",
    "SpellAttackRolled": "`roll` and `damage`: the `caster`'s; each `results[].defence` (its "
    "SD) and `results[].defence_changes`: that result's `target`'s",
    "SpellHitChecked": "`roll`: the `caster`'s; each `targets[].defence` and "
    "`targets[].defensive_value`: that target's",
    "DamageTaken": "`damage` and `taken`: the `by`'s and the `target`'s; `hit_points`: never "
    "another side's, whatever the setting",
    "WillpowerChecked": "`roll` and `dc`: never another side's, whatever the setting (TR33)",
    "ConditionSaveRolled": "`roll`: the `combatant`'s; `dc`: everyone's (the conditions "
    "table's, V27, TR40); World of Tael: a save in Willpower (`ability`) shows another side "
    "its roll as under `hidden`, whatever the setting (TR33)",
}
_ROLL_CARRYING = re.compile(
    r"\b(Roll|InitiativeRoll|TurnSlot|SpellTargetResult|SpellTargetCheck)\b"
)


def _owners(fields: tuple[str, ...]) -> str:
    return " and ".join(f"the `{name}`'s" for name in fields)


def _owned_text(owned: Owned) -> str:
    parts = [f"`{name}`: {_owners(owners)}" for name, owners in owned.rolls.items()]
    parts += [f"`{name}`: {_owners(owners)}" for name, owners in owned.numbers.items()]
    parts += [f"`{name}`: everyone's" for name in owned.public]
    return "; ".join(parts)


def render_rolls() -> str:
    """Every roll-carrying event of both rule systems: whose numbers each field holds,
    from the views' tables (`Owned`), or from `ROLL_NOTES` for a redactor of its own."""
    rows: dict[str, tuple[str, str]] = {}
    for system, views, table in (
        ("Verse", VERSE_VIEWS, VERSE_ROLLS),
        ("Tael", TAEL_VIEWS, TAEL_ROLLS),
    ):
        for cls, redactor in {**COMMON_EVENTS, **views.events}.items():
            name = cls.__name__
            owned = table.get(cls) or (redactor if isinstance(redactor, Owned) else None)
            if name in ROLL_NOTES:
                text = ROLL_NOTES[name]
            elif owned is not None:
                text = _owned_text(owned)
            elif any(_ROLL_CARRYING.search(str(f.type)) for f in dataclasses.fields(cls)):
                raise AssertionError(f"say in ROLL_NOTES whose numbers {name} holds")
            else:
                continue
            shared = cls in COMMON_EVENTS and (cls not in views.events or name in rows)
            rows[name] = ("both" if shared else system, text)
    assert set(ROLL_NOTES) <= set(rows), set(ROLL_NOTES) - set(rows)
    lines = ["| event | rule system | whose numbers each field holds |", "|---|---|---|"]
    for name in sorted(rows):
        system, text = rows[name]
        lines.append(f"| `{name}` | {system} | {text} |")
    return "\n".join(lines) + "\n"


BLOCKS = {
    "rolls": render_rolls,
    "commands": render_commands,
    "events": render_events,
    "tael-commands": render_tael_commands,
    "tael-events": render_tael_events,
}


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
        for render in BLOCKS.values():
            print(render())
