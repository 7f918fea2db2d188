"""Fights and events the log tests read: every event type of a ruleset with every field
filled, the documented round of docs/protocol.md, and a World of Tael fight played on
scripted dice with the story its GM reads.

The log's tests (`tests/table/`) tell these as each audience receives them; they are
here, not in one test module, so no test module imports another.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
import types
import typing
from pathlib import Path
from typing import Any

import server.engine  # noqa: F401  (registers every ruleset)
from server.engine import execute
from server.engine.core import RULESETS, Command, Event, Ruleset, apply
from server.engine.grid import Cell
from server.engine.rng import ScriptedDice
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.state import Encounter
from server.sheets.tael import load_sheet
from server.table.narration import TELLINGS

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_DOC = ROOT / "docs" / "protocol.md"
TAEL_SAMPLES = ROOT / "server" / "samples" / "tael"

PLAYED = sorted(TELLINGS)
"""The rule systems the log has words for (not whatever else a test registered in the
engine: tests/room registers a probe ruleset of its own)."""


# --- every event type, every field filled ---------------------------------------------


def event_types(ruleset: Ruleset) -> dict[str, type]:
    """The events `ruleset` applies, its own and those of the rulesets it extends."""
    found: dict[str, type] = {}
    chain: Ruleset | None = ruleset
    while chain is not None:
        for kind in chain.appliers:
            found.setdefault(kind.__name__, kind)
        chain = chain.parent
    return found


def every_event_type(ruleset: str) -> dict[str, type]:
    """`event_types` of the engine's ruleset named `ruleset`."""
    return event_types(RULESETS[ruleset])


def sample(hint: Any, depth: int = 0) -> Any:
    """Plain wire data of type `hint`, as `records.to_data` would send it: every field
    filled, so a narrator that reads a field the event does not have is caught."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return sample(next(a for a in args if a is not type(None)), depth)
    if origin is tuple and args[-1:] == (Ellipsis,):
        return [] if depth > 3 else [sample(args[0], depth + 1)]
    if origin is tuple:  # a pair such as a named modifier, `("Strength", 2)`
        return [sample(arg, depth + 1) for arg in args]
    if origin is not None:
        return {}
    if hint is bool:
        return True
    if hint is int:
        return 2
    if hint is float:
        return 1.5
    if hint is str:
        return "g1"
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return next(iter(hint)).value
    if isinstance(hint, type) and dataclasses.is_dataclass(hint) and depth <= 3:
        return record(hint, depth + 1)
    return {}


def record(kind: type, depth: int = 0) -> dict[str, Any]:
    """The wire data of an event (or any record) of type `kind`, every field filled."""
    try:
        hints = typing.get_type_hints(kind)
    except (NameError, TypeError):
        hints = {}
    data: dict[str, Any] = {"$type": kind.__name__}
    for field in dataclasses.fields(kind):
        data[field.name] = sample(hints.get(field.name, Any), depth)
    if kind.__name__ == "Roll":
        data.update(
            dice=[{"$type": "DiceResult", "sides": 20, "faces": [7], "negative": False}],
            modifiers=[["Strength", 2]],
            total=9,
            multiplier=1,
        )
    return data


# --- the documented round ---------------------------------------------------------------


def doc_events() -> dict[str, dict[str, Any]]:
    """The events of docs/protocol.md's round, as a client receives them."""
    text = PROTOCOL_DOC.read_text(encoding="utf-8")
    section = text[text.index("### A round, event by event") : text.index("### Every event")]
    events = {}
    for block in re.findall(r"```json\n(.*?)\n```", section, re.S):
        data = json.loads(block)
        events.setdefault(data["$type"], data)
    return events


# --- a World of Tael fight on scripted dice ---------------------------------------------

TAEL_NAMES = {"kaelen": "Kaelen", "tobin": "Tobin", "bandit": "Bandit", "mira": "Mira"}
TAEL_DICE = (18, 10, 5, 5, 14, 6, 15)
"""Initiative (id order): bandit 18 + 1, kaelen 10 + 3, tobin 5 + 2. Kaelen misses with
5 + 4; in round 2 his Riposte strikes with 14 + 4 for 1d8 6, the bandit hits with 15 + 2."""


