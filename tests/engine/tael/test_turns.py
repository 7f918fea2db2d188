"""T1 turn order and its tie-breaks, T2 the shape of a turn, six-second rounds (TR1, TR3)."""

from __future__ import annotations

from server.engine.flow import Mode
from server.engine.records import evolve
from server.engine.rulesets.tael.combatant import Preparation, TaelCombatant
from server.engine.rulesets.tael.ruleset import ROUND_SECONDS
from server.engine.turns import EndTurn, InitiativeRolled, RoundStarted, StartCombat, TurnStarted
from tests.engine.tael.builders import Fight, attributes, encounter, fighter, in_combat, one, sheet


def with_initiative(
    cid: str, side: str, modifier: int, agility: int, intelligence: int
) -> TaelCombatant:
    base = sheet(
        cid,
        initiative=modifier,
        attributes=attributes(agility=(agility, 0), intelligence=(intelligence, 0)),
    )
    return fighter(cid, side, sheet_=base, x=len(cid))


def test_the_highest_d20_plus_initiative_modifier_goes_first() -> None:
    """T1: `d20 + Initiative Modifier`, highest first; dice dealt in id order."""
    a = with_initiative("a", "heroes", 2, 10, 10)
    b = with_initiative("b", "foes", 5, 10, 10)
    fight = Fight(encounter(a, b, dice=(14, 9)))  # a: 14+2 = 16, b: 9+5 = 14
    rolled = one(fight.do(StartCombat()), InitiativeRolled)
    assert [r.roll.total for r in rolled.rolls_made] == [16, 14]
    assert [s.combatant for s in rolled.order] == ["a", "b"]
    assert fight.state.current == "a"


def test_a_tie_goes_to_the_higher_agility_then_intelligence() -> None:
    """T1: same result: higher Agility value first; same Agility: higher Intelligence."""
    a = with_initiative("a", "heroes", 0, 12, 9)
    b = with_initiative("b", "foes", 0, 14, 8)
    c = with_initiative("c", "foes", 0, 12, 15)
    fight = Fight(encounter(a, b, c, dice=(10, 10, 10)))
    rolled = one(fight.do(StartCombat()), InitiativeRolled)
    assert [s.combatant for s in rolled.order] == ["b", "c", "a"]
    assert rolled.tiebreaks == ()  # no re-roll needed


def test_a_full_tie_is_rerolled_between_the_tied_only() -> None:
    """T1: equal result, Agility and Intelligence: the tied re-roll; the others do not."""
    a = with_initiative("a", "heroes", 0, 12, 10)
    b = with_initiative("b", "foes", 0, 12, 10)
    c = with_initiative("c", "foes", 3, 12, 10)
    # a 10, b 10, c 7 + 3 = 10: all three tie; they re-roll 4, 18 and 11.
    fight = Fight(encounter(a, b, c, dice=(10, 10, 7, 4, 18, 11)))
    rolled = one(fight.do(StartCombat()), InitiativeRolled)
    assert [r.combatant for r in rolled.tiebreaks] == ["a", "b", "c"]
    assert [s.combatant for s in rolled.order] == ["b", "c", "a"]
    assert fight.replays()


def test_a_reroll_that_ties_again_rolls_again() -> None:
    a = with_initiative("a", "heroes", 0, 12, 10)
    b = with_initiative("b", "foes", 0, 12, 10)
    fight = Fight(encounter(a, b, dice=(10, 10, 6, 6, 3, 17)))
    rolled = one(fight.do(StartCombat()), InitiativeRolled)
    assert len(rolled.tiebreaks) == 4
    assert [s.combatant for s in rolled.order] == ["b", "a"]


def test_a_round_is_six_seconds() -> None:
    assert ROUND_SECONDS == 6


def test_tael_is_played_turn_by_turn() -> None:
    """TR1: no Live Combat planning in Tael: starting a Live Combat encounter is refused."""
    state = evolve(encounter(fighter("a", "heroes"), fighter("b", "foes", 1)), mode=Mode.LIVE)
    fight = Fight(state)
    assert fight.refused(StartCombat()) == "invalid_command"


def test_ending_the_turn_opens_the_preparation_phase_and_the_next_turn() -> None:
    """T2: the Action Phase ends when its player says so; the Preparation Phase lasts
    until the character's next turn."""
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 1)))
    assert fight.who("a").preparation == Preparation.NONE
    events = fight.do(EndTurn("a"))
    assert one(events, TurnStarted).combatant == "b"
    assert fight.who("a").preparation == Preparation.OPEN
    events = fight.do(EndTurn("b"))
    assert [e.round for e in events if isinstance(e, RoundStarted)] == [2]
    assert fight.state.current == "a"
    assert fight.who("a").preparation == Preparation.NONE  # its turn again: the phase is over
    assert fight.who("b").preparation == Preparation.OPEN


def test_only_the_current_combatant_ends_its_turn() -> None:
    fight = Fight(in_combat(fighter("a", "heroes"), fighter("b", "foes", 1)))
    assert fight.refused(EndTurn("b")) == "not_your_turn"
    assert fight.refused(EndTurn("ghost")) == "unknown_combatant"
    fight.do(EndTurn(""))  # the GM may end anyone's turn
    assert fight.state.current == "b"


def test_the_dead_have_no_turns() -> None:
    dead = evolve(fighter("b", "foes", 1), dead=True, hit_points=0)
    fight = Fight(in_combat(fighter("a", "heroes"), dead, fighter("c", "foes", 2)))
    fight.do(EndTurn("a"))
    assert fight.state.current == "c"
