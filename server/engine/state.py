"""The encounter state every ruleset shares.

A ruleset keeps its own combatant records in `Encounter.combatants`; everything
else here (turn order, round, dice, version) is the same for every rule system.
States are never changed in place: `apply` returns a new state (copy on write of
the one combatant that changed), so a refused command cannot leave a trace.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Protocol

from server.engine.effects import ConditionRule
from server.engine.flow import Declaration, Mode, Pending, Window
from server.engine.grid import Cell, Grid
from server.engine.records import digest, evolver_of, record
from server.engine.rng import DiceSource, SeededDice


class Phase(StrEnum):
    SETUP = "setup"  # combatants placed, no initiative yet
    COMBAT = "combat"  # rounds are running
    ENDED = "ended"


class Environment(StrEnum):
    """Where the fight takes place; it picks the speed that gives initiatives (V16)."""

    LAND = "land"
    WATER = "water"
    AIR = "air"
    UNDERGROUND = "underground"


class Combatant(Protocol):
    """What shared code may ask of any ruleset's combatant."""

    @property
    def id(self) -> str: ...
    @property
    def side(self) -> str: ...
    @property
    def position(self) -> Cell: ...
    @property
    def active(self) -> bool: ...


class RollVisibility(StrEnum):
    """How much of another side's rolls a player or spectator sees (Verse R77, both
    rulesets; `views.py`). A side always sees its own rolls whole, the GM every roll."""

    OPEN = "open"  # every roll whole, as at a table that rolls in the open
    FACES = "faces"  # the dice faces and the outcome; no modifier, total or sheet number
    HIDDEN = "hidden"  # the outcome only


@record
class Settings:
    """Room settings that change rules (V5: critical tables are off by default) or what
    each audience sees (`roll_visibility`)."""

    critical_tables: bool = False
    # Window lengths (seconds). The engine never reads a clock: the room times windows
    # from these, and they are in the state so a change is an event like any other.
    planning_seconds: float = 45.0
    reaction_seconds: float = 8.0
    adapt_seconds: float = 8.0
    undeclared: str = "pass"  # what a combatant that declared nothing does: "pass" or "hold"
    roll_visibility: str = RollVisibility.FACES  # another side's rolls (R77)


@record
class TurnSlot:
    """One turn in the round: whose it is and the initiative that placed it (V16)."""

    combatant: str
    initiative: int
    dexterity: int
    tiebreak: int = 0


@record
class Encounter:
    id: str
    ruleset: str
    combatants: dict[str, Any]
    dice: DiceSource = SeededDice(0)
    grid: Grid = Grid()
    environment: str = Environment.LAND
    settings: Settings = Settings()
    phase: str = Phase.SETUP
    round: int = 0
    turn_order: tuple[TurnSlot, ...] = ()
    turn: int = -1
    version: int = 0
    mode: str = Mode.TURN_BASED
    window: Window | None = None
    windows_opened: int = 0
    paused_by: str = ""  # who paused (V24): a combatant id, or "gm"
    declarations: tuple[Declaration, ...] = ()
    pending: tuple[Pending, ...] = ()  # the action/reaction stack, bottom first
    resolving: str = ""  # whose stacked action is resolving now (it may act out of turn)
    # The turn at `turn` is over but the next has not started: its combatant left the
    # fight mid-turn (Verse R63) and the answers others gave still resolve first.
    turn_over: bool = False
    # What the conditions the rules leave open do (Verse V27, Tael TR40): the
    # encounter's conditions table (`effects.py`); the GM may change it mid-fight.
    condition_rules: tuple[ConditionRule, ...] = ()

    def combatant(self, combatant_id: str) -> Any:
        return self.combatants[combatant_id]

    def with_combatant(self, combatant: Any) -> Encounter:
        """This state with one combatant replaced: the copy-on-write step of `apply`."""
        combatants = self.combatants.copy()
        combatants[combatant.id] = combatant
        updated: Encounter = _evolve_encounter(self, {"combatants": combatants})
        return updated

    @property
    def current(self) -> str | None:
        """Whose turn it is, or None outside a turn."""
        if 0 <= self.turn < len(self.turn_order) and not self.turn_over:
            return self.turn_order[self.turn].combatant
        return None

    def state_hash(self) -> str:
        return digest(self)


_evolve_encounter = evolver_of(Encounter)


def not_fighting(state: Encounter) -> str:
    """Why a command that needs a fight running is refused now: not yet, or no more."""
    if state.phase == Phase.ENDED:
        return "the fight has ended"
    return "combat has not started" if state.phase == Phase.SETUP else "combat has already started"
