"""Ascension levels: height bands of 10 ft and moving between them (Verse "Ascension Levels").

"Each Ascension Level is 10 feet in height ... Above 10 feet off the ground is
considered to be Ascension 1 while below ground level starts Ascension -1. Characters
and rides that fly must keep track of what level of Ascension they are as must those
that can burrow or dive underwater." Ride Combat: "Ascending ... is considered a move
action. As a Full Round Action, a Ride can Ascend and Attack those above them ...
Otherwise, combatants can only attack other combatants on the same field of combat as
them." Descending likewise. `attacks.check_reach` already refuses attacks across levels.

Readings (docs/rules.md):

- `ChangeAscension` moves one level up or down per Move action: 10 ft, which the speed
  below must cover (halved in Defensive Stance, V18); the horizontal cell stays.
- The speed that changes levels follows the environment: air -> fly, water -> swim,
  underground -> burrow. In a land fight, above ground level (a step to or from a
  level above 0) needs fly, below it (to or from a level below 0) needs burrow.
- The cell at the new level must not be held by another active combatant there.
- A ride that changes level carries its riders with it (`rides.carry_riders_events`,
  as a moving ride does); a mounted rider cannot change level on its own: it must
  dismount first or move the ride (`invalid_command`, as for `Move`).
- Leaving a level leaves the reach of every foe on it: those whose reach held the
  mover and who saw it are entitled to an attack of opportunity (V22, movement.py).
- `AscendAttack` is the non-ride combatant's version of "Ascend and Attack" / "descend
  and attack": a Full Round Action (V17) that moves exactly one level toward a target
  exactly one level above or below and attacks it there with a melee, natural or
  ranged weapon (a throw needs its Strength check: use Move then Attack); the turn then
  ends. The text's "if they are skilled in doing so" names no skill, so none is checked.
- The table row "4: 51'-60'" breaks the 10 ft pattern of every other row and leaves
  41'-50' without a level: we read it as a typo for 41'-50' (`ascension_of_height`).
"""

from __future__ import annotations

import math

from server.engine.core import Command, Event, apply_all
from server.engine.dice import DiceCup
from server.engine.errors import (
    BLOCKED,
    INVALID_COMMAND,
    NO_MOVEMENT_SPEED,
    OTHER_ASCENSION,
    TOO_FAR,
    WEAPON_UNUSABLE,
    CommandRefused,
)
from server.engine.records import evolve, record
from server.engine.rulesets.verse.attacks import check_reach, resolve_attack, weapon_of
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.interruptions import movement_side_effects
from server.engine.rulesets.verse.movement import (
    check_not_riding,
    opportunities_along,
    stance_limit_ft,
)
from server.engine.rulesets.verse.positions import blocker_at
from server.engine.rulesets.verse.rides import carry_riders_events
from server.engine.rulesets.verse.ruleset import VERSE, acting, standing_target
from server.engine.rulesets.verse.sheet import ActionType, WeaponKind
from server.engine.rulesets.verse.turns import check_action, end_of_turn_events, spend
from server.engine.state import Encounter, Environment

LEVEL_FT = 10  # "Each Ascension Level is 10 feet in height"


@record
class ChangeAscension(Command):
    """Ascend (`levels` = 1) or descend (-1) one Ascension level: a Move action."""

    actor: str
    levels: int


@record
class AscendAttack(Command):
    """Ascend or descend one level to `target`'s level and attack it: a Full Round Action."""

    actor: str
    target: str
    weapon: str = ""


@record
class AscensionChanged(Event):
    combatant: str
    from_level: int
    to_level: int
    distance_ft: int
    action: str


def ascension_of_height(feet: float) -> int:
    """The Ascension level of a height in feet above (negative: below) ground level.

    GL to 10': 0; 11'-20': 1; 21'-30': 2; ... ; -1' to -10': -1; -11' to -20': -2; ...
    Heights between the rows (10.5') belong to the higher band: "Above 10 feet off the
    ground is considered to be Ascension 1".
    """
    if feet >= 0:
        return max(0, math.ceil(feet / LEVEL_FT) - 1)
    return -math.ceil(-feet / LEVEL_FT)


