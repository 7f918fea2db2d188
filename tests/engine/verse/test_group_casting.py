"""Group casting with consent (V12, R74): a helper's mana is spent only when its player
agreed.

Each scenario sends commands as a given principal, the way the room does: first
`authority.authorize` (who sent it), then `decide`. A caster's player names as
`helpers` only combatants its own seat plays (any combatant for the GM); another
player's combatant helps only through its own pledge (`PledgeMana`), named in
`pledged`. A refusal leaves the state exactly as it was; a fight with group casts
replays from its log to the same state hash.
"""

from __future__ import annotations

from typing import Any

import pytest

from server.engine import CommandRefused, Encounter, decide, execute, replay
from server.engine.authority import GM, Principal, Role, authorize
from server.engine.core import Command, Event
from server.engine.records import evolve, from_data, to_data
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.combatant import ManaPledge, VerseCombatant
from server.engine.rulesets.verse.live import ActionLost, Answer, Declare
from server.engine.rulesets.verse.live_actions import HoldAction
from server.engine.rulesets.verse.overrides import SetCondition
from server.engine.rulesets.verse.sheet import Defences, Spell, SpellRange
from server.engine.rulesets.verse.spell_mana import ManaPledged, PledgeMana
from server.engine.rulesets.verse.spells import CastSpell, SpellAttackRolled, SpellCast
from server.engine.rulesets.verse.turns import EndTurn
from server.engine.views import GM_AUDIENCE, SPECTATORS, event_view, player_audience, state_view
from tests.engine.verse.builders import encounter, fighter, in_combat, sheet
from tests.engine.verse.live_script import Fight, of, one, started_live

METEOR = Spell("Meteor", min_mc=20, uses_spell_die=True, base_spell_dice=1, range=SpellRange.LONG)
BOLT = Spell("Bolt", min_mc=2, uses_spell_die=True, base_spell_dice=1)

# The seats: ayla's player, bea's player, one player with both, and the GM (gob, s1, s2).
AYLA = Principal(Role.PLAYER, controls=("ayla",), name="ayla's player")
BEA = Principal(Role.PLAYER, controls=("bea",), name="bea's player")
BOTH = Principal(Role.PLAYER, controls=("ayla", "bea"), name="the twins' player")


def mage(
    cid: str, side: str = "pc", x: int = 0, y: int = 0, mana: int = 10, **kw: Any
) -> VerseCombatant:
    """Knows Meteor (20 MC: two rounds alone, one shared 10 and 10) and Bolt; SD 11."""
    defences = Defences(physical_dodge=12, physical_resistance=2, spell_dodge=11,
                        spell_resistance=1)  # fmt: skip
    spells = sheet(cid, spells=(METEOR, BOLT), mana=mana, defences=defences)
    return fighter(cid, side, x, y, sheet_=spells, **kw)


def party(*dice: int, ayla_mana: int = 10) -> Table:
    """Turn Based Combat, round 1, ayla's turn: ayla and bea (two seats) against gob, a
    goblin shaman of the GM's who knows Meteor too."""
    ayla, bea, gob = mage("ayla", mana=ayla_mana), mage("bea", y=1), mage("gob", "gm", x=3)
    return Table(in_combat(ayla, bea, gob, dice=tuple(dice)))


class Table:
    """A fight played through the room's two checks: who sent it, then the rules."""

    def __init__(self, state: Encounter) -> None:
        self.initial = state
        self.state = state
        self.log: list[Event] = []

    def send(self, principal: Principal, command: Command) -> list[Event]:
        authorize(principal, command)
        self.state, events = execute(self.state, command)
        self.log.extend(events)
        return events

    def refused(self, principal: Principal, command: Command) -> str:
        """The refusal's code; the state is left exactly as it was."""
        before = self.state.state_hash()
        with pytest.raises(CommandRefused) as refusal:
            authorize(principal, command)
            decide(self.state, command)
        assert self.state.state_hash() == before
        return refusal.value.code

    def mana(self, *ids: str) -> tuple[int, ...]:
        return tuple(self.state.combatant(cid).mana for cid in ids)

    def replays(self) -> bool:
        final = self.state.state_hash()
        stored = [from_data(to_data(event)) for event in self.log]  # as a durable log keeps it
        return (
            replay(self.initial, self.log).state_hash() == final
            and replay(self.initial, stored).state_hash() == final
        )


def meteor(**helping: Any) -> CastSpell:
    return CastSpell("ayla", "Meteor", targets=("gob",), **helping)


# --- refused: a helper whose player did not agree ---------------------------------------


