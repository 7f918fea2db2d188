"""Every event of every rule system reads as a sentence, never as raw fields.

The event types are not listed here: they are every `Event` the server's rulesets apply
(`server.engine.core.RULESETS`, each with the shared ones it inherits), so an event
added to the engine without words in the client fails here, and the game table never
again sees `WeaponDropped combatant=corvin, weapon=spear, ...`.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from itertools import chain
from typing import Any

import pytest

import server.engine  # noqa: F401  (registers every ruleset)
from clients.narration import narrate, narrated
from clients.rulesets import RULESETS as WORDS
from clients.telling import compact
from clients.verse_narration import VERSE_TELLING
from server.engine.core import RULESETS, Ruleset
from server.engine.records import from_data
from server.engine.rulesets.verse import live as verse_live
from server.engine.state import Encounter, Settings
from server.engine.views import SPECTATORS, event_view


def event_types(ruleset: Ruleset) -> dict[str, type]:
    """The events `ruleset` applies, its own and those of the rulesets it extends."""
    found: dict[str, type] = {}
    chain: Ruleset | None = ruleset
    while chain is not None:
        for kind in chain.appliers:
            found.setdefault(kind.__name__, kind)
        chain = chain.parent
    return found


# The rule systems this program has words for (not whatever else a test registered in the
# engine: tests/room registers a probe ruleset of its own).
PLAYED = sorted(WORDS)


def test_both_rule_systems_are_checked() -> None:
    assert {"verse", "tael"} <= set(PLAYED) <= set(RULESETS)
    assert "CombatEnded" in event_types(RULESETS["verse"])  # shared: the end of the fight


@pytest.mark.parametrize("ruleset", PLAYED)
def test_every_event_type_has_a_narrator(ruleset: str) -> None:
    missing = set(event_types(RULESETS[ruleset])) - narrated(ruleset)
    assert missing == set(), f"{ruleset}: no words for {sorted(missing)}"


# --- and the narrator reads the event's real shape ----------------------------------------


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


@pytest.mark.parametrize("ruleset", PLAYED)
def test_every_narrator_reads_its_events_whole_shape(ruleset: str) -> None:
    """A narrator that fails on the event (a field it misreads) falls back to the raw
    fields: none may, for an event with every field of the engine's record."""
    raw = []
    for name, kind in sorted(event_types(RULESETS[ruleset]).items()):
        event = record(kind)
        if narrate(event, str, ruleset) == compact(event):
            raw.append(name)
    assert raw == []


@pytest.mark.parametrize("visibility", ["faces", "hidden"])
@pytest.mark.parametrize("ruleset", PLAYED)
def test_every_narrator_reads_the_shape_another_side_receives(
    ruleset: str, visibility: str
) -> None:
    """Another side's events come without the numbers the room does not show it (R77):
    a roll without its modifiers and total (and, under "hidden", its faces), a defence,
    a DC or the damage left out. Each still reads as words: never the raw fields, never
    a `None` where a number was. The event is the server's view of the whole record for
    a spectator of a fight whose combatants are nobody's side it knows."""
    state = Encounter("seen", ruleset, {}, settings=Settings(roll_visibility=visibility))
    unread = []
    for name, kind in sorted(event_types(RULESETS[ruleset]).items()):
        data = record(kind)
        if name == "Rewound":  # the restored state is the room's own
            data["state"]["ruleset"] = ruleset
        view = event_view(from_data(data), state, SPECTATORS)
        text = narrate(view, str, ruleset)
        if text == compact(view) or "None" in text:
            unread.append(f"{name}: {text}")
    assert unread == []


def test_every_verse_action_a_player_may_declare_or_answer_with_reads_as_words() -> None:
    """In Live Combat every action is declared, revealed and answered (V20, V21), so
    each is told as a phrase ("mount Horse"), never as its fields ("Mount actor=ayla,
    ride=horse"). (World of Tael's actions are sent, not declared: their events tell
    them.)"""
    actions = {*verse_live.GATED, *chain(*verse_live.ANSWER_ACTIONS.values())}
    missing = {kind.__name__ for kind in actions} - set(VERSE_TELLING.actions)
    assert missing == set(), f"no words for {sorted(missing)}"
