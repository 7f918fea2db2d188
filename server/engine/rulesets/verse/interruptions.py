"""What interrupts a spell being charged (Verse V12), for every module that moves or defends.

V12: a spell that takes more than one action "must be charged, uninterrupted"; a Move
action or a Defensive action breaks the charge and the mana already paid is gone.
This module sits below spells.py, movement.py and rides.py in the import order so
that each of them (Move, ChangeAscension, AscendAttack, Mount, Dismount, Dodge,
Block) can lose a charge the same way: `movement_side_effects` for a move,
`break_charge_events` with its own reason otherwise.
"""

from __future__ import annotations

from server.engine.core import Event
from server.engine.records import evolve, record
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.ruleset import VERSE
from server.engine.state import Encounter


@record
class ChargeLost(Event):
    """V12: the charge is interrupted; the spell does not go off and its mana is gone."""

    caster: str
    spell: str
    reason: str


def break_charge_events(state: Encounter, combatant_id: str, reason: str) -> list[Event]:
    """V12: `[ChargeLost]` when the combatant is charging a spell, else `[]`.

    For the modules of the interrupting actions: a Move action ("moved"), a Defensive
    action ("dodged", "blocked").
    """
    c: VerseCombatant | None = state.combatants.get(combatant_id)
    if c is None or c.charging is None:
        return []
    return [ChargeLost(combatant_id, c.charging.spell, reason)]


def lapsed_charges(state: Encounter) -> list[Event]:
    """V12 at a round's end: a spell is charged "uninterrupted", one action every round,
    so a charge that was not carried on this round is lost (the caster did not, or
    could not: stunned, its turn skipped)."""
    return [
        ChargeLost(c.id, c.charging.spell, f"not charged in round {state.round}")
        for c in (state.combatants[cid] for cid in sorted(state.combatants))
        if c.charging is not None and c.charging.charged_in < state.round
    ]


def movement_side_effects(state: Encounter, mover: VerseCombatant) -> list[Event]:
    """What moving does besides moving: a spell being charged is lost (V12).

    Every Move action calls it: Move, ChangeAscension, AscendAttack, Mount, Dismount.
    """
    return break_charge_events(state, mover.id, "moved")


@VERSE.applies(ChargeLost)
def apply_charge_lost(state: Encounter, event: ChargeLost) -> Encounter:
    c: VerseCombatant = state.combatants[event.caster]
    return state.with_combatant(evolve(c, charging=None))
