"""The Preparation Phase on the action/reaction stack (T2, TR24): one prepared move per
phase, fixed once announced, hidden until it triggers, answered in a reaction window."""

from __future__ import annotations

from server.engine.commands import CloseWindow, WindowExpired
from server.engine.records import evolve
from server.engine.rulesets.tael.attacks import AttackAction, HitChecked, PreparedStrike
from server.engine.rulesets.tael.bonus import Punch
from server.engine.rulesets.tael.combatant import Preparation, TaelCombatant
from server.engine.rulesets.tael.damage import DamagePrevented, DamageTaken, Fainted
from server.engine.rulesets.tael.overrides import SetHitPoints
from server.engine.rulesets.tael.preparations import PreparationAnnounced, Prepare
from server.engine.rulesets.tael.sheet import PreparationMove, TaelClass, TaelSpell, Trigger
from server.engine.rulesets.tael.spells import SpellAction
from server.engine.rulesets.tael.statuses import ResistChecked
from server.engine.rulesets.tael.turns import TurnLost
from server.engine.stack import (
    ActionLost,
    Answer,
    Passed,
    PassWindow,
    WindowClosed,
    WindowOpened,
)
from server.engine.turns import EndTurn, TurnEnded, TurnStarted
from tests.engine.tael.builders import (
    BOW,
    RIPOSTE,
    Fight,
    fighter,
    in_combat,
    of,
    one,
    sheet,
)
from tests.engine.tael.test_spells import IGNITE

SHIELD_UP = PreparationMove("Shield Up", Trigger.ATTACKED, defensive_bonus=3)
WARD = PreparationMove("Flame Ward", Trigger.SPELL, prevents_damage=True)
COVER = PreparationMove("Covering Shot", Trigger.ALLY_ATTACKED, strikes_back=True)
SPRAY = TaelSpell("Spray", school="fire", damage="1d4", reach=6, targets=2)


def preparer(cid: str, side: str, x: int, *moves: PreparationMove, **kw: object) -> TaelCombatant:
    """A combatant in its Preparation Phase with `moves` on its sheet."""
    c = fighter(cid, side, x, 0, sheet_=sheet(cid, preparations=moves, **kw))
    return evolve(c, preparation=Preparation.OPEN)


def riposte_fight(dice: tuple[int, ...]) -> Fight:
    """g (on its turn) next to k, who is in its Preparation Phase and knows Riposte."""
    return Fight(
        in_combat(fighter("g", "foes", 1, 0), preparer("k", "heroes", 0, RIPOSTE), dice=dice)
    )


def test_a_riposte_prevents_a_melee_hits_damage_and_strikes_back() -> None:
    """T2 with the issue's own example: the attack waits in a reaction window; k answers
    with Riposte; its strike resolves first (the stack, latest first), then the attack
    hits and its damage is prevented."""
    fight = riposte_fight(dice=(14, 6, 15))  # k's strike: 14 hit, 6 damage; g's attack: 15
    events = fight.do(AttackAction("g", "k"))
    window = one(events, WindowOpened).window
    assert [(a.combatant, a.options) for a in window.asked] == [("k", ("Riposte",))]
    assert of(events, HitChecked) == []  # nothing rolled yet
    events = fight.do(Answer("k", window.id, "Riposte"))
    checks = of(events, HitChecked)
    assert [(c.attacker, c.kind, c.slot, c.hit) for c in checks] == [
        ("k", "prepared", "", True),
        ("g", "weapon", "universal", True),
    ]
    assert one(events, DamageTaken).target == "g"
    prevented = one(events, DamagePrevented)
    assert (prevented.target, prevented.move) == ("k", "Riposte")
    assert fight.who("k").hit_points == 20 and fight.who("g").hit_points == 20 - 8
    assert fight.who("k").preparation == Preparation.USED
    assert fight.state.pending == () and fight.state.window is None
    assert fight.replays()