@pytest.mark.parametrize("helper", ["gob", "bea"], ids=["a foe", "another seat's character"])
def test_a_helper_the_caster_does_not_play_is_refused_and_nothing_changes(helper: str) -> None:
    """gob (the GM's goblin) and bea (another player's mage) both know Meteor and have
    the MP: ayla's player still cannot spend it, neither as a helper nor as a pledged
    one without a pledge."""
    table = party(15, 2)
    as_helper = table.refused(AYLA, meteor(helpers=((helper, 10),)))
    as_pledged = table.refused(AYLA, meteor(pledged=((helper, 10),)))
    assert (as_helper, as_pledged) == ("helper_not_consenting", "helper_not_consenting")
    assert table.mana("ayla", "bea", "gob") == (10, 10, 10) and table.log == []


def test_the_message_says_who_and_how_to_ask_for_help() -> None:
    table = party()
    with pytest.raises(CommandRefused) as named:
        authorize(AYLA, meteor(helpers=(("bea", 10),)))
    assert named.value.message == (
        "ayla's player does not play bea: another player's combatant pays a share only when"
        " its own player pledged it (PledgeMana) and the caster names it in `pledged`"
    )
    with pytest.raises(CommandRefused) as unpledged:
        decide(table.state, meteor(pledged=(("bea", 10),)))
    assert unpledged.value.message == (
        "bea has pledged no share of ayla's Meteor this round (PledgeMana)"
    )


def test_a_share_above_the_pledge_is_refused() -> None:
    table = party(15, 2)
    table.send(BEA, PledgeMana("bea", "ayla", "Meteor", 6))
    assert table.refused(AYLA, meteor(pledged=(("bea", 10),))) == "helper_not_consenting"
    assert table.mana("ayla", "bea") == (10, 10)


def test_a_pledge_to_another_caster_or_spell_does_not_count() -> None:
    table = party(15, 2)
    table.send(BEA, PledgeMana("bea", "ayla", "Bolt", 10))
    table.send(BEA, PledgeMana("bea", "gob", "Meteor", 10))
    assert table.refused(AYLA, meteor(pledged=(("bea", 10),))) == "helper_not_consenting"


# --- accepted: the helper's player agreed ----------------------------------------------


def test_a_helper_that_pledged_pays_its_share_once() -> None:
    """Bea's player pledges 10 MC of Ayla's Meteor; Ayla casts it in one action with
    bea's share (V12: the largest share sets the time). The pledge is used up."""
    table = party(15, 2)  # the attack: 15 + Sanity 2 vs SD 11, hit; the Spell Die: 2
    pledged = table.send(BEA, PledgeMana("bea", "ayla", "Meteor", 10))
    assert pledged == [ManaPledged("bea", "ayla", "Meteor", 10)]
    assert table.state.combatant("bea").pledges == (ManaPledge("ayla", "Meteor", 10),)
    events = table.send(AYLA, meteor(pledged=(("bea", 10),)))
    cast = one(events, SpellCast)
    assert [(s.combatant, s.mc, s.from_mp) for s in cast.shares] == [
        ("ayla", 10, 10), ("bea", 10, 10),
    ]  # fmt: skip
    assert cast.cast_time == 1 and one(events, SpellAttackRolled).outcome == "hit"
    assert table.mana("ayla", "bea") == (0, 0)
    assert table.state.combatant("bea").pledges == ()  # it covered this one cast
    assert table.replays()


def test_a_pledged_helper_pays_no_more_than_the_caster_names() -> None:
    """The pledge is a ceiling: Ayla takes 4 of the 8 bea offered (Meteor 20 MC: ayla
    16, bea 4, so two rounds, V12)."""
    table = party(ayla_mana=16)
    table.send(BEA, PledgeMana("bea", "ayla", "Meteor", 8))
    cast = one(table.send(AYLA, meteor(pledged=(("bea", 4),))), SpellCast)
    assert [(s.combatant, s.mc) for s in cast.shares] == [("ayla", 16), ("bea", 4)]
    assert cast.cast_time == 2 and table.mana("ayla", "bea") == (0, 6)


def test_one_seat_group_casts_with_its_two_characters() -> None:
    table = party(15, 2)
    events = table.send(BOTH, meteor(helpers=(("bea", 10),)))
    assert [(s.combatant, s.mc) for s in one(events, SpellCast).shares] == [
        ("ayla", 10), ("bea", 10),
    ]  # fmt: skip
    assert table.mana("ayla", "bea") == (0, 0)


def test_the_gms_combatants_help_each_other() -> None:
    """The GM answers for every combatant (it may send any command for any of them):
    its two shamans share a Meteor without a pledge."""
    s1, s2 = mage("s1", "gm", x=3), mage("s2", "gm", x=3, y=1)
    table = Table(in_combat(s1, s2, mage("ayla"), dice=(15, 2)))
    cast = CastSpell("s1", "Meteor", targets=("ayla",), helpers=(("s2", 10),))
    events = table.send(GM, cast)
    assert [(s.combatant, s.mc) for s in one(events, SpellCast).shares] == [
        ("s1", 10), ("s2", 10),
    ]  # fmt: skip
    assert table.mana("s1", "s2") == (0, 0)
    # A player naming a shaman is refused (its own seat plays neither).
    assert table.refused(AYLA, evolve(cast, actor="ayla")) == "helper_not_consenting"


