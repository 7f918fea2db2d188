"""Field of view, awareness and stealth (Verse "Combat Styles", Turn Based Combat).

"In TBC, the View of Attack is determined by your field of view (see Senses) and
dictates what is considered within your sight while in combat." The Senses chapter
is not part of our rule text, so these are our readings (docs/rules.md):

- Base field of view: a 180 degree arc in front of the facing (half angle 90,
  edges included) out to the sheet's `visual_range_ft`, measured on the map plane
  (Ascension levels are not counted).
- On Guard: "their field of view extends by 5 feet more than usual" (range +5 ft),
  +5 Perception, and "considered Alert".
- Preoccupied: "it only extends 5 feet to the left and right of what they are
  looking directly at": only what lies in front within 5 ft of the line the facing
  looks along (`grid.lateral_ft`), out to the visual range; -5 Perception.
- Distracted: "Their Field of View is only decreased by 5": read as range -5 ft (the
  arc stays 180 degrees, since they "can change where they are looking at will");
  -2 Perception.
- Engaged in Combat (derived from the map with `positions.is_engaged`, never stored):
  "A character Engaged in Combat is considered Distracted" - it replaces whatever
  awareness is stored while it lasts - "and can only respond to those they are
  concentrating on" / "who they are in combat with" (`can_respond_to`; who those are:
  `positions.engaged_with`).
- Responding when not engaged: Alert, On Guard and Distracted characters "can change
  where their field of view is at will", so they can respond to anyone within the
  range of their field of view whatever their facing; a Preoccupied one only to
  what it sees.
- View of Attack (V22 gates Defensive Actions on it): a defender is aware of an
  attacker it sees, or, when engaged, of a foe it is engaged with (the one it is
  concentrating on, wherever it stands).
- `SetAwareness` is an Instant action (V17): changing where one's attention goes
  costs nothing in the text. The GM may set it for anyone at any time (`gm=True`;
  the room accepts that flag from the GM only), e.g. a guard Preoccupied with a book.
- Stealth: "they must roll a Stealth Check against their Perception": the sneaker
  rolls `d20 + Stealth`, the observer `d20 + Perception + awareness modifier`; like
  every Verse check (V19) the sneaker succeeds when its total meets or beats the
  observer's, so ties go to the sneaker. The check is allowed only against an
  observer that does not see the sneaker, costs no action (it is part of the move
  that sneaks past) and, in combat, is made on the sneaker's turn.
"""

from __future__ import annotations

from server.engine.core import Command, Event
from server.engine.dice import DiceCup, Roll
from server.engine.errors import (
    IN_VIEW,
    INCAPACITATED,
    INVALID_COMMAND,
    NOT_YOUR_TURN,
    WRONG_PHASE,
    CommandRefused,
)
from server.engine.records import evolve, record
from server.engine.rulesets.verse.combatant import Awareness, VerseCombatant
from server.engine.rulesets.verse.condition_rules import bonuses, changed
from server.engine.rulesets.verse.positions import engaged_with, is_engaged
from server.engine.rulesets.verse.ruleset import VERSE, acting, combatant, standing_target
from server.engine.state import Encounter, Phase

FIELD_OF_VIEW_HALF_ANGLE = 90.0  # a 180 degree arc in front (our reading of "Senses")
ON_GUARD_RANGE_FT = 5  # "extends by 5 feet more than usual"
DISTRACTED_RANGE_FT = -5  # "only decreased by 5"
PREOCCUPIED_LATERAL_FT = 5.0  # "5 feet to the left and right of what they are looking at"
PERCEPTION_MODIFIER = {
    Awareness.ALERT: 0,
    Awareness.ON_GUARD: 5,
    Awareness.PREOCCUPIED: -5,
    Awareness.DISTRACTED: -2,
    Awareness.ENGAGED: -2,  # "considered Distracted"
}
PERCEPTION_NAME = {
    Awareness.ON_GUARD: "On Guard",
    Awareness.PREOCCUPIED: "Preoccupied",
    Awareness.DISTRACTED: "Distracted",
    Awareness.ENGAGED: "Engaged in Combat",
}
_RANGE_CHANGE = {
    Awareness.ON_GUARD: ON_GUARD_RANGE_FT,
    Awareness.DISTRACTED: DISTRACTED_RANGE_FT,
    Awareness.ENGAGED: DISTRACTED_RANGE_FT,
}


