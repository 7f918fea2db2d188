"""Actions that exist for the reaction machinery: Hold Action (V19), using an item, the
Counter attack (V22), the Quick Response maneuver (V22) and Defensive Actions (V22).

Readings (docs/rules.md):
- `HoldAction`: the holder takes no action on its turn, becomes Alert and keeps one
  Standard and one Swift action to take during other characters' turns, until its next
  turn starts (V19). The hold ends the holder's turn.
- `UseItem` (a Swift action, "using a potion"): a healing item restores its `heal` roll,
  never above the sheet's health; an item is used up once used.
- `Counter`: the text does not say what a Counter Action is beyond "a failed attack"
  answered; we read it as one weapon attack against the attacker, out of turn, with no
  action spent (like an attack of opportunity).
- `KnockAway`: the rule text's example of a Quick Response, "knocking a potion out of
  someone's hand using a CMB". A combat maneuver is not defined in our text; we roll it as
  an unarmed attack (d20 + Strength + unarmed training) against the target's Physical
  Dodge, meets or beats; success puts the item out of the target's hand.
- Dodge and Block (V22) and the holder's Dodge (V19) are Dexterity saves `d20 + Dexterity`
  against the attack's total, meets or beats, rolled when the attack would hit: a Dodge
  avoids the attack; a Block sends the damage to the blocking item (whose wear the text
  does not track) instead of the character.
"""

from __future__ import annotations

from server.engine.core import Command, Event
from server.engine.dice import DiceCup, Roll
from server.engine.errors import UNKNOWN_WEAPON, WEAPON_UNUSABLE, CommandRefused
from server.engine.records import evolve, record
from server.engine.rulesets.verse.ascension import AscendAttack, ChangeAscension
from server.engine.rulesets.verse.attacks import (
    UNARMED,
    Attack,
    check_reach,
    physical_dodge_now,
    resolve_attack,
    weapon_of,
)
from server.engine.rulesets.verse.awareness import SetAwareness
from server.engine.rulesets.verse.combatant import Awareness, VerseCombatant
from server.engine.rulesets.verse.condition_rules import attack_bonuses
from server.engine.rulesets.verse.movement import Face, Move
from server.engine.rulesets.verse.rides import Dismount, Mount
from server.engine.rulesets.verse.ruleset import VERSE, acting, standing_target
from server.engine.rulesets.verse.sheet import ActionType, WeaponKind
from server.engine.rulesets.verse.spell_charges import ChargeSpell
from server.engine.rulesets.verse.spells import CastSpell, cast_time_of, casting_action
from server.engine.rulesets.verse.stances import SetStance
from server.engine.rulesets.verse.turns import check_action, end_of_turn_events, spend
from server.engine.state import Encounter

DODGE = "dodge"
BLOCK = "block"


# --- commands -------------------------------------------------------------------


@record
class HoldAction(Command):
    """V19: take no action now; keep a Standard and a Swift for others' turns."""

    actor: str


@record
class UseItem(Command):
    """A Swift action: use an item from the sheet (drink a potion)."""

    actor: str
    item: str


@record
class Counter(Command):
    """V22: a Counter attack on the attacker, answering a counter window."""

    actor: str
    target: str
    weapon: str = ""


@record
class KnockAway(Command):
    """V22, a Quick Response: knock an item out of the target's hand (a maneuver)."""

    actor: str
    target: str
    item: str


ACTION_TYPES: dict[type, str] = {
    Attack: ActionType.STANDARD,
    ChargeSpell: ActionType.STANDARD,
    Move: ActionType.MOVE,
    ChangeAscension: ActionType.MOVE,
    Mount: ActionType.MOVE,
    Dismount: ActionType.MOVE,
    AscendAttack: ActionType.FULL_ROUND,
    SetStance: ActionType.SWIFT,
    UseItem: ActionType.SWIFT,
    Face: ActionType.INSTANT,
    SetAwareness: ActionType.INSTANT,
    HoldAction: ActionType.INSTANT,
}  # CastSpell: its spell's own cast action


# --- events ---------------------------------------------------------------------


@record
class HoldBegan(Event):
    combatant: str


@record
class HoldEnded(Event):
    combatant: str
    reason: str


@record
class ItemUsed(Event):
    combatant: str
    item: str
    roll: Roll | None
    healed: int

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,) if self.roll is not None else ()


@record
class ManeuverRolled(Event):
    actor: str
    target: str
    roll: Roll
    defence: int
    success: bool
    defence_changes: tuple[tuple[str, int], ...] = ()  # V27, as `AttackRolled`'s

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)


