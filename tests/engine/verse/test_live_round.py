"""A Live Combat round as the table plays it: initiative (V16), the action economy inside
declared turns (V17) and the planning window (V20).

Each scenario: the sheets, the dice (scripted face by face), the commands the players
send, then the events and state that must follow; each ends by replaying its log.
Initiative faces come first, one per roll, in the order of the combatants' ids.
"""

from __future__ import annotations

from server.engine.commands import WindowExpired
from server.engine.flow import Ask, WindowKind
from server.engine.grid import Cell
from server.engine.records import evolve
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.rulesets.verse.combatant import Awareness
from server.engine.rulesets.verse.live import (
    ActionLost,
    ActionPushed,
    DeclarationMade,
    DeclarationsRevealed,
    Declare,
    PassWindow,
    Withdraw,
)
from server.engine.rulesets.verse.live_actions import HoldAction, HoldBegan
from server.engine.rulesets.verse.movement import Move
from server.engine.rulesets.verse.overrides import SetCondition
from server.engine.rulesets.verse.recovery import RecoverItem
from server.engine.rulesets.verse.sheet import ActionType, Speeds, Spell
from server.engine.rulesets.verse.spells import CastSpell, SpellCast
from server.engine.rulesets.verse.stances import SetStance, StanceSet
from server.engine.rulesets.verse.turns import InitiativeRolled, TurnEnded, TurnStarted
from server.engine.rulesets.verse.windows import WindowClosed
from server.engine.state import Environment, Settings
from server.engine.views import SPECTATORS, event_view
from tests.engine.verse.builders import fighter, sheet
from tests.engine.verse.live_script import Fight, names, of, one, started_live

RITUAL = Spell(
    "Ritual Bolt", min_mc=2, uses_spell_die=True, base_spell_dice=1,
    cast_action=ActionType.FULL_ROUND,
)  # fmt: skip


def duel(*dice: int, settings: Settings | None = None) -> Fight:
    """Ayla (Dex 2, PD 12) and goblin g1 face to face; Ayla knows a Full Round spell.

    The first two faces are the initiatives: Ayla's, then g1's.
    """
    ayla = fighter("ayla", "pc", 0, 0, sheet_=sheet("ayla", spells=(RITUAL,)))
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    return started_live(ayla, g1, dice=dice, settings=settings)


# --- V16: initiative ---------------------------------------------------------------


def test_a_60_ft_combatant_rolls_two_initiatives_and_declares_for_both_turns() -> None:
    """V16: one initiative per full 30 ft of speed; each is a turn, declared for apart."""
    corvin = fighter("corvin", "pc", 0, 0, sheet_=sheet("corvin", speeds=Speeds(land=60)))
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # Initiative: corvin 10 and 4 (+ Dex 2: 12 and 6), g1 8 (10). Then corvin's first
    # attack (10: hit, d8 3), g1's attack on corvin (2: miss), corvin's second (10, d8 3).
    fight = started_live(corvin, g1, dice=(10, 4, 8, 10, 3, 2, 10, 3))

    rolled = one(fight.log, InitiativeRolled)
    assert [(r.combatant, r.roll.total) for r in rolled.rolls_made] == [
        ("corvin", 12), ("corvin", 6), ("g1", 10),
    ]  # fmt: skip
    assert [(s.combatant, s.initiative) for s in fight.state.turn_order] == [
        ("corvin", 12), ("g1", 10), ("corvin", 6),
    ]  # fmt: skip

    fight.do(Declare("corvin", (Attack("corvin", "g1", "longsword"),), turn=0))
    fight.do(Declare("g1", (Attack("g1", "corvin", "longsword"),)))
    assert fight.window.kind == WindowKind.PLANNING
    assert fight.window.waiting_for == ("corvin",)  # his second turn is still undeclared
    assert fight.refused(Declare("corvin", (), turn=2)) == "invalid_command"  # no third turn

    events = fight.do(Declare("corvin", (Attack("corvin", "g1", "longsword"),), turn=1))
    revealed = one(events, DeclarationsRevealed)
    assert sorted((d.combatant, d.turn) for d in revealed.declarations) == [
        ("corvin", 0), ("corvin", 2), ("g1", 1),
    ]  # fmt: skip
    events += fight.pass_windows()

    assert [(e.combatant, e.turn) for e in of(events, TurnStarted)] == [
        ("corvin", 0), ("g1", 1), ("corvin", 2),
    ]  # fmt: skip
    corvin_attacks = [e for e in of(events, AttackRolled) if e.attacker == "corvin"]
    assert [(a.action, a.outcome) for a in corvin_attacks] == [
        ("standard", "hit"),
        ("standard", "hit"),
    ]  # fmt: skip: a Standard action on each of his two turns
    assert fight.who("g1").health == 20 - 3 - 3
    assert fight.window.kind == WindowKind.PLANNING and fight.state.round == 2
    assert fight.replays()