# --- commands and events --------------------------------------------------------


@record
class SetAwareness(Command):
    """Become Alert, On Guard, Distracted or Preoccupied (an Instant action).

    `gm`: set by the GM for any combatant at any time (the room accepts it from the GM
    only); otherwise, in combat, on the actor's own turn.
    """

    actor: str
    awareness: str
    gm: bool = False

    @property
    def acting_for(self) -> str:
        """Its player sends it for its own combatant; with `gm` it is the GM's alone
        (authority: a "controller" must control the combatant it acts for)."""
        return "" if self.gm else self.actor


@record
class AwarenessSet(Event):
    combatant: str
    awareness: str
    previous: str


@record
class StealthCheck(Command):
    """Sneak past `observer`, who must not see `sneaker`: Stealth against Perception."""

    sneaker: str
    observer: str

    @property
    def acting_for(self) -> str:
        """The sneaker's player sends it (authority: "controller")."""
        return self.sneaker


@record
class StealthChecked(Event):
    sneaker: str
    observer: str
    stealth_roll: Roll
    perception_roll: Roll
    success: bool  # the sneaker stays unnoticed

    def rolls(self) -> tuple[Roll, ...]:
        return (self.stealth_roll, self.perception_roll)

    def describe(self) -> str:
        result = "unnoticed" if self.success else "noticed"
        return (
            f"Stealth {self.stealth_roll.describe()} vs "
            f"Perception {self.perception_roll.describe()}: {result}"
        )


# --- the rules ------------------------------------------------------------------


def effective_awareness(state: Encounter, c: VerseCombatant) -> str:
    """The stored awareness, or ENGAGED while `c` is Engaged in Combat (never stored)."""
    if is_engaged(state, c):
        return Awareness.ENGAGED
    return c.awareness


def _field(state: Encounter, c: VerseCombatant, awareness: str) -> tuple[float, int]:
    change = _RANGE_CHANGE.get(awareness, 0)
    return FIELD_OF_VIEW_HALF_ANGLE, sight_ft(state, c, c.sheet.visual_range_ft + change)


def sight_ft(state: Encounter, c: VerseCombatant, range_ft: int) -> int:
    """A visual range after what `c`'s conditions do to it (V27 `sight`: Blinded, say),
    never below 0."""
    return max(0, changed(state.condition_rules, c, "sight", range_ft)[0])


def field_of_view(state: Encounter, c: VerseCombatant) -> tuple[float, int]:
    """(half angle in degrees, range in feet) of `c`'s field of view ("View of Attack").

    Alert: 90 / visual range; On Guard: range +5 ft; Distracted and Engaged in Combat:
    range -5 ft. Preoccupied keeps 90 / visual range but `sees` also limits it to 5 ft
    either side of the line it looks along.
    """
    return _field(state, c, effective_awareness(state, c))


def _sees(state: Encounter, observer: VerseCombatant, target: VerseCombatant, aw: str) -> bool:
    if observer.id == target.id:
        return True
    half_angle, range_ft = _field(state, observer, aw)
    grid = state.grid
    here, there = observer.position, target.position
    if grid.distance_ft(here, there) > range_ft:
        return False
    if not grid.within_arc(here, observer.facing, there, half_angle):
        return False
    if aw == Awareness.PREOCCUPIED:
        return grid.lateral_ft(here, observer.facing, there) <= PREOCCUPIED_LATERAL_FT + 1e-9
    return True


def sees(state: Encounter, observer: VerseCombatant, target: VerseCombatant) -> bool:
    """Is `target` within `observer`'s field of view (arc, range, Preoccupied strip)?"""
    return _sees(state, observer, target, effective_awareness(state, observer))


