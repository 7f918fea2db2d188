"""The optional critical-hit and critical-fail tables (Verse V5; "Basics & Combat").

"Optionally, whenever a Critical Hit is made then a 1d20 can be rolled to determine
what critical effects takes place or the Verse Master can have their own." The same
sentence closes the critical-fail paragraph. V5 makes the tables a room setting
(`Settings.critical_tables`, off by default): when on, `attacks.py` calls
`critical_hit_table` after the damage of a critical hit and `critical_fail_table`
instead of the fixed effects of V6. The row is rolled and logged
(`CriticalTableRolled`); the rows whose effect is mechanical in the text (a condition,
1d4 ability damage, a Broken item, death) are applied with the events of
`conditions.py`. `ChooseCriticalRow` is the hook for "the GM can replace the row": it
applies a row without rolling the d20, during combat only (a critical happens in a
fight: `wrong_phase` otherwise). Who may issue it is for the server to enforce. The
rows themselves, text and effects, are data: criticals_tables.py.

Readings where the text is open (docs/rules.md):
* The hit table acts on the target, the fail table on the attacker ("the Character").
* "For 1 round" is `rounds=1` in the engine's convention: the condition ticks off at
  the end of the round in which it was gained (turns.py). Conditions the text gives no
  duration (Bleed, Prone, Exhausted, Armour Fragile) last until removed; "for the
  remainder of the combat" (Paranoid Insanity) is also until removed.
* Ability damage is a rolled 1d4 taken from the current score (no floor at 0); for
  Constitution V10 follows (0: Unconscious, below 0: Dead).
* "Immediately killed" is the Dead condition; health is left as it is.
* Armour is the item "armour" (`damage.ARMOUR`), as for V7's armour at durability 0.
  A sheet without armour durability may still wear armour, so the row applies to any
  target. Cracked armour ("becomes Fragile") has no rule of its own: it is recorded
  as the condition "Armour Fragile".
* Hit row 8, "any objects in their hands are thrown 1d4 spaces away": the engine does
  not know which of the sheet's weapons are in hand, so every non-natural weapon not
  already dropped, and the shield, is dropped (`WeaponDropped`). Items have no place
  on the map, so the 1d4 spaces (and fail row 2's) are not rolled: the GM places them.
* Hit row 10, "the target's weapon": the first non-natural weapon of the target's
  sheet that is neither Broken nor dropped (`ChooseCriticalRow.weapon` names another).
* Fail rows 2 and 3 act on the weapon used; a natural attack has nothing to throw or
  break, so for it they are logged only. `ChooseCriticalRow` does not know the weapon
  used: its `weapon` names it, else the first weapon in hand is taken.
* The hit table is rolled even when the hit's damage has already killed the target
  (a Dead row then repeats Dead, which changes nothing).
* Fail row 16 gives the condition "Paranoid Insanity"; fail row 19 ("blinded for 1
  round") the condition "Blinded" for 1 round.
* GM-adjudicated, logged with their text and not applied: hit rows 1 (ricochet: no
  extra attack is made), 3 (limb lost), 14 (runs away); fail rows 1 (critical success
  on an adjacent target: no extra attack is made), 5 (attack of opportunity: not made
  here), 11 (flees), 18 (bag rips: 1d4 items, no inventory), 20 (teleport, doppelganger,
  curse).
* Choosing a row does not undo a row rolled before it: the GM removes what it gave
  with the other override events.
"""

from __future__ import annotations

from typing import ClassVar

from server.engine.core import Command, Event
from server.engine.dice import DiceCup, Roll
from server.engine.errors import INVALID_COMMAND, UNKNOWN_WEAPON, WRONG_PHASE, CommandRefused
from server.engine.records import record
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.conditions import (
    AbilityDamaged,
    ItemBroken,
    WeaponDropped,
    ability_damage_consequences,
    gained,
)
from server.engine.rulesets.verse.criticals_tables import (
    CRITICAL_FAIL_ROWS,
    CRITICAL_HIT_ROWS,
    CriticalRow,
    RowAbilityDamage,
    RowArmourBroken,
    RowCondition,
    RowWeaponBroken,
    RowWeaponThrown,
)
from server.engine.rulesets.verse.damage import ARMOUR
from server.engine.rulesets.verse.ruleset import VERSE, combatant
from server.engine.rulesets.verse.sheet import Weapon, WeaponKind
from server.engine.state import Encounter, Phase

HIT_TABLE = "critical_hit"
FAIL_TABLE = "critical_fail"
ABILITY_DAMAGE_DIE = "1d4"

TABLES = {HIT_TABLE: CRITICAL_HIT_ROWS, FAIL_TABLE: CRITICAL_FAIL_ROWS}


# --- commands and events --------------------------------------------------------


@record
class ChooseCriticalRow(Command):
    """V5, "the GM can replace the row": apply `row` of `table` to `combatant`, unrolled.

    `table` is "critical_hit" (the combatant is the target) or "critical_fail" (the
    combatant is the attacker). `weapon` names the weapon a row breaks or throws; empty
    takes the combatant's first weapon in hand. A GM override (issue 3): the GM's
    alone, accepted while paused (V24).
    """

    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})
    while_paused: ClassVar[bool] = True
    table: str
    combatant: str
    row: int
    weapon: str = ""


