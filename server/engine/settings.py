"""Room settings: the GM's `SetSetting` and its event, for every ruleset.

The settings live in the state (`state.Settings`), so a change is an event in the log
like any other and a replay finds the same settings at every step. Which settings a
room takes is its ruleset's rule: each ruleset decides `SetSetting` with its own table
of names and the check of each value (Verse: `rulesets/verse/overrides.py`; World of
Tael: `rulesets/tael/overrides.py`); what a change does to the state is the same
everywhere (`apply_setting_changed`). The checks every ruleset shares are here: window
lengths (1 to 3600 seconds) and `roll_visibility` (R77: `"open"`, `"faces"`,
`"hidden"`; what each audience then sees of a roll is `views.py`'s).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import ClassVar

from server.engine.core import COMMON, Command, Event
from server.engine.errors import INVALID_COMMAND, CommandRefused
from server.engine.records import evolve, record
from server.engine.state import Encounter, RollVisibility, Settings

MIN_WINDOW_SECONDS = 1.0
MAX_WINDOW_SECONDS = 3600.0

Value = bool | int | float | str
Check = Callable[[str, object], Value]
"""The value setting `name` takes for the value sent, or `invalid_command`."""


@record
class SetSetting(Command):
    """Change one room setting (`state.Settings`); which ones a room takes is its
    ruleset's (Verse: all; World of Tael: `reaction_seconds`, `roll_visibility`)."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})
    while_paused: ClassVar[bool] = True
    name: str
    value: bool | int | float | str


@record
class SettingChanged(Event):
    name: str
    value: bool | int | float | str
    previous: bool | int | float | str


def window_seconds(name: str, value: object) -> float:
    """A window's length: a number of seconds within our bounds (not a bool)."""
    seconds = -1.0
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            seconds = float(value)
        except OverflowError:  # an int too large for a float
            seconds = -1.0
    if not (math.isfinite(seconds) and MIN_WINDOW_SECONDS <= seconds <= MAX_WINDOW_SECONDS):
        raise CommandRefused(
            INVALID_COMMAND,
            f"{name} is a number of seconds, {MIN_WINDOW_SECONDS:g} to {MAX_WINDOW_SECONDS:g}",
        )
    return seconds


ROLL_VISIBILITIES = tuple(v.value for v in RollVisibility)


def roll_visibility(name: str, value: object) -> str:
    """R77: how much of another side's rolls players and spectators see."""
    if not isinstance(value, str) or value not in ROLL_VISIBILITIES:
        raise CommandRefused(
            INVALID_COMMAND, f"{name} is {', '.join(repr(v) for v in ROLL_VISIBILITIES)}"
        )
    return value


def decide_setting(command: SetSetting, state: Encounter, checks: Mapping[str, Check]) -> Event:
    """The change `command` asks for, checked by the ruleset's `checks`; a name the
    ruleset does not take is refused with the list of those it does."""
    check = checks.get(command.name) if isinstance(command.name, str) else None
    if check is None:
        known = ", ".join(checks)
        raise CommandRefused(
            INVALID_COMMAND, f"no setting {command.name!r}: the settings are {known}"
        )
    value = check(command.name, command.value)
    previous: Value = getattr(state.settings, command.name)
    return SettingChanged(command.name, value, previous)


@COMMON.applies(SettingChanged)
def apply_setting_changed(state: Encounter, event: SettingChanged) -> Encounter:
    settings: Settings = evolve(state.settings, **{event.name: event.value})
    return evolve(state, settings=settings)
