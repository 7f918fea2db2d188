"""What statuses do at the start of their bearer's turn, as the conditions table says (TR40).

At the start of a turn, after the statuses' own damage (TR14) and before the turn is
played or lost, each status of the bearer that has an entry in the table, in the order
they were laid:

1. `damage`: rolled and dealt as the status's own damage is (`DamageRolled` from whoever
   laid it, then `DamageTaken`; no attack, TR12);
2. `save`: `d20 +` the attribute's modifier (or Willpower) and the bearer's save bonuses
   against the DC (`ConditionSaveRolled`, naming the ability); meeting it ends the
   status at once (`StatusEnded`), so a turn it would have taken is played. A save in
   Willpower shows another side only its outcome, whatever the room's setting (TR33,
   `views.condition_save_view`).

A fainted or dead bearer has none of this (its statuses still count down, TR12).
"""

from __future__ import annotations

from server.engine.condition_table import ConditionSaveRolled
from server.engine.effects import rules_for
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.condition_rules import WILLPOWER, bonuses, names_of
from server.engine.rulesets.tael.damage import DamageRolled, damage_events
from server.engine.rulesets.tael.statuses import StatusEnded
from server.engine.stack import Run


def save_modifiers(c: TaelCombatant, ability: str) -> tuple[tuple[str, int], ...]:
    """`d20 +` what a save in `ability` adds: Willpower, or the attribute's modifier."""
    if ability == WILLPOWER:
        return (("Willpower", c.sheet.willpower),)
    return ((ability.capitalize(), c.sheet.modifier(ability)),)


def turn_upkeep(run: Run, combatant_id: str) -> None:
    """The table's damage and saves for `combatant_id`'s statuses (module docstring)."""
    rules = run.state.condition_rules
    if not rules:
        return
    c: TaelCombatant = run.state.combatants[combatant_id]
    for name, rule in rules_for(rules, names_of(c)):
        c = run.state.combatants[combatant_id]
        if c.fainted or c.dead:
            return
        status = c.status(name)
        source = status.source if status is not None else ""
        if rule.damage:
            roll = run.cup.roll(rule.damage)
            run.emit(DamageRolled(source, name, roll))
            run.emit(*damage_events(run.state.combatants[combatant_id], name, roll.total))
            c = run.state.combatants[combatant_id]
            if c.fainted or c.dead:
                return
        if rule.save is not None:
            ability = rule.save.ability
            mods = (*save_modifiers(c, ability), *bonuses(rules, c, "save", f"save.{ability}"))
            roll = run.cup.d20(mods)
            success = roll.total >= rule.save.dc
            run.emit(ConditionSaveRolled(c.id, name, roll, rule.save.dc, success, ability))
            if success:
                run.emit(StatusEnded(c.id, name))
