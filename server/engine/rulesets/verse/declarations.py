"""What a Live Combat declaration is checked for when it is declared (R78).

V20: declarations are made in the planning window and resolve later, in initiative
order, while the fight changes; each action is checked again when its turn comes, and
one whose target is gone then gets an adapt window (V23). Some declarations, though,
could never become legal before they resolve. R78 refuses those at once, with the code
the action would be refused with on its turn, so the player can still choose another
while the planning window is open (R71 did it for a path that skips a cell, R72 for a
weapon not in hand).

"Could never become legal" counts what the rules let the combatants do before the
action resolves, and nothing the GM may do: only the GM's overrides bring the dead back
(`RemoveCondition`), add a combatant or place one anywhere (`SetPosition`), and a
declaration does not wait on them, as R72 does not wait on `RecoverItem`. So:

- a target (or ride, observer or helper) that is not in the fight (`unknown_combatant`)
  or dead with no end to it (`target_down`; a helper: `incapacitated`): nothing but the
  GM removes Dead. A target only down (Unconscious, Stunned) is a target still;
- a target out of any reach this round: farther than the actor and the target could
  close between them plus the weapon's reach or range or the spell's range
  (`out_of_reach`, `out_of_range`), or more Ascension levels away than both could climb
  (`other_ascension`). How far each could get (`travel_ft`, `levels_reach`) ignores
  whatever could stand in the way and every choice it would have to make, so nothing
  refused here could have come within reach;
- a move longer than one Move action could ever cover (its environment's speed, whole:
  a stance may change first), a mover with no speed for it (`no_movement_speed`), a path
  that starts farther from the mover than it could be by then (`too_far`), an empty path
  or level change (`invalid_command`);
- what the sheets fix and nothing in a fight changes: an unknown or inaccessible spell,
  a self-only spell aimed at another, a mount that is not a ride or not of the rider's
  side, a thrown weapon in an Ascend and Attack, an attack or stealth check on oneself.

The speeds counted are the sheet's, raised by the most the encounter's conditions table
could make of them (V27: `speed` changes; anyone may gain any condition before its turn,
so every entry counts, and only what raises). The grid
has no edge and nothing on it blocks for good (only able combatants hold a cell, and
they move or fall), so no cell is refused for that. Everything else (speed left, free
cells, the places earlier actions leave everyone in) is checked when the action
resolves, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from server.engine.effects import greatest_value
from server.engine.errors import (
    INCAPACITATED,
    INVALID_COMMAND,
    NO_MOVEMENT_SPEED,
    NOT_A_RIDE,
    OTHER_ASCENSION,
    OTHER_SIDE,
    OUT_OF_RANGE,
    OUT_OF_REACH,
    TARGET_DOWN,
    TOO_FAR,
    WEAPON_UNUSABLE,
    CommandRefused,
)
from server.engine.grid import Cell
from server.engine.memo import last_answer
from server.engine.rulesets.verse.ascension import LEVEL_FT, AscendAttack, ChangeAscension
from server.engine.rulesets.verse.attacks import Attack, weapon_of
from server.engine.rulesets.verse.awareness import StealthCheck
from server.engine.rulesets.verse.combatant import DEAD, VerseCombatant
from server.engine.rulesets.verse.movement import MELEE_KINDS, Move
from server.engine.rulesets.verse.positions import MELEE_REACH_FT
from server.engine.rulesets.verse.rides import Dismount, Mount
from server.engine.rulesets.verse.ruleset import combatant
from server.engine.rulesets.verse.sheet import Spell, SpellRange, SpellShape, Weapon, WeaponKind
from server.engine.rulesets.verse.spell_charges import ChargeSpell
from server.engine.rulesets.verse.spell_costs import is_named_amounts
from server.engine.rulesets.verse.spell_mana import castable_spell
from server.engine.rulesets.verse.spell_shapes import RANGE_FT, affects_caster_only
from server.engine.rulesets.verse.spells import CastSpell
from server.engine.rulesets.verse.turns import speed_in
from server.engine.state import Encounter, Environment, TurnSlot

# --- how far anyone could get this round ---------------------------------------------


def turns_this_round(state: Encounter, combatant_id: str) -> int:
    return _turns(state.turn_order).get(combatant_id, 0)


@last_answer
def _turns(order: tuple[TurnSlot, ...]) -> dict[str, int]:
    """How many turns each combatant has this round (asked for every target of every
    declaration the choices try: `memo`)."""
    turns: dict[str, int] = {}
    for slot in order:
        turns[slot.combatant] = turns.get(slot.combatant, 0) + 1
    return turns


@last_answer
def _rides(combatants: Mapping[str, VerseCombatant]) -> tuple[VerseCombatant, ...]:
    """Every ride in the fight, by id (`memo`)."""
    return tuple(sorted((c for c in combatants.values() if c.sheet.is_ride), key=by_id))


def by_id(c: VerseCombatant) -> str:
    return c.id


def rides_for(state: Encounter, c: VerseCombatant) -> list[VerseCombatant]:
    """The rides that could carry `c` this round: the one it sits on and every living
    ride of its side (it may mount them); none for a ride, which mounts nothing."""
    if c.sheet.is_ride:
        return []
    return [
        ride
        for ride in _rides(state.combatants)
        if ride.id != c.id and ride.alive and (ride.side == c.side or ride.id == c.mounted_on)
    ]


SPEED = "speed"  # the conditions table's key for a speed (V27, condition_rules.py)


def greatest_speed(state: Encounter, speed: int) -> int:
    """The most any conditions of the encounter's table could make of `speed` (V27):
    every multiplier above 1 and every bonus together, or the highest floor or value one
    sets. Whatever lowers a speed is left out (`effects.greatest_value`, exact, R82)."""
    rules = state.condition_rules
    changes = (change for rule in rules for change in rule.changes if change.key == SPEED)
    return greatest_value(changes, speed)


def move_speed(state: Encounter, c: VerseCombatant) -> int:
    """The most one Move of `c` could cover: its environment's speed, whole (a Defensive
    Stance may be left first), as its conditions could raise it."""
    return greatest_speed(state, speed_in(c, state.environment))


def _own_ft(state: Encounter, c: VerseCombatant) -> int:
    """One Move-type action a turn (V17): a Move covers `move_speed` at most, Mount and
    Dismount one cell."""
    each = max(move_speed(state, c), state.grid.cell_ft)
    return turns_this_round(state, c.id) * each


def travel_ft(state: Encounter, c: VerseCombatant) -> int:
    """The farthest `c` could be from where it stands by the end of this round, by the
    rules alone: its own moves, the moves of every ride that could carry it, a cell each
    time it could be thrown from one (once for each mount, and the ride it sits on)."""
    farthest = _own_ft(state, c)
    rides = rides_for(state, c)
    ridden = state.combatants.get(c.mounted_on) if c.mounted_on else None
    if rides or ridden is not None:
        farthest += sum(_own_ft(state, ride) for ride in rides)
        farthest += (turns_this_round(state, c.id) + 1) * state.grid.cell_ft
    if ridden is not None:  # a rider stands in its ride's cell; if not, the way there
        farthest += state.grid.distance_ft(c.position, ridden.position)
    return farthest


def climb_ft(state: Encounter, c: VerseCombatant) -> int:
    """How far one change of level carries `c` (V26): the speed the environment uses for
    it (on land fly above ground level and burrow below it, the larger counted)."""
    speeds = c.sheet.speeds
    environment = Environment(state.environment)
    if environment == Environment.AIR:
        speed = speeds.fly
    elif environment == Environment.WATER:
        speed = speeds.swim
    elif environment == Environment.UNDERGROUND:
        speed = speeds.burrow
    else:
        speed = max(speeds.fly, speeds.burrow)
    return greatest_speed(state, speed)


def levels_reach(state: Encounter, c: VerseCombatant) -> int:
    """The most Ascension levels `c` could change by the end of this round: one change
    a turn (`ChangeAscension` or `AscendAttack`), and what rides could carry it."""

    def own(x: VerseCombatant) -> int:
        return turns_this_round(state, x.id) * (climb_ft(state, x) // LEVEL_FT)

    levels = own(c) + sum(own(ride) for ride in rides_for(state, c))
    ridden = state.combatants.get(c.mounted_on) if c.mounted_on else None
    if ridden is not None:
        levels += abs(ridden.ascension - c.ascension)
    return levels


# --- the checks ------------------------------------------------------------------------


def dead_for_good(c: VerseCombatant) -> bool:
    """Dead with no end to it: nothing but the GM takes that condition away."""
    return any(condition.name == DEAD and condition.rounds is None for condition in c.conditions)


def declared_target(state: Encounter, target_id: str) -> VerseCombatant:
    target = combatant(state, target_id)
    if dead_for_good(target):
        raise CommandRefused(TARGET_DOWN, f"{target.id} is dead")
    return target


def check_levels(state: Encounter, actor: VerseCombatant, target: VerseCombatant) -> None:
    gap = abs(actor.ascension - target.ascension)
    if gap == 0:  # no climb to work out (a declaration's common case)
        return
    climb = levels_reach(state, actor) + levels_reach(state, target)
    if gap > climb:
        raise CommandRefused(
            OTHER_ASCENSION,
            f"{target.id} is on Ascension {target.ascension}, {actor.id} on "
            f"{actor.ascension}: {gap} levels apart, more than they could close between "
            "them this round",  # no number: the target's speeds may be another side's
        )


def check_within_reach(
    state: Encounter,
    actor: VerseCombatant,
    target: VerseCombatant,
    reach_ft: int,
    code: str,
    reaches: str,
) -> None:
    """Refuse a target no move this round could bring within `reach_ft` of `actor`.
    `reaches` says what reaches how far ("spear reaches 10 ft")."""
    check_levels(state, actor, target)
    distance = state.grid.distance_ft(actor.position, target.position)
    if distance <= reach_ft:  # within reach already: no moves to work out
        return
    closing = 0 if target.id == actor.id else travel_ft(state, actor) + travel_ft(state, target)
    if distance > closing + reach_ft:
        raise CommandRefused(
            code,
            f"{target.id} is {distance} ft away: {reaches}, and {actor.id} and {target.id} "
            "could not close the rest between them this round",  # the target's speed is
            # another side's number (R77): the message gives no sum it could be read from
        )


def check_weapon_reach(
    state: Encounter, actor: VerseCombatant, target: VerseCombatant, weapon: Weapon
) -> None:
    if weapon.kind in MELEE_KINDS:
        reach = weapon.reach_ft or MELEE_REACH_FT
        check_within_reach(
            state, actor, target, reach, OUT_OF_REACH, f"{weapon.name} reaches {reach} ft"
        )
    else:
        reach = weapon.range_ft
        check_within_reach(
            state, actor, target, reach, OUT_OF_RANGE, f"{weapon.name} ranges {reach} ft"
        )


def _attack(state: Encounter, actor: VerseCombatant, action: Attack) -> None:
    if action.target == actor.id:
        raise CommandRefused(INVALID_COMMAND, f"{actor.id} cannot attack itself")
    target = declared_target(state, action.target)
    check_weapon_reach(state, actor, target, weapon_of(actor, action.weapon))


def _ascend_attack(state: Encounter, actor: VerseCombatant, action: AscendAttack) -> None:
    weapon = weapon_of(actor, action.weapon)
    if weapon.kind == WeaponKind.THROWN:
        raise CommandRefused(
            WEAPON_UNUSABLE, "a throw needs its Strength check: change level, then Attack"
        )
    check_climb(state, actor, OUT_OF_REACH)
    if action.target == actor.id:
        raise CommandRefused(INVALID_COMMAND, f"{actor.id} cannot attack itself")
    check_weapon_reach(state, actor, declared_target(state, action.target), weapon)


def spell_reach_ft(state: Encounter, spell: Spell) -> int:
    """V15, R15: Touch is the next cell; Self reaches the caster's own cell only."""
    if spell.range == SpellRange.TOUCH:
        return state.grid.cell_ft
    return RANGE_FT[SpellRange(spell.range)]


