"""Initiative, rounds, turns and the action economy (Verse V16, V17).

V16: one initiative `d20 + Dexterity + bonuses` per full 30 ft of speed in the
fight's environment (at least one); every roll is a turn in the round. The bonuses are
the sheet's `initiative_bonus` (R76). Ties go to
the higher Dexterity, then to a re-roll between the tied.
V17: per turn one Standard, one Move, one Swift and any number of Instant actions;
a Full Round Action uses Standard and Move, needs a turn with no non-Instant action
used yet, and ends the turn.
"""

from __future__ import annotations

from server.engine.core import Event, apply_all
from server.engine.dice import DiceCup
from server.engine.effects import Rules
from server.engine.errors import (
    ACTION_USED,
    CONDITION_FORBIDS,
    NOT_YOUR_TURN,
    WRONG_PHASE,
    CommandRefused,
)
from server.engine.flow import Mode
from server.engine.records import evolve
from server.engine.rulesets.verse.combatant import NO_ACTIONS_USED, ActionsUsed, VerseCombatant
from server.engine.rulesets.verse.condition_rules import lost_action
from server.engine.rulesets.verse.condition_upkeep import round_upkeep
from server.engine.rulesets.verse.interruptions import lapsed_charges
from server.engine.rulesets.verse.ruleset import VERSE, combatant
from server.engine.rulesets.verse.sheet import ActionType
from server.engine.rulesets.verse.windows import planning_window
from server.engine.state import Encounter, Environment, Phase, TurnSlot, not_fighting
from server.engine.turns import EndTurn as EndTurn
from server.engine.turns import InitiativeRoll as InitiativeRoll
from server.engine.turns import InitiativeRolled as InitiativeRolled
from server.engine.turns import RoundEnded as RoundEnded
from server.engine.turns import RoundStarted as RoundStarted
from server.engine.turns import StartCombat as StartCombat
from server.engine.turns import TurnEnded as TurnEnded
from server.engine.turns import TurnStarted as TurnStarted

FEET_PER_INITIATIVE = 30
MAX_TIE_REROLLS = 20


# --- the rules ------------------------------------------------------------------


def speed_in(c: VerseCombatant, environment: str) -> int:
    """V16: the speed that counts is the one of the environment the fight is in."""
    speeds = c.sheet.speeds
    return {
        Environment.LAND: speeds.land,
        Environment.WATER: speeds.swim,
        Environment.AIR: speeds.fly,
        Environment.UNDERGROUND: speeds.burrow,
    }[Environment(environment)]


