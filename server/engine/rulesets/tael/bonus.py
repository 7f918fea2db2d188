"""Generic Bonus Actions: Roleplay skill check, Punch, Surrender, Pick up, Equip Weapon (T9).

"Generic Bonus Actions can always be used as either an Action or Bonus Action each
Turn": each command says which (`as_bonus`; as an Action it spends the universal one,
a Punch an Attack Action first, `actions.py`).

- Roleplay skill check: `d20 +` the sheet's modifier in the skill named; what it
  achieves is "at your Gamemasters discretion", so the engine only rolls it.
- Punch: "Only usable when no Weapon, a Buckler Shield or a Fist Weapon is equipped in
  either hand. Can only be used as a Bonus Action when the Attack Action was also used
  as a Punch. Deals damage equal to your Strength Modifier + Weapon Damage (when a Fist
  Weapon is equipped). The Martial Combat Sub-Attribute must be added to the
  hit-check. When the Attack Action hit the target, the second use as a Bonus Action
  will automatically hit too, otherwise the hit-check can be rolled again." The hit
  check is a melee one (strictly above the DV, T3), reach one tile; the automatic hit
  is against the target the first Punch hit (TR22).
- Surrender: "The Character drops their Weapons in an attempt to surrender ... After
  using this Bonus Action, you are considered unarmed until you pick up and equip your
  Weapons again." Whether the surrender is accepted is the GM's (a Persuasion check is
  a Roleplay skill check). A surrendered character counts as out of the fight for T10
  until it attacks, casts or arms itself again (TR20).
- Pick up: "Pick up anyone thing you can carry from the ground. If it is a Weapon and
  you are unarmed you may instantly equip it." The map holds no items, so what lies on
  the ground is what a character dropped itself (TR23).
- Equip Weapon: "The Character switches their active Weapons" among those it carries; a
  two-handed weapon takes both hands.
"""

from __future__ import annotations

from server.engine.core import Command, Event
from server.engine.dice import DiceCup, Roll
from server.engine.errors import (
    INVALID_COMMAND,
    OUT_OF_REACH,
    UNKNOWN_WEAPON,
    WEAPON_UNUSABLE,
    CommandRefused,
)
from server.engine.records import evolve, record
from server.engine.rulesets.tael.actions import (
    attack_slot,
    bonus_slot,
    generic_bonus_slot,
    spent,
)
from server.engine.rulesets.tael.attacks import (
    HitChecked,
    HitKind,
    attack_bonuses,
    defensive_value_now,
    on_hit,
)
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.errors import BRACED, NO_FOLLOW_UP
from server.engine.rulesets.tael.positions import MELEE_RANGE, tiles_between
from server.engine.rulesets.tael.preparations import protections
from server.engine.rulesets.tael.ruleset import TAEL, living_target, on_turn
from server.engine.rulesets.tael.sheet import ActionKind, TaelWeapon, WeaponKind
from server.engine.state import Encounter

PUNCH_HANDS = (WeaponKind.BUCKLER, WeaponKind.FIST)
NO_DICE = "0"  # a bare Punch's damage is the Strength modifier alone


@record
class Punch(Command):
    actor: str
    target: str
    as_bonus: bool = False


@record
class Surrender(Command):
    actor: str
    as_bonus: bool = False


@record
class PickUp(Command):
    actor: str
    weapon: str
    as_bonus: bool = False


@record
class EquipWeapon(Command):
    """Hold `main_hand` and `off_hand` ("" for an empty hand), from the weapons carried."""

    actor: str
    main_hand: str
    off_hand: str = ""
    as_bonus: bool = False


@record
class SkillCheck(Command):
    """A Roleplay skill check (Persuasion, Intimidation, Perception...) for the GM to judge."""

    actor: str
    skill: str
    as_bonus: bool = False


@record
class SkillChecked(Event):
    combatant: str
    skill: str
    roll: Roll
    slot: str

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)