def can_respond_to(state: Encounter, c: VerseCombatant, other: VerseCombatant) -> bool:
    """Can `c` respond to `other` (an attack of opportunity, a Quick Response)?

    "If a character is Engaged in Combat, they can only respond to who they are in
    combat with." Otherwise Alert, On Guard and Distracted characters turn their field
    of view at will: anyone within its range; a Preoccupied one only what it sees.
    """
    if is_engaged(state, c):
        return engaged_with(state, c, other)
    if c.awareness == Awareness.PREOCCUPIED:
        return _sees(state, c, other, Awareness.PREOCCUPIED)
    _, range_ft = _field(state, c, c.awareness)
    return state.grid.distance_ft(c.position, other.position) <= range_ft


def aware_of_attack(state: Encounter, defender: VerseCombatant, attacker: VerseCombatant) -> bool:
    """The View of Attack: may `defender` take a Defensive Action against `attacker` (V22)?

    Aware when the attacker is in its field of view, or, while engaged, is one of the
    foes it is engaged with (whom it is concentrating on, wherever they stand).
    """
    if engaged_with(state, defender, attacker):
        return True
    return sees(state, defender, attacker)


def perception_modifier(state: Encounter, c: VerseCombatant) -> int:
    """On Guard +5, Preoccupied -5, Distracted -2; Engaged in Combat counts as Distracted."""
    return PERCEPTION_MODIFIER[effective_awareness(state, c)]


def perception_modifiers(state: Encounter, c: VerseCombatant) -> tuple[tuple[str, int], ...]:
    """The named modifiers of `c`'s Perception roll: its sheet value and its awareness."""
    aw = effective_awareness(state, c)
    mods: list[tuple[str, int]] = []
    if c.sheet.perception:
        mods.append(("Perception", c.sheet.perception))
    if PERCEPTION_MODIFIER[aw]:
        mods.append((PERCEPTION_NAME[aw], PERCEPTION_MODIFIER[aw]))
    return (*mods, *bonuses(state.condition_rules, c, "perception"))  # V27


# --- deciders -------------------------------------------------------------------


@VERSE.decides(SetAwareness)
def decide_set_awareness(state: Encounter, command: SetAwareness, cup: DiceCup) -> list[Event]:
    if command.awareness not in Awareness.STORED:
        raise CommandRefused(
            INVALID_COMMAND,
            f"awareness must be one of {', '.join(Awareness.STORED)}, not {command.awareness!r}"
            " (Engaged in Combat follows from the map)",
        )
    if command.gm or state.phase != Phase.COMBAT:
        actor = combatant(state, command.actor)
    else:
        actor = acting(state, command.actor)  # an Instant action on its own turn
    return [AwarenessSet(actor.id, command.awareness, actor.awareness)]


@VERSE.decides(StealthCheck)
def decide_stealth_check(state: Encounter, command: StealthCheck, cup: DiceCup) -> list[Event]:
    if state.phase == Phase.ENDED:
        raise CommandRefused(WRONG_PHASE, "the encounter has ended")
    sneaker = combatant(state, command.sneaker)
    observer = standing_target(state, command.observer)
    if sneaker.id == observer.id:
        raise CommandRefused(INVALID_COMMAND, "a combatant cannot sneak past itself")
    if not sneaker.active:
        raise CommandRefused(INCAPACITATED, f"{sneaker.id} cannot act")
    if state.phase == Phase.COMBAT and state.current != sneaker.id:
        raise CommandRefused(NOT_YOUR_TURN, f"{sneaker.id} sneaks on its own turn")
    if sees(state, observer, sneaker):
        raise CommandRefused(
            IN_VIEW, f"{observer.id} sees {sneaker.id}: there is nothing to sneak past"
        )
    stealth = sneaker.sheet.stealth
    stealth_roll = cup.d20((("Stealth", stealth),) if stealth else ())
    perception_roll = cup.d20(perception_modifiers(state, observer))
    success = stealth_roll.total >= perception_roll.total  # V19: meets or beats
    return [StealthChecked(sneaker.id, observer.id, stealth_roll, perception_roll, success)]


# --- appliers -------------------------------------------------------------------


@VERSE.applies(AwarenessSet)
def apply_awareness_set(state: Encounter, event: AwarenessSet) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    return state.with_combatant(evolve(c, awareness=event.awareness))


@VERSE.applies(StealthChecked)
def apply_stealth_checked(state: Encounter, event: StealthChecked) -> Encounter:
    """The check is a logged fact; what the observer then does is the table's call."""
    return state
