"""Ascension levels: height bands of 10 ft and moving between them (Verse "Ascension Levels").

"Each Ascension Level is 10 feet in height ... Above 10 feet off the ground is
considered to be Ascension 1 while below ground level starts Ascension -1. Characters
and rides that fly must keep track of what level of Ascension they are as must those
that can burrow or dive underwater." Ride Combat: "Ascending ... is considered a move
action. As a Full Round Action, a Ride can Ascend and Attack those above them ...
Otherwise, combatants can only attack other combatants on the same field of combat as
them." Descending likewise. `attacks.check_reach` already refuses attacks across levels.

V26: ascending and descending are Move actions, so one covers as many levels as the
mover's flying (swimming, burrowing) speed allows, 10 ft a level; the Full Round
"Ascend and Attack" may change as many levels as that move allows, then attacks a
combatant on the level reached.

Readings (docs/rules.md):

- `ChangeAscension` moves `levels` levels up (positive) or down (negative) in one Move
  action: 10 ft a level, all of it within the speed that carries the mover (halved in
  Defensive Stance, V18); the horizontal cell stays.
- The speed that changes levels follows the environment: air -> fly, water -> swim,
  underground -> burrow. In a land fight, above ground level (a step to or from a
  level above 0) needs fly, below it (to or from a level below 0) needs burrow. A
  change that crosses ground level uses both: each level is reached within the speed
  that carries the mover there, the feet already moved counted (R75: rising from
  Ascension -1 to 2 is 30 ft, so it needs a fly speed of 30 and a burrow speed of 10).
- The cell must be free on every level passed and on the level reached: no other
  active combatant there (R75, as a `Move` may not step through a held cell, R33).
- A ride that changes level carries its riders with it (`rides.carry_riders_events`,
  as a moving ride does); a mounted rider cannot change level on its own: it must
  dismount first or move the ride (`invalid_command`, as for `Move`).
- Leaving a level leaves the reach of every foe on it: those whose reach held the
  mover and who saw it are entitled to an attack of opportunity (V22, movement.py),
  on the level it starts from and on every level it passes (each foe once, R34).
- `AscendAttack` is the non-ride combatant's version of "Ascend and Attack" / "descend
  and attack": a Full Round Action (V17) that moves toward a target on another level,
  up or down as many levels as the move allows (V26; the level reached is the
  target's, since attacks stay on one level), and attacks it there with a melee,
  natural or ranged weapon (a throw needs its Strength check: use Move then Attack);
  the turn then ends. A target more levels away than the move allows is out of reach
  (`out_of_reach`, so a declared one gets an adapt window, V23). The text's "if they
  are skilled in doing so" names no skill, so none is checked.
- The table row "4: 51'-60'" breaks the 10 ft pattern of every other row and leaves
  41'-50' without a level: we read it as a typo for 41'-50' (`ascension_of_height`).
"""

from __future__ import annotations

import math

from server.engine.core import Command, Event, apply_all
from server.engine.dice import DiceCup
from server.engine.effects import Rules, describe_changes
from server.engine.errors import (
    BLOCKED,
    INVALID_COMMAND,
    NO_MOVEMENT_SPEED,
    OTHER_ASCENSION,
    OUT_OF_REACH,
    TOO_FAR,
    WEAPON_UNUSABLE,
    CommandRefused,
)
from server.engine.grid import Cell
from server.engine.records import evolve, record
from server.engine.rulesets.verse.attacks import check_reach, resolve_attack, weapon_of
from server.engine.rulesets.verse.combatant import Stance, VerseCombatant
from server.engine.rulesets.verse.condition_rules import changed
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
    """Ascend (`levels` > 0) or descend (`levels` < 0) that many Ascension levels: a Move
    action (V26: as many as the speed allows, 10 ft a level)."""

    actor: str
    levels: int


@record
class AscendAttack(Command):
    """Ascend or descend to `target`'s level, as many levels as one move allows (V26),
    and attack it there: a Full Round Action."""

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


def levels_passed(from_level: int, to_level: int) -> range:
    """The levels a change from `from_level` to `to_level` reaches, one after another."""
    step = 1 if to_level > from_level else -1
    return range(from_level + step, to_level + step, step)


def longest_climb_ft(c: VerseCombatant, rules: Rules = ()) -> int:
    """The farthest any of `c`'s fly, swim or burrow speeds carries it in one move,
    after its conditions' changes to speed (V27, `rules`)."""
    speeds = c.sheet.speeds
    fastest = max(speeds.fly, speeds.swim, speeds.burrow, 0)
    if fastest and rules:
        fastest = max(fastest, changed(rules, c, "speed", fastest)[0])
    return stance_limit_ft(c, fastest)


