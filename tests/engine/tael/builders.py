"""Small builders for readable Tael rule tests: sheets, combatants and encounters."""

from __future__ import annotations

from typing import Any

import pytest

from server.engine import Command, CommandRefused, Encounter, decide, execute, replay
from server.engine.core import Event
from server.engine.flow import Mode, Window
from server.engine.grid import Cell, Grid
from server.engine.records import evolve
from server.engine.rng import ScriptedDice, SeededDice
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.sheet import (
    Armour,
    Attribute,
    PreparationMove,
    TaelSheet,
    TaelWeapon,
    Trigger,
    WeaponKind,
)
from server.engine.state import Phase, Settings, TurnSlot

SWORD = TaelWeapon("sword", "1d8", skill="swords", scale="strength")
DAGGER = TaelWeapon("dagger", "1d4", skill="daggers", scale="agility")
BOW = TaelWeapon(
    "bow", "1d6", skill="bows", scale="agility", kind=WeaponKind.RANGED, hands=2, reach=6
)
RIPOSTE = PreparationMove("Riposte", Trigger.MELEE_ATTACK, prevents_damage=True, strikes_back=True)


def attributes(**values: tuple[int, int]) -> tuple[Attribute, ...]:
    """`strength=(14, 2)`: value and modifier; the four the rules read default to (10, 0)."""
    base = {"strength": (10, 0), "agility": (10, 0), "intelligence": (10, 0), "wisdom": (10, 0)}
    base.update(values)
    return tuple(Attribute(name, value, modifier) for name, (value, modifier) in base.items())


def sheet(name: str = "Hero", **overrides: Any) -> TaelSheet:
    base = TaelSheet(
        name=name,
        attributes=attributes(strength=(14, 2), agility=(12, 1)),
        hit_points=20,
        martial_combat=3,
        precision=2,
        magic=0,
        dodging=2,
        willpower=1,
        movement=5,
        armour=Armour("leather", defensive_value=12, dodge_penalty=0),
        weapon_skills=("swords", "bows"),
        weapons=(SWORD, DAGGER, BOW),
        main_hand="sword",
    )
    return evolve(base, **overrides)


def fighter(
    cid: str, side: str, x: int = 0, y: int = 0, sheet_: TaelSheet | None = None, **kw: Any
) -> TaelCombatant:
    return TaelCombatant.from_sheet(cid, side, sheet_ or sheet(cid), Cell(x, y), **kw)


def encounter(
    *combatants: TaelCombatant,
    dice: tuple[int, ...] | None = None,
    seed: int = 1,
    grid: Grid | None = None,
    **kw: Any,
) -> Encounter:
    return Encounter(
        id="test",
        ruleset="tael",
        combatants={c.id: c for c in combatants},
        dice=ScriptedDice(dice) if dice is not None else SeededDice(seed),
        grid=grid or Grid(),
        mode=Mode.TURN_BASED,
        **kw,
    )


def in_combat(
    *combatants: TaelCombatant, dice: tuple[int, ...] = (), settings: Settings | None = None
) -> Encounter:
    """Round 1 with the turns in the order given, the first one acting (no initiative
    roll, so a test's scripted dice are only its own rolls)."""
    order = tuple(TurnSlot(c.id, 20 - i, 10) for i, c in enumerate(combatants))
    state = encounter(*combatants, dice=dice, settings=settings or Settings())
    return evolve(state, phase=Phase.COMBAT, round=1, turn_order=order, turn=0)


def refused(state: Encounter, command: Command) -> str:
    """The code of a refused command; the state must be untouched."""
    before = state.state_hash()
    with pytest.raises(CommandRefused) as caught:
        decide(state, command)
    assert state.state_hash() == before
    return caught.value.code


class Fight:
    """An encounter being played: `do` sends a command and keeps the log for replay."""

    def __init__(self, state: Encounter) -> None:
        self.initial = state
        self.state = state
        self.log: list[Event] = []

    def do(self, command: Command) -> list[Event]:
        self.state, events = execute(self.state, command)
        self.log.extend(events)
        return events

    def refused(self, command: Command) -> str:
        return refused(self.state, command)

    def who(self, cid: str) -> TaelCombatant:
        found: TaelCombatant = self.state.combatants[cid]
        return found

    @property
    def window(self) -> Window:
        window = self.state.window
        assert window is not None, "no window is open"
        return window

    def replays(self) -> bool:
        return replay(self.initial, self.log).state_hash() == self.state.state_hash()


def of(events: list[Event], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def one(events: list[Event], kind: type[Any]) -> Any:
    found = of(events, kind)
    assert len(found) == 1, f"expected one {kind.__name__}, found {found}"
    return found[0]


def names(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events]
