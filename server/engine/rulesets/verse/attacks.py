"""Weapon attacks: melee, natural, ranged and thrown ("Basics & Combat").

Attack = 1d20 + Strength (Dexterity for ranged) + Training Ranks + Bonuses, against
the target's Physical Dodge; it hits when it meets or beats it (V1). A natural 20 is
a critical hit and always hits, a natural 1 a critical fail and always misses (V3).
Damage = Damage Die (the Unarmed Die for natural attacks) + Training Ranks +
Bonuses; a critical hit multiplies the dice only (V4). Ranged and thrown attacks
take -2 when the target is in melee with someone else and +5 within 5 ft (V8);
thrown objects must first pass the Throw DC (V9).

V27: the attacker's conditions add what the encounter's conditions table says to the
roll (`attack`, `attack.<kind>`), each named in it; the target's change its Physical
Dodge (`defence.pd`), each named beside it (`AttackRolled.defence_changes`).
"""

from __future__ import annotations

from server.engine.core import Command, Event
from server.engine.dice import DiceCup, DiceExpression, Roll, parse, plus
from server.engine.effects import Rules, describe_changes
from server.engine.errors import (
    CANNOT_THROW,
    INVALID_COMMAND,
    OTHER_ASCENSION,
    OUT_OF_RANGE,
    OUT_OF_REACH,
    UNKNOWN_WEAPON,
    WEAPON_UNUSABLE,
    CommandRefused,
)
from server.engine.records import evolve, record
from server.engine.rulesets.verse import progression
from server.engine.rulesets.verse.combatant import Stance, VerseCombatant
from server.engine.rulesets.verse.condition_rules import attack_bonuses, changed, reacts
from server.engine.rulesets.verse.conditions import ItemBroken, WeaponDropped
from server.engine.rulesets.verse.damage import damage_events
from server.engine.rulesets.verse.defences import BLOCK, DamageBlocked, defend, prepared_defence
from server.engine.rulesets.verse.positions import MELEE_REACH_FT, engaged_foes, is_engaged
from server.engine.rulesets.verse.rides import riders_thrown_by
from server.engine.rulesets.verse.ruleset import VERSE, acting, standing_target
from server.engine.rulesets.verse.sheet import ActionType, Weapon, WeaponKind
from server.engine.rulesets.verse.turns import check_action, end_of_turn_events, spend
from server.engine.state import Encounter

UNARMED = Weapon(name="unarmed", damage="", category="unarmed", kind=WeaponKind.NATURAL)
HIT = "hit"
MISS = "miss"
CRITICAL_HIT = "critical_hit"
CRITICAL_FAIL = "critical_fail"
FIRING_INTO_COMBAT = -2  # V8
POINT_BLANK = 5  # V8
POINT_BLANK_FT = 5
STANCE_PD = {Stance.NONE: 0, Stance.DEFENSIVE: 2, Stance.AGGRESSIVE: -2}  # V18


@record
class Attack(Command):
    """Attack `target` with the named weapon ("" for an unarmed natural attack)."""

    actor: str
    target: str
    weapon: str = ""


@record
class AttackRolled(Event):
    attacker: str
    target: str
    weapon: str
    kind: str
    action: str  # the action it used ("" when an earlier event already spent it)
    roll: Roll
    defence_name: str
    defence: int
    outcome: str
    # V27: the target's conditions that changed `defence`, each with how much.
    defence_changes: tuple[tuple[str, int], ...] = ()

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)

    @property
    def hit(self) -> bool:
        return self.outcome in (HIT, CRITICAL_HIT)

    def describe(self) -> str:
        outcome = self.outcome.replace("_", " ")
        against = f"{self.defence_name} {self.defence}"
        if self.defence_changes:
            against += f" ({describe_changes(self.defence_changes)})"
        return f"{self.roll.describe()} vs {against}: {outcome}"


@record
class ThrowChecked(Event):
    """V9: the Strength check that decides whether an object can be thrown that far."""

    actor: str
    item: str
    roll: Roll
    dc: int
    success: bool
    action: str  # spent here when the throw fails, else by the attack

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)


