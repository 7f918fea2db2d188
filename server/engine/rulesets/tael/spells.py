"""Spell Actions: the hit check, damage and status effects (T4, T5, T6).

T4: "Assuming the target is within the spell's range from the spellcaster, the
spellcaster must make a Magic-Attribute Check against the target's Defensive Value ...
The spellcaster can add his Magic Modifier ... The spellcaster must be skilled in the
School of Magic the spell originates from in order to cast it (or alternatively for
wizards; have learned the use of the spell via a scroll). Every target whose defensive
value is equal to or lower than the spellcaster's total hit-check will be considered
hit." One hit check for all of a spell's targets (TR5); a spell names how many targets
it may have.

T5: the attack roll is the spell's dice plus the Magic modifier plus class bonuses,
rolled once and dealt to every target hit (TR5). T6: each target hit by a spell with a
status effect then rolls its resist check (`statuses.resist_events`); a prepared move
that prevents a hit's damage does not stop the status (TR10).
"""

from __future__ import annotations

from server.engine.core import Command, Event
from server.engine.dice import DiceCup, Roll
from server.engine.errors import (
    INVALID_COMMAND,
    OUT_OF_RANGE,
    SPELL_NOT_ACCESSIBLE,
    UNKNOWN_SPELL,
    CommandRefused,
)
from server.engine.records import evolve, record
from server.engine.rulesets.tael.actions import attack_slot, spent
from server.engine.rulesets.tael.attacks import attack_bonuses, defensive_value_now
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.damage import (
    DamagePrevented,
    DamageRolled,
    damage_events,
    hit_while_down,
)
from server.engine.rulesets.tael.positions import tiles_between
from server.engine.rulesets.tael.preparations import protections
from server.engine.rulesets.tael.ruleset import TAEL, living_target, on_turn
from server.engine.rulesets.tael.sheet import ActionKind, TaelSpell
from server.engine.rulesets.tael.statuses import resist_events
from server.engine.state import Encounter


@record
class SpellAction(Command):
    """T4: cast `spell` at `targets` (as many as the spell allows, each within range)."""

    actor: str
    spell: str
    targets: tuple[str, ...]


@record
class SpellTargetCheck:
    """One target of a spell's hit check: its Defensive Value, and whether it was hit."""

    target: str
    defence: tuple[tuple[str, int], ...]
    defensive_value: int
    hit: bool


@record
class SpellHitChecked(Event):
    """T4: `d20 + Magic` once; every target whose DV is equal to or lower is hit."""

    caster: str
    spell: str
    slot: str
    roll: Roll
    targets: tuple[SpellTargetCheck, ...]

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)


def spell_of(actor: TaelCombatant, name: str) -> TaelSpell:
    spell = actor.sheet.spell(name)
    if spell is None:
        raise CommandRefused(UNKNOWN_SPELL, f"{actor.id} knows no spell {name!r}")
    if not actor.sheet.may_cast(spell):
        raise CommandRefused(
            SPELL_NOT_ACCESSIBLE,
            f"{actor.id} is not skilled in the School of {spell.school} and has no scroll of "
            f"{spell.name} (T4)",
        )
    return spell


def spell_targets(
    state: Encounter, actor: TaelCombatant, spell: TaelSpell, targets: tuple[str, ...]
) -> list[TaelCombatant]:
    """The spell's targets: one up to the spell's number, distinct, alive, in range."""
    if not isinstance(targets, tuple) or not targets:
        raise CommandRefused(INVALID_COMMAND, f"{spell.name} needs at least one target")
    if len(targets) > spell.targets:
        raise CommandRefused(
            INVALID_COMMAND, f"{spell.name} takes at most {spell.targets} target(s)"
        )
    if len(set(targets)) != len(targets):
        raise CommandRefused(INVALID_COMMAND, "a spell names each target once")
    found = []
    for target_id in targets:
        if target_id == actor.id:
            raise CommandRefused(INVALID_COMMAND, f"{actor.id} cannot target itself")
        target = living_target(state, target_id)
        distance = tiles_between(state, actor, target)
        if distance > spell.reach:
            raise CommandRefused(
                OUT_OF_RANGE,
                f"{target.id} is {distance} tiles away; {spell.name} reaches {spell.reach}",
            )
        found.append(target)
    return found


def spell_damage(cup: DiceCup, actor: TaelCombatant, spell: TaelSpell) -> Roll:
    """T5: the spell's dice + the Magic modifier + class bonuses."""
    mods: list[tuple[str, int]] = [("Magic", actor.sheet.magic)]
    bonus = actor.sheet.spell_damage_bonus
    if bonus:
        mods.append(("Class", bonus))
    return cup.roll(spell.damage, tuple(mods))


@TAEL.decides(SpellAction)
def decide_spell(state: Encounter, command: SpellAction, cup: DiceCup) -> list[Event]:
    actor = on_turn(state, command.actor)
    spell = spell_of(actor, command.spell)
    slot = attack_slot(actor, ActionKind.SPELL, state.condition_rules)
    targets = spell_targets(state, actor, spell, command.targets)
    roll = cup.d20((("Magic", actor.sheet.magic), *attack_bonuses(state, actor, "spell")))
    checks = []
    guards = {}
    for target in targets:
        guards[target.id] = protections(state, target.id)
        parts, dv = defensive_value_now(state, target, [move for _, move in guards[target.id]])
        checks.append(SpellTargetCheck(target.id, parts, dv, dv <= roll.total))
    events: list[Event] = [SpellHitChecked(actor.id, spell.name, slot, roll, tuple(checks))]
    hit = [t for t, check in zip(targets, checks, strict=True) if check.hit]
    damage: Roll | None = None
    for target in hit:
        events += hit_while_down(target)
        if not spell.damage:
            continue
        prevented = next((g for g in guards[target.id] if g[1].prevents_damage), None)
        if prevented is not None:
            events.append(DamagePrevented(target.id, actor.id, prevented[0], prevented[1].name))
            continue
        if damage is None:
            damage = spell_damage(cup, actor, spell)
            events.append(DamageRolled(actor.id, spell.name, damage))
        events += damage_events(target, actor.id, damage.total)
    if spell.status is not None:
        for target in hit:
            events += resist_events(cup, actor, target, spell.status, state.condition_rules)
    return events


@TAEL.applies(SpellHitChecked)
def apply_spell_hit_checked(state: Encounter, event: SpellHitChecked) -> Encounter:
    """The caster spends its slot; casting reveals it and ends a surrender (TR20)."""
    c: TaelCombatant = state.combatants[event.caster]
    c = spent(c, event.slot)
    if c.hidden or c.surrendered:
        c = evolve(c, hidden=False, surrendered=False)
    return state.with_combatant(c)
