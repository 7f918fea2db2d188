"""The shape of a round in motion: windows, declarations and the action/reaction stack.

These records are shared by every ruleset (Verse's reactions and Tael's preparations
use the same stack, RULINGS T2). They hold no time: a window knows how long it should
stay open in seconds (`Window.seconds`, from the room settings) so every client can show
the same countdown, but only the room owns a clock; it ends a window by sending
`WindowExpired(window)` (ARCHITECTURE, "the engine sees time only as commands").
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from server.engine.records import record


class Mode(StrEnum):
    """How turns are taken: V20 Live Combat, or V25 Turn Based Combat."""

    LIVE = "live"
    TURN_BASED = "turn_based"


class WindowKind(StrEnum):
    PLANNING = "planning"  # V20: everyone declares at once
    REACTION = "reaction"  # V21: before an action resolves
    COUNTER = "counter"  # V22: after a successful defence or a miss
    ADAPT = "adapt"  # V23: the declared target is gone


@record
class Ask:
    """One combatant asked in a window, and the kinds of answer it may give."""

    combatant: str
    options: tuple[str, ...]


@record
class Window:
    """An open window: who is asked, who has answered, what it is about.

    `subject` is the index in `Encounter.pending` of the action the window answers
    (-1 for a planning window).
    """

    id: int
    kind: str
    asked: tuple[Ask, ...]
    seconds: float
    answered: tuple[str, ...] = ()
    subject: int = -1
    depth: int = 0  # how deep in answers the actions answering this window would be
    about: str = ""  # the combatant whose action the window answers (the attacker)

    def ask_of(self, combatant: str) -> Ask | None:
        for ask in self.asked:
            if ask.combatant == combatant:
                return ask
        return None

    @property
    def waiting_for(self) -> tuple[str, ...]:
        # a set: looking each asked combatant up in the answered tuple made a big
        # fight's planning window quadratic (64 asked, 64 answers: 4,096 comparisons)
        answered = set(self.answered)
        return tuple(a.combatant for a in self.asked if a.combatant not in answered)


@record
class Declaration:
    """V20: the Turn Events one combatant declared for one of its turns this round."""

    combatant: str
    turn: int  # index into the turn order
    actions: tuple[Any, ...]  # engine commands, resolved in order on that turn


@record
class Defence:
    """A Defensive Action (V22) or a holder's Dodge (V19) waiting on an attack."""

    defender: str
    kind: str  # "dodge" or "block"
    item: str = ""  # what blocks: a weapon or shield in hand


@record
class Pending:
    """An action on the stack, waiting to resolve.

    The stack resolves latest first (V21): answers pushed while a window is open sit
    above the action they answer. `reacted` marks an action whose reaction window has
    already been run, so it resolves next time it reaches the top.
    """

    action: Any  # an engine command
    actor: str
    source: str  # "declared", "direct", "held", "counter", "quick_response", "opportunity"
    reacted: bool = False
    defences: tuple[Defence, ...] = ()
    depth: int = 0  # how many answers deep: bounded by MAX_STACK_DEPTH
    adapted: bool = False  # V23: its owner already had an adapt window for it
