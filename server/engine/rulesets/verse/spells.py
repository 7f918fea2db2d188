"""Casting spells: mana, aim, the spell attack and its effects (Verse V1-V4, V6, V7, V10-V15).

A cast runs in this order:

1. The caster must know the spell and have its Spell Access Level (V14) and not be
   charging another spell.
2. The Mana Cost is the minimum plus what the caster buys (V11, spell_costs.py).
3. Mana (V10) and group casting (V12): spell_mana.py. Mana is paid as the cast begins,
   also for a charged spell, and the spell still goes off if paying knocks the caster
   out: the mana was spent "when cast".
4. Cast time (V12): `ceil(MC / 10)` rounds, in a group cast those of the largest
   share. One: the cast takes the spell's own action (V17: Standard, Swift or Full
   Round; a Full Round spell ends the turn). More: the spell is charged
   (spell_charges.py), one Standard action a round, its cast included
   (`casting_action`), and goes off with the last. The action is checked here, once
   the cost says which it is.
5. The attack (Verse "Spell Attack"): `d20 + Sanity + Spell Attack Training`, against
   Spell Dodge. A single target is hit when the roll meets or beats it (V1); Cone, Line
   and Area spells roll once and affect everyone inside whose Spell Dodge is strictly
   lower (V2), allies and, for an Area, the caster included. Natural 20 always hits
   and doubles the Spell Dice (V3, V4); natural 1 always misses and the spell goes off
   on the caster for half damage, rounded down, and its condition (V6) - the critical
   tables of V5 are for weapons (their fail table takes a weapon), so spells use V6
   even when the tables are on. Self spells make no attack and affect the caster.
6. Damage: N Spell Dice (die size from the SD table, V14) + Spell Attack Training,
   rolled once for everyone affected, against Spell Resistance (V7). A caster with a
   bloodline gives every spell its affinity ("Bloodlines provide affinities").
7. A spell with a condition gives it to everyone it affects who is still alive.

Range, Ascension level and the Cone, Line and Area shapes: spell_shapes.py. Charging
and concentration: spell_charges.py; lost charges (`ChargeLost`, `break_charge_events`,
re-exported here): interruptions.py.

V6 on a natural 1 says the spell "only deals half damage to the caster or have the
effect's times halved that are applied to the caster": a timed condition the backfire
gives the caster lasts half its rounds, rounded down but at least 1; a condition that
lasts until removed stays so (there is no time to halve).
"""

from __future__ import annotations

from server.engine.core import Command, Event, apply_all
from server.engine.dice import MAX_DICE, DiceCup, Roll, parse
from server.engine.effects import describe_changes
from server.engine.errors import (
    ALREADY_CHARGING,
    INVALID_COMMAND,
    INVALID_SPELL_OPTION,
    CommandRefused,
)
from server.engine.grid import Cell
from server.engine.records import evolve, record
from server.engine.rulesets.verse import progression
from server.engine.rulesets.verse.attacks import CRITICAL_FAIL, CRITICAL_HIT, HIT, MISS
from server.engine.rulesets.verse.awareness import sight_ft
from server.engine.rulesets.verse.combatant import Charge, VerseCombatant
from server.engine.rulesets.verse.condition_rules import attack_bonuses, changed, reacts
from server.engine.rulesets.verse.conditions import gained, killed
from server.engine.rulesets.verse.damage import damage_events
from server.engine.rulesets.verse.defences import defend, prepared_defence
from server.engine.rulesets.verse.interruptions import ChargeLost as ChargeLost
from server.engine.rulesets.verse.interruptions import (
    break_charge_events as break_charge_events,
)
from server.engine.rulesets.verse.positions import is_engaged
from server.engine.rulesets.verse.rides import riders_thrown_by
from server.engine.rulesets.verse.ruleset import VERSE, acting
from server.engine.rulesets.verse.sheet import ActionType, Spell, SpellShape
from server.engine.rulesets.verse.spell_costs import (
    SpellCostError,
    cast_time,
    condition_rounds,
    group_cast_time,
    is_named_amounts,
    options_bought,
    spell_dc,
    spell_mc,
)
from server.engine.rulesets.verse.spell_mana import (
    ManaShare,
    castable_spell,
    mana_shares,
    payment_events,
    pledges_after,
)
from server.engine.rulesets.verse.spell_shapes import affects_caster_only, aim
from server.engine.rulesets.verse.turns import check_action, end_of_turn_events, spend
from server.engine.state import Encounter

SPELL_CRITICAL_MULTIPLIER = 2  # V4: spells x2
VISUAL_RANGE_STEP_FT = 5  # V15
VISUAL_RANGE_PENALTY = -2  # V15


