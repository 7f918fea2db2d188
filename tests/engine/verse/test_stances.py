"""Defensive and Aggressive Stance (V18)."""

from __future__ import annotations

from server.engine import execute, replay
from server.engine.rulesets.verse.attacks import (
    AggressiveOpportunitiesOpened,
    Attack,
    AttackRolled,
    aggressive_opportunities,
)
from server.engine.rulesets.verse.combatant import Stance
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.movement import OpportunityAttack, OpportunityTaken
from server.engine.rulesets.verse.stances import SetStance, StanceSet
from server.engine.rulesets.verse.turns import EndTurn
from tests.engine.verse.builders import fighter, in_combat, refused


def gob_attacks_ayla_in(stance: str, d20: int) -> AttackRolled:
    """ayla takes `stance` on her turn, then gob attacks her (Strength 3 + Training 2)."""
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1), dice=(d20, 1))
    state, events = execute(state, SetStance("ayla", stance))
    assert events == [StanceSet("ayla", stance, "none", "swift")]
    state, _ = execute(state, EndTurn("ayla"))
    _, events = execute(state, Attack("gob", "ayla", "longsword"))
    attack = events[0]
    assert isinstance(attack, AttackRolled)
    return attack


def test_defensive_stance_adds_2_to_physical_dodge() -> None:
    # d20 8 + 5 = 13 would hit PD 12; Defensive Stance makes it 14.
    attack = gob_attacks_ayla_in(Stance.DEFENSIVE, 8)
    assert attack.describe() == "d20 8 + Strength 3 + Training 2 = 13 vs PD 14: miss"


def test_aggressive_stance_takes_2_from_physical_dodge() -> None:
    # d20 5 + 5 = 10 would miss PD 12; Aggressive Stance makes it 10.
    attack = gob_attacks_ayla_in(Stance.AGGRESSIVE, 5)
    assert attack.describe() == "d20 5 + Strength 3 + Training 2 = 10 vs PD 10: hit"


def test_taking_a_stance_is_a_swift_action() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1))
    after, _ = execute(state, SetStance("ayla", Stance.DEFENSIVE))
    assert after.combatant("ayla").actions.swift
    assert refused(after, SetStance("ayla", Stance.AGGRESSIVE)) == "action_used"
    assert refused(state, SetStance("ayla", "berserk")) == "invalid_command"
    assert refused(state, SetStance("gob", Stance.DEFENSIVE)) == "not_your_turn"


def test_a_stance_lasts_until_changed() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1))
    state, _ = execute(state, SetStance("ayla", Stance.DEFENSIVE))
    for actor in ("ayla", "gob", "ayla", "gob"):  # two full rounds
        state, _ = execute(state, EndTurn(actor))
    assert state.round == 3
    assert state.combatant("ayla").stance == Stance.DEFENSIVE
    state, _ = execute(state, SetStance("ayla", Stance.NONE))
    assert state.combatant("ayla").stance == Stance.NONE


def test_aggressive_opportunities_are_the_enemies_it_is_engaged_with() -> None:
    state = in_combat(
        fighter("ayla", "pc", stance=Stance.AGGRESSIVE),
        fighter("gob", "gm", x=1),
        fighter("orc", "gm", x=-1, y=-1),
        fighter("bran", "pc", y=1),  # an ally
        fighter("wolf", "gm", x=2),  # 10 ft away: not engaged
        fighter("harpy", "gm", y=-1, ascension=1),  # another level
    )
    assert aggressive_opportunities(state, "ayla") == ("gob", "orc")
    calm = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1))
    assert aggressive_opportunities(calm, "ayla") == ()


def test_attacking_in_aggressive_stance_opens_one_attack_on_every_engaged_enemy() -> None:
    # ayla hits gob (d20 15, 1d8 4), then takes her opportunity on orc (d20 12, 1d8 3).
    state = in_combat(
        fighter("ayla", "pc", stance=Stance.AGGRESSIVE),
        fighter("gob", "gm", x=1),
        fighter("orc", "gm", y=1),
        dice=(15, 4, 12, 3),
    )
    state, events = execute(state, Attack("ayla", "gob", "longsword"))
    assert events[-1] == AggressiveOpportunitiesOpened("ayla", ("gob", "orc"))
    assert state.combatant("ayla").opportunities == ("gob", "orc")
    after, events = execute(state, OpportunityAttack("ayla", "orc", "longsword"))
    assert events[0] == OpportunityTaken("ayla", "orc")
    assert isinstance(events[2], DamageDealt) and events[2].amount == 5
    assert after.combatant("ayla").opportunities == ("gob",)
    assert refused(after, OpportunityAttack("ayla", "orc", "longsword")) == "no_opportunity"
    assert replay(state, events).state_hash() == after.state_hash()


def test_attacking_without_aggressive_stance_opens_nothing() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1), dice=(15, 4))
    after, events = execute(state, Attack("ayla", "gob", "longsword"))
    assert [type(e) for e in events] == [AttackRolled, DamageDealt]
    assert after.combatant("ayla").opportunities == ()
