"""Turn Based Combat on the Live Combat engine (V25): one combatant acts at a time.

No planning window, no Defensive, Counter or Quick Response actions; Hold Action,
attacks of opportunity and the holder's Dodge remain. Each scenario ends by replaying
its log. Initiative faces come first, in the order of the combatants' ids.
"""

from __future__ import annotations

from server.engine.flow import Mode, WindowKind
from server.engine.grid import Cell
from server.engine.records import evolve
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.defences import DefenceRolled
from server.engine.rulesets.verse.live import Answer, PassWindow
from server.engine.rulesets.verse.live_actions import HoldAction, HoldBegan, ItemUsed, UseItem
from server.engine.rulesets.verse.movement import Move, Moved, OpportunityAttack
from server.engine.rulesets.verse.sheet import Feat, FeatKind, Item
from server.engine.rulesets.verse.turns import EndTurn, TurnStarted
from server.engine.rulesets.verse.windows import WindowOpened
from tests.engine.verse.builders import fighter, sheet
from tests.engine.verse.live_script import Fight, names, of, one, started_live

RIPOSTE = Feat("Riposte", FeatKind.COUNTER)
QUICK_HANDS = Feat("Quick Hands", FeatKind.QUICK_RESPONSE)
POTION = Item("potion", heal="2d4+2")


def turn_based(*combatants: VerseCombatant, dice: tuple[int, ...]) -> Fight:
    return started_live(*combatants, dice=dice, mode=Mode.TURN_BASED)


def test_direct_commands_on_ones_turn_with_no_defence_counter_or_quick_response() -> None:
    """V25: no planning window; the acting combatant sends its actions and they resolve
    at once. g1, aware of Ayla and holding Counter and Quick Response feats, is never
    asked: those answers are Live Combat only."""
    ayla = evolve(fighter("ayla", "pc", 0, 0, sheet_=sheet("ayla", items=(POTION,))), health=10)
    g1 = fighter("g1", "gm", 1, 0, facing=4, sheet_=sheet("g1", feats=(RIPOSTE, QUICK_HANDS)))
    # Ayla first (15 + 2). Her potion: 2d4 2, 3 + 2 = 7. Her attack: 2 (7, a miss).
    # g1's attack on her: 10 (15, hit), d8 3.
    fight = turn_based(ayla, g1, dice=(15, 5, 2, 3, 2, 10, 3))
    assert fight.state.window is None and fight.state.current == "ayla"  # no planning

    events = fight.do(UseItem("ayla", "potion"))  # a Swift action g1 can see
    assert names(events) == ["ItemUsed"]
    assert one(events, ItemUsed).healed == 7
    events = fight.do(Attack("ayla", "g1", "longsword"))  # a miss next to a Counter feat
    assert names(events) == ["AttackRolled"] and one(events, AttackRolled).outcome == "miss"
    assert fight.state.window is None

    assert fight.refused(Attack("g1", "ayla", "longsword")) == "not_your_turn"
    fight.do(EndTurn("ayla"))
    events = fight.do(Attack("g1", "ayla", "longsword"))  # Ayla is aware: still no Dodge
    assert names(events) == ["AttackRolled", "DamageDealt"]
    assert fight.who("ayla").health == 17 - 3
    assert not of(fight.log, WindowOpened)
    assert fight.replays()