@record
class CastSpell(Command):
    """Cast a known spell.

    `targets` are combatant ids (single-target spells; for a Cone, Line or Area the
    first one aims it when `target` is empty); `target` is the cell a Cone or Line
    points at or an Area is centred on. `options` are total amounts wanted
    (`("diameter_ft", 10)`); `helpers` are `(co-caster id, MC share)` pairs (V12) of
    combatants the sender itself plays (its seat's; any for the GM); `pledged` are
    pairs of other players' combatants that pledged at least that share of this spell
    to this caster this round (`PledgeMana`, R74).
    """

    actor: str
    spell: str
    targets: tuple[str, ...] = ()
    target: Cell | None = None
    extra_spell_dice: int = 0
    options: tuple[tuple[str, int], ...] = ()
    helpers: tuple[tuple[str, int], ...] = ()
    pledged: tuple[tuple[str, int], ...] = ()

    @property
    def commits(self) -> tuple[str, ...]:
        """R74: `helpers` pay on the sender's word, so it must play each of them."""
        if not isinstance(self.helpers, tuple):
            return ()  # malformed: refused as `invalid_command` when decided
        return tuple(
            h[0] for h in self.helpers if isinstance(h, tuple) and h and isinstance(h[0], str)
        )


@record
class SpellCast(Event):
    """A cast begins: mana paid, action spent, and a charge started when it takes longer."""

    caster: str
    spell: str
    mc: int
    spell_dice: int
    options: tuple[tuple[str, int], ...]
    cast_time: int  # actions it takes (V12)
    action: str
    shares: tuple[ManaShare, ...]  # the caster's first
    spell_dc: int  # V13
    targets: tuple[str, ...] = ()
    target: Cell | None = None


@record
class SpellTargetResult:
    target: str
    defence: int  # its Spell Dodge
    outcome: str  # hit, miss, critical_hit, critical_fail
    # V27: the target's conditions that changed `defence`, each with how much.
    defence_changes: tuple[tuple[str, int], ...] = ()


@record
class SpellAttackRolled(Event):
    """One spell attack roll and, when anyone is affected, the one damage roll."""

    caster: str
    spell: str
    shape: str
    roll: Roll
    defence_name: str  # "SD"
    outcome: str  # the single target's, or for a shape: hit when anyone is affected
    results: tuple[SpellTargetResult, ...]
    damage: Roll | None = None

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,) if self.damage is None else (self.roll, self.damage)

    def describe(self) -> str:
        against = ", ".join(
            f"{r.target} {self.defence_name} {r.defence}"
            + (f" ({describe_changes(r.defence_changes)})" if r.defence_changes else "")
            + f" {r.outcome.replace('_', ' ')}"
            for r in self.results
        )
        return f"{self.spell}: {self.roll.describe()} vs {against or 'nobody'}"


DODGED = "dodged"  # a prepared Dodge avoided it (V22, V19)


# --- cost ----------------------------------------------------------------------


def check_options(options: object) -> None:
    """Refuse `options` that are not `(name, amount)` pairs (a malformed command)."""
    if not is_named_amounts(options):
        raise CommandRefused(INVALID_COMMAND, "options are (name, amount) pairs")


def spell_cost(
    spell: Spell, extra_dice: int, options: tuple[tuple[str, int], ...]
) -> tuple[int, tuple[tuple[str, int], ...], int]:
    """(Spell Dice, options bought, MC) for a cast, refusing what the spell cannot buy."""
    check_options(options)
    if type(extra_dice) is not int:
        raise CommandRefused(INVALID_COMMAND, "extra_spell_dice is a whole number")
    asked = dict(options)
    if extra_dice < 0 or len(asked) != len(options):
        raise CommandRefused(INVALID_SPELL_OPTION, "negative Spell Dice or a repeated option")
    dice = spell.base_spell_dice + extra_dice
    if dice > MAX_DICE:  # as many dice as any roll may have (`dice.parse`)
        raise CommandRefused(INVALID_SPELL_OPTION, f"at most {MAX_DICE} Spell Dice")
    try:
        return dice, options_bought(spell, asked), spell_mc(spell, dice, asked)
    except SpellCostError as error:
        raise CommandRefused(INVALID_SPELL_OPTION, str(error)) from None


# --- the attack and its effects -------------------------------------------------


