"""What conditions do at the end of each round, as the conditions table says (V27).

At the end of every round, before its round-long conditions tick down (R21), each
living combatant in id order, and each of its conditions in the order it gained them
that has an entry in the table:

1. `damage`: rolled and taken straight off health, no resistance and no armour (it is
   no attack, R80): a `DamageDealt` whose source is the bearer itself and whose
   `affinity` names the condition; at 0 health the bearer is Dead (R1) and nothing more
   happens to it;
2. `drain`: each ability loses the points rolled (`AbilityDamaged`), Constitution with
   V10's consequences (0: Unconscious, below 0: Dead);
3. `save`: `d20 + the ability's score` and the bearer's save bonuses against the DC
   (`ConditionSaveRolled`); meeting it ends the condition (`ConditionLost`, "saved").

`rounds` and `turns` (how long a condition laid without a duration lasts) are read when
it is gained (`conditions.apply_condition_gained`).
"""

from __future__ import annotations

from server.engine.condition_table import ConditionSaveRolled
from server.engine.core import Event, apply_all
from server.engine.dice import DiceCup
from server.engine.effects import rules_for
from server.engine.rulesets.verse.combatant import DEAD, VerseCombatant
from server.engine.rulesets.verse.condition_rules import names_of, save_bonuses
from server.engine.rulesets.verse.conditions import (
    AbilityDamaged,
    ConditionGained,
    ConditionLost,
    ability_damage_consequences,
    killed,
)
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.state import Encounter

SAVED = "saved"


def round_upkeep(state: Encounter, cup: DiceCup) -> list[Event]:
    """The events the conditions table makes happen as a round ends (module docstring)."""
    rules = state.condition_rules
    if not rules:
        return []
    events: list[Event] = []
    for cid in sorted(state.combatants):
        c: VerseCombatant = state.combatants[cid]
        if not c.alive or not c.conditions:
            continue
        for name, rule in rules_for(rules, names_of(c)):
            made: list[Event] = []
            c = state.combatants[cid]
            if not c.alive:
                break
            if rule.damage:
                roll = cup.roll(rule.damage)
                amount = max(0, roll.total)
                made.append(DamageDealt(c.id, c.id, amount, "", 0, amount, 0, roll, name))
                if amount and c.health - amount <= 0:
                    made.append(ConditionGained(c.id, DEAD, reason=f"{name}: health 0"))
            for ability, dice in rule.drain:
                if killed(made, c.id):
                    break
                roll = cup.roll(dice)
                before = apply_all(state, made)
                made.append(AbilityDamaged(c.id, ability, roll.total, roll, reason=name))
                made += ability_damage_consequences(before, c.id, ability, roll.total, name)
            state = apply_all(state, made)
            events += made
            c = state.combatants[cid]
            if rule.save is not None and c.alive:
                ability = rule.save.ability
                score = getattr(c.abilities, ability)
                roll = cup.d20(((ability.capitalize(), score), *save_bonuses(rules, c, ability)))
                success = roll.total >= rule.save.dc
                saved: list[Event] = [
                    ConditionSaveRolled(c.id, name, roll, rule.save.dc, success, ability)
                ]
                if success:
                    saved.append(ConditionLost(c.id, name, reason=SAVED))
                state = apply_all(state, saved)
                events += saved
    return events
