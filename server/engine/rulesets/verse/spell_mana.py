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
"""

from __future__ import annotations

from server.engine.core import Event
from server.engine.errors import (
    INCAPACITATED,
    INVALID_COMMAND,
    INVALID_MANA_SHARE,
    NOT_ENOUGH_MANA,
    SPELL_NOT_ACCESSIBLE,
    UNKNOWN_SPELL,
    CommandRefused,
)
from server.engine.records import record
from server.engine.rulesets.verse import progression
from server.engine.rulesets.verse.combatant import EXHAUSTED, VerseCombatant
from server.engine.rulesets.verse.conditions import (
    AbilityDamaged,
    ConditionGained,
    ability_damage_consequences,
)
from server.engine.rulesets.verse.ruleset import combatant
from server.engine.rulesets.verse.sheet import Spell
from server.engine.rulesets.verse.spell_costs import is_named_amounts
from server.engine.state import Encounter


@record
class ManaShare:
    """Who paid what of a spell's MC (V10, V12)."""

    combatant: str
    mc: int
    from_mp: int
    from_constitution: int = 0


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
) -> tuple[ManaShare, ...]:
    """V10 and V12: who pays what. Helpers pay from MP only; the caster pays the rest,
    beyond its MP from Constitution; a cantrip needs MP >= 1."""
    if not is_named_amounts(helpers):
        raise CommandRefused(INVALID_COMMAND, "helpers are (co-caster id, MC share) pairs")
    shares: list[ManaShare] = []
    seen = {caster.id}
    for helper_id, share in helpers:
        helper = combatant(state, helper_id)
        if helper_id in seen:
            raise CommandRefused(INVALID_MANA_SHARE, f"{helper_id} is named twice")
        seen.add(helper_id)
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
            events.append(ConditionGained(share.combatant, EXHAUSTED, rounds, True, "Mana Pool 0"))
    return events
