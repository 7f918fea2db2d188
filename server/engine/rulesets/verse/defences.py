"""Defensive Actions against a weapon attack: Dodge and Block (V22), the holder's Dodge (V19).

Both are Dexterity saves `d20 + Dexterity` against the attack's total, meeting or
beating it (V19: "like every Verse check"). They are rolled only when the attack would
hit: a Dodge then avoids it entirely; a Block sends the damage to the blocking item
instead of the character (the text tracks no wear on items, so the damage is logged on
the item and nothing else changes).

V27: the defender's conditions add what the conditions table says to the save (`save`,
`save.dexterity`), each named in it.

A defence is prepared in a reaction window and waits on the action it answers
(`flow.Pending.defences`) until that action resolves.
"""

from __future__ import annotations

from server.engine.core import Event
from server.engine.dice import DiceCup, Roll
from server.engine.effects import Rules
from server.engine.flow import Defence
from server.engine.records import evolve, record
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.condition_rules import save_bonuses
from server.engine.rulesets.verse.ruleset import VERSE
from server.engine.rulesets.verse.sheet import WeaponKind
from server.engine.state import Encounter

DODGE = "dodge"
BLOCK = "block"


@record
class DefenceRolled(Event):
    """A Dodge or Block save against an attack's total (V19, V22)."""

    defender: str
    attacker: str
    kind: str
    roll: Roll
    against: int
    success: bool
    item: str = ""

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)


@record
class DamageBlocked(Event):
    """V22: a successful Block sends the damage to the blocking item instead.

    `roll` is the damage `attacker` rolled (whose numbers it shows, R77)."""

    defender: str
    item: str
    roll: Roll
    attacker: str = ""

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)


def defend(
    cup: DiceCup,
    defender: VerseCombatant,
    attacker_id: str,
    defence: Defence,
    total: int,
    rules: Rules = (),
) -> DefenceRolled:
    """V22/V19: the Dexterity save of a Dodge or Block against the attack's total."""
    bonuses = save_bonuses(rules, defender, "dexterity")
    roll = cup.d20((("Dexterity", defender.abilities.dexterity), *bonuses))
    return DefenceRolled(
        defender.id, attacker_id, defence.kind, roll, total, roll.total >= total, defence.item
    )


def blocking_item(c: VerseCombatant) -> str:
    """V22: Block needs a weapon or shield in hand: the shield first, else a melee weapon."""
    if c.sheet.shield and c.can_wield(c.sheet.shield):
        return c.sheet.shield
    for weapon in c.sheet.weapons:
        if weapon.kind == WeaponKind.MELEE and c.can_wield(weapon.name):
            return weapon.name
    return ""


def prepared_defence(state: Encounter, defender: str) -> Defence | None:
    """The defence `defender` prepared against the action resolving now, if any.

    A Block whose item left the defender's hand since (dropped, Broken) blocks with
    another shield or melee weapon in hand, and is not rolled when there is none: an
    answer is checked again when it resolves (R59), and Block needs the item (V22).
    """
    if not state.resolving or not state.pending:
        return None
    for defence in state.pending[-1].defences:
        if defence.defender == defender:
            c: VerseCombatant | None = state.combatants.get(defender)
            if c is None:
                return None
            if defence.kind == BLOCK and not (defence.item and c.can_wield(defence.item)):
                # The item it meant to block with is gone: another in hand will do (V22).
                item = blocking_item(c)
                return evolve(defence, item=item) if item else None
            return defence
    return None


@VERSE.applies(DefenceRolled)
def apply_defence_rolled(state: Encounter, event: DefenceRolled) -> Encounter:
    return state


@VERSE.applies(DamageBlocked)
def apply_damage_blocked(state: Encounter, event: DamageBlocked) -> Encounter:
    return state
