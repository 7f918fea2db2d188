"""The GM's console as choices: the room's commands and the overrides, for a GM client
that knows no rule (protocol 2, `choices`: the seat `"gm"`).

A GM connection's `choices` hold, besides those of the combatants it plays, one seat
named `"gm"`: start, pause, resume, refuse a player's pause (V24), close the open
window, skip a turn, end the fight, and each ruleset's overrides (set health or hit
points, mana, a condition or status, a position; remove a condition, a status or a
combatant). A number the GM sets is a `"number"` hole; whom it is for a `"pick"` hole.
Rewind is not here: it names an event of the log, which a client picks from its log.

As for the seats' choices (`choices.py`), the engine has the last word: each command
is offered only if `decide` takes it now on the room's state, tried once with the
values the fight holds (dry-run dice: nothing is rolled). Overrides are tried for the
first combatant they fit; the engine checks the others when they are sent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from server.engine.commands import CloseWindow, EndCombat, Pause, RefusePause, Resume
from server.engine.core import Command
from server.engine.records import evolve
from server.engine.stack import DRY_RUN_DICE
from server.engine.state import Encounter
from server.engine.turns import StartCombat
from server.table.choices import Probe, accepts, key, label, wire

Data = dict[str, Any]
GM = "gm"
Overrides = Callable[[Probe], list[tuple[Data, Command]]]
"""A ruleset's overrides for the state `Probe` holds: each `Choice` dict with the
command the engine is asked about (its holes filled with values the fight holds)."""

_OVERRIDES: dict[str, Overrides] = {}


def register_overrides(ruleset: str, overrides: Overrides) -> Overrides:
    _OVERRIDES[ruleset] = overrides
    return overrides


def taken(state: Encounter, command: Command) -> bool:
    """Would `decide` take `command` now, on the state as it is (paused or not: unlike
    a seat's choices, overrides and resuming are what a pause allows)?"""
    return accepts(evolve(state, dice=DRY_RUN_DICE), command)


def choice(name: str, text: str, command: Command, *holes: Data) -> Data:
    return {
        "key": key(name),
        "label": label(text),
        "command": wire(command),
        "part": None,
        "holes": list(holes),
    }


def pick(path: str, label: str, options: Iterable[tuple[Any, str]]) -> Data:
    return {
        "path": path,
        "label": label,
        "options": [{"value": value, "label": text} for value, text in options],
    }


def number(path: str, label: str, least: int | None = 0, most: int | None = None) -> Data:
    return {
        "path": path,
        "label": label,
        "options": [],
        "kind": "number",
        "least": least,
        "most": most,
    }


def whom(probe: Probe) -> Data:
    """The hole naming the combatant an override is for: any in the fight."""
    return pick("/combatant", "combatant", ((c, probe.name(c)) for c in probe.state.combatants))


def room_commands(state: Encounter) -> list[Data]:
    """Start, pause, resume, refuse a pause, close the window, end: those `decide` takes."""
    window = state.window
    candidates: list[tuple[str, str, Command]] = [
        ("start", "Start the fight", StartCombat()),
        ("pause", "Pause", Pause(by=GM)),
        ("resume", "Resume", Resume(by=GM)),
        ("refuse_pause", "Refuse the pause", RefusePause()),
        ("end", "End the fight", EndCombat()),
    ]
    if window is not None:
        candidates.insert(
            3, ("close_window", f"Close the {window.kind} window", CloseWindow(window.id))
        )
    found = [choice(k, label, command) for k, label, command in candidates if taken(state, command)]
    agreed = EndCombat(agreed=True)  # T10: a fight still going ends when everyone agrees
    if not any(option["key"] == "end" for option in found) and taken(state, agreed):
        found.append(choice("end_agreed", "End the fight, as everyone agrees", agreed))
    return found


def gm_seat(state: Encounter) -> Data | None:
    """The `"gm"` seat of a GM connection's choices; None when it may do nothing."""
    probe = Probe(state)
    options = room_commands(state)
    overrides = _OVERRIDES.get(state.ruleset)
    if overrides is not None and state.combatants:
        checked: dict[int, bool] = {}  # a sample several options share is tried once

        def fits(sample: Command) -> bool:
            if id(sample) not in checked:
                checked[id(sample)] = taken(state, sample)
            return checked[id(sample)]

        options += [option for option, sample in overrides(probe) if fits(sample)]
    if not options:
        return None
    window = state.window
    return {
        "combatant": GM,
        "window": None if window is None else window.id,
        "compose": None,
        "options": options,
    }


from server.table import tael_overrides as tael_overrides  # noqa: E402  (they register)
from server.table import verse_overrides as verse_overrides  # noqa: E402
