"""Damage against resistance (Verse V7).

Damage `D` against resistance `R` (Physical Resistance for weapons, Spell Resistance
for spells): health loses `max(0, D - R)`, armour durability loses `min(D, R)`.
Durability is tracked only when the sheet gives one; at 0 the armour is Broken, and
resistance keeps applying after that. Health stops at 0, and a combatant at 0 health
is dead (LIVE_COMBAT step 4: "G1 drops to 0 health and dies").

V27: the target's conditions change the resistance as the encounter's conditions table
says (`resistance.pr`, `resistance.sr`), each named beside it (`resistance_changes`).
"""

from __future__ import annotations

from server.engine.core import Event
from server.engine.dice import Roll
from server.engine.effects import Rules, describe_changes
from server.engine.records import evolve, record
from server.engine.rulesets.verse.combatant import DEAD, VerseCombatant
from server.engine.rulesets.verse.condition_rules import changed
from server.engine.rulesets.verse.conditions import ConditionGained, ItemBroken
from server.engine.rulesets.verse.ruleset import VERSE
from server.engine.state import Encounter

ARMOUR = "armour"


@record
class DamageDealt(Event):
    target: str
    source: str
    amount: int  # D: the roll's total, halved where a rule halves it
    resistance_name: str  # "PR" or "SR"; "" for a condition's damage, which none resists
    resistance: int
    to_health: int
    to_armour: int
    roll: Roll | None = None
    affinity: str = ""  # the damage type a bloodline gives a spell
    # V27: the target's conditions that changed `resistance`, each with how much.
    resistance_changes: tuple[tuple[str, int], ...] = ()

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,) if self.roll is not None else ()

    def describe(self) -> str:
        against = ""  # a condition's damage meets no resistance (R80)
        if self.resistance_name:
            against = f" vs {self.resistance_name} {self.resistance}"
        if self.resistance_changes:
            against += f" ({describe_changes(self.resistance_changes)})"
        return (
            f"{self.amount} damage{against}: {self.to_health} to health, {self.to_armour} to armour"
        )


def split(amount: int, resistance: int) -> tuple[int, int]:
    """V7: (to health, to armour) for damage `amount` against `resistance`."""
    amount = max(0, amount)
    resistance = max(0, resistance)
    return max(0, amount - resistance), min(amount, resistance)


def damage_events(
    target: VerseCombatant,
    source: str,
    amount: int,
    physical: bool,
    roll: Roll | None,
    affinity: str = "",
    rules: Rules = (),
) -> list[Event]:
    """The damage event and what follows from it: armour Broken, death at 0 health.
    `rules`: the encounter's conditions table (V27), which may change the resistance."""
    defences = target.sheet.defences
    resistance = defences.physical_resistance if physical else defences.spell_resistance
    key = "resistance.pr" if physical else "resistance.sr"
    resistance, changes = changed(rules, target, key, resistance)
    to_health, to_armour = split(amount, resistance)
    durability = target.armour_durability
    to_armour = 0 if durability is None else min(to_armour, durability)
    events: list[Event] = [
        DamageDealt(
            target.id,
            source,
            amount,
            "PR" if physical else "SR",
            resistance,
            to_health,
            to_armour,
            roll,
            affinity,
            changes,
        )
    ]
    if durability is not None and durability > 0 and durability - to_armour == 0:
        events.append(ItemBroken(target.id, ARMOUR, reason="durability 0"))
    if to_health and target.health - to_health <= 0 and not target.has(DEAD):
        events.append(ConditionGained(target.id, DEAD, reason="health 0"))
    return events


@VERSE.applies(DamageDealt)
def apply_damage(state: Encounter, event: DamageDealt) -> Encounter:
    c: VerseCombatant = state.combatants[event.target]
    durability = c.armour_durability
    if durability is not None:
        durability = max(0, durability - event.to_armour)
    return state.with_combatant(
        evolve(c, health=max(0, c.health - event.to_health), armour_durability=durability)
    )