def test_a_water_fight_counts_the_swim_speed() -> None:
    """V16: the speed of the fight's environment: under water, the swim speed, at least one."""
    shark = fighter("shark", "gm", 0, 0, sheet_=sheet("shark", speeds=Speeds(land=0, swim=60)))
    knight = fighter("knight", "pc", 1, 0, sheet_=sheet("knight", speeds=Speeds(land=60)))
    fight = started_live(shark, knight, dice=(5, 10, 3), environment=Environment.WATER)

    rolled = one(fight.log, InitiativeRolled)
    assert [r.combatant for r in rolled.rolls_made] == ["knight", "shark", "shark"]
    assert [s.combatant for s in fight.state.turn_order] == ["shark", "knight", "shark"]
    assert fight.replays()


def test_equal_initiatives_go_to_the_higher_dexterity() -> None:
    """V16: ties go to the higher Dexterity first, with no re-roll."""
    quick = sheet("ayla", abilities=sheet().abilities.__class__(3, 4, 3, 2, 1, 1))
    ayla = fighter("ayla", "pc", 0, 0, sheet_=quick)
    g1 = fighter("g1", "gm", 1, 0)
    fight = started_live(ayla, g1, dice=(10, 12))  # 10 + Dex 4 = 14; 12 + Dex 2 = 14

    rolled = one(fight.log, InitiativeRolled)
    assert [(s.combatant, s.initiative, s.dexterity) for s in rolled.order] == [
        ("ayla", 14, 4), ("g1", 14, 2),
    ]  # fmt: skip
    assert rolled.tiebreaks == ()
    assert fight.replays()


def test_equal_initiative_and_dexterity_re_roll_between_the_tied_until_they_differ() -> None:
    """V16: then a re-roll between the tied only; a tied re-roll is rolled again."""
    a, b, c = (fighter(cid, "pc", x, 0) for x, cid in enumerate(("a", "b", "c")))
    # a 12 and b 12 (14 each, both Dex 2), c 8 (10). Re-rolls: 9 and 9, then 16 and 2.
    fight = started_live(a, b, c, dice=(12, 12, 8, 9, 9, 16, 2))

    rolled = one(fight.log, InitiativeRolled)
    assert [(r.combatant, r.roll.natural) for r in rolled.tiebreaks] == [
        ("a", 9),
        ("b", 9),
        ("a", 16),
        ("b", 2),
    ]  # fmt: skip: c, not tied, never re-rolls
    assert [s.combatant for s in fight.state.turn_order] == ["a", "b", "c"]
    assert fight.replays()


# --- V17: the action economy inside declared turns ------------------------------------


def test_one_standard_and_one_swift_resolve_and_a_second_standard_is_lost() -> None:
    """V17: per turn one Standard, one Move, one Swift; a second Standard is refused when
    its turn comes, so the declared action is lost with `action_used`."""
    # Initiative: Ayla 15 (17), g1 5 (7). Ayla's attack: 10 (15 vs PD 12, hit), d8 3.
    fight = duel(15, 5, 10, 3)
    fight.do(
        Declare(
            "ayla",
            (
                SetStance("ayla", "defensive"),
                Attack("ayla", "g1", "longsword"),
                Attack("ayla", "g1", "longsword"),
            ),
        )
    )
    events = fight.do(WindowExpired(fight.window.id))  # g1 declares nothing: it passes
    events += fight.pass_windows()  # g1 does not dodge

    assert one(events, StanceSet).stance == "defensive"
    assert len(of(events, AttackRolled)) == 1
    lost = one(events, ActionLost)
    assert lost.action == Attack("ayla", "g1", "longsword")
    assert lost.reason.startswith("action_used:")
    assert fight.who("g1").health == 20 - 3  # d8 3 + Training 2 = 5, PR 2 to armour
    assert fight.replays()