def tael_names(combatant: str) -> str:
    return TAEL_NAMES.get(combatant, combatant)


def the_pass() -> Encounter:
    """Kaelen and Tobin (the party) against a bandit (the outlaws), from the sample
    sheets, on `TAEL_DICE`."""

    def place(cid: str, side: str, x: int, y: int) -> TaelCombatant:
        sheet = load_sheet(TAEL_SAMPLES / f"{cid}.toml")
        return TaelCombatant.from_sheet(cid, side, sheet, Cell(x, y))

    fighters = [
        place("kaelen", "party", 0, 0),
        place("tobin", "party", 0, 1),
        place("bandit", "outlaws", 1, 0),
    ]
    return Encounter("pass", "tael", {c.id: c for c in fighters}, dice=ScriptedDice(TAEL_DICE))


def play(state: Encounter, *commands: Command) -> tuple[Encounter, list[tuple[Event, Encounter]]]:
    """Each event of the commands with the state right after it (what views need)."""
    seen: list[tuple[Event, Encounter]] = []
    for command in commands:
        after, events = execute(state, command)
        for event in events:
            state = apply(state, event)
            seen.append((event, state))
        assert state.state_hash() == after.state_hash()
    return state, seen


def window_id(state: Encounter) -> int:
    assert state.window is not None
    return state.window.id


KAELEN_MISSES = "Kaelen attacks Bandit with longsword: d20 5 + Martial Combat 4 = 9 vs DV 12: miss"
RIPOSTE = (
    "Kaelen strikes back at Bandit with longsword: d20 14 + Martial Combat 4 = 18 vs DV 12: hit"
)
DAMAGE = "longsword damage: d8 6 + Strength 2 + Class 1 = 9"
TAKEN = "Bandit takes 9 damage: 5 hit points left"
BANDIT_HITS = (
    "Bandit attacks Kaelen with hand axe: d20 15 + Martial Combat 2 = 17 "
    "vs DV 15 (Armour 13 + Dodging 3 - Dodge penalty 1): hit"
)
GM_STORY = [
    "Initiative:\n"
    "  Bandit: d20 18 + Initiative 1 = 19\n"
    "  Kaelen: d20 10 + Initiative 3 = 13\n"
    "  Tobin: d20 5 + Initiative 2 = 7\n"
    "Turn order: Bandit 19, Kaelen 13, Tobin 7",
    "Round 1",
    "Bandit's turn",
    "Bandit ends the turn",
    "Kaelen's turn",
    "Kaelen is about to attack Bandit with the weapon in hand",
    "Window 1 opens (reaction to Kaelen, 8s): Bandit may Shield Up",
    "Bandit lets window 1 pass",
    "Window 1 closes (answered)",
    "Kaelen goes: attack Bandit with the weapon in hand",
    KAELEN_MISSES,
    "Kaelen is done",
    "Kaelen ends the turn",
    "Tobin's turn",
    "Kaelen prepares Riposte",
    "Tobin ends the turn",
    "End of round 1",
    "Round 2",
    "Bandit's turn",
    "Bandit is about to attack Kaelen with the weapon in hand",
    "Window 2 opens (reaction to Bandit, 8s): Kaelen may Riposte; Tobin may Covering Shot",
    "Kaelen uses the prepared move Riposte: strike back at Bandit with the weapon in hand",
    "Tobin lets window 2 pass",
    "Window 2 closes (answered)",
    "Kaelen goes: strike back at Bandit with the weapon in hand",
    RIPOSTE,
    DAMAGE,
    TAKEN,
    "Kaelen is done",
    "Bandit goes: attack Kaelen with the weapon in hand",
    BANDIT_HITS,
    "Kaelen's Riposte keeps Bandit's damage off Kaelen",
    "Bandit is done",
]
"""What the GM reads of the pass fought to Kaelen's Riposte (see `tests/table`)."""
