"""Charged spells and Aggressive Stance in the reaction flow (V12, V18, V22)."""

from __future__ import annotations

from server.engine.flow import Ask
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.awareness import (
    AwarenessSet,
    SetAwareness,
    StealthCheck,
    StealthChecked,
)
from server.engine.rulesets.verse.combatant import Charge, Stance
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.defences import DefenceRolled
from server.engine.rulesets.verse.interruptions import ChargeLost
from server.engine.rulesets.verse.live import Answer, Declare, PassWindow
from server.engine.rulesets.verse.live_actions import HoldAction
from server.engine.rulesets.verse.movement import OpportunityAttack
from server.engine.rulesets.verse.overrides import SetCondition
from server.engine.rulesets.verse.sheet import Spell, SpellRange
from server.engine.rulesets.verse.spell_charges import ChargeSpell
from server.engine.rulesets.verse.spells import CastSpell, SpellAttackRolled
from server.engine.rulesets.verse.windows import WindowClosed
from server.engine.stack import Passed
from tests.engine.verse.builders import fighter, sheet
from tests.engine.verse.live_script import of, one, started_live

METEOR = Spell("Meteor", min_mc=20, uses_spell_die=True, base_spell_dice=1, range=SpellRange.LONG)


def test_a_charge_is_dodged_when_it_goes_off_not_when_it_begins() -> None:
    """V12 and V22: the cast that begins a charge attacks nobody yet; its last step does."""
    bram = fighter("bram", "pc", 0, 0, sheet_=sheet("bram", spells=(METEOR,), mana=30))
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # Initiative (id order): bram 15, g1 5. Round 2: Meteor 12 + 2 = 14 hits SD 11;
    # g1's Dodge 13 + 2 = 15 avoids it.
    fight = started_live(bram, g1, dice=(15, 5, 12, 13))
    fight.do(Declare("g1", (HoldAction("g1"),)))
    events = fight.do(Declare("bram", (CastSpell("bram", "Meteor", targets=("g1",)),)))
    assert not of(events, SpellAttackRolled)  # the charge began: no window, no attack
    assert fight.who("bram").charging is not None
    assert fight.window.kind == "planning"  # round 2
    fight.do(Declare("g1", (HoldAction("g1"),)))
    fight.do(Declare("bram", (ChargeSpell("bram"),)))
    assert fight.asked() == {"g1": ("dodge", "hold", "holder_dodge")}  # no Block vs a spell
    events = fight.do(Answer("g1", fight.window.id, "dodge"))
    assert one(events, DefenceRolled).success
    assert one(events, SpellAttackRolled).results[0].outcome == "dodged"
    assert fight.replays()


def test_a_defensive_action_loses_the_defenders_own_charge() -> None:
    """V12: a charged spell is lost if the caster takes a Defensive action."""
    charging = Charge("Meteor", 20, 1, 2, 1, ("g1",))
    bram = fighter(
        "bram", "pc", 1, 0, facing=4, charging=charging, sheet_=sheet("bram", spells=(METEOR,))
    )
    g1 = fighter("g1", "gm", 0, 0)
    # g1 acts first (15 vs 5): d20 15 hits; bram's Dodge 3 + 2 = 5 fails; 1d8 4.
    fight = started_live(bram, g1, dice=(5, 15, 15, 3, 4))
    fight.do(Declare("bram", (ChargeSpell("bram"),)))
    fight.do(Declare("g1", (Attack("g1", "bram", "longsword"),)))
    events = fight.do(Answer("bram", fight.window.id, "dodge"))
    assert one(events, ChargeLost).caster == "bram"
    assert fight.who("bram").charging is None
    assert fight.replays()


def test_an_aggressive_attacker_is_offered_its_attacks_of_opportunity() -> None:
    """V18: attacking in Aggressive Stance opens attacks of opportunity on every foe it is
    engaged with; in Live Combat the attacker is asked, one window at a time."""
    ayla = fighter("ayla", "pc", 0, 0, stance=Stance.AGGRESSIVE)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    g2 = fighter("g2", "gm", 0, 1, facing=6)
    # Initiative (id order): ayla 15, g1 3, g2 2. Ayla's attack on g1 misses (2 + 5 = 7);
    # her opportunity on g2: 15 + 5 = 20 hits PD 12, 1d8 3.
    fight = started_live(ayla, g1, g2, dice=(15, 3, 2, 2, 15, 3))
    fight.do(Declare("g1", (HoldAction("g1"),)))
    fight.do(Declare("g2", (HoldAction("g2"),)))
    fight.do(Declare("ayla", (Attack("ayla", "g1", "longsword"),)))
    assert fight.asked() == {"g1": ("dodge", "block")}
    fight.do(PassWindow("g1", fight.window.id))
    assert fight.window.asked == (Ask("ayla", ("opportunity",)),)
    assert (
        fight.refused(
            Answer("ayla", fight.window.id, "opportunity", OpportunityAttack("ayla", "ayla"))
        )
        == "invalid_command"
    )
    on_g2 = OpportunityAttack("ayla", "g2", "longsword")
    fight.do(Answer("ayla", fight.window.id, "opportunity", on_g2))
    assert fight.asked() == {"g2": ("dodge", "block")}  # the opportunity is an attack too
    fight.do(PassWindow("g2", fight.window.id))
    assert fight.who("g2").health == 20 - 3  # 1d8 3 + 2 vs PR 2
    # One opportunity is left (g1): the next window offers it.
    assert fight.window.asked == (Ask("ayla", ("opportunity",)),)
    assert fight.replays()


