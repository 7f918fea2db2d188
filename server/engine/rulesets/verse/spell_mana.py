"""Who pays a spell's Mana Cost, and what paying does (Verse V10, V12, V14).

V10: the MC comes from the Mana Pool. A cantrip (MC 0) needs MP >= 1 and is never paid
from Constitution. MC beyond the MP left is paid from Constitution (Constitution 0:
unconscious, below 0: dead). A Mana Pool that reaches 0 - from above 0; one already
empty does not "reach" it again - leaves its owner Exhausted until the end of its next
turn: two turn ends when gained on its own turn, one otherwise.

V12, group casting: helpers who know the spell and may cast its level (V14) pay shares
of the MC from their Mana Pools only, never from Constitution; the caster pays the
rest. Each share must be positive and within the helper's MP, and the shares may not
add up to more than the MC. The text sets no range for helpers: they must be in the
encounter and able to act, and they spend no action of theirs (the action economy of
V17 is per own turn; the cast happens in the caster's).

R74, a helper consents. A share is spent only with the helper's player's agreement:
- `CastSpell.helpers` are helpers the sender itself plays: the same seat's other
  characters, any combatant for the GM. The server checks that before the engine sees
  the command (`authority.authorize`, `Command.commits`), since only it knows who sent
  it; another seat's combatant or a foe named there is refused `helper_not_consenting`.
- `CastSpell.pledged` are helpers whose own player pledged a share (`PledgeMana`):
  "`actor` pays up to `share` MC of `caster`'s `spell`". The pledge is in the state
  (`VerseCombatant.pledges`), made in the helper's own command: in Live Combat while the
  planning window is open, with the declarations (V20); in Turn Based Combat at any
  moment of the round before the cast (a consent spends no action, R11). It lasts until
  the round ends (`turns.apply_round_started`), covers one cast (a cast it pays for
  uses it up), may be replaced, and is taken back with a share of 0 while it may still
  be made. The caster names the share it counts on, at most the pledge; without a
  pledge, or above it, the cast is refused `helper_not_consenting` (in Live Combat the
  declared cast is then lost, and the log says why).
The helper's share is still paid only if the helper can pay it when the spell is cast
(able to act, knows the spell, MP enough).
"""

from __future__ import annotations

from server.engine.core import Command, Event
from server.engine.dice import DiceCup
from server.engine.errors import (
    HELPER_NOT_CONSENTING,
    INCAPACITATED,
    INVALID_COMMAND,
    INVALID_MANA_SHARE,
    NOT_ENOUGH_MANA,
    SPELL_NOT_ACCESSIBLE,
    UNKNOWN_SPELL,
    WRONG_PHASE,
    CommandRefused,
)
from server.engine.flow import Mode, WindowKind
from server.engine.records import evolve, record
from server.engine.rulesets.verse import progression
from server.engine.rulesets.verse.combatant import EXHAUSTED, ManaPledge, VerseCombatant
from server.engine.rulesets.verse.conditions import (
    AbilityDamaged,
    ability_damage_consequences,
    gained,
)
from server.engine.rulesets.verse.ruleset import VERSE, combatant
from server.engine.rulesets.verse.sheet import Spell
from server.engine.rulesets.verse.spell_costs import is_named_amounts
from server.engine.state import Encounter, Phase, not_fighting

MAX_PLEDGES = 8  # pledges one combatant may hold at once (a bound, not a rule)


@record
class ManaShare:
    """Who paid what of a spell's MC (V10, V12)."""

    combatant: str
    mc: int
    from_mp: int
    from_constitution: int = 0


@record
class PledgeMana(Command):
    """R74: `actor` agrees to pay up to `share` MC of `caster`'s next cast of `spell`
    this round (V12 group casting); the caster names it in `CastSpell.pledged`. A share
    of 0 takes the pledge back."""

    actor: str
    caster: str
    spell: str
    share: int


@record
class ManaPledged(Event):
    """`helper` pledged up to `share` MC of `caster`'s `spell` this round (0: taken back)."""

    helper: str
    caster: str
    spell: str
    share: int


def castable_spell(caster: VerseCombatant, name: str) -> Spell:
    """The spell, if the caster knows it and has its access level (V14)."""
    spell = caster.sheet.spell(name)
    if spell is None:
        raise CommandRefused(UNKNOWN_SPELL, f"{caster.id} does not know {name!r}")
    if not progression.can_cast_level(caster.sheet, spell.access_level):
        raise CommandRefused(
            SPELL_NOT_ACCESSIBLE,
            f"{caster.id} knows {name} but has no access to {spell.access_level} spells",
        )
    return spell


