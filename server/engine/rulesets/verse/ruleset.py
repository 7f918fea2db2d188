"""The Verse ruleset object and the look-ups every Verse module shares."""

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
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.state import Encounter, Phase, not_fighting

VERSE = register_ruleset(Ruleset("verse", COMMON))


def combatant(state: Encounter, combatant_id: str) -> VerseCombatant:
    found: VerseCombatant | None = state.combatants.get(combatant_id)
    if found is None:
        raise CommandRefused(UNKNOWN_COMBATANT, f"no combatant {combatant_id!r} in this encounter")
    return found


def acting(state: Encounter, actor_id: str) -> VerseCombatant:
    """The actor of an action: its turn, or its stacked answer resolving (V21); able to act."""
    if state.phase != Phase.COMBAT:
        raise CommandRefused(WRONG_PHASE, not_fighting(state))
    actor = combatant(state, actor_id)
    if state.current != actor_id and state.resolving != actor_id:
        raise CommandRefused(NOT_YOUR_TURN, f"it is {state.current}'s turn, not {actor_id}'s")
    if not actor.active:
        raise CommandRefused(INCAPACITATED, f"{actor_id} cannot act")
    return actor


def standing_target(state: Encounter, target_id: str) -> VerseCombatant:
    target = combatant(state, target_id)
    if not target.alive:
        raise CommandRefused(TARGET_DOWN, f"{target_id} is dead")
    return target
