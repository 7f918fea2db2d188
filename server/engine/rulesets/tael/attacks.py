"""Weapon attacks: the hit check and the attack roll (T3, T5, T7).

T3, Attack Action: "the character will first roll one d20 to check whether or not he
actually hits the target ... If the Character is skilled with the weapon he is using,
he can add his Martial Combat Modifier ... If the result is higher than the Defensive
Value, the attack will hit its target" - strictly higher. Ranged weapons add the
Precision modifier instead, and none "if an enemy is within melee range of you";
"outside your weapon's normal range but within double the range ... make the hit check
twice and choose the worse result"; beyond that the attack is refused (T3).

T5, the attack roll: the weapon's dice, plus "the Scale Attribute of the weapon used if
he is skilled with the weapon" (the named attribute's modifier), plus class bonuses.
"When attacking with a weapon one-handed, you gain a bonus Action that allows you to
attack with a weapon in your other hand again, but without the Scale Modifier bonus":
an Attack Action with a one-handed weapon gains a Bonus Action, beside the turn's own,
to attack with the weapon in the other hand (`off_hand=True`), skill still counting for
the hit check (TR8).

T7, the Defensive Value: the armour's, plus (Dodging Stance) the Dodging modifier less
the armour's dodge penalty. A fainted character dodges nothing (TR9). A prepared move
answering the attack may add to it or prevent the damage (`preparations.protections`).

The text knows no critical hits: a natural 20 on a hit check is a 20 (TR4).

TR40: the attacker's statuses add what the encounter's conditions table says to the
hit check (`attack`, `attack.melee`, `attack.ranged`), each named in the roll; the
target's change its DV (`defence.dv`), each named in the DV's breakdown (`defence`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from server.engine.core import Command, Event
from server.engine.dice import DiceCup, Roll
from server.engine.errors import (
    INVALID_COMMAND,
    OUT_OF_RANGE,
    OUT_OF_REACH,
    UNKNOWN_WEAPON,
    WEAPON_UNUSABLE,
    CommandRefused,
)
from server.engine.records import evolve, record
from server.engine.rulesets.tael.actions import (
    BONUS,
    FREE,
    OFF_HAND,
    attack_slot,
    check_not_lost,
    spent,
)
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.condition_rules import bonuses, changed
from server.engine.rulesets.tael.damage import (
    DamagePrevented,
    DamageRolled,
    damage_events,
    hit_while_down,
)
from server.engine.rulesets.tael.errors import BRACED, NO_FOLLOW_UP
from server.engine.rulesets.tael.positions import enemy_in_melee_range, tiles_between
from server.engine.rulesets.tael.preparations import PREPARATION, protections
from server.engine.rulesets.tael.ruleset import TAEL, acting, living_target, on_turn
from server.engine.rulesets.tael.sheet import (
    ATTACKING_KINDS,
    ActionKind,
    PreparationMove,
    Stance,
    TaelWeapon,
    WeaponKind,
)
from server.engine.state import Encounter


class HitKind:
    """What made a hit check: its effect on the turn depends on it."""

    WEAPON = "weapon"  # an Attack Action
    OFF_HAND = "off_hand"  # T5: the bonus attack with the other hand
    PUNCH = "punch"  # T9
    PREPARED = "prepared"  # T2: a prepared move striking back, out of turn


@record
class AttackAction(Command):
    """T3: attack `target` with `weapon` in hand ("" for the main hand's). With
    `off_hand`, the Bonus Action attack with the other hand's weapon (T5)."""

    actor: str
    target: str
    weapon: str = ""
    off_hand: bool = False


@record
class PreparedStrike(Command):
    """A prepared move striking back (T2): a weapon attack on whoever set it off, made
    as the `action` of an `Answer` with that move, never sent on its own."""

    actor: str
    target: str
    weapon: str = ""


@record
class HitChecked(Event):
    """A hit check against the target's Defensive Value (T3; a Punch's, T9).

    `roll` is None for a Punch's automatic second hit (T9). `other` is the second roll
    of a check beyond normal range, the better one, discarded (T3). `defence` names what
    makes up `defensive_value`. `hindered`: a skilled shooter lost its Precision to an
    enemy in melee range.
    """

    attacker: str
    target: str
    weapon: str
    kind: str
    slot: str
    roll: Roll | None
    other: Roll | None
    defence: tuple[tuple[str, int], ...]
    defensive_value: int
    hit: bool
    hindered: bool = False

    def rolls(self) -> tuple[Roll, ...]:
        return tuple(r for r in (self.roll, self.other) if r is not None)


# --- the rules -----------------------------------------------------------------------


def defensive_value(
    target: TaelCombatant, moves: list[PreparationMove] | tuple[PreparationMove, ...] = ()
) -> tuple[tuple[tuple[str, int], ...], int]:
    """T7: the target's DV and what makes it up, with any prepared move's bonus (T2)."""
    armour = target.sheet.armour
    parts: list[tuple[str, int]] = [("Armour", armour.defensive_value)]
    if target.stance == Stance.DODGING and not target.fainted:
        parts.append(("Dodging", target.sheet.dodging))
        if armour.dodge_penalty:
            parts.append(("Dodge penalty", -armour.dodge_penalty))
    for move in moves:
        if move.defensive_bonus:
            parts.append((move.name, move.defensive_bonus))
    return tuple(parts), sum(value for _, value in parts)


def defensive_value_now(
    state: Encounter,
    target: TaelCombatant,
    moves: list[PreparationMove] | tuple[PreparationMove, ...] = (),
) -> tuple[tuple[tuple[str, int], ...], int]:
    """The DV (T7, with any prepared move's bonus), then what the target's statuses do
    to it (TR40), each status that changed it a part of the breakdown."""
    parts, dv = defensive_value(target, moves)
    dv, changes = changed(state.condition_rules, target, "defence.dv", dv)
    return (*parts, *changes), dv


def attack_bonuses(
    state: Encounter, actor: TaelCombatant, kind: str
) -> tuple[tuple[str, int], ...]:
    """TR40: what the actor's statuses add to a hit check of `kind` (melee, ranged,
    spell), each named."""
    return bonuses(state.condition_rules, actor, "attack", f"attack.{kind}")


def weapon_in_hand(actor: TaelCombatant, name: str) -> TaelWeapon:
    """A weapon the actor holds and can attack with."""
    if not name:
        raise CommandRefused(UNKNOWN_WEAPON, f"{actor.id} has no weapon in hand (Punch instead)")
    weapon = actor.sheet.weapon(name)
    if weapon is None:
        raise CommandRefused(UNKNOWN_WEAPON, f"{actor.id} has no weapon {name!r}")
    if name not in actor.hands:
        raise CommandRefused(WEAPON_UNUSABLE, f"{name} is not in {actor.id}'s hands")
    if weapon.kind not in ATTACKING_KINDS:
        raise CommandRefused(WEAPON_UNUSABLE, f"{name} is a {weapon.kind}: it does not attack")
    return weapon


def range_check(
    state: Encounter, actor: TaelCombatant, target: TaelCombatant, w: TaelWeapon
) -> bool:
    """T3: within reach or range; True when beyond normal range (roll twice, keep the
    worse). Melee weapons reach `reach` tiles; ranged ones shoot up to double range."""
    distance = tiles_between(state, actor, target)
    if distance <= w.reach:
        return False
    if w.kind != WeaponKind.RANGED:
        raise CommandRefused(
            OUT_OF_REACH, f"{target.id} is {distance} tiles away; {w.name} reaches {w.reach}"
        )
    if distance > 2 * w.reach:
        raise CommandRefused(
            OUT_OF_RANGE,
            f"{target.id} is {distance} tiles away; {w.name} shoots {w.reach}, at most "
            f"{2 * w.reach} with the worse of two hit checks",
        )
    return True


def hit_modifiers(
    state: Encounter, actor: TaelCombatant, weapon: TaelWeapon
) -> tuple[tuple[tuple[str, int], ...], bool]:
    """T3: Martial Combat (melee) or Precision (ranged) when skilled; a shooter with an
    enemy in melee range adds no Precision. Returns the modifiers and that hindrance.
    The actor's statuses add theirs after (TR40)."""
    kind = "ranged" if weapon.kind == WeaponKind.RANGED else "melee"
    statuses = attack_bonuses(state, actor, kind)
    if not actor.sheet.skilled_with(weapon):
        return statuses, False
    if weapon.kind == WeaponKind.RANGED:
        if enemy_in_melee_range(state, actor):
            return statuses, True
        return (("Precision", actor.sheet.precision), *statuses), False
    return (("Martial Combat", actor.sheet.martial_combat), *statuses), False


def attack_roll(actor: TaelCombatant, weapon: TaelWeapon, cup: DiceCup, scale: bool) -> Roll:
    """T5: the weapon's dice, + its Scale attribute's modifier if skilled (not for the
    off-hand attack), + class bonuses."""
    mods: list[tuple[str, int]] = []
    if scale and weapon.scale and actor.sheet.skilled_with(weapon):
        mods.append((weapon.scale.capitalize(), actor.sheet.modifier(weapon.scale)))
    bonus = actor.sheet.weapon_damage_bonus
    if bonus:
        mods.append(("Class", bonus))
    return cup.roll(weapon.damage, tuple(mods))


def hit_check(
    cup: DiceCup, mods: tuple[tuple[str, int], ...], twice: bool
) -> tuple[Roll, Roll | None]:
    """One d20 with its modifiers; beyond normal range two, keeping the worse (T3)."""
    first = cup.d20(mods)
    if not twice:
        return first, None
    second = cup.d20(mods)
    return (second, first) if second.total < first.total else (first, second)


def on_hit(
    actor: TaelCombatant,
    target: TaelCombatant,
    source: str,
    guards: list[tuple[str, PreparationMove]],
    roll_damage: Callable[[], Roll],
) -> list[Event]:
    """What a hit does: the Willpower DC of a fainted target rises (T8), then damage,
    unless a prepared move prevents it (T2)."""
    events: list[Event] = hit_while_down(target)
    for preparer, move in guards:
        if move.prevents_damage:
            events.append(DamagePrevented(target.id, actor.id, preparer, move.name))
            return events
    roll = roll_damage()
    events.append(DamageRolled(actor.id, source, roll))
    events += damage_events(target, actor.id, roll.total)
    return events


def weapon_attack(
    state: Encounter,
    cup: DiceCup,
    actor: TaelCombatant,
    target: TaelCombatant,
    weapon: TaelWeapon,
    kind: str,
    slot: str,
) -> list[Event]:
    """Roll the hit check and, on a hit, the attack roll: every weapon attack's core."""
    twice = range_check(state, actor, target, weapon)
    guards = protections(state, target.id)
    parts, dv = defensive_value_now(state, target, [move for _, move in guards])
    mods, hindered = hit_modifiers(state, actor, weapon)
    roll, other = hit_check(cup, mods, twice)
    hit = roll.total > dv  # T3: strictly higher
    events: list[Event] = [
        HitChecked(
            actor.id, target.id, weapon.name, kind, slot, roll, other, parts, dv, hit, hindered
        )
    ]
    if hit:
        scale = kind != HitKind.OFF_HAND
        events += on_hit(
            actor,
            target,
            weapon.name,
            guards,
            partial(attack_roll, actor, weapon, cup, scale),
        )
    return events


def other_hand(actor: TaelCombatant, weapon: TaelWeapon) -> str:
    """T5: the weapon in the other hand an off-hand attack may use after `weapon`."""
    if weapon.hands != 1:
        return ""
    other = actor.off_hand if weapon.name == actor.main_hand else actor.main_hand
    found = actor.sheet.weapon(other) if other and other != weapon.name else None
    return other if found is not None and found.kind in ATTACKING_KINDS else ""


# --- deciders ------------------------------------------------------------------------


@TAEL.decides(AttackAction)
def decide_attack(state: Encounter, command: AttackAction, cup: DiceCup) -> list[Event]:
    actor = on_turn(state, command.actor)
    if command.off_hand:
        ready = actor.turn.off_hand
        if not ready or command.weapon not in ("", ready):
            raise CommandRefused(
                NO_FOLLOW_UP,
                f"{actor.id} may attack with the other hand only after a one-handed attack "
                "this turn, with the weapon in that other hand (T5)",
            )
        if actor.braced:
            raise CommandRefused(BRACED, f"{actor.id} braced and cannot attack again this turn")
        check_not_lost(actor, BONUS, state.condition_rules)  # a Bonus Action too (TR40)
        slot = OFF_HAND  # the Bonus Action the one-handed attack gained (T5, TR8)
        weapon = weapon_in_hand(actor, ready)
        kind = HitKind.OFF_HAND
    else:
        slot = attack_slot(actor, ActionKind.ATTACK, state.condition_rules)
        weapon = weapon_in_hand(actor, command.weapon or actor.main_hand)
        kind = HitKind.WEAPON
    if command.target == actor.id:
        raise CommandRefused(INVALID_COMMAND, f"{actor.id} cannot attack itself")
    target = living_target(state, command.target)
    return weapon_attack(state, cup, actor, target, weapon, kind, slot)


def striking_back(state: Encounter, command: PreparedStrike) -> bool:
    """Is `command` the prepared strike resolving now (the stack's top)?"""
    if not state.pending:
        return False
    top = state.pending[-1]
    return top.source == PREPARATION and top.action == command


@TAEL.decides(PreparedStrike)
def decide_prepared_strike(state: Encounter, command: PreparedStrike, cup: DiceCup) -> list[Event]:
    actor = acting(state, command.actor)
    if not striking_back(state, command):
        raise CommandRefused(
            INVALID_COMMAND, "a prepared strike is made by answering a window with its move (T2)"
        )
    weapon = weapon_in_hand(actor, command.weapon or actor.main_hand)
    if command.target == actor.id:
        raise CommandRefused(INVALID_COMMAND, f"{actor.id} cannot attack itself")
    target = living_target(state, command.target)
    return weapon_attack(state, cup, actor, target, weapon, HitKind.PREPARED, FREE)


# --- appliers ------------------------------------------------------------------------


@TAEL.applies(HitChecked)
def apply_hit_checked(state: Encounter, event: HitChecked) -> Encounter:
    """The attacker spends its slot; an attack reveals a hidden attacker and ends a
    surrender (TR20); a one-handed Attack Action readies the other hand (T5), a Punch
    readies the Punch that may follow it (T9)."""
    c: TaelCombatant = state.combatants[event.attacker]
    c = spent(c, event.slot)
    if c.hidden or c.surrendered:
        c = evolve(c, hidden=False, surrendered=False)
    if event.kind == HitKind.WEAPON:
        weapon = c.sheet.weapon(event.weapon)
        c = c.with_turn(off_hand=other_hand(c, weapon) if weapon is not None else "")
    elif event.kind == HitKind.OFF_HAND:
        c = c.with_turn(off_hand="")
    elif event.kind == HitKind.PUNCH and event.slot != BONUS:
        hits = (*c.turn.punch_hits, event.target) if event.hit else c.turn.punch_hits
        c = c.with_turn(punched=True, punch_hits=hits)
    return state.with_combatant(c)