def check_aim(
    state: Encounter,
    actor: VerseCombatant,
    spell: Spell,
    targets: tuple[str, ...],
    cell: Cell | None,
) -> None:
    """A spell's targets and cell (as `spell_shapes.aim` takes them) that no move this
    round could bring within its range or onto the caster's level."""
    if not isinstance(targets, tuple) or not all(isinstance(t, str) for t in targets):
        raise CommandRefused(INVALID_COMMAND, "targets are combatant ids")
    if cell is not None and not isinstance(cell, Cell):
        raise CommandRefused(INVALID_COMMAND, "the target cell must be a cell")
    if affects_caster_only(spell):
        if targets not in ((), (actor.id,)) or cell is not None:
            raise CommandRefused(INVALID_COMMAND, f"{spell.name} affects its caster only")
        return
    reach = spell_reach_ft(state, spell)
    reaches = f"{spell.name} reaches {reach} ft"
    if spell.shape == SpellShape.SINGLE:
        for target_id in targets:
            target = declared_target(state, target_id)
            check_within_reach(state, actor, target, reach, OUT_OF_RANGE, reaches)
    elif cell is None and targets:  # a Cone, Line or Area aimed by its first target
        first = declared_target(state, targets[0])
        if spell.shape == SpellShape.AREA:  # centred on it
            check_within_reach(state, actor, first, reach, OUT_OF_RANGE, reaches)
        else:  # a Cone or Line takes only its direction from it
            check_levels(state, actor, first)
    elif cell is not None and spell.shape == SpellShape.AREA:
        distance = state.grid.distance_ft(actor.position, cell)
        moving = travel_ft(state, actor)
        if distance > moving + reach:
            raise CommandRefused(
                OUT_OF_RANGE,
                f"({cell.x}, {cell.y}) is {distance} ft away: {reaches}, and {actor.id} "
                f"can move at most {moving} ft this round",
            )