@record
class CriticalTableRolled(Event):
    """V5: the d20 rolled on a critical table and the row it gave, with its text."""

    table: str
    combatant: str
    roll: Roll
    row: int
    text: str

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)


@record
class CriticalRowChosen(Event):
    """V5: the GM chose this row instead of rolling; its effects follow as events."""

    table: str
    combatant: str
    row: int
    text: str


# --- the rules ------------------------------------------------------------------


def critical_hit_table(
    state: Encounter, cup: DiceCup, actor: VerseCombatant, target: VerseCombatant
) -> list[Event]:
    """V5: roll the critical-hit table after the damage of a critical hit."""
    roll = cup.d20()
    row = CRITICAL_HIT_ROWS[roll.natural - 1]
    events: list[Event] = [CriticalTableRolled(HIT_TABLE, target.id, roll, row.number, row.text)]
    weapon = first_weapon_in_hand(target)
    return events + row_events(state, cup, HIT_TABLE, row, target, weapon)


def critical_fail_table(
    state: Encounter,
    cup: DiceCup,
    actor: VerseCombatant,
    target: VerseCombatant,
    weapon: Weapon,
) -> list[Event]:
    """V5: roll the critical-fail table instead of the fixed effects of V6."""
    roll = cup.d20()
    row = CRITICAL_FAIL_ROWS[roll.natural - 1]
    events: list[Event] = [CriticalTableRolled(FAIL_TABLE, actor.id, roll, row.number, row.text)]
    return events + row_events(state, cup, FAIL_TABLE, row, actor, weapon)


def first_weapon_in_hand(c: VerseCombatant) -> Weapon | None:
    """The combatant's first non-natural weapon that is neither Broken nor dropped."""
    for weapon in c.sheet.weapons:
        if weapon.kind != WeaponKind.NATURAL and c.can_wield(weapon.name):
            return weapon
    return None


def held_items(c: VerseCombatant) -> list[str]:
    """Hit row 8: every non-natural weapon not yet dropped, and the shield."""
    items = [w.name for w in c.sheet.weapons if w.kind != WeaponKind.NATURAL and c.in_hand(w.name)]
    if c.sheet.shield and c.in_hand(c.sheet.shield) and c.sheet.shield not in items:
        items.append(c.sheet.shield)
    return items


def row_events(
    state: Encounter,
    cup: DiceCup,
    table: str,
    row: CriticalRow,
    subject: VerseCombatant,
    weapon: Weapon | None,
) -> list[Event]:
    """The events of one row's mechanical effects on `subject` (none for GM rows)."""
    reason = f"{table.replace('_', ' ')} table row {row.number}"
    events: list[Event] = []
    usable = weapon if weapon is not None and weapon.kind != WeaponKind.NATURAL else None
    for effect in row.effects:
        if isinstance(effect, RowCondition):
            events.append(gained(subject, effect.condition, effect.rounds, False, reason))
        elif isinstance(effect, RowAbilityDamage):
            roll = cup.roll(ABILITY_DAMAGE_DIE)
            events.append(AbilityDamaged(subject.id, effect.ability, roll.total, roll, reason))
            events += ability_damage_consequences(
                state, subject.id, effect.ability, roll.total, reason
            )
        elif isinstance(effect, RowArmourBroken):
            if ARMOUR not in subject.broken:
                events.append(ItemBroken(subject.id, ARMOUR, reason))
        elif isinstance(effect, RowWeaponBroken):
            if usable is not None and usable.name not in subject.broken:
                events.append(ItemBroken(subject.id, usable.name, reason))
        elif isinstance(effect, RowWeaponThrown):
            if usable is not None and usable.name not in subject.dropped:
                events.append(WeaponDropped(subject.id, usable.name, reason))
        else:
            events += [WeaponDropped(subject.id, item, reason) for item in held_items(subject)]
    return events


@VERSE.decides(ChooseCriticalRow)
def decide_choose_critical_row(
    state: Encounter, command: ChooseCriticalRow, cup: DiceCup
) -> list[Event]:
    if state.phase != Phase.COMBAT:  # a critical happens in a fight
        raise CommandRefused(WRONG_PHASE, "critical rows are chosen during combat")
    rows = TABLES.get(command.table)
    if rows is None:
        raise CommandRefused(
            INVALID_COMMAND, f"no critical table {command.table!r}: use {HIT_TABLE} or {FAIL_TABLE}"
        )
    if not 1 <= command.row <= len(rows):
        raise CommandRefused(INVALID_COMMAND, f"a critical table has rows 1 to {len(rows)}")
    subject = combatant(state, command.combatant)
    if command.weapon:
        weapon = subject.sheet.weapon(command.weapon)
        if weapon is None:
            raise CommandRefused(UNKNOWN_WEAPON, f"{subject.id} has no weapon {command.weapon!r}")
    else:
        weapon = first_weapon_in_hand(subject)
    row = rows[command.row - 1]
    chosen = CriticalRowChosen(command.table, subject.id, row.number, row.text)
    return [chosen, *row_events(state, cup, command.table, row, subject, weapon)]


@VERSE.applies(CriticalTableRolled)
def apply_critical_table_rolled(state: Encounter, event: CriticalTableRolled) -> Encounter:
    return state  # the log records it; the row's effects are events of their own


@VERSE.applies(CriticalRowChosen)
def apply_critical_row_chosen(state: Encounter, event: CriticalRowChosen) -> Encounter:
    return state
