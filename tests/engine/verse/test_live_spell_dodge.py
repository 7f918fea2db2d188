"""V22 and V19 against spells: the target of a single-target spell may Dodge it."""

from __future__ import annotations

from server.engine.flow import Ask, Mode
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.defences import DefenceRolled
from server.engine.rulesets.verse.live import Answer, Declare, PassWindow
from server.engine.rulesets.verse.live_actions import HoldAction
from server.engine.rulesets.verse.sheet import AccessLevel, Feat, FeatKind, Spell
from server.engine.rulesets.verse.spells import CastSpell, SpellAttackRolled
from tests.engine.verse.builders import fighter, sheet
from tests.engine.verse.live_script import of, one, started_live

BOLT = Spell(
    "Bolt", min_mc=2, access_level=AccessLevel.CANTRIP, uses_spell_die=True, base_spell_dice=1
)


def mage() -> VerseCombatant:
    return fighter("bram", "pc", 0, 0, sheet_=sheet("bram", spells=(BOLT,)))


def test_a_dodge_avoids_a_spell_that_would_have_hit() -> None:
    # Initiative (id order): bram 15, g1 5. Bolt: d20 12 + Sanity 2 = 14 vs SD 11: hit.
    # g1's Dodge: d20 13 + Dexterity 2 = 15 meets 14: the spell misses it entirely.
    g1 = fighter(
        "g1", "gm", 1, 0, facing=4, sheet_=sheet("g1", feats=(Feat("Riposte", FeatKind.COUNTER),))
    )
    fight = started_live(mage(), g1, dice=(15, 5, 12, 13))
    fight.do(Declare("g1", (HoldAction("g1"),)))
    fight.do(Declare("bram", (CastSpell("bram", "Bolt", targets=("g1",)),)))
    assert fight.asked() == {"g1": ("dodge",)}  # no Block against a spell (V22)
    events = fight.do(Answer("g1", fight.window.id, "dodge"))
    spell = one(events, SpellAttackRolled)
    dodge = one(events, DefenceRolled)
    assert (spell.results[0].outcome, spell.damage) == ("dodged", None)
    assert (dodge.roll.total, dodge.against, dodge.success) == (15, 14, True)
    assert not of(events, DamageDealt)
    assert fight.who("g1").health == 20 and fight.who("g1").defensive_used
    # V22: the successful defence opens a Counter for a defender with the feat.
    assert fight.asked() == {"g1": ("counter",)}
    fight.do(PassWindow("g1", fight.window.id))
    assert fight.replays()


def test_a_failed_dodge_lets_the_spell_hit() -> None:
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # Bolt 12 + 2 = 14; Dodge 3 + 2 = 5: fails; 1d4 3 vs SR 1.
    fight = started_live(mage(), g1, dice=(15, 5, 12, 3, 3))
    fight.do(Declare("g1", (HoldAction("g1"),)))
    fight.do(Declare("bram", (CastSpell("bram", "Bolt", targets=("g1",)),)))
    events = fight.do(Answer("g1", fight.window.id, "dodge"))
    assert not one(events, DefenceRolled).success
    assert one(events, DamageDealt).to_health == 2
    assert fight.replays()


def test_a_holder_may_dodge_a_spell_aimed_at_it_in_turn_based_combat() -> None:
    # V19: "a ranged attack or spell aimed at it"; V25 keeps the holder's Dodge.
    # Initiative (id order): bram 5, g1 15: g1 acts first and holds.
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    fight = started_live(mage(), g1, dice=(5, 15, 12, 13), mode=Mode.TURN_BASED)
    fight.do(HoldAction("g1"))
    assert fight.state.current == "bram"
    fight.do(CastSpell("bram", "Bolt", targets=("g1",)))
    assert fight.window.asked == (Ask("g1", ("hold", "holder_dodge")),)  # no Defensive (V25)
    events = fight.do(Answer("g1", fight.window.id, "holder_dodge"))
    assert one(events, DefenceRolled).success  # 13 + 2 = 15 meets 12 + 2 = 14
    assert not of(events, DamageDealt)
    assert not fight.who("g1").holding  # either way the hold ends (V19)
    assert fight.replays()