# --- the rules ------------------------------------------------------------------


def weapon_of(actor: VerseCombatant, name: str) -> Weapon:
    if not name:
        return UNARMED
    weapon = actor.sheet.weapon(name)
    if weapon is None:
        raise CommandRefused(UNKNOWN_WEAPON, f"{actor.id} has no weapon {name!r}")
    if not actor.in_hand(name):
        raise CommandRefused(WEAPON_UNUSABLE, f"{name} is not in {actor.id}'s hand")
    if not actor.can_wield(name):
        raise CommandRefused(WEAPON_UNUSABLE, f"{name} is Broken")
    return weapon


def physical_dodge(target: VerseCombatant) -> int:
    """PD with the stance modifier of V18."""
    return target.sheet.defences.physical_dodge + STANCE_PD.get(target.stance, 0)


def physical_dodge_now(
    state: Encounter, target: VerseCombatant
) -> tuple[int, tuple[tuple[str, int], ...]]:
    """PD with the stance (V18), then what the target's conditions do to it (V27), and
    the conditions that changed it."""
    return changed(state.condition_rules, target, "defence.pd", physical_dodge(target))


def attack_modifiers(
    state: Encounter, actor: VerseCombatant, target: VerseCombatant, weapon: Weapon
) -> tuple[tuple[str, int], ...]:
    """The named modifiers of the attack roll, in the order the rule text gives them."""
    if weapon.kind == WeaponKind.RANGED:
        mods: list[tuple[str, int]] = [("Dexterity", actor.abilities.dexterity)]
    else:
        mods = [("Strength", actor.abilities.strength)]
    training = actor.sheet.training_in(weapon.category)
    if training:
        mods.append(("Training", training))
    if weapon.kind in (WeaponKind.RANGED, WeaponKind.THROWN):
        if is_engaged(state, target, besides=actor.id):
            mods.append(("Firing into combat", FIRING_INTO_COMBAT))
        if state.grid.distance_ft(actor.position, target.position) <= POINT_BLANK_FT:
            mods.append(("Point blank", POINT_BLANK))
    return (*mods, *attack_bonuses(state.condition_rules, actor, weapon.kind))


def outcome_of(roll: Roll, defence: int) -> str:
    """V1 and V3: meets or beats; natural 20 always hits, natural 1 always misses."""
    natural = roll.natural
    if natural == 20:
        return CRITICAL_HIT
    if natural == 1:
        return CRITICAL_FAIL
    return HIT if roll.total >= defence else MISS


def damage_roll(cup: DiceCup, actor: VerseCombatant, weapon: Weapon, critical: bool) -> Roll:
    """Damage = DD (natural: UD) + Training Ranks; critical dice x multiplier (V4)."""
    training = actor.sheet.training_in(weapon.category)
    mods = (("Training", training),) if training else ()
    expression: str | DiceExpression = weapon.damage
    if weapon.kind == WeaponKind.NATURAL:
        expression = natural_damage(actor, weapon)
    multiplier = weapon.critical_multiplier if critical else 1
    return cup.roll(expression, mods, multiplier)


def natural_damage(actor: VerseCombatant, weapon: Weapon) -> DiceExpression:
    """A natural attack's damage: the Unarmed Die, plus an unarmed weapon's own dice
    (each read within its bounds, the two together made, not read: R82)."""
    ud = parse(progression.unarmed_die(actor.sheet))
    extra = weapon.damage.strip()
    return plus(ud, parse(extra)) if extra else ud


def throw_penalty(strength: int) -> int | None:
    """V9 weight penalty by Strength score; None: Strength 0 cannot throw."""
    if strength <= 0:
        return None
    if strength <= 2:
        return -25
    if strength <= 4:
        return -18
    if strength <= 6:
        return -15
    if strength <= 9:
        return -5
    return 0


