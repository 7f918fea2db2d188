"""A small driver for Live Combat scenario tests: commands in, events and state out.

A scenario reads like a script of the table: the sheets, the dice (scripted face by
face), the commands each player sends, then the events and state that must follow.
`Fight` keeps the initial state and every event, so each scenario can end by checking
that replaying the log rebuilds the state exactly.
"""

from __future__ import annotations

from typing import Any, TypeVar

import pytest

from server.engine import CommandRefused, decide, execute, replay
from server.engine.core import Command, Event
from server.engine.flow import Mode, Window, WindowKind
from server.engine.records import evolve
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.live import PassWindow
from server.engine.rulesets.verse.turns import StartCombat
from server.engine.state import Encounter, Settings
from tests.engine.verse.builders import encounter

E = TypeVar("E", bound=Event)


class Fight:
    """An encounter being played: `do` sends a command, `refused` checks a refusal."""

    def __init__(self, state: Encounter) -> None:
        self.initial = state
        self.state = state
        self.log: list[Event] = []

    def do(self, command: Command) -> list[Event]:
        self.state, events = execute(self.state, command)
        self.log.extend(events)
        return events

    def refused(self, command: Command) -> str:
        """The command is refused and nothing changes; returns the error code."""
        before = self.state.state_hash()
        with pytest.raises(CommandRefused) as refusal:
            decide(self.state, command)
        assert self.state.state_hash() == before
        return refusal.value.code

    def who(self, combatant_id: str) -> VerseCombatant:
        found: VerseCombatant = self.state.combatant(combatant_id)
        return found

    @property
    def window(self) -> Window:
        window = self.state.window
        assert window is not None, "no window is open"
        return window

    def asked(self) -> dict[str, tuple[str, ...]]:
        """Who the open window asks, and what each may answer."""
        return {ask.combatant: ask.options for ask in self.window.asked}

    def pass_windows(self) -> list[Event]:
        """Everyone asked passes, window after window, until a planning window opens."""
        events: list[Event] = []
        for _ in range(100):
            window = self.state.window
            if window is None or window.kind == WindowKind.PLANNING:
                return events
            events += self.do(PassWindow(window.waiting_for[0], window.id))
        raise AssertionError("windows kept opening")

    def replays(self) -> bool:
        return replay(self.initial, self.log).state_hash() == self.state.state_hash()


def live(
    *combatants: VerseCombatant,
    dice: tuple[int, ...],
    settings: Settings | None = None,
    mode: str = Mode.LIVE,
    **kw: Any,
) -> Fight:
    """An encounter in Live Combat (or `mode`), combat not started yet."""
    state = encounter(*combatants, dice=dice, settings=settings or Settings(), **kw)
    return Fight(evolve(state, mode=mode))


def started_live(
    *combatants: VerseCombatant,
    dice: tuple[int, ...],
    settings: Settings | None = None,
    mode: str = Mode.LIVE,
    **kw: Any,
) -> Fight:
    """As `live`, after `StartCombat`: the first faces of `dice` are the initiatives,
    rolled in the order of the combatants' ids (turns.roll_initiative)."""
    fight = live(*combatants, dice=dice, settings=settings, mode=mode, **kw)
    fight.do(StartCombat())
    return fight


def of(events: list[Event], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


def one(events: list[Event], kind: type[E]) -> E:
    found = of(events, kind)
    assert len(found) == 1, f"expected one {kind.__name__}, found {found}"
    return found[0]


def names(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events]
