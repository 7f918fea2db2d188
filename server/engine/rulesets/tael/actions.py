"""The Action Phase's economy: Actions by kind, Bonus Actions (T2, T5, T9).

"A Character can use a certain number of Actions per Action Phase, which is
determined by his Classes. The default Action is a universal Action that allows for
everything; however, most class-based additional Actions are either Attack or Spell
Actions." An attack spends an Attack Action if one is left, else the universal one; a
spell a Spell Action, else the universal one; a generic action (Dash, Sprint, Brace,
Help, Hide) only "the default Action". A generic bonus action (Punch, Surrender, Pick
up, Equip Weapon, a Roleplay skill check) spends either an Action or a Bonus Action,
as its sender says (`as_bonus`). A status the conditions table says loses `action` or
`bonus` (TR40) takes those away (`condition_forbids`). Every turn has one Bonus Action,
plus any its classes give (TR2). A prepared move spends nothing: it is the Preparation
itself (T2). The off-hand attack spends the Bonus Action its one-handed attack gained
(T5: "you gain a bonus Action"), not one of the turn's own (TR8).
"""

from __future__ import annotations

from collections import Counter

from server.engine.effects import Rules
from server.engine.errors import ACTION_USED, CONDITION_FORBIDS, CommandRefused
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.condition_rules import ACTION, lost
from server.engine.rulesets.tael.errors import BRACED
from server.engine.rulesets.tael.sheet import ActionKind

BONUS = "bonus"  # the slot of a Bonus Action
FREE = ""  # nothing spent: a prepared move, or a free choice such as a stance
OFF_HAND = "off_hand"  # the gained Bonus Action of T5, held in `TurnUse.off_hand`


def check_not_lost(actor: TaelCombatant, what: str, rules: Rules) -> None:
    """TR40: refuse what a status of `actor` takes away (`action`, `bonus`...)."""
    name = lost(rules, actor, what)
    if name:
        words = {ACTION: "an Action", BONUS: "a Bonus Action"}.get(what, what)
        raise CommandRefused(
            CONDITION_FORBIDS,
            f"{actor.id} cannot take {words} while {name} (the conditions table)",
        )


def action_slot(actor: TaelCombatant, kind: ActionKind, rules: Rules) -> str:
    """The Action an action of `kind` spends now, or `action_used` when none is left;
    `condition_forbids` when a status takes the Actions away (TR40)."""
    check_not_lost(actor, ACTION, rules)
    left = Counter(str(k) for k in actor.sheet.actions)
    left.subtract(actor.turn.actions)
    if kind != ActionKind.UNIVERSAL and left[kind.value] > 0:
        return kind.value
    if left[ActionKind.UNIVERSAL.value] > 0:
        return ActionKind.UNIVERSAL.value
    wanted = "Action" if kind == ActionKind.UNIVERSAL else f"{kind} or universal Action"
    raise CommandRefused(ACTION_USED, f"{actor.id} has no {wanted} left this turn")


def bonus_slot(actor: TaelCombatant, rules: Rules) -> str:
    """A Bonus Action, or `action_used` when the turn has spent them all."""
    check_not_lost(actor, BONUS, rules)
    if actor.turn.bonus >= actor.sheet.bonus_actions:
        raise CommandRefused(ACTION_USED, f"{actor.id} has no Bonus Action left this turn")
    return BONUS


def generic_bonus_slot(actor: TaelCombatant, as_bonus: bool, rules: Rules) -> str:
    """T9: a generic bonus action is used "as either an Action or Bonus Action"."""
    if as_bonus:
        return bonus_slot(actor, rules)
    return action_slot(actor, ActionKind.UNIVERSAL, rules)


def attack_slot(actor: TaelCombatant, kind: ActionKind, rules: Rules) -> str:
    """The Action an attack or spell spends; refused after Brace (T9: "Cannot attack
    anymore for this turn after usage")."""
    if actor.braced:
        raise CommandRefused(BRACED, f"{actor.id} braced and cannot attack again this turn")
    return action_slot(actor, kind, rules)


def spent(actor: TaelCombatant, slot: str) -> TaelCombatant:
    """The combatant after spending `slot` (checked already by the functions above).
    The off-hand slot is no Bonus Action of the turn's: its applier clears the gained
    one (`attacks.apply_hit_checked`)."""
    if slot in (FREE, OFF_HAND):
        return actor
    if slot == BONUS:
        return actor.with_turn(bonus=actor.turn.bonus + 1)
    return actor.with_turn(actions=(*actor.turn.actions, slot))