def check_level_change(
    state: Encounter, c: VerseCombatant, to_level: int, beyond: str = TOO_FAR
) -> int:
    """Refuse a change of level `c` has no speed, room or movement for (V26, R75); the
    feet it takes. `beyond`: the code when the move is too short (an attack's target
    too far up or down is `out_of_reach`)."""
    here = c.ascension
    if to_level == here:
        raise CommandRefused(INVALID_COMMAND, f"{c.id} is on Ascension {here} already")
    longest = longest_climb_ft(c, state.condition_rules)
    if longest and abs(to_level - here) * LEVEL_FT > longest:
        # A cheap bound before the walk below (a mover with none of these speeds is
        # left to the walk, which says which speed it lacks).
        levels = abs(to_level - here)
        raise CommandRefused(
            beyond,
            f"{levels} levels are {levels * LEVEL_FT} ft, more than {c.id} can move "
            f"up or down in one move",
        )
    moved = 0
    level = here
    for reached in levels_passed(here, to_level):
        moved += LEVEL_FT
        speed = ascension_speed(c, state.environment, level, reached)
        if speed <= 0:
            raise CommandRefused(
                NO_MOVEMENT_SPEED,
                f"{c.id} cannot move from Ascension {level} to {reached} here "
                "(it needs a fly, swim or burrow speed)",
            )
        speed, changes = changed(state.condition_rules, c, "speed", speed)  # V27
        limit = stance_limit_ft(c, speed)
        if moved > limit:
            stance = " (half in Defensive Stance)" if c.stance == Stance.DEFENSIVE else ""
            why = f" ({describe_changes(changes)})" if changes else ""
            raise CommandRefused(
                beyond,
                f"Ascension {reached} is {moved} ft from {here}, a level being {LEVEL_FT} ft; "
                f"{c.id} can move {limit} ft there{why}{stance}",
            )
        blocker = blocker_at(state, c, c.position, reached)
        if blocker is not None:
            raise CommandRefused(BLOCKED, f"{blocker.id} holds that cell on Ascension {reached}")
        level = reached
    return moved


def level_steps(c: VerseCombatant, to_level: int, rules: Rules = ()) -> list[tuple[Cell, int]]:
    """The change as steps (cell, level), one a level, for the attacks of opportunity it
    opens (`movement.opportunities_along`); none for a change no speed could make."""
    longest = longest_climb_ft(c, rules)
    if to_level == c.ascension or abs(to_level - c.ascension) * LEVEL_FT > longest:
        return []
    return [(c.position, level) for level in levels_passed(c.ascension, to_level)]


def level_change_events(
    state: Encounter, c: VerseCombatant, to_level: int, distance_ft: int, action: str
) -> list[Event]:
    """The change itself, the riders it carries along, the attacks of opportunity it
    opens, a lost charge."""
    events: list[Event] = [AscensionChanged(c.id, c.ascension, to_level, distance_ft, action)]
    # "Ride Combat": riders go where their ride goes, up and down too.
    events += carry_riders_events(state, c.id, c.position, to_level)
    events += opportunities_along(state, c, level_steps(c, to_level, state.condition_rules))
    return events + movement_side_effects(state, c)


@VERSE.decides(ChangeAscension)
def decide_change_ascension(
    state: Encounter, command: ChangeAscension, cup: DiceCup
) -> list[Event]:
    actor = acting(state, command.actor)
    check_not_riding(actor)
    if type(command.levels) is not int or command.levels == 0:
        raise CommandRefused(
            INVALID_COMMAND, "levels is a whole number of levels: up above 0, down below 0"
        )
    check_action(actor, ActionType.MOVE, state.condition_rules)
    to_level = actor.ascension + command.levels
    distance = check_level_change(state, actor, to_level)
    return level_change_events(state, actor, to_level, distance, ActionType.MOVE)


@VERSE.decides(AscendAttack)
def decide_ascend_attack(state: Encounter, command: AscendAttack, cup: DiceCup) -> list[Event]:
    """Ride Combat: "As a Full Round Action, a Ride can Ascend and Attack those above them"
    (and descend and attack those below), as many levels as the move allows (V26); the
    Full Round Action ends the turn (V17)."""
    actor = acting(state, command.actor)
    check_not_riding(actor)
    check_action(actor, ActionType.FULL_ROUND, state.condition_rules)
    weapon = weapon_of(actor, command.weapon)
    if weapon.kind == WeaponKind.THROWN:
        raise CommandRefused(
            WEAPON_UNUSABLE, "a throw needs its Strength check: change level, then Attack"
        )
    target = standing_target(state, command.target)
    if target.ascension == actor.ascension:
        raise CommandRefused(
            OTHER_ASCENSION,
            f"{target.id} is on {actor.id}'s Ascension {actor.ascension}: attack it (Attack)",
        )
    distance = check_level_change(state, actor, target.ascension, beyond=OUT_OF_REACH)
    events = level_change_events(state, actor, target.ascension, distance, ActionType.FULL_ROUND)
    there = apply_all(state, events)
    moved: VerseCombatant = there.combatants[actor.id]
    target = there.combatants[target.id]
    check_reach(there, moved, target, weapon)
    attack = resolve_attack(there, cup, moved, target, weapon, ActionType.FULL_ROUND)
    after = apply_all(there, attack)
    return events + attack + end_of_turn_events(after, cup)


@VERSE.applies(AscensionChanged)
def apply_ascension_changed(state: Encounter, event: AscensionChanged) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    actions = spend(c.actions, event.action, moved_ft=event.distance_ft)
    return state.with_combatant(evolve(c, ascension=event.to_level, actions=actions))
