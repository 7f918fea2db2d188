"""Melee attacks, V1 (meets or beats), V3 (natural 20/1), V4 (critical dice), V7 (split)."""

from __future__ import annotations

import pytest

from server.engine import CommandRefused, decide, execute, replay
from server.engine.records import evolve
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.rulesets.verse.combatant import ActionsUsed
from server.engine.rulesets.verse.conditions import ConditionGained, WeaponDropped
from server.engine.rulesets.verse.damage import DamageDealt
from tests.engine.verse.builders import fighter, in_combat, sheet


def test_attack_meeting_pd_hits_and_damage_splits_against_pr() -> None:
    # Ayla: Strength 3, Training 2. Gob: PD 12, PR 2. d20 7 -> 12 meets PD 12 (V1).
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1), dice=(7, 6))
    after, events = execute(state, Attack("ayla", "gob", "longsword"))
    attack, damage = events
    assert isinstance(attack, AttackRolled) and isinstance(damage, DamageDealt)
    assert attack.describe() == "d20 7 + Strength 3 + Training 2 = 12 vs PD 12: hit"
    # Damage 1d8 (6) + Training 2 = 8 against PR 2: 6 to health, 2 to armour (V7).
    assert (damage.amount, damage.to_health, damage.to_armour) == (8, 6, 2)
    gob = after.combatant("gob")
    assert (gob.health, gob.armour_durability) == (14, 8)
    assert after.combatant("ayla").actions.standard


def test_attack_one_below_pd_misses() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1), dice=(6,))
    after, events = execute(state, Attack("ayla", "gob", "longsword"))
    assert [e.outcome for e in events if isinstance(e, AttackRolled)] == ["miss"]
    assert after.combatant("gob").health == 20


def test_natural_20_always_hits_and_doubles_the_dice() -> None:
    tough = sheet("gob", defences=sheet().defences.__class__(40, 2, 11, 1))
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1, sheet_=tough), dice=(20, 5))
    _, events = execute(state, Attack("ayla", "gob", "longsword"))
    attack, damage = events[:2]
    assert attack.outcome == "critical_hit"
    assert damage.amount == 2 * 5 + 2  # V4: dice x2, training added after


def test_natural_1_always_misses_and_drops_the_melee_weapon() -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1), dice=(1,))
    after, events = execute(state, Attack("ayla", "gob", "longsword"))
    assert events[0].outcome == "critical_fail"
    assert isinstance(events[1], WeaponDropped)
    assert after.combatant("ayla").dropped == ("longsword",)
    next_turn = evolve(after.combatant("ayla"), actions=ActionsUsed())
    after = in_combat(next_turn, after.combatant("gob"), dice=(15,))
    with pytest.raises(CommandRefused) as refused:
        decide(after, Attack("ayla", "gob", "longsword"))
    assert refused.value.code == "weapon_unusable"


def test_health_stops_at_zero_and_the_target_dies() -> None:
    frail = sheet("gob", health=3)
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1, sheet_=frail), dice=(15, 8))
    after, events = execute(state, Attack("ayla", "gob", "longsword"))
    assert any(isinstance(e, ConditionGained) and e.condition == "Dead" for e in events)
    assert after.combatant("gob").health == 0
    assert not after.combatant("gob").alive


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (Attack("gob", "ayla", "longsword"), "not_your_turn"),
        (Attack("ayla", "nobody", "longsword"), "unknown_combatant"),
        (Attack("ayla", "gob", "halberd"), "unknown_weapon"),
    ],
)
def test_refused_attacks_name_their_cause_and_change_nothing(command: Attack, code: str) -> None:
    state = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1), dice=(15, 3))
    before = state.state_hash()
    with pytest.raises(CommandRefused) as refused:
        decide(state, command)
    assert refused.value.code == code
    assert state.state_hash() == before


def test_out_of_reach_and_second_standard_action_are_refused() -> None:
    far = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=2), dice=(15,))
    with pytest.raises(CommandRefused) as refused:
        decide(far, Attack("ayla", "gob", "longsword"))
    assert refused.value.code == "out_of_reach"
    near = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1), dice=(2, 15))
    after, _ = execute(near, Attack("ayla", "gob", "longsword"))
    with pytest.raises(CommandRefused) as refused:
        decide(after, Attack("ayla", "gob", "longsword"))
    assert refused.value.code == "action_used"


def test_replaying_the_events_reproduces_the_state() -> None:
    initial = in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1), dice=(15, 8))
    after, events = execute(initial, Attack("ayla", "gob", "longsword"))
    assert replay(initial, events).state_hash() == after.state_hash()
