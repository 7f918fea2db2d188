"""Who may answer an action, and how (V19, V21, V22, V25).

Before an action resolves, a reaction window opens for exactly the characters allowed to
answer it (V21); `reaction_asks` says who they are and what each may answer:

- "dodge" / "block": the target of a weapon attack, in Live Combat only, if aware of the
  attacker (`awareness.aware_of_attack`, the View of Attack) and it has not used its one
  Defensive Action this round; "block" needs a weapon or shield in hand (V22).
- "hold": a holder, with its held Standard or Swift still unused (V19), in any window.
- "holder_dodge": a holder targeted by a ranged or thrown attack (V19).
- "quick_response": in Live Combat, a character with a Quick Response feat that sees a
  Swift or Move action being taken (V22).
- "opportunity": anyone whose reach a moving character leaves or passes through (V22),
  in both modes.

After an attack resolves, `counter_asks` opens the counter window (Live Combat only): the
defender after a successful Defensive Action, if it has a Counter feat; after a miss, each
character with a Counter feat within reach of the attacker (V22).

Turn Based Combat (V25) keeps only holders, the holder's Dodge and attacks of
opportunity. A single-target spell is an attack on each of its targets (V1): its targets
may Dodge it (not Block it), when it goes off: a cast that only begins a charge is
answered when the charge's last step fires (V12).
"""

from __future__ import annotations

from server.engine.core import Command, Event
from server.engine.flow import Ask, Mode, Pending
from server.engine.grid import Cell
from server.engine.rulesets.verse import awareness
from server.engine.rulesets.verse.ascension import AscendAttack, ChangeAscension, level_steps
from server.engine.rulesets.verse.attacks import (
    CRITICAL_FAIL,
    MISS,
    UNARMED,
    Attack,
    AttackRolled,
)
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.condition_rules import reacts
from server.engine.rulesets.verse.defences import DefenceRolled, blocking_item
from server.engine.rulesets.verse.live_actions import Counter, action_type_of
from server.engine.rulesets.verse.movement import (
    Move,
    OpportunityAttack,
    opportunities_along,
    opportunity_reach_ft,
)
from server.engine.rulesets.verse.positions import distance_ft
from server.engine.rulesets.verse.sheet import ActionType, FeatKind, SpellShape, WeaponKind
from server.engine.rulesets.verse.spell_charges import ChargeSpell
from server.engine.rulesets.verse.spells import CastSpell, SpellAttackRolled, cast_time_of
from server.engine.state import Encounter

MAX_STACK_DEPTH = 4  # answers to answers to answers...: then no more windows open

DODGE = "dodge"
BLOCK = "block"
HOLD = "hold"
HOLDER_DODGE = "holder_dodge"
QUICK_RESPONSE = "quick_response"
OPPORTUNITY = "opportunity"
COUNTER = "counter"
ADAPT = "adapt"
DECLARE = "declare"
DEFENCES = (DODGE, BLOCK, HOLDER_DODGE)
WEAPON_ATTACKS = (Attack, Counter, OpportunityAttack, AscendAttack)


def attack_targets(actor: VerseCombatant, action: Command) -> tuple[str, ...]:
    """Who an attack is aimed at: a weapon attack's target, or the targets of a
    single-target spell (each its own attack, V1). Cones, lines and areas aim at places,
    not at anyone, and other actions at nobody."""
    if isinstance(action, WEAPON_ATTACKS):
        return (action.target,)
    if isinstance(action, CastSpell) and isinstance(action.targets, tuple):
        spell = actor.sheet.spell(action.spell)
        if spell is not None and spell.shape == SpellShape.SINGLE and goes_off_now(actor, action):
            return action.targets
    if isinstance(action, ChargeSpell) and actor.charging is not None:
        charge = actor.charging
        spell = actor.sheet.spell(charge.spell)
        last_step = charge.actions_done + 1 >= charge.actions_needed
        if spell is not None and spell.shape == SpellShape.SINGLE and last_step:
            return (
                action.targets
                if isinstance(action.targets, tuple) and action.targets
                else (charge.targets)
            )
    return ()


def goes_off_now(actor: VerseCombatant, action: CastSpell) -> bool:
    """Does this cast resolve now, or only begin a charge (V12)? A charge is answered
    when its last step goes off, not when it begins."""
    return cast_time_of(actor, action) <= 1


def weapon_kind(actor: VerseCombatant, action: Command) -> str:
    name = getattr(action, "weapon", "")
    weapon = actor.sheet.weapon(name) if name else UNARMED
    return weapon.kind if weapon is not None else WeaponKind.MELEE