@record
class Surrendered(Event):
    combatant: str
    dropped: tuple[str, ...]
    slot: str


@record
class PickedUp(Event):
    combatant: str
    weapon: str
    equipped: bool  # it was unarmed, so the weapon went straight into its hand
    slot: str


@record
class WeaponsEquipped(Event):
    combatant: str
    main_hand: str
    off_hand: str
    slot: str


def fist_weapon(actor: TaelCombatant) -> TaelWeapon | None:
    """The Fist Weapon a Punch adds (the main hand's first), or None."""
    for name in actor.hands:
        weapon = actor.sheet.weapon(name)
        if weapon is not None and weapon.kind == WeaponKind.FIST:
            return weapon
    return None


def check_punch_hands(actor: TaelCombatant) -> None:
    for name in actor.hands:
        weapon = actor.sheet.weapon(name)
        if weapon is None or weapon.kind not in PUNCH_HANDS:
            raise CommandRefused(
                WEAPON_UNUSABLE,
                f"{actor.id} holds {name}: Punch needs empty hands, a Buckler Shield or a "
                "Fist Weapon (T9)",
            )


def punch_damage(cup: DiceCup, actor: TaelCombatant) -> Roll:
    """T9: Strength modifier + the Fist Weapon's damage when one is equipped."""
    fist = fist_weapon(actor)
    dice = fist.damage if fist is not None and fist.damage.strip() else NO_DICE
    return cup.roll(dice, (("Strength", actor.sheet.modifier("strength")),))


def carried(actor: TaelCombatant, name: str) -> TaelWeapon:
    """A weapon it carries (not lying on the ground)."""
    weapon = actor.sheet.weapon(name)
    if weapon is None:
        raise CommandRefused(UNKNOWN_WEAPON, f"{actor.id} has no weapon {name!r}")
    if name in actor.dropped:
        raise CommandRefused(WEAPON_UNUSABLE, f"{name} lies on the ground: pick it up first")
    return weapon


# --- deciders ------------------------------------------------------------------------


@TAEL.decides(Punch)
def decide_punch(state: Encounter, command: Punch, cup: DiceCup) -> list[Event]:
    actor = on_turn(state, command.actor)
    check_punch_hands(actor)
    automatic = False
    if command.as_bonus:
        if not actor.turn.punched:
            raise CommandRefused(
                NO_FOLLOW_UP, "a Punch is a Bonus Action only after an Action used as a Punch (T9)"
            )
        if actor.braced:
            raise CommandRefused(BRACED, f"{actor.id} braced and cannot attack again this turn")
        slot = bonus_slot(actor, state.condition_rules)
        automatic = command.target in actor.turn.punch_hits
    else:
        slot = attack_slot(actor, ActionKind.ATTACK, state.condition_rules)
    if command.target == actor.id:
        raise CommandRefused(INVALID_COMMAND, f"{actor.id} cannot punch itself")
    target = living_target(state, command.target)
    if tiles_between(state, actor, target) > MELEE_RANGE:
        raise CommandRefused(OUT_OF_REACH, f"{target.id} is out of {actor.id}'s reach")
    guards = protections(state, target.id)
    parts, dv = defensive_value_now(state, target, [move for _, move in guards])
    fist = fist_weapon(actor)
    name = fist.name if fist is not None else ""
    mods = (("Martial Combat", actor.sheet.martial_combat), *attack_bonuses(state, actor, "melee"))
    roll = None if automatic else cup.d20(mods)
    hit = automatic or (roll is not None and roll.total > dv)
    events: list[Event] = [
        HitChecked(actor.id, target.id, name, HitKind.PUNCH, slot, roll, None, parts, dv, hit)
    ]
    if hit:
        events += on_hit(actor, target, name or "punch", guards, lambda: punch_damage(cup, actor))
    return events