def test_a_full_round_action_ends_the_turn_and_drops_the_rest_of_it() -> None:
    """V17: a Full Round Action ends the turn: the actions declared after it are lost."""
    # Ritual Bolt: d20 10 + Sanity 2 = 12 vs SD 11, hit; 1d4 3 vs SR 1.
    fight = duel(15, 5, 10, 3)
    fight.do(
        Declare(
            "ayla",
            (CastSpell("ayla", "Ritual Bolt", targets=("g1",)), Attack("ayla", "g1", "longsword")),
        )
    )
    fight.do(WindowExpired(fight.window.id))
    # g1, the spell's target, is offered a Dodge (V22); it lets the spell through.
    assert fight.window.asked == (Ask("g1", ("dodge",)),)
    events = fight.do(PassWindow("g1", fight.window.id))

    assert one(events, SpellCast).action == "full_round"
    lost = one(events, ActionLost)
    assert (lost.action, lost.reason) == (
        Attack("ayla", "g1", "longsword"), "a Full Round Action ended the turn",
    )  # fmt: skip
    after = names(events)[names(events).index("ActionLost") :]
    assert after[:3] == ["ActionLost", "TurnEnded", "TurnStarted"]
    assert of(events, TurnEnded)[0].combatant == "ayla"
    assert not of(events, AttackRolled)
    assert fight.replays()


def test_a_full_round_action_after_another_action_is_lost() -> None:
    """V17: a Full Round Action cannot be taken once a non-Instant action was used."""
    fight = duel(15, 5, 10, 3)
    fight.do(
        Declare(
            "ayla",
            (Attack("ayla", "g1", "longsword"), CastSpell("ayla", "Ritual Bolt", targets=("g1",))),
        )
    )
    events = fight.do(WindowExpired(fight.window.id))
    events += fight.pass_windows()

    assert one(events, AttackRolled).outcome == "hit"
    lost = one(events, ActionLost)
    assert lost.action == CastSpell("ayla", "Ritual Bolt", targets=("g1",))
    assert lost.reason.startswith("action_used:")
    assert not of(events, SpellCast)
    assert fight.who("ayla").mana == 10  # never cast, never paid
    assert fight.replays()


# --- V20: planning ------------------------------------------------------------------


def test_declarations_stay_hidden_until_the_window_closes_early_when_all_have_declared() -> None:
    """V20: a declaration is recorded when made but revealed only when the window closes;
    the others see only that it was made. All declared: the window closes at once."""
    fight = duel(15, 5, 10, 3)
    planning = fight.window
    assert planning.kind == WindowKind.PLANNING and planning.seconds == 45.0
    assert planning.asked == (Ask("ayla", ("declare",)), Ask("g1", ("declare",)))

    events = fight.do(Declare("g1", (SetStance("g1", "aggressive"),)))
    assert names(events) == ["DeclarationMade"]
    assert fight.window.answered == ("g1",)  # what everyone sees: g1 has declared

    events = fight.do(Declare("ayla", (Attack("ayla", "g1", "longsword"),)))
    assert names(events)[:4] == [
        "DeclarationMade", "WindowClosed", "DeclarationsRevealed", "TurnStarted",
    ]  # fmt: skip
    assert one(events, WindowClosed).reason == "answered"
    revealed = one(events, DeclarationsRevealed)
    assert {d.combatant: d.actions for d in revealed.declarations} == {
        "g1": (SetStance("g1", "aggressive"),),
        "ayla": (Attack("ayla", "g1", "longsword"),),
    }
    assert revealed.passed == ()
    assert not of(fight.log[: fight.log.index(revealed)], DeclarationsRevealed)
    assert fight.replays()


