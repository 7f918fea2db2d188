"""More command families for the property test: moves, stances, facing, spells (alone
or group casts, V12) and mana pledges (R74)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from server.engine import Encounter
from server.engine.core import Command
from server.engine.grid import Cell
from server.engine.records import evolve
from server.engine.rulesets.verse.movement import Face, Move
from server.engine.rulesets.verse.sheet import Spell, SpellShape
from server.engine.rulesets.verse.spell_mana import PledgeMana
from server.engine.rulesets.verse.spells import CastSpell
from server.engine.rulesets.verse.stances import SetStance

BOLT = Spell("Bolt", min_mc=2, uses_spell_die=True, base_spell_dice=1)
BURST = Spell("Burst", min_mc=4, uses_spell_die=True, base_spell_dice=1, shape=SpellShape.AREA)
SPELLS = (BOLT, BURST)


def _move(state: Encounter, draw: Any) -> Command | None:
    me = state.current
    if me is None:
        return None
    here = state.combatants[me].position
    steps = draw(
        st.lists(st.tuples(st.integers(-1, 1), st.integers(-1, 1)), min_size=1, max_size=4)
    )
    path, x, y = [], here.x, here.y
    for dx, dy in steps:
        x, y = x + dx, y + dy
        path.append(Cell(x, y))
    return Move(me, tuple(path))


def _stance(state: Encounter, draw: Any) -> Command | None:
    me = state.current
    stance = draw(st.sampled_from(["none", "defensive", "aggressive"]))
    return SetStance(me, stance) if me else None


def _face(state: Encounter, draw: Any) -> Command | None:
    me = state.current
    return Face(me, draw(st.integers(0, 7))) if me else None


def _cast(state: Encounter, draw: Any) -> Command | None:
    me = state.current
    if me is None:
        return None
    spell = draw(st.sampled_from(SPELLS))
    target = draw(st.sampled_from(sorted(state.combatants)))
    extra = draw(st.integers(0, 3))
    cast = CastSpell(me, spell.name, targets=(target,), extra_spell_dice=extra)
    helping = draw(st.sampled_from(["alone", "alone", "helpers", "pledged"]))
    if helping == "alone":
        return cast
    # V12: a share of someone's mana. `decide` takes `helpers` as vouched for by the
    # server's check of the sender (R74), so any combatant may pay here; `pledged`
    # needs that combatant's pledge (`_pledge`).
    share = ((draw(st.sampled_from(sorted(state.combatants))), draw(st.integers(1, 3))),)
    return evolve(cast, **{helping: share})


def _pledge(state: Encounter, draw: Any) -> Command | None:
    """R74: someone pledges (or takes back, 0) a share of the current combatant's spell."""
    me = state.current
    if me is None:
        return None
    helper = draw(st.sampled_from(sorted(state.combatants)))
    spell = draw(st.sampled_from(SPELLS))
    return PledgeMana(helper, me, spell.name, draw(st.integers(0, 3)))


MAKERS = [_move, _stance, _face, _cast, _cast, _pledge]