def test_a_holder_still_answers_with_its_held_action_but_the_target_has_no_dodge() -> None:
    """V25 keeps Hold Action (V19): the holder is asked, and its answer resolves first.
    The target of the holder's attack is not asked for a Defensive Action."""
    ayla = fighter("ayla", "pc", 0, 0)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # Ayla first. Her held attack: 10 (15, hit), d8 3. g1's attack: 2 (a miss).
    fight = turn_based(ayla, g1, dice=(15, 5, 10, 3, 2))
    events = fight.do(HoldAction("ayla"))
    assert names(events) == ["HoldBegan", "TurnEnded", "TurnStarted"]
    assert one(events, HoldBegan).combatant == "ayla" and fight.state.current == "g1"

    fight.do(Attack("g1", "ayla", "longsword"))
    assert fight.window.kind == WindowKind.REACTION
    assert fight.asked() == {"ayla": ("hold",)}  # no "dodge" or "block" in TBC
    assert fight.refused(EndTurn("g1")) == "window_open"  # the attack waits on the window
    events = fight.do(Answer("ayla", fight.window.id, "hold", Attack("ayla", "g1", "longsword")))

    assert not of(events, WindowOpened)  # g1 is not asked about Ayla's attack
    assert [(a.attacker, a.outcome) for a in of(events, AttackRolled)] == [
        ("ayla", "hit"), ("g1", "miss"),
    ]  # fmt: skip
    assert fight.state.current == "g1" and fight.state.window is None
    assert fight.who("g1").health == 20 - 3
    fight.do(EndTurn("g1"))
    assert of(fight.log, TurnStarted)[-1].combatant == "ayla"
    assert not fight.who("ayla").holding  # her next turn: the hold is over
    assert fight.replays()


def test_the_holders_dodge_remains_in_turn_based_combat() -> None:
    """V25 keeps the holder's Dodge (V19) against a ranged attack aimed at it."""
    ayla = fighter("ayla", "pc", 0, 0, facing=4)
    g1 = fighter("g1", "gm", -4, 0)
    # Ayla first. g1's shot: 10 + Dex 2 + Training 1 = 13; her Dodge 12 + 2 = 14.
    fight = turn_based(ayla, g1, dice=(15, 5, 10, 12))
    fight.do(HoldAction("ayla"))
    fight.do(Attack("g1", "ayla", "shortbow"))
    assert fight.asked() == {"ayla": ("hold", "holder_dodge")}

    events = fight.do(Answer("ayla", fight.window.id, "holder_dodge"))
    assert names(events)[:2] == ["Answered", "HoldEnded"]
    saved = one(events, DefenceRolled)
    assert (saved.defender, saved.roll.total, saved.against, saved.success) == (
        "ayla", 14, 13, True,
    )  # fmt: skip
    assert not of(events, DamageDealt)
    assert not fight.who("ayla").holding and fight.who("ayla").health == 20
    assert fight.replays()


def test_attacks_of_opportunity_remain_in_turn_based_combat() -> None:
    """V25 keeps attacks of opportunity (V22): leaving g1's reach opens its window; the
    attack resolves before the move, and Ayla is not asked to defend against it."""
    ayla = fighter("ayla", "pc", 0, 0)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # Ayla first. g1's attack of opportunity: 10 (15, hit), d8 3.
    fight = turn_based(ayla, g1, dice=(15, 5, 10, 3))
    fight.do(Move("ayla", (Cell(-1, 0), Cell(-2, 0))))
    assert fight.asked() == {"g1": ("opportunity",)}
    assert fight.refused(Attack("ayla", "g1", "longsword")) == "window_open"

    events = fight.do(
        Answer("g1", fight.window.id, "opportunity", OpportunityAttack("g1", "ayla", "longsword"))
    )
    attack = one(events, AttackRolled)
    assert (attack.attacker, attack.action, attack.outcome) == ("g1", "instant", "hit")
    assert events.index(attack) < events.index(one(events, Moved))
    ayla_after = fight.who("ayla")
    assert (ayla_after.position, ayla_after.health) == (Cell(-2, 0), 17)
    assert fight.state.current == "ayla" and ayla_after.actions.move
    assert fight.replays()


def test_an_attack_of_opportunity_passed_up_is_gone() -> None:
    """The window was the foe's chance: passed, the move goes on and nothing is owed."""
    ayla = fighter("ayla", "pc", 0, 0)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    fight = turn_based(ayla, g1, dice=(15, 5))
    fight.do(Move("ayla", (Cell(-1, 0),)))
    events = fight.do(PassWindow("g1", fight.window.id))
    assert names(events) == ["Passed", "WindowClosed", "ActionStarted", "Moved", "ActionFinished"]
    assert fight.who("g1").opportunities == ()
    assert fight.replays()