def check_helpers(state: Encounter, named: tuple[Any, ...]) -> None:
    """V12 helpers and pledgers must be in the fight, and not dead for good."""
    if not is_named_amounts(named):
        return  # malformed: refused as `invalid_command` when it resolves
    for helper_id, _ in named:
        helper = combatant(state, helper_id)
        if dead_for_good(helper):
            raise CommandRefused(INCAPACITATED, f"{helper.id} is dead and cannot help cast")


def _cast(state: Encounter, actor: VerseCombatant, action: CastSpell) -> None:
    spell = castable_spell(actor, action.spell)  # the sheet's spells never change in a fight
    check_helpers(state, action.helpers)
    check_helpers(state, action.pledged)
    check_aim(state, actor, spell, action.targets, action.target)


def _charge(state: Encounter, actor: VerseCombatant, action: ChargeSpell) -> None:
    """A new aim for the spell being charged now, when this action completes the charge
    (one action a round, V12); any other `ChargeSpell` aims at nothing yet."""
    charge = actor.charging
    if charge is None or charge.actions_done + 1 < charge.actions_needed:
        return
    if not action.targets and action.target is None:
        return  # the cast's own aim, checked when cast
    spell = actor.sheet.spell(charge.spell)
    if spell is not None:
        check_aim(state, actor, spell, action.targets, action.target)


