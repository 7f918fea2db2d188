"""Tael command families for the contract suite: a cast and a maker per kind of command.

Each maker turns a random draw into a concrete command against the state at that
moment (so most are plausible, some are not): every game action, preparations and the
answers to their windows, the end of a turn, the GM's end of combat, and the conditions
table (TR40): the GM adds, changes and takes out random entries mid-fight and lays and
clears the statuses they rule, some at the edge of what a table may say (R82).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from server.engine import Encounter
from server.engine.commands import EndCombat
from server.engine.condition_table import RemoveConditionRule, SetConditionRule
from server.engine.core import Command
from server.engine.effects import MAX_CHANGES
from server.engine.grid import Cell
from server.engine.rulesets.tael.attacks import AttackAction, PreparedStrike
from server.engine.rulesets.tael.bonus import EquipWeapon, PickUp, Punch, SkillCheck, Surrender
from server.engine.rulesets.tael.fainting import Help
from server.engine.rulesets.tael.generic import Brace, Dash, Hide, Sprint
from server.engine.rulesets.tael.movement import MoveTiles
from server.engine.rulesets.tael.overrides import RemoveStatus, SetHitPoints, SetStatus
from server.engine.rulesets.tael.preparations import Prepare
from server.engine.rulesets.tael.sheet import (
    PreparationMove,
    StatusEffect,
    TaelClass,
    TaelSpell,
    TaelWeapon,
    Trigger,
)
from server.engine.rulesets.tael.spells import SpellAction
from server.engine.rulesets.tael.stances import ChooseStance
from server.engine.stack import Answer, PassWindow
from server.engine.turns import EndTurn
from tests.engine import condition_tables
from tests.engine.tael.builders import BOW, DAGGER, RIPOSTE, SWORD, encounter, fighter, sheet

Draw = Any
CommandMaker = Callable[[Encounter, Draw], Command | None]

KNUCKLES = TaelWeapon("knuckles", "1d4", skill="fists", kind="fist")
IGNITE = TaelSpell(
    "Ignite",
    school="fire",
    damage="1d6",
    reach=6,
    status=StatusEffect("Burning", "agility", dc=10, turns=2, damage="1d4"),
)
SPRAY = TaelSpell("Spray", school="fire", damage="1d4", reach=3, targets=3)
STUN = TaelSpell(
    "Stun", school="fire", reach=4, status=StatusEffect("Stunned", "wisdom", 12, skips_turn=True)
)
MOVES = (
    RIPOSTE,
    PreparationMove("Shield Up", Trigger.ATTACKED, defensive_bonus=3),
    PreparationMove("Ward", Trigger.SPELL, prevents_damage=True),
    PreparationMove("Cover", Trigger.ALLY_ATTACKED, strikes_back=True),
)
WEAPONS = ("", "sword", "dagger", "bow", "knuckles", "club")  # "club": nobody has one


def cast(seed: int, count: int) -> Encounter:
    """Two sides in two rows, so most fighters have a foe next to them; each with a
    class, a few weapons, spells and every kind of prepared move."""
    fighters = []
    for i in range(count):
        side, row = ("heroes", 0) if i % 2 == 0 else ("foes", 1)
        base = sheet(
            f"f{i}",
            hit_points=5 + 3 * i,
            magic=2,
            magic_schools=("fire",),
            spells=(IGNITE, SPRAY, STUN),
            weapons=(SWORD, DAGGER, BOW, KNUCKLES),
            main_hand="sword",
            off_hand="dagger" if i % 3 else "",
            weapon_skills=("swords", "daggers", "bows"),
            classes=(TaelClass("Fighter", actions=("attack",) if i % 2 else ("spell",)),),
            preparations=MOVES,
        )
        fighters.append(fighter(f"f{i}", side, x=i // 2, y=row, sheet_=base))
    return encounter(*fighters, seed=seed)


def _current(state: Encounter) -> str | None:
    return state.current


def _someone(state: Encounter, draw: Draw) -> str:
    return str(draw(st.sampled_from([*sorted(state.combatants), "ghost"])))


def _attack(state: Encounter, draw: Draw) -> Command | None:
    me = _current(state)
    if me is None:
        return None
    return AttackAction(
        me, _someone(state, draw), draw(st.sampled_from(WEAPONS)), draw(st.booleans())
    )


def _punch(state: Encounter, draw: Draw) -> Command | None:
    me = _current(state)
    return Punch(me, _someone(state, draw), draw(st.booleans())) if me else None


def _spell(state: Encounter, draw: Draw) -> Command | None:
    me = _current(state)
    if me is None:
        return None
    spell = draw(st.sampled_from(["Ignite", "Spray", "Stun", "Nope"]))
    targets = draw(st.lists(st.sampled_from(sorted(state.combatants)), min_size=0, max_size=3))
    return SpellAction(me, spell, tuple(targets))


def _move(state: Encounter, draw: Draw) -> Command | None:
    me = _current(state)
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
    return MoveTiles(me, tuple(path))


def _generic(state: Encounter, draw: Draw) -> Command | None:
    me = _current(state)
    if me is None:
        return None
    kind = draw(st.sampled_from([Dash, Sprint, Brace, Hide]))
    command: Command = kind(me)
    return command


def _help(state: Encounter, draw: Draw) -> Command | None:
    me = _current(state)
    return Help(me, _someone(state, draw)) if me else None


def _bonus(state: Encounter, draw: Draw) -> Command | None:
    me = _current(state)
    if me is None:
        return None
    as_bonus = draw(st.booleans())
    choice = draw(st.integers(0, 3))
    if choice == 0:
        return SkillCheck(me, draw(st.sampled_from(["persuasion", "perception", ""])), as_bonus)
    if choice == 1:
        return Surrender(me, as_bonus)
    if choice == 2:
        return PickUp(me, draw(st.sampled_from(WEAPONS)), as_bonus)
    main = draw(st.sampled_from(WEAPONS))
    off = draw(st.sampled_from(WEAPONS))
    return EquipWeapon(me, main, off, as_bonus)


def _stance(state: Encounter, draw: Draw) -> Command | None:
    return ChooseStance(_someone(state, draw), draw(st.sampled_from(["tanking", "dodging", "x"])))


def _prepare(state: Encounter, draw: Draw) -> Command | None:
    move = draw(st.sampled_from([m.name for m in MOVES] + ["Nope"]))
    return Prepare(_someone(state, draw), move)


def _answer(state: Encounter, draw: Draw) -> Command | None:
    """Someone asked answers with an offered move (sometimes a strike), or passes."""
    window = state.window
    if window is None or not window.waiting_for:
        return None
    who = draw(st.sampled_from(window.waiting_for))
    ask = window.ask_of(who)
    assert ask is not None
    if draw(st.booleans()):
        return PassWindow(who, window.id)
    option = draw(st.sampled_from(ask.options))
    strike = PreparedStrike(who, window.about, draw(st.sampled_from(WEAPONS)))
    return Answer(who, window.id, option, strike if draw(st.booleans()) else None)


def _end_turn(state: Encounter, draw: Draw) -> Command | None:
    return EndTurn(draw(st.sampled_from([state.current or "", ""])))


def _end_combat(state: Encounter, draw: Draw) -> Command | None:
    """T10: the end once a side is out; now and then as everyone agreed (TR39), which
    ends any fight, so it is drawn seldom to leave the fights their length."""
    return EndCombat(agreed=draw(st.integers(0, 9), label="agreed?") == 0)


def _table(state: Encounter, draw: Draw) -> Command | None:
    """TR40: the GM adds or changes a random entry of the conditions table, or takes one
    out (sometimes one that is not there)."""
    if draw(st.integers(0, 3)) == 0:
        ruled = [rule.name for rule in state.condition_rules]
        return RemoveConditionRule(draw(st.sampled_from([*ruled, "Nothing"])))
    return SetConditionRule(draw(condition_tables.rule("tael")))


def _ruled_status(state: Encounter, draw: Draw) -> Command | None:
    """TR40: the GM lays or clears a status the table rules, so its effects play."""
    ruled = [rule.name for rule in state.condition_rules]
    if not ruled:
        return None
    who = _someone(state, draw)
    name = draw(st.sampled_from(ruled))
    if draw(st.integers(0, 3)) == 0:
        return RemoveStatus(who, name)
    return SetStatus(who, name, draw(st.integers(1, 3)), draw(st.sampled_from(["", "1d4"])))


def _edge(state: Encounter, draw: Draw) -> Command | None:
    """R82: the GM rules a status at the edge of what a table may say (twenty factors of
    10 on the DV or the speed, twenty bonuses of ±1000), or lays one it ruled so."""
    edges = [r.name for r in state.condition_rules if len(r.changes) == MAX_CHANGES]
    if edges and draw(st.integers(0, 3)) > 0:
        who = draw(st.sampled_from(sorted(state.combatants)))
        return SetStatus(who, draw(st.sampled_from(edges)), 3)
    return SetConditionRule(draw(condition_tables.rule("tael", at_edge=True)))


def _override(state: Encounter, draw: Draw) -> Command | None:
    """The GM heals, drops, lays or clears a status (sometimes out of bounds)."""
    who = _someone(state, draw)
    kind = draw(st.sampled_from(["hit points", "status", "clear"]))
    if kind == "hit points":
        return SetHitPoints(who, draw(st.integers(-1, 30)))
    if kind == "status":
        damage = draw(st.sampled_from(["", "1d4", "d"]))
        turns = draw(st.integers(0, 3))
        return SetStatus(who, "Frozen", turns, damage, skips_turn=draw(st.booleans()))
    return RemoveStatus(who, draw(st.sampled_from(["Burning", "Stunned", "Frozen"])))


MAKERS: list[CommandMaker] = [
    _attack,
    _attack,
    _attack,
    _punch,
    _spell,
    _spell,
    _move,
    _generic,
    _help,
    _bonus,
    _stance,
    _prepare,
    _answer,
    _answer,
    _end_turn,
    _end_turn,
    _end_combat,
    _override,
    _table,
    _ruled_status,
    _ruled_status,
    _edge,
    _edge,
]


def check_bounds(state: Encounter) -> None:
    for c in state.combatants.values():
        assert 0 <= c.hit_points <= c.sheet.hit_points, (c.id, c.hit_points)
        if c.hit_points == 0:
            assert c.fainted or c.dead, c.id
        assert not (c.fainted and c.dead), c.id
        assert 0 <= c.willpower_failures < 2 or c.dead, c.id
        assert c.turn.bonus <= c.sheet.bonus_actions, c.id
        assert len(c.turn.actions) <= len(c.sheet.actions), c.id