def throw_dc(weight_lb: float, distance_ft: int) -> int:
    """V9: floor(weight/10)+10 from 10 lb, else the weight; +5 per 5 ft past the first 5."""
    base = int(weight_lb // 10) + 10 if weight_lb >= 10 else int(weight_lb)
    extra_steps = max(0, -(-(distance_ft - 5) // 5))
    return base + 5 * extra_steps


def check_reach(
    state: Encounter, actor: VerseCombatant, target: VerseCombatant, weapon: Weapon
) -> None:
    """Same Ascension level only ("Ascension Levels"), then reach or range on the grid."""
    if actor.ascension != target.ascension:
        raise CommandRefused(
            OTHER_ASCENSION,
            f"{target.id} is on Ascension {target.ascension}, {actor.id} on {actor.ascension}",
        )
    distance = state.grid.distance_ft(actor.position, target.position)
    if weapon.kind in (WeaponKind.MELEE, WeaponKind.NATURAL):
        reach = weapon.reach_ft or MELEE_REACH_FT
        if distance > reach:
            raise CommandRefused(
                OUT_OF_REACH, f"{target.id} is {distance} ft away; {weapon.name} reaches {reach} ft"
            )
    elif distance > weapon.range_ft:
        raise CommandRefused(
            OUT_OF_RANGE,
            f"{target.id} is {distance} ft away; {weapon.name} ranges {weapon.range_ft} ft",
        )


def critical_fail_events(
    cup: DiceCup, actor: VerseCombatant, weapon: Weapon, rules: Rules = ()
) -> list[Event]:
    """V6, critical fail without the table (`rules`: the conditions table, V27)."""
    if weapon.fragile:
        return [ItemBroken(actor.id, weapon.name, reason="fragile weapon broke")]
    if weapon.kind == WeaponKind.MELEE:
        return [WeaponDropped(actor.id, weapon.name, reason="critical fail")]
    if weapon.kind == WeaponKind.RANGED:
        return [ItemBroken(actor.id, weapon.name, reason="jammed")]
    if weapon.kind == WeaponKind.NATURAL:
        roll = damage_roll(cup, actor, weapon, critical=False)
        return damage_events(actor, actor.id, roll.total // 2, True, roll, rules=rules)
    return []


def resolve_attack(
    state: Encounter,
    cup: DiceCup,
    actor: VerseCombatant,
    target: VerseCombatant,
    weapon: Weapon,
    action: str,
    extra: tuple[tuple[str, int], ...] = (),
) -> list[Event]:
    """Roll to hit and, on a hit, damage: the shared core of every weapon attack."""
    rules = state.condition_rules
    roll = cup.d20(attack_modifiers(state, actor, target, weapon) + extra)
    defence, changes = physical_dodge_now(state, target)
    outcome = outcome_of(roll, defence)
    attack = AttackRolled(
        actor.id,
        target.id,
        weapon.name,
        weapon.kind,
        action,
        roll,
        "PD",
        defence,
        outcome,
        changes,
    )
    events: list[Event] = [attack]
    if outcome in (HIT, CRITICAL_HIT):
        if state.pending:
            prepared = prepared_defence(state, target.id)
            # a stunned defender cannot dodge, nor one a condition takes reactions from
            if prepared is not None and target.active and reacts(rules, target):
                saved = defend(cup, target, actor.id, prepared, roll.total, rules)
                events.append(saved)
                if saved.success:
                    if prepared.kind == BLOCK:
                        damage = damage_roll(cup, actor, weapon, outcome == CRITICAL_HIT)
                        events.append(DamageBlocked(target.id, prepared.item, damage, actor.id))
                    return events
        damage = damage_roll(cup, actor, weapon, outcome == CRITICAL_HIT)
        dealt = damage_events(target, actor.id, damage.total, True, damage, rules=rules)
        events += dealt
        if target.sheet.is_ride:
            events += riders_thrown_by(state, cup, target, dealt)
        if outcome == CRITICAL_HIT:
            events += critical_hit_effects(state, cup, actor, target)
    elif outcome == CRITICAL_FAIL:
        events += critical_fail_effects(state, cup, actor, target, weapon)
    return events


def critical_hit_effects(
    state: Encounter, cup: DiceCup, actor: VerseCombatant, target: VerseCombatant
) -> list[Event]:
    """V5: the optional critical-hit table, when the room turns it on."""
    if not state.settings.critical_tables:
        return []
    from server.engine.rulesets.verse import criticals

    return criticals.critical_hit_table(state, cup, actor, target)


def critical_fail_effects(
    state: Encounter, cup: DiceCup, actor: VerseCombatant, target: VerseCombatant, weapon: Weapon
) -> list[Event]:
    """V5/V6: the critical-fail table when on, else the fixed effects of V6."""
    if not state.settings.critical_tables:
        return critical_fail_events(cup, actor, weapon, state.condition_rules)
    from server.engine.rulesets.verse import criticals

    return criticals.critical_fail_table(state, cup, actor, target, weapon)


@VERSE.decides(Attack)
def decide_attack(state: Encounter, command: Attack, cup: DiceCup) -> list[Event]:
    actor = acting(state, command.actor)
    check_action(actor, ActionType.STANDARD, state.condition_rules)
    weapon = weapon_of(actor, command.weapon)
    if command.target == actor.id:
        raise CommandRefused(INVALID_COMMAND, f"{actor.id} cannot attack itself")
    target = standing_target(state, command.target)
    check_reach(state, actor, target, weapon)
    events: list[Event] = []
    if weapon.kind == WeaponKind.THROWN:
        penalty = throw_penalty(actor.abilities.strength)
        if penalty is None:
            raise CommandRefused(CANNOT_THROW, f"{actor.id} has Strength 0 and cannot throw")
        distance = state.grid.distance_ft(actor.position, target.position)
        dc = throw_dc(weapon.weight_lb, distance)
        mods = (("Strength", actor.abilities.strength), ("Weight penalty", penalty))
        roll = cup.d20(tuple(m for m in mods if m[1]))
        success = roll.total >= dc
        events.append(
            ThrowChecked(
                actor.id, weapon.name, roll, dc, success, "" if success else ActionType.STANDARD
            )
        )
        if not success:
            return events
    events += resolve_attack(state, cup, actor, target, weapon, ActionType.STANDARD)
    if actor.stance == Stance.AGGRESSIVE and state.current == actor.id:
        # V18: attacking *on its turn* opens an attack of opportunity on every engaged foe.
        targets = aggressive_opportunities(state, actor.id)
        if targets:
            events.append(AggressiveOpportunitiesOpened(actor.id, targets))
    return events


@record
class AggressiveOpportunitiesOpened(Event):
    """V18: `attacker` attacked in Aggressive Stance and may make an attack of
    opportunity against each of `targets`, the enemies it is engaged with."""

    attacker: str
    targets: tuple[str, ...]


def aggressive_opportunities(state: Encounter, attacker_id: str) -> tuple[str, ...]:
    """V18: the enemies an Aggressive attacker may make attacks of opportunity against:
    every able enemy it is engaged with (same Ascension, within 5 ft). Empty otherwise."""
    attacker: VerseCombatant = state.combatants[attacker_id]
    if attacker.stance != Stance.AGGRESSIVE:
        return ()
    return tuple(sorted(foe.id for foe in engaged_foes(state, attacker)))


@VERSE.applies(AttackRolled)
def apply_attack_rolled(state: Encounter, event: AttackRolled) -> Encounter:
    if not event.action:
        return state
    c: VerseCombatant = state.combatants[event.attacker]
    return state.with_combatant(evolve(c, actions=spend(c.actions, event.action)))


@VERSE.applies(ThrowChecked)
def apply_throw_checked(state: Encounter, event: ThrowChecked) -> Encounter:
    if not event.action:
        return state
    c: VerseCombatant = state.combatants[event.actor]
    return state.with_combatant(evolve(c, actions=spend(c.actions, event.action)))


@VERSE.applies(AggressiveOpportunitiesOpened)
def apply_aggressive_opportunities(
    state: Encounter, event: AggressiveOpportunitiesOpened
) -> Encounter:
    c: VerseCombatant = state.combatants[event.attacker]
    added = tuple(t for t in event.targets if t not in c.opportunities)
    return state.with_combatant(evolve(c, opportunities=(*c.opportunities, *added)))


__all__ = ["Attack", "AttackRolled", "ThrowChecked", "end_of_turn_events"]