def initiative_count(c: VerseCombatant, environment: str) -> int:
    """V16: one initiative per full 30 ft of speed, at least one."""
    return max(1, speed_in(c, environment) // FEET_PER_INITIATIVE)


def initiative_modifiers(c: VerseCombatant) -> tuple[tuple[str, int], ...]:
    """V16: `d20 + Dexterity + bonuses`; the bonuses (and penalties) are the sheet's
    `initiative_bonus` (R76), named in the roll only when there are any."""
    bonus = c.sheet.initiative_bonus
    dexterity = ("Dexterity", c.abilities.dexterity)
    return (dexterity, ("Initiative bonus", bonus)) if bonus else (dexterity,)


def roll_initiative(state: Encounter, cup: DiceCup) -> InitiativeRolled:
    made: list[InitiativeRoll] = []
    # Sorted by id: the dice go to combatants in an order the state hash pins down.
    for cid in sorted(state.combatants):
        c = state.combatants[cid]
        if not c.alive:
            continue
        for _ in range(initiative_count(c, state.environment)):
            made.append(InitiativeRoll(c.id, cup.d20(initiative_modifiers(c))))
    slots = [
        TurnSlot(r.combatant, r.roll.total, state.combatants[r.combatant].abilities.dexterity)
        for r in made
    ]
    tiebreaks = _break_ties(slots, cup)
    order = sorted(slots, key=lambda s: (-s.initiative, -s.dexterity, -s.tiebreak, s.combatant))
    return InitiativeRolled(tuple(made), tuple(tiebreaks), tuple(order))


def _break_ties(slots: list[TurnSlot], cup: DiceCup) -> list[InitiativeRoll]:
    """V16: equal initiative and Dexterity re-roll between the tied until they differ.

    Each pass scales every slot's tie-break and adds a re-roll to the tied ones only, so
    an earlier pass always outranks a later one. Two turns of the same combatant tied
    with nobody else need no re-roll: their order does not matter.
    """
    rolls: list[InitiativeRoll] = []
    for _ in range(MAX_TIE_REROLLS):
        groups: dict[tuple[int, int, int], list[int]] = {}
        for i, s in enumerate(slots):
            groups.setdefault((s.initiative, s.dexterity, s.tiebreak), []).append(i)
        tied = [
            i
            for members in groups.values()
            if len({slots[m].combatant for m in members}) > 1
            for i in members
        ]
        if not tied:
            break
        rerolled = {i: cup.d20() for i in tied}
        for i, s in enumerate(slots):
            roll = rerolled.get(i)
            slots[i] = evolve(s, tiebreak=s.tiebreak * 21 + (roll.total if roll else 0))
            if roll is not None:
                rolls.append(InitiativeRoll(s.combatant, roll))
    return rolls


MAX_IDLE_ROUNDS = 20  # rounds in which nobody can act, passed at once


def next_turn_events(state: Encounter, after: int, cup: DiceCup) -> list[Event]:
    """The events that move play from turn index `after` to the next able combatant.

    A round in which nobody can act passes at once, its conditions ticking at its end
    (someone stunned for one round acts in the next), as long as someone will be able
    to act once they run out; otherwise the fight waits for a GM override (R63). What the
    conditions table makes happen at a round's end is rolled with `cup` (V27)."""
    events: list[Event] = []
    order = state.turn_order
    for index in range(after + 1, len(order)):
        if state.combatants[order[index].combatant].active:
            events.append(TurnStarted(order[index].combatant, index))
            return events
    for _ in range(MAX_IDLE_ROUNDS):
        ended = [
            *lapsed_charges(state),
            *round_upkeep(state, cup),
            RoundEnded(state.round),
            RoundStarted(state.round + 1),
        ]
        events += ended
        state = apply_all(state, ended)
        for index, slot in enumerate(order):
            if state.combatants[slot.combatant].active:
                events.append(TurnStarted(slot.combatant, index))
                return events
        if not any(c.recovers for c in state.combatants.values()):
            break
    return events


def check_action(actor: VerseCombatant, action: str, rules: Rules) -> None:
    """V17: refuse an action this turn has already spent, or one a condition takes away
    (V27: its entry in the conditions table `rules` loses it)."""
    if rules and actor.conditions:
        name, what = lost_action(rules, actor, action)
        if name:
            raise CommandRefused(
                CONDITION_FORBIDS,
                f"{actor.id} cannot take a {what} action while {name} (the conditions table)",
            )
    used = actor.actions
    if action == ActionType.STANDARD and not used.standard and not used.full_round:
        return  # the common case first: an attack on a fresh turn
    if action == ActionType.INSTANT:
        return
    if action == ActionType.FULL_ROUND:
        if used.standard or used.move or used.swift or used.full_round:
            raise CommandRefused(
                ACTION_USED, "a Full Round Action needs a turn with no other action used yet"
            )
        return
    if used.full_round:
        raise CommandRefused(ACTION_USED, "a Full Round Action has already used this turn")
    if (
        (action == ActionType.STANDARD and used.standard)
        or (action == ActionType.MOVE and used.move)
        or (action == ActionType.SWIFT and used.swift)
    ):
        raise CommandRefused(ACTION_USED, f"{actor.id} has already used its {action} action")


_SPENT: dict[tuple[ActionsUsed, str], ActionsUsed] = {}


def spend(used: ActionsUsed, action: str, moved_ft: int = 0) -> ActionsUsed:
    """The actions used after `action` (checked already by `check_action`)."""
    if action == ActionType.INSTANT and not moved_ft:
        return used
    if not moved_ft:
        # Only a few dozen distinct values exist: remember them (a hot path of apply).
        key = (used, action)
        found = _SPENT.get(key)
        if found is None:
            found = _SPENT[key] = _spend(used, action, 0)
        return found
    return _spend(used, action, moved_ft)


def _spend(used: ActionsUsed, action: str, moved_ft: int) -> ActionsUsed:
    return ActionsUsed(
        standard=used.standard or action in (ActionType.STANDARD, ActionType.FULL_ROUND),
        move=used.move or action in (ActionType.MOVE, ActionType.FULL_ROUND),
        swift=used.swift or action == ActionType.SWIFT,
        full_round=used.full_round or action == ActionType.FULL_ROUND,
        moved_ft=used.moved_ft + moved_ft,
    )


def end_of_turn_events(state: Encounter, cup: DiceCup) -> list[Event]:
    """What ends the current turn and starts the next (after a Full Round Action too)."""
    current = state.current
    events: list[Event] = [TurnEnded(current)] if current else []
    return events + next_turn_events(apply_all(state, events), state.turn, cup)


# --- deciders -------------------------------------------------------------------


@VERSE.decides(StartCombat)
def decide_start(state: Encounter, command: StartCombat, cup: DiceCup) -> list[Event]:
    if state.phase != Phase.SETUP:
        raise CommandRefused(WRONG_PHASE, not_fighting(state))
    rolled = roll_initiative(state, cup)
    events: list[Event] = [rolled, RoundStarted(1)]
    if state.mode == Mode.LIVE:
        # V20: a Live Combat round opens with everyone declaring at once.
        return [*events, planning_window(evolve(state, turn_order=rolled.order))]
    for index, slot in enumerate(rolled.order):
        if state.combatants[slot.combatant].active:
            events.append(TurnStarted(slot.combatant, index))
            break
    return events


@VERSE.decides(EndTurn)
def decide_end_turn(state: Encounter, command: EndTurn, cup: DiceCup) -> list[Event]:
    if state.phase != Phase.COMBAT:
        raise CommandRefused(WRONG_PHASE, not_fighting(state))
    if state.mode == Mode.LIVE:
        raise CommandRefused(
            WRONG_PHASE, "in Live Combat a turn ends when its declared actions have resolved"
        )
    if command.actor:
        combatant(state, command.actor)
        if state.current != command.actor:
            raise CommandRefused(NOT_YOUR_TURN, f"it is not {command.actor}'s turn")
    return end_of_turn_events(state, cup)


# --- appliers -------------------------------------------------------------------


@VERSE.applies(InitiativeRolled)
def apply_initiative(state: Encounter, event: InitiativeRolled) -> Encounter:
    return evolve(state, turn_order=event.order, phase=Phase.COMBAT)


@VERSE.applies(RoundStarted)
def apply_round_started(state: Encounter, event: RoundStarted) -> Encounter:
    """A new round: the Defensive Action allowance resets (V22); mana pledges lapse
    (R74: a pledge is for the round it was made in)."""
    combatants = {
        cid: evolve(c, defensive_used=False, pledges=()) if c.defensive_used or c.pledges else c
        for cid, c in state.combatants.items()
    }
    return evolve(
        state,
        round=event.round,
        turn=-1,
        turn_over=False,
        combatants=combatants,
        declarations=(),
    )


@VERSE.applies(RoundEnded)
def apply_round_ended(state: Encounter, event: RoundEnded) -> Encounter:
    """Round-long conditions tick down (LIVE_COMBAT step 8)."""
    combatants = {
        cid: c.with_conditions_ticked(per_turn=False) for cid, c in state.combatants.items()
    }
    return evolve(state, combatants=combatants)


@VERSE.applies(TurnStarted)
def apply_turn_started(state: Encounter, event: TurnStarted) -> Encounter:
    c = state.combatants[event.combatant]
    if c.actions is not NO_ACTIONS_USED or c.opportunities or c.holding:
        # A new turn: fresh actions (V17); the attacks of opportunity it was owed since
        # its last turn lapse (movement.py, "Opportunity lifetime"); a hold ends (V19).
        state = state.with_combatant(
            evolve(c, actions=NO_ACTIONS_USED, opportunities=(), holding=False)
        )
    return evolve(state, turn=event.turn, turn_over=False)


@VERSE.applies(TurnEnded)
def apply_turn_ended(state: Encounter, event: TurnEnded) -> Encounter:
    c = state.combatants[event.combatant]
    return state.with_combatant(c.with_conditions_ticked(per_turn=True))