@record
class ItemKnockedAway(Event):
    combatant: str
    item: str
    by: str


# --- rules ----------------------------------------------------------------------


def action_type_of(command: Command, actor: VerseCombatant) -> str:
    """Which action of the V17 economy a command uses (for holds and Quick Responses)."""
    if isinstance(command, CastSpell):
        spell = actor.sheet.spell(command.spell)
        if spell is None:
            return ActionType.STANDARD
        return casting_action(spell, cast_time_of(actor, command))
    return ACTION_TYPES.get(type(command), ActionType.STANDARD)


# --- deciders (resolvers: the flow calls them when the action resolves) ------------


@VERSE.decides(HoldAction)
def decide_hold(state: Encounter, command: HoldAction, cup: DiceCup) -> list[Event]:
    actor = acting(state, command.actor)
    # "no action on its turn": a fresh turn
    check_action(actor, ActionType.FULL_ROUND, state.condition_rules)
    # The hold spends nothing now: its one Standard and one Swift (V19) are the turn's
    # own, taken out of turn before the holder's next turn resets them.
    return [HoldBegan(actor.id), *end_of_turn_events(state, cup)]


@VERSE.decides(UseItem)
def decide_use_item(state: Encounter, command: UseItem, cup: DiceCup) -> list[Event]:
    actor = acting(state, command.actor)
    check_action(actor, ActionType.SWIFT, state.condition_rules)
    item = actor.sheet.item(command.item)
    if item is None:
        raise CommandRefused(UNKNOWN_WEAPON, f"{actor.id} has no item {command.item!r}")
    if command.item in actor.items_used or command.item in actor.dropped:
        raise CommandRefused(WEAPON_UNUSABLE, f"{command.item} is no longer in {actor.id}'s hand")
    if not item.heal:
        return [ItemUsed(actor.id, item.name, None, 0)]
    roll = cup.roll(item.heal)
    healed = max(0, min(roll.total, actor.sheet.health - actor.health))
    return [ItemUsed(actor.id, item.name, roll, healed)]


@VERSE.decides(Counter)
def decide_counter(state: Encounter, command: Counter, cup: DiceCup) -> list[Event]:
    actor = acting(state, command.actor)
    weapon = weapon_of(actor, command.weapon)
    if weapon.kind == WeaponKind.THROWN:
        raise CommandRefused(WEAPON_UNUSABLE, "a Counter is made with a weapon in hand")
    target = standing_target(state, command.target)
    check_reach(state, actor, target, weapon)
    return resolve_attack(state, cup, actor, target, weapon, ActionType.INSTANT)


@VERSE.decides(KnockAway)
def decide_knock_away(state: Encounter, command: KnockAway, cup: DiceCup) -> list[Event]:
    actor = acting(state, command.actor)
    target = standing_target(state, command.target)
    check_reach(state, actor, target, UNARMED)
    mods: list[tuple[str, int]] = [("Strength", actor.abilities.strength)]
    training = actor.sheet.training_in(UNARMED.category)
    if training:
        mods.append(("Training", training))
    roll = cup.d20((*mods, *attack_bonuses(state.condition_rules, actor, UNARMED.kind)))
    defence, changes = physical_dodge_now(state, target)
    success = roll.total >= defence
    events: list[Event] = [ManeuverRolled(actor.id, target.id, roll, defence, success, changes)]
    if success:
        events.append(ItemKnockedAway(target.id, command.item, actor.id))
    return events


# --- appliers -------------------------------------------------------------------


@VERSE.applies(HoldBegan)
def apply_hold_began(state: Encounter, event: HoldBegan) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    return state.with_combatant(evolve(c, holding=True, awareness=Awareness.ALERT))


@VERSE.applies(HoldEnded)
def apply_hold_ended(state: Encounter, event: HoldEnded) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    return state.with_combatant(evolve(c, holding=False))


@VERSE.applies(ItemUsed)
def apply_item_used(state: Encounter, event: ItemUsed) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    return state.with_combatant(
        evolve(
            c,
            health=c.health + event.healed,
            items_used=(*c.items_used, event.item),
            actions=spend(c.actions, ActionType.SWIFT),
        )
    )


@VERSE.applies(ManeuverRolled)
def apply_maneuver_rolled(state: Encounter, event: ManeuverRolled) -> Encounter:
    return state


@VERSE.applies(ItemKnockedAway)
def apply_item_knocked_away(state: Encounter, event: ItemKnockedAway) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    if event.item in c.dropped:
        return state
    return state.with_combatant(evolve(c, dropped=(*c.dropped, event.item)))
