"""Reactions in Live Combat: windows and the stack (V21), who may answer what (V22),
Hold Action (V19) and the adapt window (V23).

Each scenario: the sheets, the dice (scripted face by face; initiative faces first, in
the order of the combatants' ids), the commands, then the events and state that must
follow; each ends by replaying its log. On the square grid one cell is 5 ft; facing 0
looks along +x, facing 4 along -x.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from server.engine import execute
from server.engine.commands import WindowExpired
from server.engine.errors import CommandRefused
from server.engine.flow import Ask, WindowKind
from server.engine.grid import Cell
from server.engine.records import evolve
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.rulesets.verse.combatant import Awareness
from server.engine.rulesets.verse.criticals import ChooseCriticalRow
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.defences import DamageBlocked, DefenceRolled
from server.engine.rulesets.verse.live import (
    ActionLost,
    ActionPushed,
    ActionStarted,
    Answer,
    Declare,
    PassWindow,
)
from server.engine.rulesets.verse.live_actions import (
    Counter,
    HoldAction,
    ItemKnockedAway,
    ItemUsed,
    KnockAway,
    ManeuverRolled,
    UseItem,
)
from server.engine.rulesets.verse.movement import Face, Move, Moved, OpportunityAttack
from server.engine.rulesets.verse.sheet import Feat, FeatKind, Item, Weapon
from server.engine.rulesets.verse.stances import SetStance, StanceSet
from server.engine.rulesets.verse.turns import TurnStarted
from server.engine.rulesets.verse.windows import WindowClosed, WindowOpened
from tests.engine.verse.builders import fighter, sheet
from tests.engine.verse.live_script import Fight, names, of, one, started_live

RIPOSTE = Feat("Riposte", FeatKind.COUNTER)
QUICK_HANDS = Feat("Quick Hands", FeatKind.QUICK_RESPONSE)
POTION = Item("potion", heal="2d4+2")


def between(events: Sequence[object], first: object, last: object) -> list[str]:
    """The names of the events strictly between two events of the list."""
    return [type(e).__name__ for e in events[events.index(first) + 1 : events.index(last)]]


# --- V21: windows and the stack -------------------------------------------------------


@pytest.mark.parametrize(("facing", "asked"), [(0, {}), (4, {"ayla": ("dodge", "block")})])
def test_a_window_opens_only_when_someone_may_answer(
    facing: int, asked: dict[str, tuple[str, ...]]
) -> None:
    """V21/V22: g1 shoots Ayla from 20 ft behind her (facing 0, away from it): she is not
    aware, nobody else may answer, so no window opens and the attack resolves at once.
    Facing it (4), she is aware and may Dodge or Block."""
    ayla = fighter("ayla", "pc", 0, 0, facing=facing)
    g1 = fighter("g1", "gm", -4, 0)
    # g1 first (15 + 2), Ayla 5 + 2. The shot: d20 10 + Dex 2 + Training 1 = 13 vs PD 12.
    fight = started_live(ayla, g1, dice=(5, 15, 10, 4))
    events = fight.do(Declare("g1", (Attack("g1", "ayla", "shortbow"),)))
    events += fight.do(WindowExpired(fight.window.id))

    pushed = one(events, ActionPushed)
    if not asked:
        assert names(events)[events.index(pushed) + 1] == "ActionStarted"
        assert one(events, AttackRolled).outcome == "hit"
        assert fight.who("ayla").health == 20 - 3  # d6 4 + Training 1 = 5, PR 2
    else:
        opened = one(events, WindowOpened).window
        assert opened.kind == WindowKind.REACTION and opened.about == "g1"
        assert fight.asked() == asked
        fight.pass_windows()
    assert fight.replays()


def test_two_holders_answering_the_same_window_resolve_latest_first() -> None:
    """V21: answers resolve before the action they answer, the latest first (a stack)."""
    ayla = fighter("ayla", "pc", 0, 0)
    bram = fighter("bram", "pc", 1, 1)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # Initiative: ayla 20, bram 19, g1 5. Bram's attack 10 (hit), d8 2; Ayla's 10, d8 2;
    # g1's 2 (a miss).
    fight = started_live(ayla, bram, g1, dice=(18, 17, 3, 10, 2, 10, 2, 2))
    fight.do(Declare("ayla", (HoldAction("ayla"),)))
    fight.do(Declare("bram", (HoldAction("bram"),)))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    # Bram's Hold Action is an action like any other: Ayla, holding, may answer it.
    assert fight.asked() == {"ayla": ("hold",)}
    fight.do(PassWindow("ayla", fight.window.id))

    # g1 attacks Ayla in melee: she may defend or use her hold; Bram may use his hold.
    # (No holder's Dodge: that is against ranged attacks and spells only, V19.)
    assert fight.asked() == {"ayla": ("dodge", "block", "hold"), "bram": ("hold",)}
    window = fight.window.id
    fight.do(Answer("ayla", window, "hold", Attack("ayla", "g1", "longsword")))
    assert fight.refused(PassWindow("ayla", window)) == "already_answered"  # once a window
    assert fight.refused(PassWindow("g1", window)) == "not_asked"
    events = fight.do(Answer("bram", window, "hold", Attack("bram", "g1", "longsword")))
    assert [p.actor for p in fight.state.pending] == ["g1", "ayla", "bram"]
    events += fight.pass_windows()

    assert [a.attacker for a in of(events, AttackRolled)] == ["bram", "ayla", "g1"]
    assert fight.who("g1").health == 20 - 2 - 2
    assert fight.state.pending == ()
    assert fight.replays()


def test_a_reaction_window_that_runs_out_keeps_the_answers_given_and_closes() -> None:
    """V21: a window closes when all have answered or passed, or when its timer runs
    out: those who had not answered count as passing; the answers given stand."""
    ayla = fighter("ayla", "pc", 0, 0)
    bram = fighter("bram", "pc", 1, 1)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # Initiative: ayla 3, bram 20, g1 17. g1's attack: 10 (15, hit); Ayla's Dodge 15 (17).
    fight = started_live(ayla, bram, g1, dice=(1, 18, 15, 10, 15))
    fight.do(Declare("bram", (HoldAction("bram"),)))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    fight.do(WindowExpired(fight.window.id))
    assert fight.asked() == {"ayla": ("dodge", "block"), "bram": ("hold",)}

    window = fight.window.id
    fight.do(Answer("ayla", window, "dodge"))
    assert fight.window.waiting_for == ("bram",)
    events = fight.do(WindowExpired(window))

    assert names(events)[0] == "WindowClosed" and one(events, WindowClosed).reason == "expired"
    assert one(events, DefenceRolled).success  # Ayla's answer stood
    assert not of(events, DamageDealt)
    assert fight.who("bram").holding  # he let it go by and still holds
    assert fight.replays()


# --- V22: who may answer what -----------------------------------------------------------


def test_a_block_sends_the_damage_to_the_shield_and_none_to_the_character() -> None:
    """V22: Block needs a weapon or shield in hand; a successful one (a Dexterity save
    meeting the attack's total) sends the damage to the blocking item."""
    ayla = fighter("ayla", "pc", 0, 0, sheet_=sheet("ayla", shield="buckler"))
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # g1 first: d20 10 + 5 = 15 vs PD 12. Block: d20 13 + Dex 2 = 15 meets 15. d8 4.
    fight = started_live(ayla, g1, dice=(5, 15, 10, 13, 4))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    fight.do(WindowExpired(fight.window.id))
    assert fight.asked() == {"ayla": ("dodge", "block")}

    events = fight.do(Answer("ayla", fight.window.id, "block"))
    saved = one(events, DefenceRolled)
    assert (saved.kind, saved.roll.total, saved.against, saved.success, saved.item) == (
        "block", 15, 15, True, "buckler",
    )  # fmt: skip
    blocked = one(events, DamageBlocked)
    assert (blocked.defender, blocked.item, blocked.roll.total) == ("ayla", "buckler", 4 + 2)
    assert not of(events, DamageDealt)
    ayla_after = fight.who("ayla")
    assert (ayla_after.health, ayla_after.armour_durability) == (20, 10)
    assert fight.replays()


def test_without_a_weapon_or_shield_in_hand_there_is_no_block() -> None:
    ayla = fighter("ayla", "pc", 0, 0, sheet_=sheet("ayla", weapons=()))
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    fight = started_live(ayla, g1, dice=(5, 15, 2))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    fight.do(WindowExpired(fight.window.id))

    assert fight.asked() == {"ayla": ("dodge",)}
    assert fight.refused(Answer("ayla", fight.window.id, "block")) == "invalid_command"
    fight.pass_windows()
    assert fight.replays()


def test_one_defensive_action_per_round() -> None:
    """V22: after a Dodge, the next attack that round offers none (so, with nobody else
    to ask, opens no window); the allowance comes back with the next round."""
    ayla = fighter("ayla", "pc", 0, 0)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    g2 = fighter("g2", "gm", 0, 1, facing=6)
    # Initiative: ayla 3, g1 17, g2 16. g1: 10 (15, hit), Ayla's Dodge 15 (17: dodged);
    # g2: 2 (a miss). Round 2, g1: 2 (a miss).
    fight = started_live(ayla, g1, g2, dice=(1, 15, 14, 10, 15, 2, 2))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    fight.do(Declare("g2", (Attack("g2", "ayla", "longsword"),)))
    fight.do(WindowExpired(fight.window.id))
    assert fight.asked() == {"ayla": ("dodge", "block")}

    events = fight.do(Answer("ayla", fight.window.id, "dodge"))
    assert one(events, DefenceRolled).success
    g2_attack = next(p for p in of(events, ActionPushed) if p.pending.actor == "g2")
    g2_roll = next(a for a in of(events, AttackRolled) if a.attacker == "g2")
    assert between(events, g2_attack, g2_roll) == ["ActionStarted"]  # no window for g2

    assert fight.state.round == 2 and not fight.who("ayla").defensive_used
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    fight.do(WindowExpired(fight.window.id))
    assert fight.asked() == {"ayla": ("dodge", "block")}  # a new round, a new Dodge
    fight.pass_windows()
    assert fight.replays()


@pytest.mark.parametrize("has_feat", [True, False])
def test_a_successful_defence_opens_a_counter_for_a_defender_with_the_feat(
    has_feat: bool,
) -> None:
    """V22: after a successful Defensive Action the defender, if it has a Counter feat,
    may make one Counter attack against the attacker; the counter is an action too, so
    the attacker may defend against it."""
    feats = (RIPOSTE,) if has_feat else ()
    ayla = fighter("ayla", "pc", 0, 0, sheet_=sheet("ayla", feats=feats))
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # g1 first: 10 (15 vs PD 12); Ayla's Dodge 13 + 2 = 15 meets it. Counter: 15, d8 6.
    fight = started_live(ayla, g1, dice=(5, 15, 10, 13, 15, 6))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    fight.do(WindowExpired(fight.window.id))
    events = fight.do(Answer("ayla", fight.window.id, "dodge"))

    assert one(events, DefenceRolled).success
    assert not of(events, DamageDealt)
    if not has_feat:
        assert fight.window.kind == WindowKind.PLANNING  # no counter window: next round
        assert fight.replays()
        return
    counter = fight.window
    assert (counter.kind, counter.asked, counter.about) == (
        WindowKind.COUNTER, (Ask("ayla", ("counter",)),), "g1",
    )  # fmt: skip
    assert fight.refused(Answer("ayla", counter.id, "counter", Counter("ayla", "ayla"))) == (
        "invalid_command"
    )  # a Counter is aimed at the attacker
    fight.do(Answer("ayla", counter.id, "counter", Counter("ayla", "g1", "longsword")))
    assert fight.asked() == {"g1": ("dodge", "block")}
    events = fight.do(PassWindow("g1", fight.window.id))

    riposte = one(events, AttackRolled)
    assert (riposte.attacker, riposte.action, riposte.outcome) == ("ayla", "instant", "hit")
    assert fight.who("g1").health == 20 - 6
    assert fight.replays()


def test_after_a_miss_counter_feat_holders_within_reach_of_the_attacker_may_counter() -> None:
    """V22: after any miss, each character with a Counter feat within reach of the
    attacker may counter (not the one out of reach, not the one without the feat)."""
    ayla = fighter("ayla", "pc", 0, 0, sheet_=sheet("ayla", feats=(RIPOSTE,)))
    bram = fighter("bram", "pc", 2, 0)
    corvin = fighter("corvin", "pc", 5, 0, sheet_=sheet("corvin", feats=(RIPOSTE,)))
    g1 = fighter("g1", "gm", 1, 0)
    # Initiative: ayla 4, bram 5, corvin 6, g1 17. g1 on Bram: 2 (7, a miss).
    # Ayla's counter: 10 (15, hit), d8 3.
    fight = started_live(ayla, bram, corvin, g1, dice=(2, 3, 4, 15, 2, 10, 3))
    fight.do(Declare("g1", (Attack("g1", "bram", "longsword"),)))
    fight.do(WindowExpired(fight.window.id))
    assert fight.asked() == {"bram": ("dodge", "block")}
    events = fight.do(PassWindow("bram", fight.window.id))

    assert one(events, AttackRolled).outcome == "miss"
    assert fight.window.kind == WindowKind.COUNTER
    assert fight.asked() == {"ayla": ("counter",)}  # Corvin is 20 ft away; Bram has no feat
    fight.do(Answer("ayla", fight.window.id, "counter", Counter("ayla", "g1", "longsword")))
    events = fight.pass_windows()
    assert [(a.attacker, a.outcome) for a in of(events, AttackRolled)] == [("ayla", "hit")]
    assert fight.who("g1").health == 20 - 3
    assert fight.replays()


def test_a_quick_response_knocks_the_potion_away_before_it_is_drunk() -> None:
    """V22: a character with a Quick Response feat that sees a Swift action may answer
    it; answers resolve first, so the potion is gone when the UseItem resolves."""
    corvin = fighter("corvin", "pc", 2, 0, facing=4, sheet_=sheet("corvin", feats=(QUICK_HANDS,)))
    g2 = evolve(fighter("g2", "gm", 1, 0, sheet_=sheet("g2", items=(POTION,))), health=5)
    # g2 first (15 + 2). Corvin's maneuver: d20 12 + Strength 3 = 15 vs PD 12.
    fight = started_live(corvin, g2, dice=(3, 15, 12))
    fight.do(Declare("g2", (UseItem("g2", "potion"),)))
    fight.do(WindowExpired(fight.window.id))
    assert fight.asked() == {"corvin": ("quick_response",)}

    window = fight.window.id
    assert fight.refused(
        Answer("corvin", window, "quick_response", Attack("corvin", "g2", "longsword"))
    ) == "invalid_command"  # fmt: skip
    events = fight.do(
        Answer("corvin", window, "quick_response", KnockAway("corvin", "g2", "potion"))
    )

    maneuver = one(events, ManeuverRolled)
    assert (maneuver.roll.total, maneuver.defence, maneuver.success) == (15, 12, True)
    assert one(events, ItemKnockedAway) == ItemKnockedAway("g2", "potion", "corvin")
    lost = one(events, ActionLost)
    assert lost.action == UseItem("g2", "potion") and lost.reason.startswith("weapon_unusable")
    assert events.index(one(events, ItemKnockedAway)) < events.index(lost)
    assert not of(events, ItemUsed)
    g2_after = fight.who("g2")
    assert (g2_after.health, g2_after.dropped, g2_after.items_used) == (5, ("potion",), ())
    assert fight.replays()


def test_no_quick_response_to_a_swift_action_out_of_sight() -> None:
    """V22: the Quick Response answers a Swift or Move action the character can see:
    Corvin has his back to g2 (facing 0, g2 on his west), so nobody is asked."""
    corvin = fighter("corvin", "pc", 2, 0, facing=0, sheet_=sheet("corvin", feats=(QUICK_HANDS,)))
    g2 = evolve(fighter("g2", "gm", 1, 0, sheet_=sheet("g2", items=(POTION,))), health=5)
    # g2 first. The potion: 2d4 2 and 3, + 2.
    fight = started_live(corvin, g2, dice=(3, 15, 2, 3))
    fight.do(Declare("g2", (UseItem("g2", "potion"),)))
    events = fight.do(WindowExpired(fight.window.id))

    # No window for the potion: the only one that opens is the next round's planning.
    assert [w.window.kind for w in of(events, WindowOpened)] == [WindowKind.PLANNING]
    assert one(events, ItemUsed).healed == 7 and fight.who("g2").health == 12
    assert fight.replays()


def test_leaving_a_reach_opens_an_attack_of_opportunity_window() -> None:
    """V22: anyone whose reach a moving character leaves may make one attack of
    opportunity; as an answer it resolves before the move."""
    ayla = fighter("ayla", "pc", 0, 0)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # Ayla first (15 + 2). g1's attack of opportunity: 10 (15, hit), d8 3.
    fight = started_live(ayla, g1, dice=(15, 5, 10, 3))
    fight.do(Declare("ayla", (Move("ayla", (Cell(-1, 0), Cell(-2, 0))),)))
    fight.do(WindowExpired(fight.window.id))
    assert fight.asked() == {"g1": ("opportunity",)}

    window = fight.window.id
    fight.do(Answer("g1", window, "opportunity", OpportunityAttack("g1", "ayla", "longsword")))
    assert fight.asked() == {"ayla": ("dodge", "block")}  # she may defend against it
    events = fight.pass_windows()

    attack = one(events, AttackRolled)
    assert (attack.attacker, attack.action, attack.outcome) == ("g1", "instant", "hit")
    assert events.index(attack) < events.index(one(events, Moved))
    assert fight.who("ayla").position == Cell(-2, 0)
    assert fight.who("ayla").health == 20 - 3
    assert fight.replays()


# --- V19: Hold Action -------------------------------------------------------------------


def test_a_holder_passes_its_turn_and_acts_in_others_windows_until_its_next_turn() -> None:
    """V19: the holder takes no action on its turn and becomes Alert; until its next turn
    it may take one Standard and one Swift action in other characters' windows."""
    ayla = fighter("ayla", "pc", 0, 0, awareness=Awareness.DISTRACTED)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    g2 = fighter("g2", "gm", 5, 5)
    # Initiative: ayla 17, g1 7, g2 6. Ayla's held attack: 10 (15 vs PD 12), d8 3.
    fight = started_live(ayla, g1, g2, dice=(15, 5, 4, 10, 3))
    fight.do(Declare("ayla", (HoldAction("ayla"),)))
    fight.do(Declare("g2", (Face("g2", 3),)))
    events = fight.do(Declare("g1", (SetStance("g1", "defensive"), Face("g1", 4))))

    assert names(events)[3:] == [
        "TurnStarted",
        "ActionPushed",
        "ActionStarted",
        "HoldBegan",
        "ActionFinished",
        "TurnEnded",
        "TurnStarted",
        "ActionPushed",
        "WindowOpened",
    ]  # fmt: skip: Ayla's turn holds and ends; g1's stance waits on a window
    ayla_now = fight.who("ayla")
    assert ayla_now.holding and ayla_now.awareness == Awareness.ALERT
    assert not ayla_now.actions.standard  # her turn passed with no action

    # g1's Swift (its stance): Ayla uses her held Standard before it resolves.
    assert fight.asked() == {"ayla": ("hold",)}
    fight.do(Answer("ayla", fight.window.id, "hold", Attack("ayla", "g1", "longsword")))
    assert fight.asked() == {"g1": ("dodge", "block")}
    events = fight.do(PassWindow("g1", fight.window.id))
    attack = one(events, AttackRolled)
    assert (attack.attacker, attack.defence, attack.outcome) == ("ayla", 12, "hit")  # not yet +2
    assert events.index(attack) < events.index(one(events, StanceSet))

    # g1's Face: Ayla still has her Swift, but no second Standard.
    assert fight.asked() == {"ayla": ("hold",)}
    window = fight.window.id
    second = Answer("ayla", window, "hold", Attack("ayla", "g1", "longsword"))
    assert fight.refused(second) == "invalid_command"
    with pytest.raises(CommandRefused, match="only a Swift action remains"):
        execute(fight.state, second)  # the refusal says what is left
    events = fight.do(Answer("ayla", window, "hold", SetStance("ayla", "defensive")))
    assert [e.combatant for e in of(events, StanceSet)] == ["ayla"]
    assert fight.who("ayla").stance == "defensive"

    # g2's Face: Ayla has nothing left to hold, so nobody may answer: no window.
    g2_face = next(p for p in of(events, ActionPushed) if p.pending.actor == "g2")
    g2_starts = next(e for e in of(events, ActionStarted) if e.actor == "g2")
    assert between(events, g2_face, g2_starts) == []

    # Round 2: she holds until her next turn starts.
    assert fight.state.round == 2 and fight.who("ayla").holding
    events = fight.do(WindowExpired(fight.window.id))
    assert of(events, TurnStarted)[0].combatant == "ayla"
    assert not fight.who("ayla").holding
    assert fight.replays()


@pytest.mark.parametrize(("dodge_face", "health"), [(12, 20), (5, 20 - 3)])
def test_a_holder_may_dodge_a_ranged_attack_aimed_at_it_and_the_hold_ends(
    dodge_face: int, health: int
) -> None:
    """V19: while holding, a Dodge (d20 + Dexterity against the attack's total) against a
    ranged attack aimed at it: success avoids it entirely; either way the hold ends. It
    is not the round's Defensive Action (V22)."""
    ayla = fighter("ayla", "pc", 0, 0, facing=4)
    g1 = fighter("g1", "gm", -4, 0)
    # Ayla first. g1's shot: d20 10 + Dex 2 + Training 1 = 13 vs PD 12. Her Dodge:
    # 12 + 2 = 14 (avoids it) or 5 + 2 = 7 (fails: d6 4 + 1 = 5, PR 2).
    fight = started_live(ayla, g1, dice=(15, 5, 10, dodge_face, 4))
    fight.do(Declare("ayla", (HoldAction("ayla"),)))
    fight.do(Declare("g1", (Attack("g1", "ayla", "shortbow"),)))
    assert fight.asked() == {"ayla": ("dodge", "block", "hold", "holder_dodge")}

    events = fight.do(Answer("ayla", fight.window.id, "holder_dodge"))
    assert names(events)[:2] == ["Answered", "HoldEnded"]
    saved = one(events, DefenceRolled)
    assert (saved.kind, saved.against, saved.success) == ("dodge", 13, dodge_face == 12)
    assert bool(of(events, DamageDealt)) is (dodge_face != 12)
    ayla_after = fight.who("ayla")
    assert (ayla_after.health, ayla_after.holding, ayla_after.defensive_used) == (
        health, False, False,
    )  # fmt: skip
    assert fight.replays()


# --- V23: the adapt window --------------------------------------------------------------


def target_dies_first(*later_dice: int) -> Fight:
    """Ayla kills g1 (health 3) on her turn; Bram declared an attack on g1 for his."""
    ayla = fighter("ayla", "pc", 0, 0)
    bram = fighter("bram", "pc", 1, 1)
    g1 = fighter("g1", "gm", 1, 0, sheet_=sheet("g1", health=3))
    g2 = fighter("g2", "gm", 2, 1, facing=4)
    # Initiative: ayla 20, bram 19, g1 5, g2 4. Ayla's attack: 10 (hit), d8 3: 5, PR 2.
    fight = started_live(ayla, bram, g1, g2, dice=(18, 17, 3, 2, 10, 3, *later_dice))
    fight.do(Declare("ayla", (Attack("ayla", "g1", "longsword"),)))
    fight.do(Declare("bram", (Attack("bram", "g1", "longsword"),)))
    fight.do(WindowExpired(fight.window.id))
    fight.do(PassWindow("g1", fight.window.id))  # g1 does not dodge Ayla: it dies
    return fight


def test_a_target_dead_before_the_turn_comes_opens_an_adapt_window_for_a_new_target() -> None:
    """V23: the event's target is gone when its turn comes: its owner may choose a new
    target or another action in a short adapt window."""
    # Bram's new attack on g2: 10 (hit), d8 3.
    fight = target_dies_first(10, 3)
    assert not fight.who("g1").alive
    adapt = fight.window
    assert (adapt.kind, adapt.asked, adapt.seconds) == (
        WindowKind.ADAPT, (Ask("bram", ("adapt",)),), 8.0,
    )  # fmt: skip

    fight.do(Answer("bram", adapt.id, "adapt", Attack("bram", "g2", "longsword")))
    assert fight.asked() == {"g2": ("dodge", "block")}  # the new attack is answered anew
    events = fight.pass_windows()
    attack = one(events, AttackRolled)
    assert (attack.attacker, attack.target, attack.outcome) == ("bram", "g2", "hit")
    assert fight.who("g2").health == 20 - 3
    assert fight.replays()


@pytest.mark.parametrize("how", ["pass", "expire", "give up"])
def test_an_adapt_window_left_without_a_new_action_loses_the_action(how: str) -> None:
    fight = target_dies_first()
    window = fight.window.id
    if how == "pass":
        events = fight.do(PassWindow("bram", window))
    elif how == "expire":
        events = fight.do(WindowExpired(window))
    else:
        events = fight.do(Answer("bram", window, "adapt"))

    closed = one(events, WindowClosed)
    lost = one(events, ActionLost)
    assert (lost.actor, lost.action) == ("bram", Attack("bram", "g1", "longsword"))
    assert events.index(closed) < events.index(lost)
    assert [a.attacker for a in of(fight.log, AttackRolled)] == ["ayla"]
    assert fight.window.kind == WindowKind.PLANNING and fight.state.round == 2
    assert fight.replays()


def test_a_holders_action_whose_target_died_first_adapts_within_the_holds_limits() -> None:
    """V23 with V19: two holders answer g1's attack with attacks on g1; Bram's (the later)
    resolves first and kills it, so Ayla's has no target when its turn comes. She may
    adapt it, still as a holder: a Standard or a Swift, not a Move."""
    ayla = fighter("ayla", "pc", 0, 0)
    bram = fighter("bram", "pc", 1, 1)
    g1 = fighter("g1", "gm", 1, 0, facing=4, sheet_=sheet("g1", health=3))
    g2 = fighter("g2", "gm", 0, 1, facing=2)
    # Initiative: ayla 20, bram 19, g1 5, g2 4. Bram's attack: 10 (hit), d8 3 (3 after
    # PR 2: g1 dies). Ayla's new attack on g2: 10 (hit), d8 3.
    fight = started_live(ayla, bram, g1, g2, dice=(18, 17, 3, 2, 10, 3, 10, 3))
    fight.do(Declare("ayla", (HoldAction("ayla"),)))
    fight.do(Declare("bram", (HoldAction("bram"),)))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    fight.do(WindowExpired(fight.window.id))
    fight.do(PassWindow("ayla", fight.window.id))  # Bram's Hold Action
    window = fight.window.id
    fight.do(Answer("ayla", window, "hold", Attack("ayla", "g1", "longsword")))
    fight.do(Answer("bram", window, "hold", Attack("bram", "g1", "longsword")))
    fight.do(PassWindow("ayla", fight.window.id))  # about Bram's attack
    events = fight.do(PassWindow("g1", fight.window.id))

    assert one(events, AttackRolled).attacker == "bram" and not fight.who("g1").alive
    adapt = fight.window
    assert (adapt.kind, adapt.asked) == (WindowKind.ADAPT, (Ask("ayla", ("adapt",)),))
    step_away = Answer("ayla", adapt.id, "adapt", Move("ayla", (Cell(-1, 0),)))
    assert fight.refused(step_away) == "invalid_command"
    fight.do(Answer("ayla", adapt.id, "adapt", Attack("ayla", "g2", "longsword")))
    events = fight.pass_windows()

    attack = one(events, AttackRolled)
    assert (attack.attacker, attack.target, attack.action) == ("ayla", "g2", "standard")
    assert fight.who("g2").health == 20 - 3
    assert one(events, ActionLost).actor == "g1"  # g1's own attack: it is dead
    assert fight.replays()


def block_window_with_bram_holding(*weapons: Weapon) -> Fight:
    """g1's hit on Ayla waits on a window: Ayla may dodge or block with her longsword
    (or `weapons`), Bram (holding) may use his hold, which keeps the window open after
    Ayla answers."""
    ayla = fighter("ayla", "pc", 0, 0, sheet_=sheet("ayla", weapons=weapons) if weapons else None)
    bram = fighter("bram", "pc", 0, 1)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # Initiative: ayla 20, bram 19, g1 5. g1's attack 10 + 5 = 15 vs PD 12: a hit. Then
    # d8 2 for its damage, or a block that fails (2 + Dex 2 = 4) and d8 2.
    fight = started_live(ayla, bram, g1, dice=(18, 17, 3, 10, 2, 2))
    fight.do(Declare("ayla", (Face("ayla", 0),)))
    fight.do(Declare("bram", (HoldAction("bram"),)))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    while fight.asked().get("ayla") != ("dodge", "block"):
        for who in fight.asked():
            fight.do(PassWindow(who, fight.window.id))
    assert fight.asked() == {"ayla": ("dodge", "block"), "bram": ("hold",)}
    return fight


def test_a_block_with_the_item_knocked_away_is_refused() -> None:
    """V22: the window offered Block with the longsword in hand; a critical row has
    knocked it away since, so a Block now is refused and changes nothing."""
    fight = block_window_with_bram_holding()
    fight.do(ChooseCriticalRow("critical_hit", "ayla", 8))
    before = fight.state.state_hash()
    with pytest.raises(CommandRefused, match="no shield or melee weapon in hand"):
        execute(fight.state, Answer("ayla", fight.window.id, "block"))
    assert fight.state.state_hash() == before


def test_a_block_whose_item_is_knocked_away_before_it_resolves_is_not_rolled() -> None:
    """R59: an answer is checked again when it resolves. A Block given with the
    longsword in hand is not rolled once the sword is gone, and the hit lands (a
    successful save used to stop the damage with empty hands)."""
    fight = block_window_with_bram_holding()
    window = fight.window.id
    fight.do(Answer("ayla", window, "block"))
    fight.do(ChooseCriticalRow("critical_hit", "ayla", 8))
    events = fight.do(PassWindow("bram", window))
    assert not of(events, DefenceRolled)
    assert one(events, DamageDealt).target == "ayla"
    assert fight.replays()


def test_a_block_whose_item_breaks_before_it_resolves_uses_another_in_hand() -> None:
    """V22: Block needs "a weapon or shield in hand"; when the longsword it was given
    with breaks, the dagger still in hand blocks instead."""
    longsword = Weapon("longsword", "1d8", "one_handed")
    dagger = Weapon("dagger", "1d4", "one_handed")
    fight = block_window_with_bram_holding(longsword, dagger)
    window = fight.window.id
    fight.do(Answer("ayla", window, "block"))
    fight.do(ChooseCriticalRow("critical_hit", "ayla", 10, "longsword"))  # Broken
    assert "longsword" in fight.who("ayla").broken
    events = fight.do(PassWindow("bram", window))
    assert one(events, DefenceRolled).item == "dagger"
    assert fight.replays()
