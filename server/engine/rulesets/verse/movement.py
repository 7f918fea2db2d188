"""Moving on the grid, facing, and the attacks of opportunity a move opens.

Verse "Combat Styles": "Move Actions ... involves moving more than one space away by
either walking, running, flying, swimming, burrowing, or climbing ... Players can move
up to their Movement Speed only." V17: one Move action per turn. V18: in Defensive
Stance "movement at half run speed". V22: "anyone whose reach a moving character
leaves or passes through, one attack of opportunity"; the text's own example is
"moving through another characters reach while in viewing range".

Readings where the text is open (docs/rules.md):

- A path is a list of cells, each a neighbour of the one before (the first one of
  the mover's own cell), every step one cell (`grid.cell_ft` feet, diagonals too,
  like `grid.distance_ft`). A step may not enter a cell held by any other active
  combatant on the same Ascension level (the mover's own ride or rider excepted).
- Speed is the one of the fight's environment (`turns.speed_in`, as for initiative,
  V16); with none (e.g. no fly speed in an air fight) a Move is refused. The text
  names no separate "Run Speed": we read it as that same environment speed, so a
  Defensive Stance allows `speed // 2` feet.
- After a move the mover faces the way its last step went (`positions.facing_toward`).
- Attacks of opportunity: a foe is entitled when the mover takes a step that starts
  inside the foe's melee reach (it leaves the reach, or moves on through it) - entering
  a reach and stopping there opens nothing. The foe must be able, on the mover's
  Ascension level, and must have the mover in its View of Attack at that moment
  (`awareness.sees`): "Enemies that move behind you are out of your View of Attack and
  therefore not vulnerable to Attacks of Opportunity". Its reach is that of its longest
  usable melee or natural weapon, at least 5 ft. Each foe is entitled once per move.
- The entitled foes are asked in a reaction window before the move resolves (V21,
  live.py and reactions.py); an answer is an `OpportunityAttack`, out of turn, with no
  action spent (`ActionType.INSTANT`), made with a melee or natural weapon. Answering
  records the entitlement (`VerseCombatant.opportunities`) that the attack uses; it is
  not checked against reach or level again, since the mover has not moved yet. Passed
  up, it is gone. Entitlements opened another way (Aggressive Stance, V18) last until
  used or until the holder's own next turn starts.
- Moving while charging a spell breaks the charge (V12): `movement_side_effects`
  (interruptions.py, shared with ascension.py and rides.py).
- A path must be a tuple of cells and a facing a whole number: anything else is a
  malformed command (`invalid_command`), refused before any rule is looked at.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.engine.core import Command, Event
from server.engine.dice import DiceCup
from server.engine.effects import describe_changes
from server.engine.errors import (
    BLOCKED,
    CONDITION_FORBIDS,
    INCAPACITATED,
    INVALID_COMMAND,
    NO_MOVEMENT_SPEED,
    NO_OPPORTUNITY,
    NOT_ADJACENT,
    TOO_FAR,
    WEAPON_UNUSABLE,
    WRONG_PHASE,
    CommandRefused,
)
from server.engine.flow import Mode
from server.engine.grid import Cell
from server.engine.records import evolve, record
from server.engine.rulesets.verse import awareness
from server.engine.rulesets.verse.attacks import resolve_attack, weapon_of
from server.engine.rulesets.verse.combatant import Stance, VerseCombatant
from server.engine.rulesets.verse.condition_rules import changed, losing_reactions
from server.engine.rulesets.verse.interruptions import movement_side_effects
from server.engine.rulesets.verse.positions import MELEE_REACH_FT, blocker_at, facing_toward
from server.engine.rulesets.verse.rides import carry_riders_events
from server.engine.rulesets.verse.ruleset import VERSE, acting, combatant, standing_target
from server.engine.rulesets.verse.sheet import ActionType, WeaponKind
from server.engine.rulesets.verse.turns import check_action, speed_in, spend
from server.engine.state import Encounter, Phase, not_fighting

MELEE_KINDS = (WeaponKind.MELEE, WeaponKind.NATURAL)


# --- commands -------------------------------------------------------------------


@record
class Move(Command):
    """A Move action (V17) along `path`, one neighbouring cell per step."""

    actor: str
    path: tuple[Cell, ...]


@record
class Face(Command):
    """Turn to `facing` (0 .. grid.directions - 1): an Instant action."""

    actor: str
    facing: int


@record
class OpportunityAttack(Command):
    """An attack of opportunity by an entitled combatant, on or out of its turn (V22)."""

    actor: str
    target: str
    weapon: str = ""


# --- events ---------------------------------------------------------------------


@record
class Moved(Event):
    """The mover went along `path` and now faces the way its last step went."""

    combatant: str
    path: tuple[Cell, ...]
    distance_ft: int
    action: str


@record
class Faced(Event):
    combatant: str
    facing: int


@record
class OpportunityOpened(Event):
    """V22: `by` may each make one attack of opportunity on `mover`, opened at step
    `at_step` (1 = the first step). Informational for Live Combat; recorded on `by`."""

    mover: str
    by: tuple[str, ...]
    at_step: int


@record
class OpportunityTaken(Event):
    """`actor` uses its entitlement against `target`; the attack follows."""

    actor: str
    target: str


# --- the rules ------------------------------------------------------------------


def stance_limit_ft(c: VerseCombatant, speed: int) -> int:
    """V18: a Defensive Stance moves "at half run speed" (rounded down)."""
    return speed // 2 if c.stance == Stance.DEFENSIVE else speed


def movement_limit_ft(state: Encounter, c: VerseCombatant) -> int:
    """V17/V18: the environment's speed after the conditions' changes (V27); half of it
    in Defensive Stance."""
    speed = changed(state.condition_rules, c, "speed", speed_in(c, state.environment))[0]
    return stance_limit_ft(c, speed)


def opportunity_reach_ft(c: VerseCombatant) -> int:
    """The melee reach an attack of opportunity uses: the longest usable melee or natural
    weapon ("weapon reach"), at least 5 ft (unarmed)."""
    reach = MELEE_REACH_FT
    for weapon in c.sheet.weapons:
        if weapon.kind in MELEE_KINDS and c.can_wield(weapon.name) and weapon.reach_ft > reach:
            reach = weapon.reach_ft
    return reach


def opportunities_along(
    state: Encounter, mover: VerseCombatant, steps: Sequence[tuple[Cell, int]]
) -> list[OpportunityOpened]:
    """V22: who may attack `mover` as it takes `steps` ((cell, Ascension) after each).

    A step that starts inside an able foe's reach, on the foe's level and in its View of
    Attack, entitles that foe; each foe once, listed by id.
    """
    grid = state.grid
    foes = [
        (foe, opportunity_reach_ft(foe))
        for foe in (state.combatants[i] for i in sorted(state.combatants))
        if foe.side != mover.side and foe.id != mover.id and foe.active
    ]
    entitled: set[str] = set()
    opened: list[OpportunityOpened] = []
    here, level = mover.position, mover.ascension
    for index, (there, there_level) in enumerate(steps, start=1):
        by: list[str] = []
        seen_as = evolve(mover, position=here, ascension=level)
        for foe, reach in foes:
            if (
                foe.id not in entitled
                and foe.ascension == level
                and grid.distance_ft(foe.position, here) <= reach
                and awareness.sees(state, foe, seen_as)
            ):
                by.append(foe.id)
                entitled.add(foe.id)
        if by:
            opened.append(OpportunityOpened(mover.id, tuple(by), index))
        here, level = there, there_level
    return opened


def check_not_riding(mover: VerseCombatant) -> None:
    """A rider goes where its ride goes ("Ride Combat"): it moves, or changes level, only
    by dismounting or by moving the ride."""
    if mover.mounted_on:
        raise CommandRefused(
            INVALID_COMMAND, f"{mover.id} rides {mover.mounted_on}: dismount or move the ride"
        )


def check_path(state: Encounter, mover: VerseCombatant, path: tuple[Cell, ...]) -> int:
    """Refuse an illegal path; return its length in feet."""
    if not isinstance(path, tuple) or not all(isinstance(cell, Cell) for cell in path):
        raise CommandRefused(INVALID_COMMAND, "a path is a list of cells")
    if not path:
        raise CommandRefused(INVALID_COMMAND, "a move needs at least one step")
    speed = speed_in(mover, state.environment)
    if speed <= 0:
        raise CommandRefused(
            NO_MOVEMENT_SPEED, f"{mover.id} has no {state.environment} speed to move with"
        )
    speed, changes = changed(state.condition_rules, mover, "speed", speed)  # V27
    limit = stance_limit_ft(mover, speed)
    grid = state.grid
    here = mover.position
    for index, cell in enumerate(path, start=1):
        if cell not in grid.neighbours(here):
            raise CommandRefused(
                NOT_ADJACENT, f"step {index} to ({cell.x}, {cell.y}) is not a neighbouring cell"
            )
        blocker = blocker_at(state, mover, cell, mover.ascension)
        if blocker is not None:
            raise CommandRefused(
                BLOCKED, f"step {index}: ({cell.x}, {cell.y}) is held by {blocker.id}"
            )
        here = cell
    distance = len(path) * grid.cell_ft
    if distance > limit:
        stance = " (half in Defensive Stance)" if mover.stance == Stance.DEFENSIVE else ""
        why = f" ({describe_changes(changes)})" if changes else ""
        raise CommandRefused(
            TOO_FAR, f"{distance} ft is more than {mover.id} can move: {limit} ft{why}{stance}"
        )
    return distance


# --- deciders -------------------------------------------------------------------


@VERSE.decides(Move)
def decide_move(state: Encounter, command: Move, cup: DiceCup) -> list[Event]:
    mover = acting(state, command.actor)
    check_not_riding(mover)
    check_action(mover, ActionType.MOVE, state.condition_rules)
    distance = check_path(state, mover, command.path)
    steps = [(cell, mover.ascension) for cell in command.path]
    events: list[Event] = [Moved(mover.id, command.path, distance, ActionType.MOVE)]
    # "Ride Combat": riders go where their ride goes.
    events += carry_riders_events(state, mover.id, command.path[-1])
    events += opportunities_along(state, mover, steps)
    return events + movement_side_effects(state, mover)


@VERSE.decides(Face)
def decide_face(state: Encounter, command: Face, cup: DiceCup) -> list[Event]:
    actor = acting(state, command.actor)  # an Instant action (V17): nothing to spend
    directions = state.grid.directions
    if type(command.facing) is not int or not 0 <= command.facing < directions:
        raise CommandRefused(INVALID_COMMAND, f"facing must be 0 to {directions - 1} on this grid")
    return [Faced(actor.id, command.facing)]


@VERSE.decides(OpportunityAttack)
def decide_opportunity_attack(
    state: Encounter, command: OpportunityAttack, cup: DiceCup
) -> list[Event]:
    """V22 / "Attack of Opportunity": one attack, out of turn allowed, no action spent.

    In Live Combat it is only ever an answer to a window (live.py), resolving on the stack.
    """
    if state.phase != Phase.COMBAT:
        raise CommandRefused(WRONG_PHASE, not_fighting(state))
    if state.mode == Mode.LIVE and state.resolving != command.actor:
        raise CommandRefused(
            WRONG_PHASE, "in Live Combat an attack of opportunity answers its window"
        )
    actor = combatant(state, command.actor)
    if not actor.active:
        raise CommandRefused(INCAPACITATED, f"{actor.id} cannot act")
    lost = losing_reactions(state.condition_rules, actor)
    if lost:
        raise CommandRefused(
            CONDITION_FORBIDS,
            f"{actor.id} cannot make an attack of opportunity while {lost} (the conditions table)",
        )
    target = standing_target(state, command.target)
    if target.id not in actor.opportunities:
        raise CommandRefused(
            NO_OPPORTUNITY, f"{actor.id} has no attack of opportunity against {target.id}"
        )
    weapon = weapon_of(actor, command.weapon)
    if weapon.kind not in MELEE_KINDS:
        raise CommandRefused(
            WEAPON_UNUSABLE, f"an attack of opportunity is made in melee, not with {weapon.name}"
        )
    events: list[Event] = [OpportunityTaken(actor.id, target.id)]
    return events + resolve_attack(state, cup, actor, target, weapon, ActionType.INSTANT)


# --- appliers -------------------------------------------------------------------


@VERSE.applies(Moved)
def apply_moved(state: Encounter, event: Moved) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    before = event.path[-2] if len(event.path) > 1 else c.position
    facing = facing_toward(state.grid, before, event.path[-1])
    actions = spend(c.actions, event.action, moved_ft=event.distance_ft)
    return state.with_combatant(evolve(c, position=event.path[-1], facing=facing, actions=actions))


@VERSE.applies(Faced)
def apply_faced(state: Encounter, event: Faced) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    return state.with_combatant(evolve(c, facing=event.facing))


@VERSE.applies(OpportunityOpened)
def apply_opportunity_opened(state: Encounter, event: OpportunityOpened) -> Encounter:
    for holder_id in event.by:
        holder: VerseCombatant = state.combatants[holder_id]
        if event.mover not in holder.opportunities:
            opportunities = (*holder.opportunities, event.mover)
            state = state.with_combatant(evolve(holder, opportunities=opportunities))
    return state


@VERSE.applies(OpportunityTaken)
def apply_opportunity_taken(state: Encounter, event: OpportunityTaken) -> Encounter:
    c: VerseCombatant = state.combatants[event.actor]
    left = tuple(t for t in c.opportunities if t != event.target)
    return state.with_combatant(evolve(c, opportunities=left))
