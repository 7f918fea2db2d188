"""Events that change a combatant's conditions, items and ability scores.

They are shared by every Verse module that has such an effect: damage (Dead, armour
Broken), critical fails (V6: dropped, jammed, broken), spells (Exhausted, overdraw),
the critical tables (V5) and GM overrides.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.engine.condition_table import ConditionWarded
from server.engine.core import Event
from server.engine.dice import Roll
from server.engine.effects import immune, rule_named
from server.engine.records import evolve, record
from server.engine.rulesets.verse.combatant import DEAD, UNCONSCIOUS, VerseCombatant
from server.engine.rulesets.verse.ruleset import VERSE
from server.engine.state import Encounter

ABILITY_NAMES = ("strength", "dexterity", "constitution", "sanity", "intellect", "empathy")


@record
class ConditionGained(Event):
    combatant: str
    condition: str
    rounds: int | None = None
    per_turn: bool = False
    reason: str = ""


@record
class ConditionLost(Event):
    combatant: str
    condition: str
    reason: str = ""


@record
class ItemBroken(Event):
    """An item gains the Broken condition: armour at 0 durability (V7), a jammed or
    fragile weapon (V6), a critical-table row (V5)."""

    combatant: str
    item: str
    reason: str = ""


@record
class WeaponDropped(Event):
    """V6: a melee weapon flies from its wielder's hand on a critical fail."""

    combatant: str
    weapon: str
    reason: str = ""


@record
class AbilityDamaged(Event):
    """An ability score loses points: critical tables (1d4) or Constitution overdraw (V10)."""

    combatant: str
    ability: str
    amount: int
    roll: Roll | None = None
    reason: str = ""

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,) if self.roll is not None else ()


def gained(
    c: VerseCombatant,
    name: str,
    rounds: int | None = None,
    per_turn: bool = False,
    reason: str = "",
) -> Event:
    """`c` gains condition `name`, unless its sheet is immune to it (R81): then the log
    says so (`ConditionWarded`) and nothing is laid. For what the rules lay, not the GM."""
    if c.sheet.immunities and immune(c.sheet.immunities, name):
        return ConditionWarded(c.id, name, reason)
    return ConditionGained(c.id, name, rounds, per_turn, reason)


def killed(events: Sequence[Event], combatant_id: str) -> bool:
    """Do these events (just decided) make `combatant_id` Dead?"""
    for event in events:
        if (
            isinstance(event, ConditionGained)
            and event.combatant == combatant_id
            and event.condition == DEAD
        ):
            return True
    return False


def ability_damage_consequences(
    state: Encounter, combatant_id: str, ability: str, amount: int, reason: str
) -> list[Event]:
    """V10: Constitution 0 means unconscious, below 0 means dead."""
    if ability != "constitution":
        return []
    c = state.combatants[combatant_id]
    after = c.abilities.constitution - amount
    if after < 0 and not c.has(DEAD):
        return [ConditionGained(combatant_id, DEAD, reason=reason)]
    if after == 0 and not c.has(UNCONSCIOUS):
        return [ConditionGained(combatant_id, UNCONSCIOUS, reason=reason)]
    return []


@VERSE.applies(ConditionGained)
def apply_condition_gained(state: Encounter, event: ConditionGained) -> Encounter:
    """A condition laid without a duration lasts what its entry in the conditions table
    says, if it says (V27: `rounds` round ends, or `turns` of its bearer's turn ends);
    else until removed (R21)."""
    c = state.combatants[event.combatant]
    rounds, per_turn = event.rounds, event.per_turn
    if rounds is None and state.condition_rules:
        rule = rule_named(state.condition_rules, event.condition)
        if rule is not None and (rule.rounds or rule.turns):
            rounds, per_turn = (rule.turns, True) if rule.turns else (rule.rounds, False)
    return state.with_combatant(c.with_condition(event.condition, rounds, per_turn))


@VERSE.applies(ConditionLost)
def apply_condition_lost(state: Encounter, event: ConditionLost) -> Encounter:
    c = state.combatants[event.combatant]
    return state.with_combatant(c.without_condition(event.condition))


@VERSE.applies(ItemBroken)
def apply_item_broken(state: Encounter, event: ItemBroken) -> Encounter:
    c = state.combatants[event.combatant]
    if event.item in c.broken:
        return state
    return state.with_combatant(evolve(c, broken=(*c.broken, event.item)))


@VERSE.applies(WeaponDropped)
def apply_weapon_dropped(state: Encounter, event: WeaponDropped) -> Encounter:
    c = state.combatants[event.combatant]
    if event.weapon in c.dropped:
        return state
    return state.with_combatant(evolve(c, dropped=(*c.dropped, event.weapon)))


@VERSE.applies(AbilityDamaged)
def apply_ability_damaged(state: Encounter, event: AbilityDamaged) -> Encounter:
    c = state.combatants[event.combatant]
    current = getattr(c.abilities, event.ability)
    abilities = evolve(c.abilities, **{event.ability: current - event.amount})
    return state.with_combatant(evolve(c, abilities=abilities))