def entitled_to_opportunity(state: Encounter, mover: VerseCombatant, action: Command) -> set[str]:
    """Foes whose reach this move leaves or passes through (V22): a Move along its path,
    or a change of Ascension level, which leaves the reach of foes on the old level."""
    if isinstance(action, ChangeAscension):
        if type(action.levels) is not int:
            return set()  # the action's own decider refuses it
        steps = level_steps(mover, mover.ascension + action.levels, state.condition_rules)
    elif isinstance(action, AscendAttack):
        target = state.combatants.get(action.target) if isinstance(action.target, str) else None
        if target is None:
            return set()  # the action's own decider refuses it
        steps = level_steps(mover, target.ascension, state.condition_rules)
    elif isinstance(action, Move) and isinstance(action.path, tuple):
        if not all(isinstance(cell, Cell) for cell in action.path):
            return set()  # the move's own decider refuses it
        steps = [(cell, mover.ascension) for cell in action.path]
    else:
        return set()
    return {foe for opened in opportunities_along(state, mover, steps) for foe in opened.by}


def reaction_asks(state: Encounter, pending: Pending) -> tuple[Ask, ...]:
    """V21/V22/V25: everyone allowed to answer `pending` before it resolves, and how."""
    if pending.depth >= MAX_STACK_DEPTH:
        return ()
    actor: VerseCombatant | None = state.combatants.get(pending.actor)
    if actor is None:
        return ()
    live = state.mode == Mode.LIVE
    action = pending.action
    targets = attack_targets(actor, action)
    kind = action_type_of(action, actor)
    quick = live and kind in (ActionType.SWIFT, ActionType.MOVE)
    entitled = entitled_to_opportunity(state, actor, action)
    # V19: the holder's Dodge is against "a ranged attack or spell aimed at it".
    spell = isinstance(action, (CastSpell, ChargeSpell))
    ranged = spell or weapon_kind(actor, action) in (WeaponKind.RANGED, WeaponKind.THROWN)
    asks = []
    # Only a target, a holder, one entitled to an attack of opportunity or (on a quick
    # action) a Quick Response fighter can have an option: a cheap look at everyone
    # first keeps a big fight's windows from costing a full check per combatant.
    maybe = [
        cid
        for cid, c in state.combatants.items()
        if cid in targets
        or c.holding
        or cid in entitled
        or (quick and c.sheet.has_feat(FeatKind.QUICK_RESPONSE))
    ]
    for cid in sorted(maybe):  # asked in id order: pinned by the state hash
        c = state.combatants[cid]
        if c.id == actor.id or not c.active or not reacts(state.condition_rules, c):
            continue  # V27: a condition that loses its reactions is never asked
        options: list[str] = []
        if (
            live
            and c.id in targets
            and not c.defensive_used
            and awareness.aware_of_attack(state, c, actor)
        ):
            options.append(DODGE)
            if not spell and blocking_item(c):
                options.append(BLOCK)
        if c.holding:
            if not c.actions.standard or not c.actions.swift:
                options.append(HOLD)
            if c.id in targets and ranged:
                options.append(HOLDER_DODGE)
        if quick and c.sheet.has_feat(FeatKind.QUICK_RESPONSE) and awareness.sees(state, c, actor):
            options.append(QUICK_RESPONSE)
        if c.id in entitled:
            options.append(OPPORTUNITY)
        if options:
            asks.append(Ask(c.id, tuple(options)))
    return tuple(asks)


def anyone_could_answer(state: Encounter, actor_id: str, action: Command) -> bool:
    """A cheap first look for Turn Based Combat: holders, or a move near foes."""
    for c in state.combatants.values():
        if c.holding and c.id != actor_id:
            return True
    return isinstance(action, (Move, ChangeAscension, AscendAttack))


def counter_asks(
    state: Encounter,
    attacker_id: str,
    targets: tuple[str, ...],
    events: list[Event],
    depth: int,
) -> tuple[Ask, ...]:
    """V22: who may Counter after this attack resolved (Live Combat only)."""
    if state.mode != Mode.LIVE or depth >= MAX_STACK_DEPTH:
        return ()
    attacker: VerseCombatant | None = state.combatants.get(attacker_id)
    if attacker is None or not attacker.alive:
        return ()
    defenders = [e.defender for e in events if isinstance(e, DefenceRolled) and e.success]
    missed = any(
        (isinstance(e, AttackRolled) and not e.hit)
        or (isinstance(e, SpellAttackRolled) and e.outcome in (MISS, CRITICAL_FAIL))
        for e in events
    )
    asks: dict[str, Ask] = {}
    for defender_id in defenders:
        defender: VerseCombatant | None = state.combatants.get(defender_id)
        if (
            defender_id in targets
            and defender is not None
            and defender.active
            and reacts(state.condition_rules, defender)
            and defender.sheet.has_feat(FeatKind.COUNTER)
        ):
            asks[defender.id] = Ask(defender.id, (COUNTER,))
    if missed:
        near = [  # the cheap tests first: most of a big fight is elsewhere
            cid
            for cid, c in state.combatants.items()
            if c.side != attacker.side
            and c.ascension == attacker.ascension
            and c.active
            and c.sheet.has_feat(FeatKind.COUNTER)
        ]
        for cid in sorted(near):
            c = state.combatants[cid]
            if (
                c.id != attacker_id
                and reacts(state.condition_rules, c)
                and distance_ft(state, c, attacker) <= opportunity_reach_ft(c)
            ):
                asks.setdefault(c.id, Ask(c.id, (COUNTER,)))
    return tuple(asks.values())
