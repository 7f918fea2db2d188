"""Turn order, rounds and the shape of a turn (T1, T2, T8).

T1: "Every combatant will have to roll a d20 and add his Initiative Modifier to it. The
highest number will go first ...; if two or more characters have the same result, it
will be decided by who has the higher Agility-Value. If the Agility-Value is also
identical, the Intelligence-Value will be compared. If that, too, should be identical,
it will be determined by a re-roll of the dice between the tied characters." One round
takes 6 seconds (`ruleset.ROUND_SECONDS`).

T2: a turn is an Action Phase, then the Preparation Phase, which lasts until the
character's next turn. The turn's player ends the Action Phase (`EndTurn`); using up
the Actions does not end it by itself, since movement and Bonus Actions may be left
(TR3).

A turn starts with what the rules do by themselves: a fainted character's Willpower
check (T8; on a natural 20 it stands up and plays the turn), then the damage of its
status effects (T6, TR14). A fainted character, or one whose status makes it lose its
turns, loses the turn (`TurnLost`) and no Preparation Phase follows it. The dead have
no turns.

The fight is played turn by turn: Tael has no Live Combat planning (TR1), so
`StartCombat` in an encounter set to Live Combat is refused.

A command plays on until a turn waits for its combatant. If a whole round passes in
which nobody could take a turn (all fainted, or losing their turns), it stops at the
start of the next round (`state.current` is None) and the GM's `EndTurn` plays on
round by round (TR17), so one command never plays an unbounded number of rounds.
"""

from __future__ import annotations

from server.engine.core import Event
from server.engine.dice import DiceCup
from server.engine.errors import (
    INVALID_COMMAND,
    NOT_YOUR_TURN,
    WINDOW_OPEN,
    WRONG_PHASE,
    CommandRefused,
)
from server.engine.flow import Mode
from server.engine.records import evolve, record
from server.engine.rulesets.tael.combatant import FRESH_TURN, Preparation, TaelCombatant
from server.engine.rulesets.tael.condition_rules import PREPARATION, TURN, lost
from server.engine.rulesets.tael.fainting import willpower_events
from server.engine.rulesets.tael.ruleset import TAEL, combatant
from server.engine.rulesets.tael.status_upkeep import turn_upkeep
from server.engine.rulesets.tael.statuses import counted_down, expiring, status_damage
from server.engine.stack import Run
from server.engine.state import Encounter, Phase, TurnSlot, not_fighting
from server.engine.turns import (
    EndTurn,
    InitiativeRoll,
    InitiativeRolled,
    RoundEnded,
    RoundStarted,
    StartCombat,
    TurnEnded,
    TurnStarted,
)

MAX_TIE_REROLLS = 20


@record
class TurnLost(Event):
    """The turn is lost: its combatant is fainted (T8) or a status takes it (T6)."""

    combatant: str
    reason: str


# --- initiative (T1) -----------------------------------------------------------------


def roll_initiative(state: Encounter, cup: DiceCup) -> InitiativeRolled:
    """T1 for everyone not dead, dice dealt in id order (pinned by the state hash).

    The order's `TurnSlot.dexterity` holds the Agility value (the first tie-break) and
    `tiebreak` the place Intelligence and the re-rolls gave among equal initiative and
    Agility: sorting the slots by initiative, Agility, then tiebreak gives the order.
    """
    made: list[InitiativeRoll] = []
    for cid in sorted(state.combatants):
        c: TaelCombatant = state.combatants[cid]
        if c.dead:
            continue
        mods = (("Initiative", c.sheet.initiative),) if c.sheet.initiative else ()
        made.append(InitiativeRoll(cid, cup.d20(mods)))
    keys = {
        r.combatant: (
            r.roll.total,
            state.combatants[r.combatant].sheet.value("agility"),
            state.combatants[r.combatant].sheet.value("intelligence"),
        )
        for r in made
    }
    rerolled, tiebreak_rolls = _reroll_ties(keys, cup)
    ranked = sorted(keys, key=lambda cid: (*(-k for k in keys[cid]), -rerolled[cid], cid))
    order = []
    for cid in ranked:
        total, agility, _ = keys[cid]
        beaten = [
            other
            for other in ranked[ranked.index(cid) + 1 :]
            if keys[other][:2] == (total, agility)
        ]
        order.append(TurnSlot(cid, total, agility, len(beaten)))
    return InitiativeRolled(tuple(made), tuple(tiebreak_rolls), tuple(order))


def _reroll_ties(
    keys: dict[str, tuple[int, int, int]], cup: DiceCup
) -> tuple[dict[str, int], list[InitiativeRoll]]:
    """T1's last tie-break: the tied re-roll, pass after pass, until they differ.

    Each pass scales every earlier re-roll so an earlier pass stays decisive; after
    `MAX_TIE_REROLLS` passes id order decides (it never comes to that with real dice).
    """
    rerolled = dict.fromkeys(keys, 0)
    rolls: list[InitiativeRoll] = []
    for _ in range(MAX_TIE_REROLLS):
        groups: dict[tuple[int, int, int, int], list[str]] = {}
        for cid in sorted(keys):
            groups.setdefault((*keys[cid], rerolled[cid]), []).append(cid)
        tied = [cid for members in groups.values() if len(members) > 1 for cid in members]
        if not tied:
            break
        for cid in rerolled:
            rerolled[cid] *= 21
        for cid in tied:
            roll = cup.d20()
            rerolled[cid] += roll.total
            rolls.append(InitiativeRoll(cid, roll))
    return rerolled, rolls


# --- playing turns -------------------------------------------------------------------


