"""Small builders for readable rule tests: sheets, combatants and encounters."""

from __future__ import annotations

from typing import Any

import pytest

from server.engine import Command, CommandRefused, Encounter, decide, execute
from server.engine.grid import Cell, Grid
from server.engine.records import evolve
from server.engine.rng import ScriptedDice, SeededDice
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.sheet import Abilities, Defences, VerseSheet, Weapon
from server.engine.rulesets.verse.turns import StartCombat
from server.engine.state import Phase, Settings, TurnSlot

LONGSWORD = Weapon("longsword", "1d8", "one_handed")
SHORTBOW = Weapon("shortbow", "1d6", "ranged", kind="ranged", range_ft=80)


def sheet(name: str = "Hero", **overrides: Any) -> VerseSheet:
    base = VerseSheet(
        name=name,
        level=1,
        abilities=Abilities(
            strength=3, dexterity=2, constitution=3, sanity=2, intellect=1, empathy=1
        ),
        defences=Defences(
            physical_dodge=12, physical_resistance=2, spell_dodge=11, spell_resistance=1
        ),
        health=20,
        mana=10,
        armour_durability=10,
        training=(("one_handed", 2), ("ranged", 1)),
        weapons=(LONGSWORD, SHORTBOW),
    )
    return evolve(base, **overrides)


def fighter(
    cid: str, side: str, x: int = 0, y: int = 0, sheet_: VerseSheet | None = None, **kw: Any
) -> VerseCombatant:
    return VerseCombatant.from_sheet(cid, side, sheet_ or sheet(cid), Cell(x, y), **kw)


def encounter(
    *combatants: VerseCombatant,
    dice: tuple[int, ...] | None = None,
    seed: int = 1,
    grid: Grid | None = None,
    **kw: Any,
) -> Encounter:
    return Encounter(
        id="test",
        ruleset="verse",
        combatants={c.id: c for c in combatants},
        dice=ScriptedDice(dice) if dice is not None else SeededDice(seed),
        grid=grid or Grid(),
        **kw,
    )


def in_combat(
    *combatants: VerseCombatant,
    dice: tuple[int, ...] = (),
    settings: Settings | None = None,
    **kw: Any,
) -> Encounter:
    """An encounter already in round 1, turns in the order given, the first one acting.

    It skips the initiative roll so a test's scripted dice are only its own rolls.
    """
    order = tuple(TurnSlot(c.id, 20 - i, c.abilities.dexterity) for i, c in enumerate(combatants))
    state = encounter(*combatants, dice=dice, settings=settings or Settings(), **kw)
    return evolve(state, phase=Phase.COMBAT, round=1, turn_order=order, turn=0)


def started(*combatants: VerseCombatant, seed: int = 1) -> Encounter:
    state, _ = execute(encounter(*combatants, seed=seed), StartCombat())
    return state


def refused(state: Encounter, command: Command) -> str:
    """The code of a refused command; the state must be untouched."""
    before = state.state_hash()
    with pytest.raises(CommandRefused) as caught:
        decide(state, command)
    assert state.state_hash() == before
    return caught.value.code