def test_a_riposte_that_drops_the_attacker_loses_its_attack_and_ends_its_turn() -> None:
    fight = Fight(
        in_combat(
            evolve(fighter("g", "foes", 1, 0), hit_points=4),
            preparer("k", "heroes", 0, RIPOSTE),
            dice=(14, 6),
        )
    )
    window = one(fight.do(AttackAction("g", "k")), WindowOpened).window
    events = fight.do(Answer("k", window.id, "Riposte"))
    assert one(events, Fainted).combatant == "g"
    assert one(events, ActionLost).actor == "g"
    assert [type(e).__name__ for e in events if isinstance(e, (TurnEnded, TurnStarted))] == [
        "TurnEnded",
        "TurnStarted",
    ]
    assert fight.state.current == "k"
    assert fight.who("g").turn.actions == ()  # the lost attack spent nothing


def test_passing_lets_the_attack_resolve_and_keeps_the_preparation() -> None:
    fight = riposte_fight(dice=(15, 5))
    window = one(fight.do(AttackAction("g", "k")), WindowOpened).window
    events = fight.do(PassWindow("k", window.id))
    assert one(events, DamageTaken).taken == 7
    assert fight.who("k").preparation == Preparation.OPEN  # unused: it may answer later


def test_a_window_that_runs_out_closes_as_if_all_passed() -> None:
    fight = riposte_fight(dice=(15, 5))
    window = one(fight.do(AttackAction("g", "k")), WindowOpened).window
    assert fight.refused(EndTurn("g")) == "window_open"
    assert fight.refused(AttackAction("g", "k")) == "window_open"
    events = fight.do(WindowExpired(window.id))
    assert one(events, DamageTaken).target == "k"
    fight = riposte_fight(dice=(15, 5))
    window = one(fight.do(AttackAction("g", "k")), WindowOpened).window
    fight.do(CloseWindow(window.id))
    assert fight.state.window is None and fight.who("k").hit_points == 13


def test_a_preparer_the_gm_makes_faint_while_asked_passes_at_once() -> None:
    """TR36: fainted, k can no longer answer, so the window does not wait for it: it
    passes, the window closes and g's attack resolves on the fainted k."""
    fight = riposte_fight(dice=(15, 5))
    window = one(fight.do(AttackAction("g", "k")), WindowOpened).window
    events = fight.do(SetHitPoints("k", 0))
    assert one(events, Fainted).combatant == "k"
    assert one(events, Passed) == Passed(window.id, "k")
    assert one(events, WindowClosed) == WindowClosed(window.id, "answered")
    assert one(events, HitChecked).attacker == "g"
    assert fight.state.window is None
    assert fight.replays()


def test_an_announced_move_is_the_only_one_and_cannot_change() -> None:
    """T2: "once he announces the type of Preparation he will take, he cannot change it"."""
    fight = Fight(
        in_combat(
            fighter("g", "foes", 1, 0), preparer("k", "heroes", 0, RIPOSTE, SHIELD_UP), dice=(12,)
        )
    )
    one(fight.do(Prepare("k", "Shield Up")), PreparationAnnounced)
    assert fight.refused(Prepare("k", "Riposte")) == "no_preparation"
    window = one(fight.do(AttackAction("g", "k")), WindowOpened).window
    assert window.asked[0].options == ("Shield Up",)
    assert fight.refused(Answer("k", window.id, "Riposte")) == "invalid_command"
    events = fight.do(Answer("k", window.id, "Shield Up"))
    check = one(events, HitChecked)
    # 12 + 3 = 15 would beat the armour alone (12), not the Shield Up DV 15 (T3: higher).
    assert check.defence == (("Armour", 12), ("Shield Up", 3)) and not check.hit


def test_an_unannounced_preparation_offers_every_move_the_action_sets_off() -> None:
    """T2: "he does not need to announce it right away": every move that fits is offered."""
    fight = Fight(
        in_combat(
            fighter("g", "foes", 1, 0),
            preparer("k", "heroes", 0, RIPOSTE, SHIELD_UP, WARD),
        )
    )
    window = one(fight.do(AttackAction("g", "k")), WindowOpened).window
    assert window.asked[0].options == ("Riposte", "Shield Up")  # Flame Ward is for spells