@TAEL.decides(SkillCheck)
def decide_skill_check(state: Encounter, command: SkillCheck, cup: DiceCup) -> list[Event]:
    actor = on_turn(state, command.actor)
    skill = command.skill.strip().lower()
    if not skill:
        raise CommandRefused(INVALID_COMMAND, "name the skill to check")
    slot = generic_bonus_slot(actor, command.as_bonus, state.condition_rules)
    roll = cup.d20(((skill.capitalize(), actor.sheet.skill(skill)),))
    return [SkillChecked(actor.id, skill, roll, slot)]


@TAEL.decides(Surrender)
def decide_surrender(state: Encounter, command: Surrender, cup: DiceCup) -> list[Event]:
    actor = on_turn(state, command.actor)
    slot = generic_bonus_slot(actor, command.as_bonus, state.condition_rules)
    return [Surrendered(actor.id, actor.hands, slot)]


@TAEL.decides(PickUp)
def decide_pick_up(state: Encounter, command: PickUp, cup: DiceCup) -> list[Event]:
    actor = on_turn(state, command.actor)
    if command.weapon not in actor.dropped:
        raise CommandRefused(
            INVALID_COMMAND, f"{command.weapon!r} is not on the ground where {actor.id} is"
        )
    slot = generic_bonus_slot(actor, command.as_bonus, state.condition_rules)
    return [PickedUp(actor.id, command.weapon, not actor.hands, slot)]


@TAEL.decides(EquipWeapon)
def decide_equip(state: Encounter, command: EquipWeapon, cup: DiceCup) -> list[Event]:
    actor = on_turn(state, command.actor)
    main = carried(actor, command.main_hand) if command.main_hand else None
    off = carried(actor, command.off_hand) if command.off_hand else None
    if main is not None and off is not None and main.name == off.name:
        raise CommandRefused(INVALID_COMMAND, f"{main.name} cannot be in both hands")
    for weapon in (main, off):
        if weapon is not None and weapon.hands == 2 and (main is None or off is not None):
            raise CommandRefused(
                INVALID_COMMAND, f"{weapon.name} is two-handed: hold it in the main hand alone"
            )
    slot = generic_bonus_slot(actor, command.as_bonus, state.condition_rules)
    return [WeaponsEquipped(actor.id, command.main_hand, command.off_hand, slot)]


# --- appliers ------------------------------------------------------------------------


@TAEL.applies(SkillChecked)
def apply_skill_checked(state: Encounter, event: SkillChecked) -> Encounter:
    return state.with_combatant(spent(state.combatants[event.combatant], event.slot))


@TAEL.applies(Surrendered)
def apply_surrendered(state: Encounter, event: Surrendered) -> Encounter:
    c: TaelCombatant = spent(state.combatants[event.combatant], event.slot)
    dropped = (*c.dropped, *(w for w in event.dropped if w not in c.dropped))
    c = evolve(c, main_hand="", off_hand="", dropped=dropped, surrendered=True)
    return state.with_combatant(c.with_turn(off_hand=""))


@TAEL.applies(PickedUp)
def apply_picked_up(state: Encounter, event: PickedUp) -> Encounter:
    c: TaelCombatant = spent(state.combatants[event.combatant], event.slot)
    c = evolve(c, dropped=tuple(w for w in c.dropped if w != event.weapon))
    if event.equipped:
        c = evolve(c, main_hand=event.weapon, surrendered=False)
    return state.with_combatant(c)


@TAEL.applies(WeaponsEquipped)
def apply_weapons_equipped(state: Encounter, event: WeaponsEquipped) -> Encounter:
    c: TaelCombatant = spent(state.combatants[event.combatant], event.slot)
    armed = bool(event.main_hand or event.off_hand)
    c = evolve(
        c,
        main_hand=event.main_hand,
        off_hand=event.off_hand,
        surrendered=c.surrendered and not armed,
    )
    return state.with_combatant(c.with_turn(off_hand=""))
