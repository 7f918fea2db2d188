"""Property tests: random fights never crash, stay in bounds and replay exactly.

Hypothesis draws a seed for the dice, a cast of fighters and a long list of command
choices from every command family the Verse engine has. Each choice is turned into a
concrete command against the state at that moment (so most are plausible, some are
not). Refused commands must change nothing; accepted ones must keep every pool in
bounds; and folding `apply` over the log must reproduce the final state's hash.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.engine import CommandRefused, Encounter, decide, execute, replay
from server.engine.core import Command, Event
from server.engine.grid import Cell
from server.engine.records import from_data, to_data
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.turns import EndTurn, StartCombat
from tests.engine import property_commands
from tests.engine.verse.builders import encounter, fighter, sheet

CommandMaker = Callable[[Encounter, Any], Command | None]


def _current(state: Encounter) -> VerseCombatant | None:
    return state.combatants.get(state.current) if state.current else None


def _attack(state: Encounter, draw: Any) -> Command | None:
    me = _current(state)
    if me is None:
        return None
    target = draw(st.sampled_from(sorted(state.combatants)))
    weapon = draw(st.sampled_from(["", *(w.name for w in me.sheet.weapons)]))
    return Attack(me.id, target, weapon)


def _end_turn(state: Encounter, draw: Any) -> Command | None:
    return EndTurn(state.current or "")


MAKERS: list[CommandMaker] = [_attack, _attack, _attack, _end_turn]


ALL_MAKERS: list[CommandMaker] = MAKERS + property_commands.MAKERS


def cast(seed: int, count: int) -> Encounter:
    fighters = []
    for i in range(count):
        side = "players" if i % 2 == 0 else "gm"
        base = sheet(
            f"f{i}",
            health=6 + i * 3,
            mana=2 + i,
            armour_durability=None if i == 1 else 4,
            spells=property_commands.SPELLS,
        )
        fighters.append(fighter(f"f{i}", side, x=i // 2, y=i % 2, sheet_=base))
    return encounter(*fighters, seed=seed)


def check_bounds(state: Encounter, zero_health_is_death: bool = True) -> None:
    """Health, mana and armour within the sheet's; at 0 health, dead (V7), unless a GM
    set the health (R63: `SetHealth` never adds a condition)."""
    for c in state.combatants.values():
        assert 0 <= c.health <= c.sheet.health, (c.id, c.health)
        assert 0 <= c.mana <= c.sheet.mana, (c.id, c.mana)
        if c.sheet.armour_durability is None:
            assert c.armour_durability is None
        else:
            assert 0 <= c.armour_durability <= c.sheet.armour_durability
        if c.health == 0 and zero_health_is_death:
            assert not c.alive


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    count=st.integers(min_value=2, max_value=6),
    data=st.data(),
)
def test_random_fights_stay_in_bounds_and_replay_exactly(
    seed: int, count: int, data: st.DataObject
) -> None:
    initial = cast(seed, count)
    state, log = execute(initial, StartCombat())
    for _ in range(data.draw(st.integers(min_value=1, max_value=60))):
        maker = data.draw(st.sampled_from(ALL_MAKERS))
        command = maker(state, data.draw)
        if command is None:
            continue
        before = state.state_hash()
        try:
            events: list[Event] = decide(state, command)
        except CommandRefused:
            assert state.state_hash() == before  # refused: nothing changed
            continue
        assert state.state_hash() == before  # decide never changes its input
        state, events = execute(state, command)
        log.extend(events)
        check_bounds(state)
    assert replay(initial, log).state_hash() == state.state_hash()
    # The log survives its plain-data form (what a durable log stores) unchanged.
    stored = [from_data(to_data(e)) for e in log]
    assert replay(initial, stored).state_hash() == state.state_hash()


def test_property_cast_is_a_real_fight() -> None:
    """Guard for the property test above: its cast can actually hurt each other."""
    state = cast(5, 2)
    state, _ = execute(state, StartCombat())
    me = _current(state)
    assert me is not None
    other = next(c for c in state.combatants.values() if c.id != me.id)
    assert state.grid.distance_ft(me.position, other.position) <= 5
    assert isinstance(me.position, Cell)