def mana_shares(
    state: Encounter,
    caster: VerseCombatant,
    spell: Spell,
    mc: int,
    helpers: tuple[tuple[str, int], ...],
    pledged: tuple[tuple[str, int], ...] = (),
) -> tuple[ManaShare, ...]:
    """V10 and V12: who pays what. Helpers pay from MP only; the caster pays the rest,
    beyond its MP from Constitution; a cantrip needs MP >= 1. R74: `helpers` are the
    sender's own (vouched for by `authority.authorize`); each of `pledged` must have
    pledged at least its share of this spell to this caster (`PledgeMana`)."""
    if not is_named_amounts(helpers) or not is_named_amounts(pledged):
        raise CommandRefused(
            INVALID_COMMAND, "helpers and pledged are (co-caster id, MC share) pairs"
        )
    shares: list[ManaShare] = []
    seen = {caster.id}
    named = [(h, s, False) for h, s in helpers] + [(h, s, True) for h, s in pledged]
    for helper_id, share, needs_pledge in named:
        helper = combatant(state, helper_id)
        if helper_id in seen:
            raise CommandRefused(INVALID_MANA_SHARE, f"{helper_id} is named twice")
        seen.add(helper_id)
        if needs_pledge:
            check_pledge(helper, caster.id, spell.name, share)
        if not helper.active:
            raise CommandRefused(INCAPACITATED, f"{helper_id} cannot act")
        castable_spell(helper, spell.name)
        if share <= 0:
            raise CommandRefused(INVALID_MANA_SHARE, f"{helper_id}'s share must be positive")
        if share > helper.mana:
            raise CommandRefused(
                NOT_ENOUGH_MANA, f"{helper_id} has {helper.mana} MP for a share of {share}"
            )
        shares.append(ManaShare(helper_id, share, share))
    own = mc - sum(s.mc for s in shares)
    if own < 0:
        raise CommandRefused(INVALID_MANA_SHARE, f"the shares add up to more than {mc} MC")
    if mc == 0 and caster.mana < 1:
        raise CommandRefused(NOT_ENOUGH_MANA, "a cantrip needs at least 1 MP left (V10)")
    from_mp = min(own, caster.mana)
    return (ManaShare(caster.id, own, from_mp, own - from_mp), *shares)


def check_pledge(helper: VerseCombatant, caster: str, spell: str, share: int) -> None:
    """R74: `helper`'s player agreed to pay at least `share` of `caster`'s `spell`."""
    pledge = helper.pledge_for(caster, spell)
    if pledge is None:
        raise CommandRefused(
            HELPER_NOT_CONSENTING,
            f"{helper.id} has pledged no share of {caster}'s {spell} this round (PledgeMana)",
        )
    if share > pledge.share:
        raise CommandRefused(
            HELPER_NOT_CONSENTING,
            f"{helper.id} pledged up to {pledge.share} MC of {caster}'s {spell}, not {share}",
        )


def payment_events(state: Encounter, spell: str, shares: tuple[ManaShare, ...]) -> list[Event]:
    """V10: Constitution overdraw and its consequences, Exhausted when MP reaches 0."""
    events: list[Event] = []
    for share in shares:
        if share.from_constitution:
            reason = f"{spell}: MC beyond the Mana Pool"
            events.append(
                AbilityDamaged(
                    share.combatant, "constitution", share.from_constitution, None, reason
                )
            )
            events += ability_damage_consequences(
                state, share.combatant, "constitution", share.from_constitution, reason
            )
    for share in shares:
        payer = state.combatants[share.combatant]
        if share.from_mp and payer.mana == share.from_mp:
            # Until the end of its next turn: one more turn end when gained on its own turn.
            rounds = 2 if state.current == share.combatant else 1
            events.append(gained(payer, EXHAUSTED, rounds, True, "Mana Pool 0"))
    return events


# --- R74: pledges --------------------------------------------------------------------


@VERSE.decides(PledgeMana)
def decide_pledge(state: Encounter, command: PledgeMana, cup: DiceCup) -> list[Event]:
    """R74: a pledge is made while the fight runs: in Live Combat in the planning window
    (with the declarations, V20), in Turn Based Combat at any moment. The helper must be
    able to act, know the spell and have its access level (V12, V14) and the MP; the
    caster's sheet is not looked at (another side's is secret): its cast is checked."""
    if state.phase != Phase.COMBAT:
        raise CommandRefused(WRONG_PHASE, not_fighting(state))
    window = state.window
    if state.mode == Mode.LIVE and (window is None or window.kind != WindowKind.PLANNING):
        raise CommandRefused(
            WRONG_PHASE, "in Live Combat mana is pledged in the planning window (V20)"
        )
    if not isinstance(command.spell, str) or type(command.share) is not int:
        raise CommandRefused(INVALID_COMMAND, "a pledge names a spell and a whole MC share")
    helper = combatant(state, command.actor)
    caster = combatant(state, command.caster)
    if caster.id == helper.id:
        raise CommandRefused(INVALID_MANA_SHARE, f"{helper.id} pays its own casts whole")
    if command.share < 0:
        raise CommandRefused(INVALID_MANA_SHARE, "a pledged share is 0 (taken back) or more")
    pledged = ManaPledged(helper.id, caster.id, command.spell, command.share)
    if command.share == 0:
        if helper.pledge_for(caster.id, command.spell) is None:
            raise CommandRefused(
                INVALID_COMMAND, f"{helper.id} has no pledge to {caster.id}'s {command.spell}"
            )
        return [pledged]
    if not helper.active:
        raise CommandRefused(INCAPACITATED, f"{helper.id} cannot act")
    castable_spell(helper, command.spell)
    if command.share > helper.mana:
        raise CommandRefused(
            NOT_ENOUGH_MANA, f"{helper.id} has {helper.mana} MP for a share of {command.share}"
        )
    replaced = helper.pledge_for(caster.id, command.spell) is not None
    if not replaced and len(helper.pledges) >= MAX_PLEDGES:
        raise CommandRefused(INVALID_COMMAND, f"at most {MAX_PLEDGES} pledges at once")
    return [pledged]


@VERSE.applies(ManaPledged)
def apply_mana_pledged(state: Encounter, event: ManaPledged) -> Encounter:
    helper: VerseCombatant = state.combatants[event.helper]
    return state.with_combatant(
        evolve(helper, pledges=pledges_after(helper, event.caster, event.spell, event.share))
    )


def pledges_after(
    helper: VerseCombatant, caster: str, spell: str, share: int = 0
) -> tuple[ManaPledge, ...]:
    """`helper`'s pledges with the one to `caster`'s `spell` replaced (0: removed)."""
    kept = tuple(p for p in helper.pledges if p.caster != caster or p.spell != spell)
    return (*kept, ManaPledge(caster, spell, share)) if share else kept
