"""A World of Tael character sheet as the engine sees it: already validated, immutable.

Files are read and validated at the edge (`server/sheets/tael.py`); the engine only
ever sees these records. Field names follow the Tael rule text ("Combat"): attributes
with a value and a modifier, the sub-attribute modifiers the text names (Martial
Combat, Precision, Magic, Dodging), weapon skills and magic-school skills, classes
(the actions of an Action Phase and bonus actions), armour (its Defensive Value and
dodge penalty), hit points, Willpower and Movement Speed in tiles.

The text describes moves, spells and classes only by what combat needs of them; where
it is silent the records hold what a table would write on the sheet (docs/rules.md,
Tael section, TR readings).
"""

from __future__ import annotations

from enum import StrEnum

from server.engine.records import record

# The attributes the combat text reads by name: Martial Combat is the Agility-Strength
# sub-attribute, Magic the Intelligence-Wisdom one, and initiative ties go to the higher
# Agility, then Intelligence value (T1). A sheet may list more.
REQUIRED_ATTRIBUTES = ("strength", "agility", "intelligence", "wisdom")


class ActionKind(StrEnum):
    """The kinds of Action in an Action Phase ("Action Phase", T2)."""

    UNIVERSAL = "universal"  # the default Action: "allows for everything"
    ATTACK = "attack"  # a class's Attack Action: weapon attacks (and Punch)
    SPELL = "spell"  # a class's Spell Action


class WeaponKind(StrEnum):
    MELEE = "melee"  # hit check + Martial Combat if skilled (T3)
    RANGED = "ranged"  # hit check + Precision if skilled and no enemy in melee range (T3)
    FIST = "fist"  # a Fist Weapon: a melee weapon that also adds its damage to a Punch (T9)
    BUCKLER = "buckler"  # a Buckler Shield: held, never attacks; allows Punch (T9)
    SHIELD = "shield"  # a shield: held, never attacks


ATTACKING_KINDS = (WeaponKind.MELEE, WeaponKind.RANGED, WeaponKind.FIST)


class Stance(StrEnum):
    """T7: the two Defensive Stances."""

    TANKING = "tanking"  # DV from armour only, no dodge penalties
    DODGING = "dodging"  # DV + Dodging modifier - dodge penalties


class Trigger(StrEnum):
    """What sets off a prepared move (T2: it is a reaction on the stack, before the
    action it answers resolves)."""

    MELEE_ATTACK = "melee_attack"  # a melee weapon attack or Punch aimed at the preparer
    RANGED_ATTACK = "ranged_attack"  # a ranged weapon attack aimed at the preparer
    SPELL = "spell"  # a spell with the preparer among its targets
    ATTACKED = "attacked"  # any of the three above
    ALLY_ATTACKED = "ally_attacked"  # any of them aimed at an ally standing next to it


@record
class Attribute:
    """One attribute: its value (ties at initiative, T1) and its modifier (checks)."""

    name: str
    value: int
    modifier: int


@record
class TaelClass:
    """A class: the Actions it adds to the default universal Action each Action Phase,
    the Bonus Actions it adds to the one every turn has, and its damage bonuses (T5:
    "some potential class bonuses can be applied")."""

    name: str
    actions: tuple[ActionKind, ...] = ()
    bonus_actions: int = 0
    weapon_damage_bonus: int = 0
    spell_damage_bonus: int = 0


@record
class Armour:
    """The armour worn: its Defensive Value, and the Dodging penalty of metal armour (T7)."""

    name: str = ""
    defensive_value: int = 10
    dodge_penalty: int = 0


@record
class TaelWeapon:
    """A weapon (or shield) a character carries.

    `skill` is the weapon skill that makes the wielder skilled with it (T3); `scale` the
    attribute whose modifier a skilled wielder adds to damage (T5, "the Scale Attribute
    of the weapon"); `reach` is its range in tiles (default one tile, "Attack Action").
    """

    name: str
    damage: str  # a dice expression, e.g. "1d8"; "" for a shield or buckler
    skill: str = ""
    scale: str = ""
    kind: WeaponKind = WeaponKind.MELEE
    hands: int = 1
    reach: int = 1


@record
class StatusEffect:
    """A status effect a spell lays on a target that fails its resist check (T6).

    The resist check is `d20 + the target's modifier in `attribute`` against `dc` plus
    the caster's Magic modifier ("Ignite says it is an Agility 10 check"). It lasts
    `turns` of the target's own turns; `damage` is dealt at the start of each of them,
    and `skips_turn` makes the target lose those turns.
    """

    name: str
    attribute: str
    dc: int
    turns: int = 1
    damage: str = ""
    skips_turn: bool = False