def test_a_declaration_can_be_replaced_and_withdrawn_until_the_window_closes() -> None:
    """V20: the server accepts, replaces and withdraws declarations until the close."""
    fight = duel(15, 5, 10, 3)
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    fight.do(Declare("g1", (SetStance("g1", "defensive"),)))  # replaces it
    assert [(d.combatant, d.actions) for d in fight.state.declarations] == [
        ("g1", (SetStance("g1", "defensive"),)),
    ]
    assert fight.window.answered == ("g1",)

    events = fight.do(Withdraw("g1"))
    assert names(events) == ["DeclarationWithdrawn"]
    assert fight.state.declarations == ()
    assert fight.window.waiting_for == ("ayla", "g1")  # waiting for g1 again
    assert fight.refused(Withdraw("g1")) == "invalid_command"  # nothing left to withdraw

    fight.do(Declare("ayla", (Attack("ayla", "g1", "longsword"),)))
    assert fight.window.kind == WindowKind.PLANNING  # still waiting for g1
    events = fight.do(WindowExpired(fight.window.id))
    assert one(events, WindowClosed).reason == "expired"
    assert one(events, DeclarationsRevealed).passed == ("g1",)

    # Closed: g1 is asked about Ayla's attack now; declarations are over for this round.
    assert fight.window.kind == WindowKind.REACTION
    assert fight.refused(Declare("g1", (SetStance("g1", "defensive"),))) == "wrong_phase"
    assert fight.refused(Withdraw("ayla")) == "wrong_phase"
    fight.pass_windows()
    assert fight.replays()


def test_a_planning_window_that_runs_out_leaves_the_undeclared_with_no_action() -> None:
    """V20: a combatant that has not declared when the timer runs out passes."""
    fight = duel(15, 5)
    fight.do(Declare("g1", (SetStance("g1", "defensive"),)))
    planning = fight.window.id
    events = fight.do(WindowExpired(planning))

    assert one(events, DeclarationsRevealed).passed == ("ayla",)
    assert names(events)[2:4] == ["TurnStarted", "TurnEnded"]  # Ayla's turn: nothing
    assert of(events, TurnEnded)[0].combatant == "ayla"
    assert one(events, StanceSet).combatant == "g1"
    assert fight.window.kind == WindowKind.PLANNING and fight.state.round == 2
    assert fight.refused(WindowExpired(planning)) == "no_window"  # a stale timer
    assert fight.replays()


def test_with_the_hold_setting_the_undeclared_hold_their_action() -> None:
    """V20 (room setting `undeclared = "hold"`): an undeclared combatant holds (V19)."""
    settings = Settings(undeclared="hold")
    fight = duel(15, 5, 2, settings=settings)  # g1's attack: 2, a miss
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    events = fight.do(WindowExpired(fight.window.id))

    held = one(events, DeclarationMade)
    assert (held.combatant, held.actions) == ("ayla", (HoldAction("ayla"),))
    assert one(events, DeclarationsRevealed).passed == ()
    assert one(events, HoldBegan).combatant == "ayla"
    ayla = fight.who("ayla")
    assert ayla.holding and ayla.awareness == Awareness.ALERT
    # g1's attack: Ayla may dodge, block, or use her held action.
    assert fight.asked() == {"ayla": ("dodge", "block", "hold")}
    fight.pass_windows()
    assert fight.replays()


def test_passing_the_planning_window_is_a_hidden_declaration_of_nothing() -> None:
    """V20: a pass in planning declares nothing for the turns not yet declared; the other
    side sees only that a declaration was made (a public `Passed` would tell it this
    combatant will not act), and the "hold" setting, for the undeclared, does not apply."""
    fight = duel(15, 5, 2, settings=Settings(undeclared="hold"))
    events = fight.do(PassWindow("ayla", fight.window.id))
    assert events == [DeclarationMade("ayla", 0, ())]
    foes = event_view(events[0], fight.state, SPECTATORS)
    assert foes["actions"] == [] and foes["combatant"] == "ayla"
    events = fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    assert not of(events, HoldBegan) and one(events, DeclarationsRevealed).passed == ()
    assert fight.replays()


def test_live_actions_are_declared_not_sent_and_declared_only_as_ones_own() -> None:
    """V20: in Live Combat actions are Turn Events declared in the planning window."""
    fight = duel(15, 5)
    assert fight.refused(Attack("ayla", "g1", "longsword")) == "wrong_phase"
    assert fight.refused(Declare("ayla", (Attack("g1", "ayla", "longsword"),))) == (
        "invalid_command"
    )
    hold_and_attack = (HoldAction("ayla"), Attack("ayla", "g1", "longsword"))
    assert fight.refused(Declare("ayla", hold_and_attack)) == "invalid_command"  # V19
    assert of(fight.log, ActionPushed) == []
    assert fight.replays()