def _stealth(state: Encounter, actor: VerseCombatant, action: StealthCheck) -> None:
    if action.observer == actor.id:
        raise CommandRefused(INVALID_COMMAND, "a combatant cannot sneak past itself")
    declared_target(state, action.observer)


def _mount(state: Encounter, actor: VerseCombatant, action: Mount) -> None:
    if actor.sheet.is_ride:
        raise CommandRefused(INVALID_COMMAND, f"{actor.id} is a ride and cannot mount another")
    ride = combatant(state, action.ride)
    if not ride.sheet.is_ride:
        raise CommandRefused(NOT_A_RIDE, f"{ride.id} is not a ride")
    if dead_for_good(ride):
        raise CommandRefused(TARGET_DOWN, f"{ride.id} is dead and carries nobody")
    if ride.side != actor.side:
        raise CommandRefused(OTHER_SIDE, f"{ride.id} is not on {actor.id}'s side")
    cell = state.grid.cell_ft
    check_within_reach(state, actor, ride, cell, OUT_OF_REACH, f"a ride is mounted from {cell} ft")


def _dismount(state: Encounter, actor: VerseCombatant, action: Dismount) -> None:
    if not isinstance(action.cell, Cell):
        raise CommandRefused(INVALID_COMMAND, "Dismount names the cell to step down into")
    distance = state.grid.distance_ft(actor.position, action.cell)
    moving = travel_ft(state, actor)
    if distance > moving + state.grid.cell_ft:
        raise CommandRefused(
            OUT_OF_REACH,
            f"({action.cell.x}, {action.cell.y}) is {distance} ft from {actor.id}: a rider "
            f"steps down next to its ride, and {actor.id} can be at most {moving} ft from "
            "here by then",
        )


