"""A Verse combatant: its sheet plus everything a fight changes about it."""

from __future__ import annotations

from server.engine.grid import Cell
from server.engine.records import evolve, record
from server.engine.rulesets.verse.sheet import Abilities, VerseSheet

ORIGIN = Cell(0, 0)


class Awareness:
    """The awareness states of "Combat Styles" (Turn Based Combat)."""

    ALERT = "alert"
    ON_GUARD = "on_guard"
    DISTRACTED = "distracted"
    PREOCCUPIED = "preoccupied"
    ENGAGED = "engaged"  # derived from the map, never stored: see awareness.py

    STORED = ("alert", "on_guard", "distracted", "preoccupied")


class Stance:
    """V18: none, Defensive (+2 PD) or Aggressive (-2 PD)."""

    NONE = "none"
    DEFENSIVE = "defensive"
    AGGRESSIVE = "aggressive"

    ALL = ("none", "defensive", "aggressive")


# Conditions with a mechanical effect in the engine. Others are recorded and shown.
DEAD = "Dead"
UNCONSCIOUS = "Unconscious"
EXHAUSTED = "Exhausted"
BROKEN = "Broken"
STUNNED = "Stunned"
KNOCKED_OUT = "Knocked Out"
PRONE = "Prone"  # recorded only: thrown riders (rides.py), critical-table rows (criticals.py)
INCAPACITATING = (DEAD, UNCONSCIOUS, STUNNED, KNOCKED_OUT)


@record
class Condition:
    """A condition and how many more round ends it lasts (None: until removed)."""

    name: str
    rounds: int | None = None
    per_turn: bool = False  # counts the owner's turn ends instead of round ends

    def ticked(self) -> Condition | None:
        """One step of its duration, or None when it runs out."""
        if self.rounds is None:
            return self
        if self.rounds <= 1:
            return None
        return Condition(self.name, self.rounds - 1, self.per_turn)


@record
class ActionsUsed:
    """What this turn has spent so far (V17)."""

    standard: bool = False
    move: bool = False
    swift: bool = False
    full_round: bool = False
    moved_ft: int = 0


NO_ACTIONS_USED = ActionsUsed()


@record
class Charge:
    """A spell being charged over several rounds, one standard action each (V12)."""

    spell: str
    mc: int
    spell_dice: int
    actions_needed: int
    actions_done: int
    targets: tuple[str, ...] = ()
    target: Cell | None = None  # where a Cone, Line or Area spell is aimed (spells.py)
    options: tuple[tuple[str, int], ...] = ()  # options bought with the MC (spell_costs.py)
    charged_in: int = 0  # the round of its last action: one a round, every round (V12)


@record
class ManaPledge:
    """A helper's consent to pay up to `share` MC of `caster`'s next cast of `spell`
    this round (V12 group casting, R74: spell_mana.py)."""

    caster: str
    spell: str
    share: int


@record
class VerseCombatant:
    id: str
    side: str
    sheet: VerseSheet
    health: int
    mana: int
    abilities: Abilities  # current scores: ability damage and overdraw lower them
    armour_durability: int | None
    position: Cell = ORIGIN
    ascension: int = 0
    facing: int = 0
    awareness: str = Awareness.ALERT
    stance: str = Stance.NONE
    conditions: tuple[Condition, ...] = ()
    broken: tuple[str, ...] = ()  # items with the Broken condition ("armour", weapon names)
    dropped: tuple[str, ...] = ()  # weapons knocked out of hand (V6)
    actions: ActionsUsed = NO_ACTIONS_USED
    defensive_used: bool = False  # one Defensive Action per round (V22)
    charging: Charge | None = None
    mounted_on: str = ""  # the ride this combatant sits on
    opportunities: tuple[str, ...] = ()  # ids it may make an attack of opportunity on now
    holding: bool = False  # V19: holding its action until its next turn
    items_used: tuple[str, ...] = ()  # potions and other items used up
    pledges: tuple[ManaPledge, ...] = ()  # R74: its consents to help casts this round

    @classmethod
    def from_sheet(
        cls,
        combatant_id: str,
        side: str,
        sheet: VerseSheet,
        position: Cell = ORIGIN,
        **kw: object,
    ) -> VerseCombatant:
        conditions = tuple(Condition(c.name, c.rounds) for c in sheet.conditions)
        return cls(
            id=combatant_id,
            side=side,
            sheet=sheet,
            health=sheet.health,
            mana=sheet.mana,
            abilities=sheet.abilities,
            armour_durability=sheet.armour_durability,
            position=position,
            conditions=conditions,
            **kw,  # type: ignore[arg-type]
        )

    def has(self, condition: str) -> bool:
        for c in self.conditions:
            if c.name == condition:
                return True
        return False

    def pledge_for(self, caster: str, spell: str) -> ManaPledge | None:
        """Its pledge to `caster`'s `spell` this round, if it made one (R74)."""
        for pledge in self.pledges:
            if pledge.caster == caster and pledge.spell == spell:
                return pledge
        return None

    def in_hand(self, item: str) -> bool:
        """Is `item` still in hand, i.e. not knocked away (V6, critical-table rows)?"""
        return item not in self.dropped

    def can_wield(self, weapon: str) -> bool:
        """Can `weapon` be used: in hand and not Broken (V6: a jammed or broken weapon)?"""
        return weapon not in self.dropped and weapon not in self.broken

    @property
    def active(self) -> bool:
        """Able to act: not dead, unconscious, stunned or knocked out."""
        for c in self.conditions:
            if c.name in INCAPACITATING:
                return False
        return True

    @property
    def recovers(self) -> bool:
        """Will it be able to act once its round-long conditions run out? Not when one
        that takes it out has no duration (Dead, a GM's untimed Stunned) or ticks only
        at its own turn's end, which it will not have."""
        down = [c for c in self.conditions if c.name in INCAPACITATING]
        return all(c.rounds is not None and not c.per_turn for c in down)

    @property
    def alive(self) -> bool:
        return not self.has(DEAD)

    def with_condition(
        self, name: str, rounds: int | None = None, per_turn: bool = False
    ) -> VerseCombatant:
        kept = tuple(c for c in self.conditions if c.name != name)
        return evolve(self, conditions=(*kept, Condition(name, rounds, per_turn)))

    def with_conditions_ticked(self, per_turn: bool) -> VerseCombatant:
        """Conditions after a round end (`per_turn` False) or the owner's turn end."""
        kept = []
        for c in self.conditions:
            after = c.ticked() if c.per_turn == per_turn else c
            if after is not None:
                kept.append(after)
        if len(kept) == len(self.conditions) and all(
            a is b for a, b in zip(kept, self.conditions, strict=True)
        ):
            return self
        return evolve(self, conditions=tuple(kept))

    def without_condition(self, name: str) -> VerseCombatant:
        return evolve(self, conditions=tuple(c for c in self.conditions if c.name != name))