def test_a_declared_move_that_skips_a_cell_is_refused_when_declared() -> None:
    """R71: a path whose steps are not each next to the one before could never resolve;
    the player learns it in the planning window instead of losing the move on its turn.
    (It was accepted, then lost: `not_adjacent: step 1 to (4, 0) is not a neighbouring
    cell`.)"""
    fight = duel(15, 5)  # ayla at (0, 0), g1 at (1, 0)
    before = fight.state.state_hash()
    leap = Declare("ayla", (Move("ayla", (Cell(0, 4),)),))
    assert fight.refused(leap) == "not_adjacent"
    gap = Declare(
        "ayla", (Attack("ayla", "g1", "longsword"), Move("ayla", (Cell(0, 2), Cell(0, 4))))
    )
    assert fight.refused(gap) == "not_adjacent"
    assert fight.state.state_hash() == before
    # A later move starts wherever the actions before it leave the mover: only its own
    # steps are checked now, the rest when it resolves.
    after_attack = Move("ayla", (Cell(5, 5), Cell(5, 6)))
    fight.do(Declare("ayla", (Attack("ayla", "g1", "longsword"), after_attack)))
    fight.do(Declare("ayla", (Move("ayla", (Cell(0, 1), Cell(0, 2))),)))
    made = of(fight.log, DeclarationMade)
    assert [d.actions[-1] for d in made] == [after_attack, Move("ayla", (Cell(0, 1), Cell(0, 2)))]


def test_a_second_turns_move_starts_where_the_first_turn_leaves_the_mover() -> None:
    """R71, V16: the first turn's move is checked against where Corvin stands; the
    second turn's first step against nothing yet, since the first turn moves him."""
    corvin = fighter("corvin", "pc", 0, 0, sheet_=sheet("corvin", speeds=Speeds(land=60)))
    g1 = fighter("g1", "gm", 5, 5, facing=4)
    fight = started_live(corvin, g1, dice=(10, 4, 8))  # corvin 12 and 6, g1 10
    fight.do(Declare("corvin", (Move("corvin", (Cell(0, 1), Cell(0, 2))),), turn=0))
    assert fight.refused(Declare("corvin", (Move("corvin", (Cell(0, 4),)),), turn=0)) == (
        "not_adjacent"
    )
    fight.do(Declare("corvin", (Move("corvin", (Cell(0, 3), Cell(0, 4))),), turn=1))
    fight.do(Declare("g1", ()))
    fight.pass_windows()
    assert fight.state.combatant("corvin").position == Cell(0, 4)
    assert of(fight.log, ActionLost) == []


def test_a_turn_passed_over_because_its_combatant_cannot_act_says_what_is_lost() -> None:
    """V20: bram declared an attack, then the GM stunned him; when his turn would come
    the flow passes over it, and the log says his attack is lost, and why."""
    ayla = fighter("ayla", "pc", 0, 0)
    bram = fighter("bram", "pc", 0, 1)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    # Initiative (id order): ayla 20, bram 19, g1 5.
    fight = started_live(ayla, bram, g1, dice=(18, 17, 3))
    fight.do(Declare("bram", (Attack("bram", "g1", "longsword"),)))
    fight.do(SetCondition("bram", "Stunned", 1))
    fight.do(Declare("g1", ()))
    events = fight.do(Declare("ayla", ()))
    lost = one(events, ActionLost)
    assert lost == ActionLost("bram", Attack("bram", "g1", "longsword"), "bram can no longer act")
    assert TurnStarted("bram", 1) not in events
    assert events.index(lost) < events.index(TurnStarted("g1", 2))
    assert fight.replays()


def test_an_attack_with_a_weapon_not_in_hand_is_refused_when_declared() -> None:
    """R72: nothing but the GM puts a dropped weapon back in hand, so a declared attack
    with it could only be lost on its turn; a weapon not on the sheet, the same."""
    ayla = evolve(fighter("ayla", "pc", 0, 0), dropped=("longsword",))
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    fight = started_live(ayla, g1, dice=(15, 5))
    assert fight.refused(Declare("ayla", (Attack("ayla", "g1", "longsword"),))) == (
        "weapon_unusable"
    )
    assert fight.refused(Declare("ayla", (Attack("ayla", "g1", "longswrd"),))) == ("unknown_weapon")
    fight.do(RecoverItem("ayla", "longsword"))  # the GM hands it back
    fight.do(Declare("ayla", (Attack("ayla", "g1", "longsword"),)))
    assert fight.replays()