def test_nobody_able_to_answer_means_no_window() -> None:
    """V21 via T2: no window when nobody may answer: a ranged shot sets off no Riposte;
    someone not in its Preparation Phase answers nothing."""
    archer = fighter("g", "foes", 3, 0, sheet_=sheet("g", main_hand="bow"))
    fight = Fight(in_combat(archer, preparer("k", "heroes", 0, RIPOSTE), dice=(2,)))
    events = fight.do(AttackAction("g", "k"))
    assert of(events, WindowOpened) == [] and one(events, HitChecked).weapon == BOW.name
    idle = evolve(preparer("k", "heroes", 0, RIPOSTE), preparation=Preparation.NONE)
    fight = Fight(in_combat(fighter("g", "foes", 1, 0), idle, dice=(2,)))
    assert of(fight.do(AttackAction("g", "k")), WindowOpened) == []


def test_a_punch_sets_off_a_melee_preparation() -> None:
    brawler = fighter("g", "foes", 1, 0, sheet_=sheet("g", main_hand=""))
    fight = Fight(in_combat(brawler, preparer("k", "heroes", 0, RIPOSTE)))
    assert of(fight.do(Punch("g", "k")), WindowOpened) != []


def test_a_ward_prevents_a_spells_damage() -> None:
    mage = fighter(
        "g", "foes", 3, 0, sheet_=sheet("g", magic=4, magic_schools=("fire",), spells=(IGNITE,))
    )
    fight = Fight(in_combat(mage, preparer("k", "heroes", 0, WARD), dice=(15, 20)))
    window = one(fight.do(SpellAction("g", "Ignite", ("k",))), WindowOpened).window
    events = fight.do(Answer("k", window.id, "Flame Ward"))
    assert one(events, DamagePrevented).move == "Flame Ward"
    assert fight.who("k").hit_points == 20
    assert one(events, ResistChecked).resisted  # TR10: the status is still resisted


def test_a_covering_shot_answers_an_attack_on_an_ally_next_to_it() -> None:
    """`ally_attacked`: t covers k (next to it) with a bow shot at the attacker."""
    tobin = preparer("t", "heroes", 0, COVER, main_hand="bow")
    state = in_combat(
        fighter("g", "foes", 2, 0),
        fighter("k", "heroes", 1, 0),
        evolve(tobin, position=evolve(tobin.position, y=1)),
        dice=(18, 4, 3),
    )
    fight = Fight(state)
    window = one(fight.do(AttackAction("g", "k")), WindowOpened).window
    assert [a.combatant for a in window.asked] == ["t"]
    events = fight.do(Answer("t", window.id, "Covering Shot"))
    shot, attack = of(events, HitChecked)  # the answer resolves first
    assert (shot.attacker, shot.target, shot.weapon, shot.kind) == ("t", "g", "bow", "prepared")
    assert (attack.attacker, attack.target) == ("g", "k")


def test_an_answer_that_cannot_strike_is_refused_and_changes_nothing() -> None:
    """A strike out of reach is refused at once (the answer is checked when given)."""
    spear = fighter("g", "foes", 2, 0)  # two tiles: out of k's sword reach
    reach_two = evolve(
        spear, sheet=evolve(spear.sheet, weapons=(evolve(spear.sheet.weapons[0], reach=2),))
    )
    fight = Fight(in_combat(reach_two, preparer("k", "heroes", 0, RIPOSTE)))
    window = one(fight.do(AttackAction("g", "k")), WindowOpened).window
    assert fight.refused(Answer("k", window.id, "Riposte")) == "out_of_reach"
    bad = Answer("k", window.id, "Riposte", PreparedStrike("k", "k"))
    assert fight.refused(bad) == "invalid_command"


def test_a_prepared_strike_is_never_sent_on_its_own() -> None:
    fight = Fight(in_combat(fighter("g", "foes", 1, 0), preparer("k", "heroes", 0, RIPOSTE)))
    assert fight.refused(PreparedStrike("k", "g")) in ("not_your_turn", "invalid_command")


