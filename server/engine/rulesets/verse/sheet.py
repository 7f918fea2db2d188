"""A Verse character sheet as the engine sees it: already validated, immutable.

Files are read and validated at the edge (`server/sheets/`); the engine only ever
sees these records. Field names follow the rule text ("Basics & Combat").
"""

from __future__ import annotations

from enum import StrEnum

from server.engine.records import record


class WeaponKind(StrEnum):
    """Which attack formula a weapon uses (Verse "Basics & Combat")."""

    MELEE = "melee"  # 1d20 + Strength + training, damage DD + training
    NATURAL = "natural"  # as melee, damage from the Unarmed Die
    RANGED = "ranged"  # 1d20 + Dexterity + training, V8 modifiers
    THROWN = "thrown"  # 1d20 + Strength + training, V8 modifiers and the Throw DC (V9)


class SpellShape(StrEnum):
    SINGLE = "single"  # one target, V1: meets or beats Spell Dodge
    CONE = "cone"  # V2: every target strictly below the roll
    LINE = "line"
    AREA = "area"
    SELF = "self"  # no attack roll


class SpellRange(StrEnum):
    """V15: Touch, Close 30 ft, Medium 200 ft, Long 500 ft."""

    SELF = "self"
    TOUCH = "touch"
    CLOSE = "close"
    MEDIUM = "medium"
    LONG = "long"


class AccessLevel(StrEnum):
    """Spell Access Levels in unlock order (V14)."""

    CANTRIP = "cantrip"
    COMMON = "common"
    UNCOMMON = "uncommon"
    ABNORMAL = "abnormal"
    RARE = "rare"
    VERY_RARE = "very_rare"


class ActionType(StrEnum):
    """The action economy of V17."""

    STANDARD = "standard"
    MOVE = "move"
    SWIFT = "swift"
    INSTANT = "instant"
    FULL_ROUND = "full_round"


class FeatKind(StrEnum):
    COUNTER = "counter"
    QUICK_RESPONSE = "quick_response"
    DEFENSIVE = "defensive"
    OTHER = "other"


@record
class Abilities:
    strength: int
    dexterity: int
    constitution: int
    sanity: int
    intellect: int
    empathy: int


@record
class Defences:
    physical_dodge: int
    physical_resistance: int
    spell_dodge: int
    spell_resistance: int


@record
class Speeds:
    """Movement speed in feet per environment; initiatives come from it (V16)."""

    land: int = 30
    swim: int = 0
    fly: int = 0
    burrow: int = 0


@record
class BuildPoints:
    """Build Points spent on each unlock track (V14 tables)."""

    unarmed_die: int = 0
    spell_die: int = 0
    spell_access: int = 0


@record
class Weapon:
    name: str
    damage: str  # the Damage Die, e.g. "1d8" (natural weapons: "" uses the Unarmed Die)
    category: str  # the training category, e.g. "one_handed", "ranged", "unarmed"
    kind: WeaponKind = WeaponKind.MELEE
    critical_multiplier: int = 2
    reach_ft: int = 5
    range_ft: int = 0  # ranged and thrown: how far it reaches
    weight_lb: float = 0.0  # thrown: the Throw DC (V9)
    fragile: bool = False


@record
class SpellOption:
    """What extra Mana Cost buys (V11): `mc` MC for each `amount` of `name`.

    Mana Rain's diameter is `SpellOption("diameter_ft", mc=1, amount=5)`; Acute
    Senses' duration is `SpellOption("duration_hours", mc=1, amount=1)`.
    """

    name: str
    mc: int
    amount: int
    base: int = 0  # what the minimum cost already includes


@record
class Spell:
    name: str
    min_mc: int  # the Spell List's ">N"
    access_level: AccessLevel = AccessLevel.CANTRIP
    uses_spell_die: bool = False  # every Spell Die adds 2 MC (V11)
    base_spell_dice: int = 0  # Spell Dice the minimum cost includes
    range: SpellRange = SpellRange.CLOSE
    shape: SpellShape = SpellShape.SINGLE
    cast_action: ActionType = ActionType.STANDARD
    options: tuple[SpellOption, ...] = ()
    rarity: AccessLevel = AccessLevel.COMMON  # for the Decipher DC (V13)
    condition: str = ""  # a condition the spell gives on a hit, e.g. "Shaken"
    condition_rounds: int = 0


@record
class Feat:
    name: str
    kind: FeatKind = FeatKind.OTHER


@record
class Item:
    """Something carried and used as a Swift action ("using a potion"), e.g. a healing
    potion with `heal = "2d4+2"`."""

    name: str
    heal: str = ""


@record
class SheetCondition:
    name: str
    rounds: int | None = None  # None: until removed


@record
class VerseSheet:
    name: str
    level: int
    abilities: Abilities
    defences: Defences
    health: int
    mana: int
    armour_durability: int | None = None  # tracked only when given (V7)
    build_points: BuildPoints = BuildPoints()
    training: tuple[tuple[str, int], ...] = ()  # ranks per weapon category
    spell_attack_training: int = 0
    speeds: Speeds = Speeds()
    visual_range_ft: int = 60
    perception: int = 0
    stealth: int = 0
    initiative_bonus: int = 0  # V16's "+ bonuses" (and penalties), summed (R76)
    weapons: tuple[Weapon, ...] = ()
    spells: tuple[Spell, ...] = ()
    feats: tuple[Feat, ...] = ()
    conditions: tuple[SheetCondition, ...] = ()
    bloodline: str = ""  # V-text "Bloodlines": the affinity of every Mana spell cast
    is_ride: bool = False
    shield: str = ""  # a shield in hand allows Block (V22)
    # Conditions it is immune to: the rules never lay them on it (V27, R81; Tael TR41).
    immunities: tuple[str, ...] = ()
    notes: str = ""  # the GM's private notes; never shown to players
    items: tuple[Item, ...] = ()

    def item(self, name: str) -> Item | None:
        for item in self.items:
            if item.name == name:
                return item
        return None

    def training_in(self, category: str) -> int:
        for name, ranks in self.training:
            if name == category:
                return ranks
        return 0

    def weapon(self, name: str) -> Weapon | None:
        for weapon in self.weapons:
            if weapon.name == name:
                return weapon
        return None

    def spell(self, name: str) -> Spell | None:
        for spell in self.spells:
            if spell.name == name:
                return spell
        return None

    def has_feat(self, kind: str) -> bool:
        return any(feat.kind == kind for feat in self.feats)