def test_an_attack_of_opportunity_is_not_sent_directly_in_live_combat() -> None:
    ayla = fighter("ayla", "pc", 0, 0, opportunities=("g1",))
    g1 = fighter("g1", "gm", 1, 0)
    fight = started_live(ayla, g1, dice=(15, 5))
    assert fight.refused(OpportunityAttack("ayla", "g1", "longsword")) == "wrong_phase"


def test_awareness_can_be_declared() -> None:
    ayla = fighter("ayla", "pc", 0, 0)
    g1 = fighter("g1", "gm", 5, 0)
    fight = started_live(ayla, g1, dice=(15, 5))
    fight.do(Declare("g1", (HoldAction("g1"),)))
    assert fight.who("ayla").awareness != "on_guard"
    events = fight.do(Declare("ayla", (SetAwareness("ayla", "on_guard"),)))
    assert one(events, AwarenessSet).awareness == "on_guard"  # on ayla's turn
    assert fight.who("ayla").awareness == "on_guard"
    assert fight.replays()


def test_a_stealth_check_can_be_declared_and_rolls_on_the_sneakers_turn() -> None:
    """R26 in Live Combat: the check is declared like an action and made on the turn."""
    ayla = fighter("ayla", "pc", -3, 0, sheet_=sheet("ayla", stealth=4))
    guard = fighter("guard", "gm", 0, 0)  # looks along +x: ayla is behind it
    # Initiative (id order): ayla 15, guard 5; then Stealth d20 10 + 4 = 14 meets
    # Perception d20 14.
    fight = started_live(ayla, guard, dice=(15, 5, 10, 14))
    fight.do(Declare("guard", ()))
    events = fight.do(Declare("ayla", (StealthCheck("ayla", "guard"),)))
    check = one(events, StealthChecked)
    assert (check.stealth_roll.total, check.perception_roll.total, check.success) == (14, 14, True)
    assert fight.state.round == 2
    assert fight.replays()


def test_a_stunned_defender_neither_answers_nor_defends() -> None:
    """V22, R69: a Defensive Action needs a character able to act. Stunned by the GM
    while the window asks her, ayla passes at once: the window does not wait out its
    time for an answer that cannot come, and the attack resolves."""
    ayla = fighter("ayla", "pc", 0, 0)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # g1 first (15 vs 5): its attack 15 + 5 = 20 hits; 1d8 4.
    fight = started_live(ayla, g1, dice=(5, 15, 15, 4))
    fight.do(Declare("ayla", (HoldAction("ayla"),)))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    window = fight.window
    assert fight.asked() == {"ayla": ("dodge", "block")}
    events = fight.do(SetCondition("ayla", "Stunned", 1))  # the GM stuns her mid-window
    assert events[1:3] == [Passed(window.id, "ayla"), WindowClosed(window.id, "answered")]
    assert not of(events, DefenceRolled)
    assert one(events, DamageDealt).target == "ayla"
    assert fight.refused(Answer("ayla", window.id, "dodge")) == "no_window"
    assert fight.replays()


def test_stunning_one_of_two_asked_leaves_the_window_waiting_for_the_other() -> None:
    ayla = fighter("ayla", "pc", 0, 0)
    bram = fighter("bram", "pc", 0, 1)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # Initiative (id order): ayla 20, bram 19, g1 5: both hold before g1 attacks.
    fight = started_live(ayla, bram, g1, dice=(18, 17, 3))
    fight.do(Declare("ayla", (HoldAction("ayla"),)))
    fight.do(Declare("bram", (HoldAction("bram"),)))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    fight.do(PassWindow("ayla", fight.window.id))  # bram's Hold Action is an action too
    window = fight.window
    assert fight.asked() == {"ayla": ("dodge", "block", "hold"), "bram": ("hold",)}
    events = fight.do(SetCondition("bram", "Stunned", 1))
    assert events[1:] == [Passed(window.id, "bram")]
    assert fight.window.waiting_for == ("ayla",)
    assert fight.replays()
