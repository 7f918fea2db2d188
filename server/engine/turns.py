"""The commands and events of a round's turns, shared by every ruleset.

Every rule system starts a fight, rolls an order, plays turns and counts rounds, and
its clients show those moments the same way whatever the rules: so the records live
here, once, and each ruleset registers its own deciders and appliers for them (Verse:
`rulesets/verse/turns.py`, V16–V17; Tael: `rulesets/tael/turns.py`, T1–T2). Records
are known on the wire by their class name, which is why two rulesets cannot each have
an `EndTurn` of their own.
"""

from __future__ import annotations

from typing import ClassVar

from server.engine.core import Command, Event
from server.engine.dice import Roll
from server.engine.records import record
from server.engine.state import TurnSlot

# --- commands -------------------------------------------------------------------


@record
class StartCombat(Command):
    """Roll initiative for everyone and open round 1 (the GM starts the fight)."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})


@record
class EndTurn(Command):
    """End the current turn. `actor` is the combatant ending it; empty for the GM or room."""

    actor: str = ""


# --- events ---------------------------------------------------------------------


@record
class InitiativeRoll:
    combatant: str
    roll: Roll


@record
class InitiativeRolled(Event):
    rolls_made: tuple[InitiativeRoll, ...]
    tiebreaks: tuple[InitiativeRoll, ...]
    order: tuple[TurnSlot, ...]

    def rolls(self) -> tuple[Roll, ...]:
        return tuple(r.roll for r in self.rolls_made) + tuple(r.roll for r in self.tiebreaks)


@record
class RoundStarted(Event):
    round: int


@record
class RoundEnded(Event):
    round: int


@record
class TurnStarted(Event):
    combatant: str
    turn: int  # index into the turn order


@record
class TurnEnded(Event):
    combatant: str