def ascension_speed(c: VerseCombatant, environment: str, from_level: int, to_level: int) -> int:
    """The speed that moves `c` between two adjacent levels (see the module docstring)."""
    speeds = c.sheet.speeds
    env = Environment(environment)
    if env == Environment.AIR:
        return speeds.fly
    if env == Environment.WATER:
        return speeds.swim
    if env == Environment.UNDERGROUND:
        return speeds.burrow
    return speeds.fly if max(from_level, to_level) > 0 else speeds.burrow


def check_level_change(state: Encounter, c: VerseCombatant, to_level: int) -> None:
    """Refuse a one-level change `c` has no speed, room or movement left for."""
    speed = ascension_speed(c, state.environment, c.ascension, to_level)
    if speed <= 0:
        raise CommandRefused(
            NO_MOVEMENT_SPEED,
            f"{c.id} cannot move from Ascension {c.ascension} to {to_level} here "
            "(it needs a fly, swim or burrow speed)",
        )
    limit = stance_limit_ft(c, speed)
    if limit < LEVEL_FT:
        raise CommandRefused(TOO_FAR, f"a level is {LEVEL_FT} ft; {c.id} can move {limit} ft")
    blocker = blocker_at(state, c, c.position, to_level)
    if blocker is not None:
        raise CommandRefused(BLOCKED, f"{blocker.id} holds that cell on Ascension {to_level}")


def level_change_events(
    state: Encounter, c: VerseCombatant, to_level: int, action: str
) -> list[Event]:
    """The change itself, the riders it carries along, the attacks of opportunity it
    opens, a lost charge."""
    events: list[Event] = [AscensionChanged(c.id, c.ascension, to_level, LEVEL_FT, action)]
    # "Ride Combat": riders go where their ride goes, up and down too.
    events += carry_riders_events(state, c.id, c.position, to_level)
    events += opportunities_along(state, c, [(c.position, to_level)])
    return events + movement_side_effects(state, c)


@VERSE.decides(ChangeAscension)
def decide_change_ascension(
    state: Encounter, command: ChangeAscension, cup: DiceCup
) -> list[Event]:
    actor = acting(state, command.actor)
    check_not_riding(actor)
    if command.levels not in (1, -1):
        raise CommandRefused(INVALID_COMMAND, "one Move action changes one Ascension level")
    check_action(actor, ActionType.MOVE)
    to_level = actor.ascension + command.levels
    check_level_change(state, actor, to_level)
    return level_change_events(state, actor, to_level, ActionType.MOVE)


@VERSE.decides(AscendAttack)
def decide_ascend_attack(state: Encounter, command: AscendAttack, cup: DiceCup) -> list[Event]:
    """Ride Combat: "As a Full Round Action, a Ride can Ascend and Attack those above them"
    (and descend and attack those below); the Full Round Action ends the turn (V17)."""
    actor = acting(state, command.actor)
    check_not_riding(actor)
    check_action(actor, ActionType.FULL_ROUND)
    weapon = weapon_of(actor, command.weapon)
    if weapon.kind == WeaponKind.THROWN:
        raise CommandRefused(
            WEAPON_UNUSABLE, "a throw needs its Strength check: change level, then Attack"
        )
    target = standing_target(state, command.target)
    if abs(target.ascension - actor.ascension) != 1:
        raise CommandRefused(
            OTHER_ASCENSION,
            f"{target.id} is on Ascension {target.ascension}; {actor.id} on "
            f"{actor.ascension} can only ascend or descend one level to attack",
        )
    check_level_change(state, actor, target.ascension)
    events = level_change_events(state, actor, target.ascension, ActionType.FULL_ROUND)
    there = apply_all(state, events)
    moved: VerseCombatant = there.combatants[actor.id]
    target = there.combatants[target.id]
    check_reach(there, moved, target, weapon)
    attack = resolve_attack(there, cup, moved, target, weapon, ActionType.FULL_ROUND)
    after = apply_all(there, attack)
    return events + attack + end_of_turn_events(after)


@VERSE.applies(AscensionChanged)
def apply_ascension_changed(state: Encounter, event: AscensionChanged) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    actions = spend(c.actions, event.action, moved_ft=event.distance_ft)
    return state.with_combatant(evolve(c, ascension=event.to_level, actions=actions))