def test_the_preparation_ends_when_its_turn_comes_again() -> None:
    """T2: "The Preparation Phase lasts until it is the Character's turn again"."""
    fight = Fight(
        in_combat(
            fighter("k", "heroes", sheet_=sheet("k", preparations=(RIPOSTE,))),
            fighter("g", "foes", 1, 0),
        )
    )
    assert fight.refused(Prepare("k", "Riposte")) == "no_preparation"  # its Action Phase
    fight.do(EndTurn("k"))
    fight.do(Prepare("k", "Riposte"))
    assert fight.who("k").prepared == "Riposte"
    fight.do(EndTurn("g"))
    assert fight.who("k").preparation == Preparation.NONE and fight.who("k").prepared == ""


def test_a_fainted_preparer_is_not_asked() -> None:
    fight = Fight(
        in_combat(fighter("g", "foes", 1, 0), preparer("k", "heroes", 0, RIPOSTE), dice=(2,))
    )
    fight.state = evolve(
        fight.state,
        combatants={
            **fight.state.combatants,
            "k": evolve(fight.who("k"), fainted=True, hit_points=0),
        },
    )
    assert of(fight.do(AttackAction("g", "k")), WindowOpened) == []


def test_an_unknown_move_cannot_be_announced() -> None:
    fight = Fight(in_combat(fighter("g", "foes", 1, 0), preparer("k", "heroes", 0, RIPOSTE)))
    assert fight.refused(Prepare("k", "Fireball")) == "invalid_command"
    assert fight.refused(Prepare("ghost", "Riposte")) == "unknown_combatant"


def test_a_lost_turn_opens_no_preparation_phase() -> None:
    down = evolve(
        fighter("k", "heroes", 0, 0, sheet_=sheet("k", preparations=(RIPOSTE,))),
        fainted=True,
        hit_points=0,
    )
    fight = Fight(in_combat(fighter("g", "foes", 1, 0), down, dice=(10,)))
    assert one(fight.do(EndTurn("g")), TurnLost).combatant == "k"
    assert fight.who("k").preparation == Preparation.NONE


def test_one_preparation_per_preparation_phase() -> None:
    """T2: "a Character can use one such Preparation per Preparation Phase": once its
    Riposte is used, g's second attack in the same phase asks k nothing."""
    twice = sheet("g", classes=(TaelClass("Blade Warrior", actions=("attack",)),))
    state = in_combat(
        fighter("g", "foes", 1, 0, sheet_=twice),
        preparer("k", "heroes", 0, RIPOSTE, SHIELD_UP),
        dice=(1, 1, 1),
    )
    fight = Fight(state)
    window = one(fight.do(AttackAction("g", "k")), WindowOpened).window
    fight.do(Answer("k", window.id, "Riposte"))  # k's strike 1, g's attack 1: both miss
    events = fight.do(AttackAction("g", "k"))
    assert of(events, WindowOpened) == [] and one(events, HitChecked).attacker == "g"


def test_a_guard_covers_only_the_allies_next_to_it() -> None:
    """TR27: an `ally_attacked` move protects each attacked ally within one tile of the
    preparer; a spell's other target, further off, takes its damage."""
    bodyguard = PreparationMove("Bodyguard", Trigger.ALLY_ATTACKED, prevents_damage=True)
    mage = fighter(
        "g", "foes", 3, 0, sheet_=sheet("g", magic=4, magic_schools=("fire",), spells=(SPRAY,))
    )
    state = in_combat(
        mage,
        fighter("k1", "heroes", 1, 0),
        fighter("k2", "heroes", 1, 3),
        preparer("p", "heroes", 0, bodyguard),
        dice=(15, 2),
    )
    fight = Fight(state)
    window = one(fight.do(SpellAction("g", "Spray", ("k1", "k2"))), WindowOpened).window
    events = fight.do(Answer("p", window.id, "Bodyguard"))
    assert [e.target for e in of(events, DamagePrevented)] == ["k1"]
    assert [(e.target, e.taken) for e in of(events, DamageTaken)] == [("k2", 6)]


def test_an_ally_further_than_one_tile_sets_off_no_guard() -> None:
    """TR24: `ally_attacked` answers an attack on an ally within one tile of it only."""
    state = in_combat(
        fighter("g", "foes", 3, 0),
        fighter("k", "heroes", 2, 0),
        preparer("t", "heroes", 0, COVER, main_hand="bow"),
        dice=(1,),
    )
    assert of(Fight(state).do(AttackAction("g", "k")), WindowOpened) == []
