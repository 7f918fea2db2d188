"""The Tael ruleset object and the look-ups every Tael module shares."""

from __future__ import annotations

from server.engine.core import COMMON, Ruleset, register_ruleset
from server.engine.errors import (
    INCAPACITATED,
    NOT_YOUR_TURN,
    TARGET_DOWN,
    UNKNOWN_COMBATANT,
    WRONG_PHASE,
    CommandRefused,
)
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.state import Encounter, Phase

TAEL = register_ruleset(Ruleset("tael", COMMON))
ROUND_SECONDS = 6  # "One Round takes a total of 6 seconds in-game time" (T1)


def combatant(state: Encounter, combatant_id: str) -> TaelCombatant:
    found: TaelCombatant | None = state.combatants.get(combatant_id)
    if found is None:
        raise CommandRefused(UNKNOWN_COMBATANT, f"no combatant {combatant_id!r} in this encounter")
    return found


def acting(state: Encounter, actor_id: str) -> TaelCombatant:
    """The actor of an action: its turn, or its prepared move resolving (T2); able to act."""
    if state.phase != Phase.COMBAT:
        raise CommandRefused(WRONG_PHASE, "combat is not running")
    actor = combatant(state, actor_id)
    if state.current != actor_id and state.resolving != actor_id:
        raise CommandRefused(NOT_YOUR_TURN, f"it is {state.current}'s turn, not {actor_id}'s")
    if not actor.active:
        raise CommandRefused(INCAPACITATED, f"{actor_id} cannot act")
    return actor


def on_turn(state: Encounter, actor_id: str) -> TaelCombatant:
    """The actor of something only its own Action Phase allows (not a prepared move)."""
    actor = acting(state, actor_id)
    if state.current != actor_id:
        raise CommandRefused(NOT_YOUR_TURN, f"it is {state.current}'s turn, not {actor_id}'s")
    return actor


def living_target(state: Encounter, target_id: str) -> TaelCombatant:
    """A target: anyone not dead. A fainted character can still be hit (T8)."""
    target = combatant(state, target_id)
    if target.dead:
        raise CommandRefused(TARGET_DOWN, f"{target_id} is dead")
    return target