def test_a_helper_that_pledged_must_still_be_able_to_pay() -> None:
    """The pledge is consent, not payment: a helper stunned or drained since pledging
    pays nothing and the cast is refused for that."""
    table = party(15, 2)
    table.send(BEA, PledgeMana("bea", "ayla", "Meteor", 10))
    stunned = Table(execute(table.state, SetCondition("bea", "Stunned", 1))[0])
    assert stunned.refused(AYLA, meteor(pledged=(("bea", 10),))) == "incapacitated"
    drained = evolve(table.state.combatant("bea"), mana=9)
    poorer = Table(table.state.with_combatant(drained))
    assert poorer.refused(AYLA, meteor(pledged=(("bea", 10),))) == "not_enough_mana"


# --- pledges ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pledge", "code"),
    [
        (PledgeMana("bea", "ayla", "Fireball", 5), "unknown_spell"),  # bea does not know it
        (PledgeMana("bea", "ayla", "Meteor", 11), "not_enough_mana"),  # bea has 10 MP
        (PledgeMana("bea", "ayla", "Meteor", -1), "invalid_mana_share"),
        (PledgeMana("bea", "bea", "Meteor", 5), "invalid_mana_share"),  # its own cast
        (PledgeMana("bea", "nobody", "Meteor", 5), "unknown_combatant"),
        (PledgeMana("bea", "ayla", "Meteor", 0), "invalid_command"),  # nothing to take back
        (evolve(PledgeMana("bea", "ayla", "Meteor", 5), share="5"), "invalid_command"),
    ],
)
def test_a_pledge_is_checked_when_made(pledge: PledgeMana, code: str) -> None:
    table = party()
    assert table.refused(BEA, pledge) == code


def test_a_pledge_is_made_for_ones_own_combatant_in_combat() -> None:
    table = party()
    assert table.refused(AYLA, PledgeMana("bea", "ayla", "Meteor", 5)) == "forbidden"
    waiting = Table(encounter(mage("ayla"), mage("bea", y=1)))
    assert waiting.refused(BEA, PledgeMana("bea", "ayla", "Meteor", 5)) == "wrong_phase"


def test_a_pledge_is_replaced_or_taken_back() -> None:
    table = party()
    table.send(BEA, PledgeMana("bea", "ayla", "Meteor", 5))
    table.send(BEA, PledgeMana("bea", "ayla", "Meteor", 8))
    assert table.state.combatant("bea").pledges == (ManaPledge("ayla", "Meteor", 8),)
    assert table.send(BEA, PledgeMana("bea", "ayla", "Meteor", 0)) == [
        ManaPledged("bea", "ayla", "Meteor", 0)
    ]
    assert table.state.combatant("bea").pledges == ()
    assert table.refused(AYLA, meteor(pledged=(("bea", 8),))) == "helper_not_consenting"


def test_a_pledge_lapses_when_the_round_ends() -> None:
    """Turn Based Combat: a pledge is given earlier in the round, for that round."""
    table = party()
    table.send(BEA, PledgeMana("bea", "ayla", "Meteor", 10))
    for cid in ("ayla", "bea", "gob"):
        table.send(GM, EndTurn(cid))
    assert (table.state.round, table.state.current) == (2, "ayla")
    assert table.state.combatant("bea").pledges == ()
    assert table.refused(AYLA, meteor(pledged=(("bea", 10),))) == "helper_not_consenting"
    assert table.replays()


def test_another_side_sees_that_a_pledge_was_made_not_what() -> None:
    table = party()
    event = table.send(BEA, PledgeMana("bea", "ayla", "Meteor", 10))[0]
    goblins = player_audience(["gob"], table.state)
    assert event_view(event, table.state, goblins) == {"$type": "ManaPledged", "helper": "bea"}
    assert event_view(event, table.state, SPECTATORS) == {"$type": "ManaPledged", "helper": "bea"}
    for audience in (GM_AUDIENCE, player_audience(["ayla"], table.state)):
        assert event_view(event, table.state, audience)["share"] == 10
    assert "pledges" not in state_view(table.state, goblins)["combatants"]["bea"]
    assert state_view(table.state, player_audience(["ayla"], table.state))["combatants"]["bea"][
        "pledges"
    ] == [{"$type": "ManaPledge", "caster": "ayla", "spell": "Meteor", "share": 10}]


