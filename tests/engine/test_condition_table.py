"""The GM changes the conditions table mid-fight (V27, TR40): an override event in the
log like any other, checked as an encounter file's table is, replayed exactly."""

from __future__ import annotations

import pytest

from server.engine import Command, CommandRefused, decide, execute, replay
from server.engine.condition_table import (
    ConditionRuleChanged,
    RemoveConditionRule,
    SetConditionRule,
)
from server.engine.effects import Change, ConditionRule, SaveEnds
from server.engine.records import evolve
from server.engine.rulesets.tael.attacks import AttackAction, HitChecked
from server.engine.rulesets.tael.combatant import TaelStatus
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.state import Encounter
from tests.engine.tael import builders as tael
from tests.engine.verse.builders import fighter, in_combat

PRONE = ConditionRule("Prone", (Change("defence.pd", "add", -2),), text="down")


def verse_fight(dice: tuple[int, ...] = ()) -> Encounter:
    gob = fighter("gob", "gm", x=1).with_condition("Prone")
    return in_combat(fighter("ayla", "pc"), gob, dice=dice)


def test_the_gm_adds_an_entry_mid_fight_and_the_next_attack_uses_it() -> None:
    """Without a table Prone does nothing; once the GM rules it, the goblin's PD is 2
    lower and the attack says why. The log replays to the same state."""
    state = verse_fight(dice=(5, 3))
    log = []
    state, events = execute(state, SetConditionRule(PRONE))
    log += events
    assert events == [ConditionRuleChanged("Prone", PRONE, None)]
    assert state.condition_rules == (PRONE,)
    state, events = execute(state, Attack("ayla", "gob", "longsword"))
    log += events
    attack = events[0]
    assert isinstance(attack, AttackRolled)
    assert (attack.defence, attack.defence_changes, attack.outcome) == (10, (("Prone", -2),), "hit")
    assert replay(verse_fight(dice=(5, 3)), log).state_hash() == state.state_hash()


def test_an_entry_of_the_same_name_is_replaced_and_the_event_keeps_the_old_one() -> None:
    state, _ = execute(verse_fight(), SetConditionRule(PRONE))
    harsher = ConditionRule("prone", (Change("defence.pd", "add", -4),))
    state, events = execute(state, SetConditionRule(harsher))
    assert events == [ConditionRuleChanged("prone", harsher, PRONE)]
    assert state.condition_rules == (harsher,)
    state, events = execute(state, RemoveConditionRule("PRONE"))
    assert events == [ConditionRuleChanged("prone", None, harsher)]
    assert state.condition_rules == ()


def refusal(state: Encounter, command: Command) -> CommandRefused:
    before = state.state_hash()
    with pytest.raises(CommandRefused) as caught:
        decide(state, command)
    assert state.state_hash() == before
    return caught.value


def test_a_bad_entry_is_refused_with_every_problem_and_changes_nothing() -> None:
    bad = ConditionRule(
        "Prone",
        (Change("defence.dv", "add", -2), Change("speed", "halve", 2)),
        save=SaveEnds("luck", 10),
    )
    refused = refusal(verse_fight(), SetConditionRule(bad))
    assert refused.code == "invalid_command"
    assert refused.message.startswith("'Prone': changes[0].key: 'defence.dv' is not a Verse key")
    assert "; changes[1].mode: 'halve' is not one of multiply, add" in refused.message
    assert refused.message.endswith(
        "; save.ability: 'luck' is not one of strength, dexterity, constitution, sanity, "
        "intellect, empathy"
    )
    gone = refusal(verse_fight(), RemoveConditionRule("Prone"))
    assert gone.message == "the conditions table has no entry for 'Prone' (it has: none)"
    shapeless = refusal(verse_fight(), SetConditionRule(ConditionRule("X", changes=("up",))))  # type: ignore[arg-type]
    assert shapeless.code == "invalid_command"


def test_a_refusal_quotes_a_long_input_by_its_start() -> None:
    """A name of 40,000 characters, a key and a lost action of 10,000: the refusal
    quotes the first 60 characters of each, then an ellipsis (R82)."""
    long = ConditionRule(
        "N" * 40_000,
        (Change("k" * 10_000, "add", 1),),
        loses=("l" * 10_000,),
        save=SaveEnds("a" * 10_000, 10),
    )
    refused = refusal(verse_fight(), SetConditionRule(long))
    assert refused.code == "invalid_command"
    assert refused.message == "; ".join(
        [
            "'" + "N" * 60 + "'...: name: a condition is a name of 1 to 60 characters",
            "changes[0].key: '" + "k" * 60 + "'... is not a Verse key; the keys are attack, "
            "attack.melee, attack.natural, attack.ranged, attack.thrown, attack.spell, save, "
            "save.strength, save.dexterity, save.constitution, save.sanity, save.intellect, "
            "save.empathy, perception, defence.pd, defence.sd, resistance.pr, resistance.sr, "
            "speed, sight",
            "loses[0]: '" + "l" * 60 + "'... is not one of standard, move, swift, reactions",
            "save.ability: '" + "a" * 60 + "'... is not one of strength, dexterity, constitution, "
            "sanity, intellect, empathy",
        ]
    )
    gone = refusal(verse_fight(), RemoveConditionRule("N" * 40_000))
    assert gone.message == "a condition is a name of 1 to 60 characters"


def test_a_tael_room_takes_tael_words_and_its_next_hit_check_uses_them() -> None:
    frozen = ConditionRule("Frozen", (Change("defence.dv", "add", -2),))
    b = evolve(tael.fighter("b", "foes", 1, 0), statuses=(TaelStatus("Frozen", 2),))
    state = tael.in_combat(tael.fighter("a", "heroes"), b, dice=(8, 5))
    assert refusal(state, SetConditionRule(PRONE)).message.startswith(
        "'Prone': changes[0].key: 'defence.pd' is not a World of Tael key"
    )
    state, _ = execute(state, SetConditionRule(frozen))
    _, events = execute(state, AttackAction("a", "b"))
    check = events[0]
    assert isinstance(check, HitChecked)
    assert check.defence == (("Armour", 12), ("Frozen", -2)) and check.hit
