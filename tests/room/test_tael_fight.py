"""A World of Tael fight through the room, end to end, on the sample sheets (issue: "One
end-to-end Tael fight through the room, with a preparation triggering out of turn").

Kaelen and Tobin (players) against a bandit (the GM), on scripted dice. In round 1 the
bandit, already in its Preparation Phase, lets Kaelen's attack pass; after his turn
Kaelen announces a Riposte, hidden from everyone else. In round 2 the bandit attacks
Kaelen: a reaction window asks Kaelen (Riposte) and Tobin (Covering Shot, for the ally
next to him). Kaelen answers out of his turn; Tobin lets the window's time run out on
the room's clock. Kaelen's strike resolves first, then the bandit's hit, whose damage
the Riposte prevents. The log replays to the room's state, and nobody but Kaelen's side
saw the Riposte before it triggered.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.engine.authority import GM, Principal, Role
from server.engine.commands import CombatEnded, EndCombat, Rewind
from server.engine.core import replay
from server.engine.errors import CommandRefused
from server.engine.grid import Cell
from server.engine.rng import ScriptedDice
from server.engine.rulesets.tael.attacks import AttackAction, HitChecked
from server.engine.rulesets.tael.bonus import Surrender
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.damage import DamagePrevented, DamageTaken
from server.engine.rulesets.tael.preparations import PreparationAnnounced, Prepare
from server.engine.stack import Answer, Answered, PassWindow, WindowClosed, WindowOpened
from server.engine.state import Encounter
from server.engine.turns import EndTurn, StartCombat
from server.engine.views import SPECTATORS, event_view, player_audience
from server.eventlog.memory import MemoryEventLog
from server.room import FakeClock
from server.sheets.tael import load_sheet
from tests.room.conftest import MakeRoom

SAMPLES = Path(__file__).resolve().parents[2] / "server" / "samples" / "tael"
KAELEN = Principal(Role.PLAYER, controls=("kaelen",), name="kaelen")
TOBIN = Principal(Role.PLAYER, controls=("tobin",), name="tobin")

# Initiative, dealt in id order: bandit 18 + 1, kaelen 10 + 3, tobin 5 + 2.
# Round 1: Kaelen's attack, 5 + 4 = 9 against the bandit's DV 12: a miss.
# Round 2: Kaelen's Riposte strike, 14 + 4 = 18: a hit for 1d8 6 + Strength 2 + Class 1;
# then the bandit's attack, 15 + 2 = 17 against Kaelen's DV 13 + 3 - 1 = 15: a hit.
DICE = (18, 10, 5, 5, 14, 6, 15)


def the_pass() -> Encounter:
    def place(cid: str, side: str, cell: Cell) -> TaelCombatant:
        return TaelCombatant.from_sheet(cid, side, load_sheet(SAMPLES / f"{cid}.toml"), cell)

    fighters = [
        place("kaelen", "heroes", Cell(0, 0)),
        place("tobin", "heroes", Cell(0, 1)),
        place("bandit", "foes", Cell(1, 0)),
    ]
    return Encounter("pass", "tael", {c.id: c for c in fighters}, dice=ScriptedDice(DICE))


async def test_a_tael_fight_with_a_riposte_out_of_turn(
    make_room: MakeRoom, clock: FakeClock, log: MemoryEventLog
) -> None:
    room = await make_room(the_pass())
    await room.submit(GM, StartCombat())
    assert [s.combatant for s in room.state.turn_order] == ["bandit", "kaelen", "tobin"]

    # Round 1.
    await room.submit(GM, EndTurn("bandit"))
    ack = await room.submit(KAELEN, AttackAction("kaelen", "bandit"))
    asked = next(e for e in ack.events if isinstance(e, WindowOpened)).window
    assert [a.combatant for a in asked.asked] == ["bandit"]  # its Shield Up may answer
    ack = await room.submit(GM, PassWindow("bandit", asked.id))
    assert not next(e for e in ack.events if isinstance(e, HitChecked)).hit
    await room.submit(KAELEN, EndTurn("kaelen"))
    announced = await room.submit(KAELEN, Prepare("kaelen", "Riposte"))  # during Tobin's turn
    await room.submit(TOBIN, EndTurn("tobin"))
    assert room.state.round == 2 and room.state.current == "bandit"

    # Round 2: the bandit attacks Kaelen; the window asks both heroes.
    ack = await room.submit(GM, AttackAction("bandit", "kaelen"))
    window = next(e for e in ack.events if isinstance(e, WindowOpened)).window
    assert {a.combatant: a.options for a in window.asked} == {
        "kaelen": ("Riposte",),
        "tobin": ("Covering Shot",),
    }
    countdown = room.countdown
    assert countdown is not None and countdown.deadline == 8.0

    ack = await room.submit(KAELEN, Answer("kaelen", window.id, "Riposte"))  # not his turn
    assert [type(e) for e in ack.events] == [Answered]
    still = room.state.window
    assert still is not None and still.waiting_for == ("tobin",)

    await clock.advance(7.9)
    assert room.state.window is not None
    await clock.advance(0.1)  # Tobin lets it pass: the room's timer closes the window
    assert room.state.window is None
    events = [entry.event for entry in await log.read("room-1")]
    closed = [e for e in events if isinstance(e, WindowClosed)]
    assert closed[-1].reason == "expired"
    checks = [e for e in events if isinstance(e, HitChecked)][-2:]
    assert [(c.attacker, c.kind, c.hit) for c in checks] == [
        ("kaelen", "prepared", True),
        ("bandit", "weapon", True),
    ]
    prevented = [e for e in events if isinstance(e, DamagePrevented)]
    assert [(p.target, p.move) for p in prevented] == [("kaelen", "Riposte")]
    taken = [e for e in events if isinstance(e, DamageTaken)]
    assert [(t.target, t.taken) for t in taken] == [("bandit", 9)]
    assert room.state.combatants["kaelen"].hit_points == 24
    assert room.state.combatants["bandit"].hit_points == 5
    assert room.state.current == "bandit"  # the bandit's turn goes on

    # Nobody but Kaelen's side saw the Riposte before it triggered.
    prepared = next(e for e in announced.events if isinstance(e, PreparationAnnounced))
    opened = next(e for e in events if isinstance(e, WindowOpened))
    for audience in (SPECTATORS, player_audience(["bandit"], room.state)):
        before = json.dumps(
            [event_view(prepared, room.state, audience), event_view(opened, room.state, audience)]
        )
        assert "Riposte" not in before
    heroes = player_audience(["tobin"], room.state)
    assert event_view(prepared, room.state, heroes)["move"] == "Riposte"

    assert replay(room.initial, events).state_hash() == room.state.state_hash()


async def test_the_gm_ends_the_fight_once_a_side_is_down(
    make_room: MakeRoom, log: MemoryEventLog
) -> None:
    """T10: refused while both sides stand; the heroes surrender, the GM ends it."""
    room = await make_room(the_pass())
    await room.submit(GM, StartCombat())
    with pytest.raises(CommandRefused) as refused:
        await room.submit(GM, EndCombat())
    assert refused.value.code == "combat_not_over"
    await room.submit(GM, EndTurn("bandit"))
    await room.submit(KAELEN, Surrender("kaelen"))
    await room.submit(KAELEN, EndTurn("kaelen"))
    await room.submit(TOBIN, Surrender("tobin"))
    ack = await room.submit(GM, EndCombat())
    ended = next(e for e in ack.events if isinstance(e, CombatEnded))
    assert (ended.defeated, ended.fallen) == (("heroes",), ())
    events = [entry.event for entry in await log.read("room-1")]
    assert replay(room.initial, events).state_hash() == room.state.state_hash()


async def test_the_gm_ends_a_fight_everyone_agrees_to_stop(
    make_room: MakeRoom, log: MemoryEventLog
) -> None:
    """T10's "everyone agrees to stop the fight" (TR39): nobody is down, the table
    parleys; the GM ends it as agreed, and the log keeps that it ended so."""
    room = await make_room(the_pass())
    await room.submit(GM, StartCombat())
    ack = await room.submit(GM, EndCombat(agreed=True))
    assert ack.events == (CombatEnded((), (), agreed=True),)
    events = [entry.event for entry in await log.read("room-1")]
    assert events[-1] == CombatEnded((), (), agreed=True)
    assert replay(room.initial, events).state_hash() == room.state.state_hash()


async def test_the_gm_rewinds_a_tael_fight(make_room: MakeRoom, log: MemoryEventLog) -> None:
    """Rewind is the room's and every ruleset's: back to before Kaelen's turn, and the
    fight goes on from there (its dice go on from the present)."""
    room = await make_room(the_pass())
    await room.submit(GM, StartCombat())
    await room.submit(GM, EndTurn("bandit"))
    mark = room.version
    await room.submit(KAELEN, EndTurn("kaelen"))
    assert room.state.current == "tobin"
    await room.submit(GM, Rewind(mark))
    assert room.state.current == "kaelen"
    await room.submit(KAELEN, EndTurn("kaelen"))
    events = [entry.event for entry in await log.read("room-1")]
    assert replay(room.initial, events).state_hash() == room.state.state_hash()