def visual_range_penalty(state: Encounter, caster: VerseCombatant, reach_ft: int) -> int:
    """V15: while engaged, -2 for every 5 ft (or part) beyond the caster's visual range."""
    beyond = reach_ft - sight_ft(state, caster, caster.sheet.visual_range_ft)  # V27 sight
    if beyond <= 0 or not is_engaged(state, caster):
        return 0
    return VISUAL_RANGE_PENALTY * -(-beyond // VISUAL_RANGE_STEP_FT)


def spell_attack_modifiers(
    state: Encounter, caster: VerseCombatant, reach_ft: int
) -> tuple[tuple[str, int], ...]:
    """Spell Attack = 1d20 + Sanity Score + Spell Attack Training + Bonuses."""
    mods = [("Sanity", caster.abilities.sanity)]
    if caster.sheet.spell_attack_training:
        mods.append(("Spell Attack Training", caster.sheet.spell_attack_training))
    penalty = visual_range_penalty(state, caster, reach_ft)
    if penalty:
        mods.append(("Beyond visual range", penalty))
    return (*mods, *attack_bonuses(state.condition_rules, caster, "spell"))


def spell_damage_roll(cup: DiceCup, caster: VerseCombatant, dice: int, critical: bool) -> Roll:
    """Spell Damage = SD + Spell Attack Training Ranks; a critical doubles the dice (V4)."""
    die = parse(progression.spell_die(caster.sheet)).scaled(dice)
    training = caster.sheet.spell_attack_training
    mods = (("Spell Attack Training", training),) if training else ()
    return cup.roll(die, mods, SPELL_CRITICAL_MULTIPLIER if critical else 1)


def spell_effects(
    state: Encounter,
    cup: DiceCup,
    caster: VerseCombatant,
    spell: Spell,
    bought: tuple[tuple[str, int], ...],
    target_id: str,
    amount: int | None,
    backfire: bool = False,
) -> list[Event]:
    """Damage against Spell Resistance (V7) with the bloodline's affinity, then the
    spell's condition on whoever is still alive.

    `backfire`: a natural 1 turned the spell on its caster (V6), whose condition then
    lasts half its time ("or have the effect's times halved"), rounded down, at least 1.
    """
    target = state.combatants[target_id]
    events: list[Event] = []
    if amount is not None:
        dealt = damage_events(
            target,
            caster.id,
            amount,
            False,
            None,
            caster.sheet.bloodline,
            rules=state.condition_rules,
        )
        events += dealt + riders_thrown_by(state, cup, target, dealt)
    if spell.condition and target.alive and not killed(events, target_id):
        rounds = condition_rounds(spell, bought)
        if backfire and rounds is not None:
            rounds = max(1, rounds // 2)
        events.append(gained(target, spell.condition, rounds, reason=spell.name))
    return events


def resolve_spell(
    state: Encounter,
    cup: DiceCup,
    caster_id: str,
    spell: Spell,
    dice: int,
    bought: tuple[tuple[str, int], ...],
    aimed: tuple[str, ...],
    reach_ft: int,
) -> list[Event]:
    """The spell goes off: attack roll(s), damage, conditions; a natural 1 backfires."""
    caster = state.combatants[caster_id]
    if affects_caster_only(spell):
        return spell_effects(state, cup, caster, spell, bought, caster_id, None)
    if spell.shape != SpellShape.SINGLE:
        mods = spell_attack_modifiers(state, caster, reach_ft)
        return _resolve_shape(state, cup, caster, spell, dice, bought, aimed, mods)
    events: list[Event] = []
    for target_id in aimed:  # V1: each single target is its own attack
        # V15: so its visual-range penalty is counted at its own target's distance.
        distance = state.grid.distance_ft(caster.position, state.combatants[target_id].position)
        mods = spell_attack_modifiers(state, caster, distance)
        one = _resolve_shape(state, cup, caster, spell, dice, bought, (target_id,), mods)
        events += one
        state = apply_all(state, one)
        caster = state.combatants[caster_id]
        if not caster.alive:  # a backfire killed the caster (V6): no further attack
            break
    return events


def _resolve_shape(
    state: Encounter,
    cup: DiceCup,
    caster: VerseCombatant,
    spell: Spell,
    dice: int,
    bought: tuple[tuple[str, int], ...],
    aimed: tuple[str, ...],
    mods: tuple[tuple[str, int], ...],
) -> list[Event]:
    roll = cup.d20(mods)
    natural = roll.natural
    single = spell.shape == SpellShape.SINGLE
    results = []
    defences: list[Event] = []
    for target_id in aimed:
        target = state.combatants[target_id]
        dodge, changes = changed(
            state.condition_rules, target, "defence.sd", target.sheet.defences.spell_dodge
        )
        if natural == 20:  # V3
            outcome = CRITICAL_HIT
        elif natural == 1:
            outcome = CRITICAL_FAIL
        elif roll.total >= dodge if single else roll.total > dodge:  # V1 / V2
            outcome = HIT
        else:
            outcome = MISS
        if single and outcome in (HIT, CRITICAL_HIT) and state.pending:
            # V22/V19: a Dodge prepared against this spell: a Dexterity save vs its total.
            prepared = prepared_defence(state, target_id)
            if (
                prepared is not None
                and state.combatants[target_id].active
                and reacts(state.condition_rules, state.combatants[target_id])  # V27
            ):
                saved = defend(
                    cup,
                    state.combatants[target_id],
                    caster.id,
                    prepared,
                    roll.total,
                    state.condition_rules,
                )
                defences.append(saved)
                if saved.success:
                    outcome = DODGED
        results.append(SpellTargetResult(target_id, dodge, outcome, changes))
    affected = [r.target for r in results if r.outcome in (HIT, CRITICAL_HIT)]
    if natural in (1, 20):
        overall = CRITICAL_FAIL if natural == 1 else CRITICAL_HIT
    elif affected:
        overall = HIT
    else:
        overall = DODGED if any(r.outcome == DODGED for r in results) else MISS
    damage = None
    if dice and (affected or natural == 1):
        damage = spell_damage_roll(cup, caster, dice, natural == 20)
    events: list[Event] = [
        SpellAttackRolled(
            caster.id, spell.name, spell.shape, roll, "SD", overall, tuple(results), damage
        ),
        *defences,
    ]
    for target_id in affected:
        amount = None if damage is None else damage.total
        events += spell_effects(state, cup, caster, spell, bought, target_id, amount)
    if natural == 1:  # V6: the spell goes off on the caster, half damage and half times
        amount = None if damage is None else damage.total // 2
        events += spell_effects(state, cup, caster, spell, bought, caster.id, amount, True)
    return events


# --- the command ----------------------------------------------------------------


@VERSE.decides(CastSpell)
def decide_cast(state: Encounter, command: CastSpell, cup: DiceCup) -> list[Event]:
    caster = acting(state, command.actor)
    spell = castable_spell(caster, command.spell)
    if caster.charging is not None:
        raise CommandRefused(
            ALREADY_CHARGING, f"{caster.id} is charging {caster.charging.spell} (V12)"
        )
    dice, bought, mc = spell_cost(spell, command.extra_spell_dice, command.options)
    aimed, reach = aim(state, caster, spell, bought, command.targets, command.target)
    shares = mana_shares(state, caster, spell, mc, command.helpers, command.pledged)
    time = group_cast_time(tuple(s.mc for s in shares))
    action = casting_action(spell, time)
    check_action(caster, action, state.condition_rules)
    cast = SpellCast(
        caster.id,
        spell.name,
        mc,
        dice,
        bought,
        time,
        action,
        shares,
        spell_dc(mc, caster.sheet.level),
        command.targets,
        command.target,
    )
    events: list[Event] = [cast, *payment_events(state, spell.name, shares)]
    now = apply_all(state, events)
    if time == 1:
        resolved = resolve_spell(now, cup, caster.id, spell, dice, bought, aimed, reach)
        events += resolved
        now = apply_all(now, resolved)
    if action == ActionType.FULL_ROUND:  # V17: a Full Round Action ends the turn
        events += end_of_turn_events(now, cup)
    return events


def casting_action(spell: Spell, cast_time: int) -> str:
    """The action a cast spends. V12: a spell cast in one action takes "1 action
    depending on the type of action the spell" (Standard, Swift or Full Round); a
    charged one takes "one standard action" in each of its rounds, its cast included."""
    return spell.cast_action if cast_time <= 1 else ActionType.STANDARD


def cast_time_of(caster: VerseCombatant, command: CastSpell) -> int:
    """How many rounds `command` would take (V12), as far as the command alone tells: a
    group cast's time follows the shares, and a cast its cost refuses is refused when it
    resolves, so both count as one here."""
    spell = caster.sheet.spell(command.spell)
    if spell is None or command.helpers or command.pledged:
        return 1
    try:
        _, _, mc = spell_cost(spell, command.extra_spell_dice, command.options)
    except CommandRefused:
        return 1
    return cast_time(mc)


@VERSE.applies(SpellCast)
def apply_spell_cast(state: Encounter, event: SpellCast) -> Encounter:
    for share in event.shares:
        payer: VerseCombatant = state.combatants[share.combatant]
        if share.combatant != event.caster and payer.pledges:
            # R74: a pledge covers one cast; helping this one uses it up.
            payer = evolve(payer, pledges=pledges_after(payer, event.caster, event.spell))
        elif not share.from_mp:
            continue
        state = state.with_combatant(evolve(payer, mana=payer.mana - share.from_mp))
    caster: VerseCombatant = state.combatants[event.caster]
    charge = None
    if event.cast_time > 1:  # V12: the first of its actions is spent now
        charge = Charge(
            event.spell,
            event.mc,
            event.spell_dice,
            event.cast_time,
            1,
            event.targets,
            event.target,
            event.options,
            charged_in=state.round,
        )
    return state.with_combatant(
        evolve(caster, actions=spend(caster.actions, event.action), charging=charge)
    )


@VERSE.applies(SpellAttackRolled)
def apply_spell_attack(state: Encounter, event: SpellAttackRolled) -> Encounter:
    return state  # the effects follow as their own events
