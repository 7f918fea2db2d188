"""Who may answer an action with a prepared move (T2), and with which.

Before an action resolves, a reaction window opens for exactly those who may answer it
(V21's stack, which T2 puts Tael's preparations on); nobody, no window. A combatant may
answer when it is in its Preparation Phase with its one preparation unused and it is
able to act, and a move it may still use (the announced one, or any if none is
announced) is set off by the action:

- `melee_attack`: a melee weapon attack (an Attack Action, an off-hand attack, a
  prepared strike) or a Punch aimed at it;
- `ranged_attack`: a ranged weapon attack aimed at it;
- `spell`: a spell with it among the targets;
- `attacked`: any of those;
- `ally_attacked`: any of those aimed at an ally within one tile of it.

Every window asks each combatant once; answers are at most `MAX_STACK_DEPTH` deep and a
preparation is used once a phase, so no chain of answers can loop. Movement, generic
actions and the rest set off nothing (TR24).
"""

from __future__ import annotations

from server.engine.core import Command
from server.engine.flow import Ask, Pending
from server.engine.rulesets.tael.attacks import AttackAction, PreparedStrike
from server.engine.rulesets.tael.bonus import Punch
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.condition_rules import PREPARATION, lost
from server.engine.rulesets.tael.positions import MELEE_RANGE
from server.engine.rulesets.tael.preparations import usable_moves
from server.engine.rulesets.tael.sheet import PreparationMove, Trigger, WeaponKind
from server.engine.rulesets.tael.spells import SpellAction
from server.engine.state import Encounter

MAX_STACK_DEPTH = 4
SELF_TRIGGERS = {
    Trigger.MELEE_ATTACK: (Trigger.MELEE_ATTACK, Trigger.ATTACKED),
    Trigger.RANGED_ATTACK: (Trigger.RANGED_ATTACK, Trigger.ATTACKED),
    Trigger.SPELL: (Trigger.SPELL, Trigger.ATTACKED),
}


def aimed_at(state: Encounter, action: Command) -> dict[str, Trigger]:
    """Whom `action` attacks, and as what (`melee_attack`, `ranged_attack`, `spell`).
    Malformed actions aim at nobody: their own deciders refuse them."""
    if isinstance(action, (AttackAction, PreparedStrike)):
        actor: TaelCombatant | None = state.combatants.get(action.actor)
        if actor is None or not isinstance(action.target, str):
            return {}
        name = action.weapon or actor.main_hand
        if isinstance(action, AttackAction) and action.off_hand:
            name = action.weapon or actor.turn.off_hand
        weapon = actor.sheet.weapon(name) if isinstance(name, str) else None
        ranged = weapon is not None and weapon.kind == WeaponKind.RANGED
        return {action.target: Trigger.RANGED_ATTACK if ranged else Trigger.MELEE_ATTACK}
    if isinstance(action, Punch) and isinstance(action.target, str):
        return {action.target: Trigger.MELEE_ATTACK}
    if isinstance(action, SpellAction) and isinstance(action.targets, tuple):
        return {t: Trigger.SPELL for t in action.targets if isinstance(t, str)}
    return {}


def sets_off(
    state: Encounter, c: TaelCombatant, move: PreparationMove, aimed: dict[str, Trigger]
) -> bool:
    """Does an action aimed as `aimed` set off `c`'s `move`?"""
    if move.trigger == Trigger.ALLY_ATTACKED:
        for target_id in aimed:
            target: TaelCombatant | None = state.combatants.get(target_id)
            if (
                target is not None
                and target.id != c.id
                and target.side == c.side
                and state.grid.cells_between(c.position, target.position) <= MELEE_RANGE
            ):
                return True
        return False
    kind = aimed.get(c.id)
    return kind is not None and move.trigger in SELF_TRIGGERS[kind]


def reaction_asks(state: Encounter, pending: Pending) -> tuple[Ask, ...]:
    """T2: everyone whose prepared move `pending` sets off, and those moves."""
    if pending.depth >= MAX_STACK_DEPTH:
        return ()
    aimed = aimed_at(state, pending.action)
    if not aimed:
        return ()
    asks = []
    for cid in sorted(state.combatants):  # asked in id order: pinned by the state hash
        c: TaelCombatant = state.combatants[cid]
        if cid == pending.actor or lost(state.condition_rules, c, PREPARATION):
            continue  # TR40: a status that takes the Preparation away
        options = tuple(m.name for m in usable_moves(c) if sets_off(state, c, m, aimed))
        if options:
            asks.append(Ask(cid, options))
    return tuple(asks)