def end_turn(run: Run, combatant_id: str) -> None:
    """End `combatant_id`'s turn: the statuses in their last turn run out first."""
    run.emit(*expiring(run.state.combatants[combatant_id]))
    run.emit(TurnEnded(combatant_id))


def lose_turn(run: Run, combatant_id: str, reason: str) -> None:
    run.emit(TurnLost(combatant_id, reason))
    end_turn(run, combatant_id)


def begin_turn(run: Run, combatant_id: str, index: int) -> bool:
    """Start a turn and do what the rules do by themselves; True if it waits for its
    combatant, False if the turn was lost."""
    run.emit(TurnStarted(combatant_id, index))
    c: TaelCombatant = run.state.combatants[combatant_id]
    if c.fainted:
        run.emit(*willpower_events(run.cup, c, run.state.condition_rules))
        c = run.state.combatants[combatant_id]
        if c.dead:
            run.emit(TurnEnded(combatant_id))
            return False
        if c.fainted:
            lose_turn(run, combatant_id, "fainted")
            return False
    status_damage(run, combatant_id)
    turn_upkeep(run, combatant_id)  # TR40: the conditions table's damage and saves
    c = run.state.combatants[combatant_id]
    if c.fainted:
        lose_turn(run, combatant_id, "fainted")
        return False
    rules = run.state.condition_rules
    taking = [s.name for s in c.statuses if s.skips_turn or lost(rules, c, TURN, s.name)]
    if taking:
        lose_turn(run, combatant_id, ", ".join(taking))
        return False
    return True


def play_on(run: Run) -> None:
    """From the current turn index, start turns until one waits for its combatant.

    Stops at the start of a round when the whole round before it had no turn that
    waited (module docstring).
    """
    waited_this_round = run.state.turn >= 0
    for _ in range(3):
        state = run.state
        for index in range(state.turn + 1, len(state.turn_order)):
            cid = state.turn_order[index].combatant
            c: TaelCombatant | None = run.state.combatants.get(cid)
            if c is None or c.dead:
                continue
            if begin_turn(run, cid, index):
                return
        run.emit(RoundEnded(run.state.round), RoundStarted(run.state.round + 1))
        if not waited_this_round or not any(c.active for c in run.state.combatants.values()):
            return
        waited_this_round = False
    raise AssertionError("a round without turns did not stop the play")


# --- deciders ------------------------------------------------------------------------


@TAEL.decides(StartCombat)
def decide_start(state: Encounter, command: StartCombat, cup: DiceCup) -> list[Event]:
    if state.phase != Phase.SETUP:
        raise CommandRefused(WRONG_PHASE, not_fighting(state))
    if state.mode == Mode.LIVE:
        raise CommandRefused(
            INVALID_COMMAND, "World of Tael is played turn by turn: set the mode to turn_based"
        )
    run = Run(state, cup)
    run.emit(roll_initiative(state, cup), RoundStarted(1))
    play_on(run)
    return run.decided()


@TAEL.decides(EndTurn)
def decide_end_turn(state: Encounter, command: EndTurn, cup: DiceCup) -> list[Event]:
    """The current combatant (or the GM, `actor` ""), ends the Action Phase (T2)."""
    if state.phase != Phase.COMBAT:
        raise CommandRefused(WRONG_PHASE, "combat is not running")
    if state.window is not None:
        raise CommandRefused(WINDOW_OPEN, f"window {state.window.id} is waiting for answers")
    current = state.current
    if command.actor:
        combatant(state, command.actor)
        if current != command.actor:
            raise CommandRefused(NOT_YOUR_TURN, f"it is not {command.actor}'s turn")
    run = Run(state, cup)
    if current is not None:
        end_turn(run, current)
    play_on(run)
    return run.decided()


# --- appliers ------------------------------------------------------------------------


@TAEL.applies(InitiativeRolled)
def apply_initiative(state: Encounter, event: InitiativeRolled) -> Encounter:
    return evolve(state, turn_order=event.order, phase=Phase.COMBAT)


@TAEL.applies(RoundStarted)
def apply_round_started(state: Encounter, event: RoundStarted) -> Encounter:
    return evolve(state, round=event.round, turn=-1)


@TAEL.applies(RoundEnded)
def apply_round_ended(state: Encounter, event: RoundEnded) -> Encounter:
    return state


@TAEL.applies(TurnStarted)
def apply_turn_started(state: Encounter, event: TurnStarted) -> Encounter:
    """A fresh Action Phase: its Preparation Phase is over (T2), its Brace ends (TR19),
    and after a Sprint its movement is 0 (T9)."""
    c: TaelCombatant = state.combatants[event.combatant]
    fresh = evolve(FRESH_TURN, movement_factor=0) if c.winded else FRESH_TURN
    c = evolve(c, turn=fresh, winded=False, braced=False, preparation=Preparation.NONE, prepared="")
    return evolve(state.with_combatant(c), turn=event.turn)


@TAEL.applies(TurnLost)
def apply_turn_lost(state: Encounter, event: TurnLost) -> Encounter:
    c: TaelCombatant = state.combatants[event.combatant]
    return state.with_combatant(c.with_turn(lost=True))


@TAEL.applies(TurnEnded)
def apply_turn_ended(state: Encounter, event: TurnEnded) -> Encounter:
    """The Preparation Phase begins (T2), unless the turn was lost or Brace took it (T9);
    statuses count one more turn down."""
    c: TaelCombatant = state.combatants[event.combatant]
    open_ = c.active and not c.turn.lost and not c.braced
    open_ = open_ and not lost(state.condition_rules, c, PREPARATION)  # TR40
    c = evolve(
        c,
        statuses=counted_down(c),
        preparation=Preparation.OPEN if open_ else Preparation.NONE,
        prepared="",
    )
    return state.with_combatant(c)