# --- Live Combat: the pledge is made in the planning window ------------------------------


def live_party(*dice: int) -> Fight:
    """Live Combat. The first three faces are the initiatives (ayla, bea, gob): ayla
    acts first. gob faces the party, so it may Dodge a spell (V22)."""
    gob = mage("gob", "gm", x=3, facing=4)
    return started_live(mage("ayla"), mage("bea", y=1), gob, dice=(18, 10, 5, *dice))


def test_live_a_pledge_declared_in_the_planning_window_pays_the_declared_cast() -> None:
    fight = live_party(15, 2)  # ayla's Meteor: 15 + 2 vs SD 11, hit; Spell Die 2
    table = Table(fight.state)
    table.send(BEA, PledgeMana("bea", "ayla", "Meteor", 10))
    table.send(AYLA, Declare("ayla", (meteor(pledged=(("bea", 10),)),)))
    table.send(BEA, Declare("bea", ()))
    table.send(GM, Declare("gob", ()))
    assert table.state.window is not None and table.state.window.about == "ayla"
    # The round is resolving (gob is asked whether it Dodges, V22): no pledge now.
    assert table.refused(BEA, PledgeMana("bea", "ayla", "Meteor", 5)) == "wrong_phase"
    fight = Fight(table.state)
    fight.pass_windows()  # gob lets its Dodge go
    cast = one(fight.log, SpellCast)
    assert [(s.combatant, s.mc) for s in cast.shares] == [("ayla", 10), ("bea", 10)]
    assert (fight.who("ayla").mana, fight.who("bea").mana) == (0, 0)
    assert of(fight.log, SpellAttackRolled)[0].outcome == "hit"
    both = Table(table.initial)
    both.state, both.log = fight.state, [*table.log, *fight.log]
    assert both.replays()


def test_live_a_declared_cast_without_the_pledge_is_lost_and_the_log_says_why() -> None:
    fight = live_party(15, 2)
    table = Table(fight.state)
    table.send(AYLA, Declare("ayla", (meteor(pledged=(("bea", 10),)),)))
    table.send(BEA, Declare("bea", ()))
    table.send(GM, Declare("gob", ()))
    lost = one(table.log, ActionLost)
    assert lost.actor == "ayla" and lost.reason.startswith("helper_not_consenting: bea has")
    assert table.mana("ayla", "bea") == (10, 10) and not of(table.log, SpellCast)


def test_why_a_cast_was_lost_tells_another_side_the_code_not_the_numbers() -> None:
    """R77: the refusal's message holds a pledge's share ("bea pledged up to 5 MC"), a
    number the goblins' side and spectators see no other way (`ManaPledged` shows them
    only who pledged); they read the refusal's code. Ayla's side reads it whole."""
    table = Table(live_party(15, 2).state)
    table.send(BEA, PledgeMana("bea", "ayla", "Meteor", 5))
    table.send(AYLA, Declare("ayla", (meteor(pledged=(("bea", 10),)),)))
    table.send(BEA, Declare("bea", ()))
    table.send(GM, Declare("gob", ()))
    lost = one(table.log, ActionLost)
    assert lost.reason == "helper_not_consenting: bea pledged up to 5 MC of ayla's Meteor, not 10"
    for audience in (player_audience(["gob"], table.state), SPECTATORS):
        assert event_view(lost, table.state, audience)["reason"] == "helper_not_consenting"
    for audience in (player_audience(["ayla"], table.state), GM_AUDIENCE):
        assert event_view(lost, table.state, audience)["reason"] == lost.reason


def test_live_a_declaration_naming_another_seats_helper_is_refused() -> None:
    table = Table(live_party().state)
    declared = Declare("ayla", (meteor(helpers=(("bea", 10),)),))
    assert table.refused(AYLA, declared) == "helper_not_consenting"
    table.send(BOTH, declared)  # the player of both may


# --- the audit: other fields naming a combatant act for the sender's own alone ------------


def test_an_answer_takes_only_the_answerers_own_action() -> None:
    """A holder answers with its own action: one naming another combatant as its actor
    (to spend bram's action out of his turn) is refused, and nothing changes."""
    ayla, bram = fighter("ayla", "pc", 0, 0), fighter("bram", "pc", 1, 1)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    fight = started_live(ayla, bram, g1, dice=(18, 17, 3))  # initiative: ayla, bram, g1
    fight.do(Declare("ayla", (HoldAction("ayla"),)))
    fight.do(Declare("bram", ()))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    assert fight.asked() == {"ayla": ("dodge", "block", "hold")}
    someone_elses = Answer("ayla", fight.window.id, "hold", Attack("bram", "g1", "longsword"))
    assert fight.refused(someone_elses) == "invalid_command"
    assert fight.replays()