def _move(state: Encounter, actor: VerseCombatant, action: Move) -> None:
    path = action.path
    if not isinstance(path, tuple) or not all(isinstance(cell, Cell) for cell in path):
        raise CommandRefused(INVALID_COMMAND, "a path is a list of cells")
    if not path:
        raise CommandRefused(INVALID_COMMAND, "a move needs at least one step")
    speed = move_speed(state, actor)
    if speed <= 0:
        raise CommandRefused(
            NO_MOVEMENT_SPEED, f"{actor.id} has no {state.environment} speed to move with"
        )
    length = len(path) * state.grid.cell_ft
    if length > speed:
        raise CommandRefused(
            TOO_FAR,
            f"a path of {len(path)} steps is {length} ft, more than {actor.id} can move in "
            f"one move: {speed} ft",
        )
    start = path[0]
    distance = state.grid.distance_ft(actor.position, start)
    moving = travel_ft(state, actor)
    if distance > moving + state.grid.cell_ft:
        raise CommandRefused(
            TOO_FAR,
            f"the path starts at ({start.x}, {start.y}), {distance} ft from {actor.id}, "
            f"which can be at most {moving} ft from where it stands before it moves",
        )


def check_climb(state: Encounter, actor: VerseCombatant, beyond: str, levels: int = 1) -> None:
    """A change of `levels` Ascension levels that no one move of `actor` could make."""
    climb = climb_ft(state, actor)
    if climb <= 0:
        raise CommandRefused(
            NO_MOVEMENT_SPEED,
            f"{actor.id} has no speed to change its Ascension level in a {state.environment} fight",
        )
    if levels * LEVEL_FT > climb:
        raise CommandRefused(
            beyond,
            f"{levels * LEVEL_FT} ft of Ascension ({levels} level(s)) is more than "
            f"{actor.id} can move up or down in one move: {climb} ft",
        )


def _change_ascension(state: Encounter, actor: VerseCombatant, action: ChangeAscension) -> None:
    levels = action.levels
    if type(levels) is not int or levels == 0:
        raise CommandRefused(
            INVALID_COMMAND, "levels is a whole number of levels: up above 0, down below 0"
        )
    check_climb(state, actor, TOO_FAR, abs(levels))


CHECKS: dict[type, Callable[[Encounter, VerseCombatant, Any], None]] = {
    Attack: _attack,
    AscendAttack: _ascend_attack,
    CastSpell: _cast,
    ChargeSpell: _charge,
    StealthCheck: _stealth,
    Mount: _mount,
    Dismount: _dismount,
    Move: _move,
    ChangeAscension: _change_ascension,
}


def check_declared(state: Encounter, actor: VerseCombatant, actions: tuple[Any, ...]) -> None:
    """R78: refuse a declared action that nothing but the GM could make legal before it
    resolves (module docstring)."""
    for action in actions:
        check = CHECKS.get(type(action))
        if check is not None:
            check(state, actor, action)
