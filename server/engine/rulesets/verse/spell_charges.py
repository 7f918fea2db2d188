"""Charging a spell over several actions, concentration and lost charges (Verse V12).

V12: a spell whose cast time is more than one action "must be charged, uninterrupted,
for more than one round" ("a 20 MC spell will take 2 rounds"), "one standard action
each": `CastSpell` pays its mana and spends the first round's Standard action
(spells.py); in each later round the caster sends `ChargeSpell`, spending that round's
Standard action, whatever kind of action the spell takes when cast in one. A second
`ChargeSpell` in the same round is refused (`action_used`), even on a second turn. The
spell goes off with the action that completes the charge (`actions_done ==
actions_needed`), aimed where the cast aimed it unless that `ChargeSpell` re-aims it;
the aim is checked again then (targets may have moved or fallen).

The charge is lost - mana already spent stays spent - when the caster takes a Move or
a Defensive action (their modules call `break_charge_events`), fails a concentration
check, or lets a round end without charging it (`interruptions.lapsed_charges`).
The text names the check but not its roll; we read it as `d20 + Constitution` against
the charged spell's Spell DC (`10 + MC + level`, V13), succeeding when it meets the DC
like every Verse check. The GM or the room asks for it (`ConcentrationCheck`), e.g.
when the caster is hit; it costs the caster no action.
"""

from __future__ import annotations

from typing import ClassVar

from server.engine.core import Command, Event, apply_all
from server.engine.dice import DiceCup, Roll
from server.engine.errors import ACTION_USED, NOT_CHARGING, WRONG_PHASE, CommandRefused
from server.engine.grid import Cell
from server.engine.records import evolve, record
from server.engine.rulesets.verse.combatant import Charge, VerseCombatant
from server.engine.rulesets.verse.condition_rules import save_bonuses
from server.engine.rulesets.verse.ruleset import VERSE, acting, combatant
from server.engine.rulesets.verse.sheet import ActionType
from server.engine.rulesets.verse.spell_costs import spell_dc
from server.engine.rulesets.verse.spell_mana import castable_spell
from server.engine.rulesets.verse.spell_shapes import aim
from server.engine.rulesets.verse.spells import ChargeLost, resolve_spell
from server.engine.rulesets.verse.turns import check_action, spend
from server.engine.state import Encounter, Phase, not_fighting


@record
class ChargeSpell(Command):
    """Spend this round's Standard action on the spell being charged (one a round, V12);
    an empty aim keeps the cast's."""

    actor: str
    targets: tuple[str, ...] = ()
    target: Cell | None = None


@record
class ConcentrationCheck(Command):
    """Test a charging caster's concentration (asked by the GM or the room)."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm", "room"})
    combatant: str
    reason: str = ""


@record
class SpellCharged(Event):
    """One more action spent on a charged spell; at `actions_done == actions_needed`
    the charge is complete and the spell goes off (the events that follow)."""

    caster: str
    spell: str
    action: str
    actions_done: int
    actions_needed: int
    targets: tuple[str, ...] = ()  # the aim it goes off with (when complete)
    target: Cell | None = None


@record
class ConcentrationChecked(Event):
    caster: str
    spell: str
    roll: Roll
    dc: int
    success: bool
    reason: str = ""

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)


def charge_of(c: VerseCombatant) -> Charge:
    if c.charging is None:
        raise CommandRefused(NOT_CHARGING, f"{c.id} is not charging a spell")
    return c.charging


@VERSE.decides(ChargeSpell)
def decide_charge(state: Encounter, command: ChargeSpell, cup: DiceCup) -> list[Event]:
    caster = acting(state, command.actor)
    charge = charge_of(caster)
    spell = castable_spell(caster, charge.spell)
    if charge.charged_in == state.round:
        raise CommandRefused(
            ACTION_USED, f"{spell.name} was charged this round: one action a round (V12)"
        )
    check_action(caster, ActionType.STANDARD, state.condition_rules)
    done, needed = charge.actions_done + 1, charge.actions_needed
    if done < needed:
        return [SpellCharged(caster.id, spell.name, ActionType.STANDARD, done, needed)]
    targets, cell = charge.targets, charge.target
    if command.targets or command.target is not None:
        targets, cell = command.targets, command.target
    aimed, reach = aim(state, caster, spell, charge.options, targets, cell)
    charged = SpellCharged(caster.id, spell.name, ActionType.STANDARD, done, needed, targets, cell)
    now = apply_all(state, [charged])
    resolved = resolve_spell(
        now, cup, caster.id, spell, charge.spell_dice, charge.options, aimed, reach
    )
    return [charged, *resolved]


@VERSE.decides(ConcentrationCheck)
def decide_concentration(
    state: Encounter, command: ConcentrationCheck, cup: DiceCup
) -> list[Event]:
    if state.phase != Phase.COMBAT:
        raise CommandRefused(WRONG_PHASE, not_fighting(state))
    caster = combatant(state, command.combatant)
    charge = charge_of(caster)
    dc = spell_dc(charge.mc, caster.sheet.level)
    bonuses = save_bonuses(state.condition_rules, caster, "constitution")  # V27
    roll = cup.d20((("Constitution", caster.abilities.constitution), *bonuses))
    success = roll.total >= dc
    checked = ConcentrationChecked(caster.id, charge.spell, roll, dc, success, command.reason)
    if success:
        return [checked]
    return [checked, ChargeLost(caster.id, charge.spell, "failed concentration check")]


@VERSE.applies(SpellCharged)
def apply_spell_charged(state: Encounter, event: SpellCharged) -> Encounter:
    c: VerseCombatant = state.combatants[event.caster]
    charge = c.charging
    if charge is not None and event.actions_done < event.actions_needed:
        charge = evolve(charge, actions_done=event.actions_done, charged_in=state.round)
    else:
        charge = None  # complete: the spell goes off now
    return state.with_combatant(evolve(c, actions=spend(c.actions, event.action), charging=charge))


@VERSE.applies(ConcentrationChecked)
def apply_concentration_checked(state: Encounter, event: ConcentrationChecked) -> Encounter:
    return state