@record
class TaelSpell:
    """A spell: its School of Magic (T4), damage dice, range in tiles, how many targets
    it may have, and a status effect. `scroll`: a wizard learned it from a scroll and
    may cast it without the school's skill (T4)."""

    name: str
    school: str
    damage: str = ""
    reach: int = 6
    targets: int = 1
    status: StatusEffect | None = None
    scroll: bool = False


@record
class PreparationMove:
    """A move that requires Preparation (T2), and what it does when it triggers.

    `prevents_damage`: the triggering attack deals no damage to the one it protects
    (the preparer, or for `ally_attacked` the attacked ally) if it hits;
    `strikes_back`: the preparer makes a weapon attack on the triggering attacker, out
    of turn and before the attack resolves; `defensive_bonus`: added to the protected
    one's Defensive Value against the triggering attack.
    """

    name: str
    trigger: Trigger
    prevents_damage: bool = False
    strikes_back: bool = False
    defensive_bonus: int = 0


@record
class TaelSheet:
    name: str
    attributes: tuple[Attribute, ...]
    hit_points: int
    classes: tuple[TaelClass, ...] = ()
    martial_combat: int = 0
    precision: int = 0
    magic: int = 0
    dodging: int = 0
    initiative: int = 0
    willpower: int = 0
    movement: int = 5
    armour: Armour = Armour()
    weapon_skills: tuple[str, ...] = ()
    magic_schools: tuple[str, ...] = ()
    weapons: tuple[TaelWeapon, ...] = ()
    main_hand: str = ""
    off_hand: str = ""
    spells: tuple[TaelSpell, ...] = ()
    preparations: tuple[PreparationMove, ...] = ()
    skills: tuple[tuple[str, int], ...] = ()  # roleplay skill check modifiers
    stance: Stance = Stance.TANKING
    shares_tiles: bool = False  # Xeragar's Blade Warriors may end on an ally's tile
    # Conditions it is immune to: the rules never lay them on it (V27, R81; Tael TR41).
    immunities: tuple[str, ...] = ()
    notes: str = ""  # the GM's private notes; never shown to players

    def attribute(self, name: str) -> Attribute | None:
        for attribute in self.attributes:
            if attribute.name == name:
                return attribute
        return None

    def modifier(self, name: str) -> int:
        """The modifier of attribute `name`; 0 for an attribute the sheet does not list."""
        found = self.attribute(name)
        return found.modifier if found is not None else 0

    def value(self, name: str) -> int:
        found = self.attribute(name)
        return found.value if found is not None else 0

    def weapon(self, name: str) -> TaelWeapon | None:
        for weapon in self.weapons:
            if weapon.name == name:
                return weapon
        return None

    def spell(self, name: str) -> TaelSpell | None:
        for spell in self.spells:
            if spell.name == name:
                return spell
        return None

    def preparation(self, name: str) -> PreparationMove | None:
        for move in self.preparations:
            if move.name == name:
                return move
        return None

    def skill(self, name: str) -> int:
        for skill, modifier in self.skills:
            if skill == name:
                return modifier
        return 0

    def skilled_with(self, weapon: TaelWeapon) -> bool:
        """T3: skilled when the sheet has the weapon's skill."""
        return bool(weapon.skill) and weapon.skill in self.weapon_skills

    def may_cast(self, spell: TaelSpell) -> bool:
        """T4: skilled in the spell's School of Magic, or learned from a scroll."""
        return spell.scroll or spell.school in self.magic_schools

    @property
    def actions(self) -> tuple[ActionKind, ...]:
        """The Actions of one Action Phase: the default universal one, then the classes'."""
        kinds = [ActionKind.UNIVERSAL]
        for tael_class in self.classes:
            kinds.extend(tael_class.actions)
        return tuple(kinds)

    @property
    def bonus_actions(self) -> int:
        """The Bonus Actions of one turn: one (T9, generic bonus actions "can always be
        used as either an Action or Bonus Action each Turn") plus the classes'."""
        return 1 + sum(c.bonus_actions for c in self.classes)

    @property
    def weapon_damage_bonus(self) -> int:
        return sum(c.weapon_damage_bonus for c in self.classes)

    @property
    def spell_damage_bonus(self) -> int:
        return sum(c.spell_damage_bonus for c in self.classes)
