"""The engine's contract, run once per ruleset (issue: "The engine's contract suite ...
runs once per ruleset").

Whatever the rules, the engine promises:

- **determinism**: deciding the same command on the same state gives the same events;
- **replay**: folding `apply` over the log rebuilds the final state, hash for hash, also
  through the log's plain-data form (what a durable log stores);
- **refusals change nothing**: a refused command leaves the state's hash as it was, and
  `decide` never changes its input;
- **every round ends**: from wherever a fight stands, with nobody acting but the room's
  timers (`WindowExpired`) and the GM ending turns (`EndTurn("")`), the round number
  goes up within a bound;
- **every view can be built**: each event and the state, for the GM, each side and the
  spectators (the redaction tables know every event);
- **everything packs**: each event and the state go into msgpack whole, so no number
  is past 64 bits, whatever the random conditions table says (R82; its entries are now
  and then at the edge of what a table may say, `condition_tables.py`).

Hypothesis draws a seed, a cast and a list of command choices from each ruleset's own
command families (`RULESETS` below: Verse's from `test_properties.py`, Tael's from
`tael/property_commands.py`). Verse's own invariants (pools in bounds) stay in
`test_properties.py`; Tael's bounds are checked here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.engine import CommandRefused, Encounter, decide, execute, replay
from server.engine.commands import WindowExpired
from server.engine.core import Command, Event
from server.engine.records import from_data, to_data
from server.engine.state import Phase
from server.engine.turns import EndTurn, StartCombat
from server.engine.views import GM_AUDIENCE, SPECTATORS, event_views, player_audience, state_view
from tests.engine import condition_tables
from tests.engine import test_properties as verse_properties
from tests.engine.tael import property_commands as tael_properties

ROUND_STEPS = 200  # commands the timers and the GM need at most to end a round


@dataclass(frozen=True)
class Contract:
    """What the suite needs of one ruleset."""

    cast: Callable[[int, int], Encounter]
    makers: list[Callable[[Encounter, Any], Command | None]]
    check_bounds: Callable[[Encounter], None]


RULESETS = {
    "verse": Contract(
        verse_properties.cast, verse_properties.ALL_MAKERS, verse_properties.check_bounds
    ),
    "tael": Contract(tael_properties.cast, tael_properties.MAKERS, tael_properties.check_bounds),
}


def views_build(events: list[Event], state: Encounter) -> None:
    """Every audience's view of the state and of each event can be built."""
    audiences = [
        GM_AUDIENCE,
        SPECTATORS,
        *(player_audience([cid], state) for cid in state.combatants),
    ]
    for event in events:
        event_views(event, state, audiences)
    for audience in audiences:
        state_view(state, audience)


def end_the_round(state: Encounter) -> Encounter:
    """Only the room's timers and the GM act: the round must end (or the fight)."""
    start = state.round
    for _ in range(ROUND_STEPS):
        if state.phase != Phase.COMBAT or state.round > start:
            return state
        command: Command = (
            WindowExpired(state.window.id) if state.window is not None else EndTurn("")
        )
        state, _ = execute(state, command)
    raise AssertionError(f"round {start} did not end within {ROUND_STEPS} commands")


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    count=st.integers(min_value=2, max_value=6),
    data=st.data(),
)
def test_the_engine_contract(ruleset: str, seed: int, count: int, data: st.DataObject) -> None:
    contract = RULESETS[ruleset]
    initial = contract.cast(seed, count)
    assert initial.ruleset == ruleset
    state, log = execute(initial, StartCombat())
    views_build(log, state)
    for _ in range(data.draw(st.integers(min_value=1, max_value=60))):
        maker = data.draw(st.sampled_from(contract.makers))
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
        assert list(decide(state, command)) == list(events)  # deterministic
        state, events = execute(state, command)
        log.extend(events)
        contract.check_bounds(state)
        views_build(events, state)
        for event in events:
            condition_tables.packs(event)
        condition_tables.packs(state)
    assert replay(initial, log).state_hash() == state.state_hash()
    stored = [from_data(to_data(e)) for e in log]
    assert replay(initial, stored).state_hash() == state.state_hash()
    end_the_round(state)


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_the_casts_are_real_fights(ruleset: str) -> None:
    """Guard for the contract above: its cast can hurt each other from the start."""
    state, _ = execute(RULESETS[ruleset].cast(5, 2), StartCombat())
    me = state.combatants[state.current]
    other = next(c for c in state.combatants.values() if c.id != me.id)
    assert state.grid.cells_between(me.position, other.position) <= 1
