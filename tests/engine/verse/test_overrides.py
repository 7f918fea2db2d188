"""GM overrides (issue 3, V24): every override is an event in the log, never a silent edit.

Each scenario checks the events the GM's command produces (with what was there
before), the state after them, and that the log replays to the same state.
"""

from __future__ import annotations

from typing import Any

import pytest

from server.engine import execute, replay
from server.engine.commands import Pause, Resume
from server.engine.core import Command, Event
from server.engine.flow import Mode, WindowKind
from server.engine.grid import Cell
from server.engine.records import evolve
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.combatant import Condition, VerseCombatant
from server.engine.rulesets.verse.conditions import ConditionGained, ConditionLost
from server.engine.rulesets.verse.live import ActionLost, Answer, Declare, PassWindow
from server.engine.rulesets.verse.live_actions import HoldAction, HoldBegan
from server.engine.rulesets.verse.movement import Face, Faced
from server.engine.rulesets.verse.overrides import (
    AbilitySet,
    AddCombatant,
    ArmourSet,
    CombatantAdded,
    CombatantRemoved,
    HealthSet,
    ManaSet,
    PositionSet,
    RemoveCombatant,
    RemoveCondition,
    SetAbility,
    SetArmour,
    SetCondition,
    SetHealth,
    SetMana,
    SetPosition,
    SkipTurn,
    TurnSkipped,
)
from server.engine.rulesets.verse.recovery import ItemRecovered, RecoverItem
from server.engine.rulesets.verse.rides import RiderCarried
from server.engine.rulesets.verse.sheet import Speeds
from server.engine.rulesets.verse.turns import (
    EndTurn,
    RoundEnded,
    RoundStarted,
    StartCombat,
    TurnEnded,
    TurnStarted,
)
from server.engine.rulesets.verse.windows import WindowClosed, WindowOpened
from server.engine.settings import SetSetting, SettingChanged
from server.engine.state import Encounter, Settings, TurnSlot
from tests.engine.verse.builders import encounter, fighter, in_combat, refused, sheet
from tests.engine.verse.live_script import started_live


class Log:
    """A fight and its log: `do` sends a command; `replays` checks the log rebuilds it."""

    def __init__(self, state: Encounter) -> None:
        self.initial = state
        self.state = state
        self.events: list[Event] = []

    def do(self, command: Command) -> list[Event]:
        self.state, events = execute(self.state, command)
        self.events.extend(events)
        return events

    def who(self, cid: str) -> VerseCombatant:
        found: VerseCombatant = self.state.combatant(cid)
        return found

    def replays(self) -> bool:
        return replay(self.initial, self.events).state_hash() == self.state.state_hash()


def names(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events]


def two(dice: tuple[int, ...] = ()) -> Encounter:
    return in_combat(fighter("ayla", "pc"), fighter("gob", "gm", x=1), dice=dice)


def three(dice: tuple[int, ...] = ()) -> Encounter:
    """Turns in order ayla (initiative 20), gob (19), cora (18); ayla's turn."""
    return in_combat(
        fighter("ayla", "pc"), fighter("gob", "gm", x=1), fighter("cora", "pc", y=2), dice=dice
    )


def live_duel(dice: tuple[int, ...] = (15, 5)) -> Log:
    """Live Combat, ayla (d20 15 + Dex 2 = 17) before gob (5 + 2 = 7): planning is open."""
    state = encounter(fighter("ayla", "pc"), fighter("gob", "gm", x=1), dice=dice)
    log = Log(evolve(state, mode=Mode.LIVE))
    log.do(StartCombat())
    return log


def attack_waiting_on_gob(log: Log, *more: Command) -> None:
    """Ayla declares an attack on gob (then `more`); gob declares a Face. Resolution
    starts and the attack's reaction window asks gob for its Defensive Action (V21)."""
    log.do(Declare("ayla", (Attack("ayla", "gob", "longsword"), *more)))
    log.do(Declare("gob", (Face("gob", 4),)))
    window = log.state.window
    assert window is not None and window.kind == WindowKind.REACTION
    assert [a.combatant for a in window.asked] == ["gob"]


# --- health, mana, armour, abilities -------------------------------------------------


def test_set_health_records_the_previous_value_and_never_adds_a_condition() -> None:
    log = Log(two())
    events = log.do(SetHealth("gob", 0))
    assert events == [HealthSet("gob", 0, 20)]
    gob = log.who("gob")
    assert gob.health == 0
    assert gob.conditions == () and gob.alive  # Dead is the GM's SetCondition
    assert log.replays()


def test_set_mana_records_the_previous_value() -> None:
    log = Log(two())
    log.do(SetMana("ayla", 4))
    assert log.do(SetMana("ayla", 10)) == [ManaSet("ayla", 10, 4)]
    assert log.who("ayla").mana == 10
    assert log.replays()


def test_set_armour_sets_durability_and_leaves_broken_alone() -> None:
    log = Log(two())
    assert log.do(SetArmour("gob", 0)) == [ArmourSet("gob", 0, 10)]
    gob = log.who("gob")
    assert gob.armour_durability == 0 and gob.broken == ()
    assert log.replays()


def test_set_ability_never_knocks_out_at_constitution_0() -> None:
    log = Log(two())
    assert log.do(SetAbility("gob", "constitution", 0)) == [AbilitySet("gob", "constitution", 0, 3)]
    gob = log.who("gob")
    assert gob.abilities.constitution == 0 and gob.active  # V10's Unconscious: not here
    assert gob.sheet.abilities.constitution == 3
    assert log.replays()


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (SetHealth("gob", 21), "invalid_command"),  # above the sheet's 20
        (SetHealth("gob", -1), "invalid_command"),
        (SetHealth("gob", True), "invalid_command"),  # a bool is not a number here
        (SetHealth("gob", "5"), "invalid_command"),  # type: ignore[arg-type]
        (SetHealth("nobody", 5), "unknown_combatant"),
        (SetMana("gob", 11), "invalid_command"),
        (SetMana("gob", -3), "invalid_command"),
        (SetArmour("gob", 11), "invalid_command"),
        (SetAbility("gob", "luck", 1), "invalid_command"),
        (SetAbility("gob", "strength", 4), "invalid_command"),  # above the sheet's 3
        (SetAbility("gob", "strength", -1), "invalid_command"),
    ],
)
def test_values_outside_the_sheet_are_refused_and_change_nothing(
    command: Command, code: str
) -> None:
    assert refused(two(), command) == code


def test_armour_is_set_only_on_a_sheet_that_tracks_it() -> None:
    bare = fighter("gob", "gm", x=1, sheet_=sheet("gob", armour_durability=None))
    state = in_combat(fighter("ayla", "pc"), bare)
    assert refused(state, SetArmour("gob", 0)) == "invalid_command"


# --- conditions -----------------------------------------------------------------------


def test_set_condition_is_a_condition_gained_by_gm_override() -> None:
    log = Log(two())
    events = log.do(SetCondition("gob", "Stunned", 2))
    assert events == [ConditionGained("gob", "Stunned", 2, reason="GM override")]
    assert not log.who("gob").active
    # Set again: the new duration replaces the old one.
    log.do(SetCondition("gob", "Stunned"))
    assert [(c.name, c.rounds) for c in log.who("gob").conditions] == [("Stunned", None)]
    assert log.replays()


def test_a_condition_set_for_rounds_ticks_like_any_other() -> None:
    log = Log(two())
    log.do(SetCondition("gob", "Shaken", 1))
    log.do(EndTurn("ayla"))
    log.do(EndTurn("gob"))  # the round ends: 1 round is over
    assert not log.who("gob").has("Shaken")
    assert log.replays()


def test_remove_condition_is_a_condition_lost_by_gm_override() -> None:
    log = Log(two())
    log.do(SetHealth("gob", 0))
    log.do(SetCondition("gob", "Dead"))
    events = log.do(RemoveCondition("gob", "Dead"))
    assert events == [ConditionLost("gob", "Dead", reason="GM override")]
    gob = log.who("gob")
    assert gob.alive and gob.health == 0  # health is the GM's SetHealth
    assert log.replays()


@pytest.mark.parametrize(
    "command",
    [
        SetCondition("gob", ""),
        SetCondition("gob", "   "),
        SetCondition("gob", "x" * 61),
        SetCondition("gob", "Stunned", 0),
        SetCondition("gob", "Stunned", 1.5),  # type: ignore[arg-type]
        RemoveCondition("gob", "Stunned"),  # gob is not Stunned
    ],
)
def test_bad_conditions_are_refused(command: Command) -> None:
    assert refused(two(), command) == "invalid_command"


# --- position ---------------------------------------------------------------------------


def test_set_position_places_without_moving_and_records_where_it_was() -> None:
    log = Log(two())
    events = log.do(SetPosition("gob", Cell(4, 3), ascension=1, facing=2))
    assert events == [PositionSet("gob", Cell(4, 3), 1, 2, Cell(1, 0), 0, 0)]
    gob = log.who("gob")
    assert (gob.position, gob.ascension, gob.facing) == (Cell(4, 3), 1, 2)
    assert gob.actions == log.initial.combatant("gob").actions  # no action spent
    # Ascension and facing stay as they are when not given.
    log.do(SetPosition("gob", Cell(5, 3)))
    assert (log.who("gob").ascension, log.who("gob").facing) == (1, 2)
    assert log.replays()


def test_a_cell_held_by_another_able_combatant_is_refused() -> None:
    assert refused(two(), SetPosition("gob", Cell(0, 0))) == "blocked"
    # On another Ascension level the cell is free; a dead body blocks nobody.
    log = Log(two())
    log.do(SetPosition("gob", Cell(0, 0), ascension=1))
    log = Log(two())
    log.do(SetCondition("ayla", "Dead"))
    log.do(SetPosition("gob", Cell(0, 0)))
    assert log.who("gob").position == Cell(0, 0)


@pytest.mark.parametrize(
    "command",
    [
        SetPosition("gob", (3, 3)),  # type: ignore[arg-type]
        SetPosition("gob", Cell(3, "3")),  # type: ignore[arg-type]
        SetPosition("gob", Cell(3, 3), ascension="1"),  # type: ignore[arg-type]
        SetPosition("gob", Cell(3, 3), facing=8),  # squares have facings 0 to 7
    ],
)
def test_malformed_positions_are_refused(command: Command) -> None:
    assert refused(two(), command) == "invalid_command"


def test_a_ride_placed_carries_its_riders_and_a_rider_placed_leaves_its_ride() -> None:
    horse = fighter("horse", "pc", 2, 2, sheet_=sheet("horse", is_ride=True))
    ayla = fighter("ayla", "pc", 2, 2, mounted_on="horse")
    log = Log(in_combat(ayla, horse, fighter("gob", "gm", x=5)))
    events = log.do(SetPosition("horse", Cell(3, 3), ascension=2))
    assert events[1:] == [RiderCarried("ayla", "horse", Cell(3, 3), 2)]
    assert (log.who("ayla").position, log.who("ayla").ascension) == (Cell(3, 3), 2)
    # The rider placed elsewhere leaves its ride; its ride's cell is not free for it.
    assert refused(log.state, SetPosition("ayla", Cell(3, 3))) == "blocked"
    events = log.do(SetPosition("ayla", Cell(4, 4)))
    assert events == [PositionSet("ayla", Cell(4, 4), 2, 0, Cell(3, 3), 2, 0, left_ride="horse")]
    assert log.who("ayla").mounted_on == ""
    assert log.replays()


# --- adding a combatant -------------------------------------------------------------------


def newcomer(dexterity: int = 2, speed: int = 30, **kw: Any) -> VerseCombatant:
    abilities = evolve(sheet().abilities, dexterity=dexterity)
    made = sheet("newt", abilities=abilities, speeds=Speeds(land=speed))
    return fighter("newt", "gm", 5, 5, sheet_=made, **kw)


def test_a_combatant_added_before_combat_rolls_nothing() -> None:
    log = Log(encounter(fighter("ayla", "pc"), dice=()))
    events = log.do(AddCombatant(newcomer()))
    assert events == [CombatantAdded(newcomer())]
    assert "newt" in log.state.combatants and log.state.turn_order == ()
    assert log.replays()


def test_an_added_combatant_after_the_current_turn_acts_this_round() -> None:
    # gob's turn (initiative 19, Dexterity 2). newt rolls 17 + Dex 2 = 19: a tie on
    # initiative and Dexterity goes after the existing turn, so newt acts right after gob.
    state = evolve(three(dice=(17,)), turn=1)
    log = Log(state)
    events = log.do(AddCombatant(newcomer()))
    (added,) = events
    assert isinstance(added, CombatantAdded)
    assert [(r.combatant, r.roll.describe()) for r in added.initiative] == [
        ("newt", "d20 17 + Dexterity 2 = 19")
    ]
    assert added.at == (2,)
    assert [s.combatant for s in log.state.turn_order] == ["ayla", "gob", "newt", "cora"]
    assert log.state.current == "gob"
    assert log.do(EndTurn("gob"))[1] == TurnStarted("newt", 2)
    assert log.replays()


def test_an_added_combatant_ranked_before_the_current_turn_waits_for_the_next_round() -> None:
    # Same roll, higher Dexterity: newt (19, Dex 4) outranks gob (19, Dex 2), so its turn
    # is placed before gob's, which stays the current turn: newt acts next round.
    state = evolve(three(dice=(15,)), turn=1)
    log = Log(state)
    log.do(AddCombatant(newcomer(dexterity=4)))
    assert [s.combatant for s in log.state.turn_order] == ["ayla", "newt", "gob", "cora"]
    assert (log.state.current, log.state.turn) == ("gob", 2)
    assert log.do(EndTurn("gob"))[1] == TurnStarted("cora", 3)
    log.do(EndTurn("cora"))
    assert log.do(EndTurn("ayla"))[1] == TurnStarted("newt", 1)
    assert log.replays()


def test_a_fast_newcomer_rolls_one_initiative_per_30_ft() -> None:
    log = Log(three(dice=(19, 1)))  # 19 + 2 = 21 and 1 + 2 = 3
    (added,) = log.do(AddCombatant(newcomer(speed=60)))
    assert isinstance(added, CombatantAdded) and len(added.initiative) == 2  # V16
    assert [(s.combatant, s.initiative) for s in log.state.turn_order] == [
        ("newt", 21),
        ("ayla", 20),
        ("gob", 19),
        ("cora", 18),
        ("newt", 3),
    ]
    assert (log.state.current, log.state.turn) == ("ayla", 1)  # still ayla's turn
    assert log.replays()


def test_a_newcomer_adds_its_sheets_initiative_bonus() -> None:
    """V16, R76: a combatant the GM adds rolls `d20 + Dexterity + bonuses` as well:
    16 + 2 + 3 = 21 puts it before ayla (20), so its turn comes next round."""
    log = Log(three(dice=(16,)))
    quick = evolve(newcomer(), sheet=evolve(newcomer().sheet, initiative_bonus=3))
    (added,) = log.do(AddCombatant(quick))
    assert isinstance(added, CombatantAdded)
    assert added.initiative[0].roll.modifiers == (("Dexterity", 2), ("Initiative bonus", 3))
    first = log.state.turn_order[0]
    assert (first.combatant, first.initiative) == ("newt", 21)
    assert log.replays()


def test_a_combatant_added_during_planning_is_asked_to_declare() -> None:
    # ayla 17, gob 7; newt rolls 10 + 2 = 12: between them. gob's declaration, made
    # for turn index 1, follows gob's turn to index 2 and still plays on gob's turn.
    log = live_duel(dice=(15, 5, 10))
    log.do(Declare("gob", (Face("gob", 4),)))
    log.do(AddCombatant(newcomer()))
    window = log.state.window
    assert window is not None and window.kind == WindowKind.PLANNING
    assert window.waiting_for == ("ayla", "newt")
    assert [(d.combatant, d.turn) for d in log.state.declarations] == [("gob", 2)]
    log.do(Declare("ayla", (Face("ayla", 1),)))
    events = log.do(Declare("newt", (Face("newt", 6),)))
    faced = [(e.combatant, e.facing) for e in events if isinstance(e, Faced)]
    assert faced == [("ayla", 1), ("newt", 6), ("gob", 4)]
    assert log.replays()


@pytest.mark.parametrize("undeclared", ["pass", "hold"])
def test_a_combatant_added_during_resolution_does_what_the_undeclared_do(
    undeclared: str,
) -> None:
    """V20 and the room's `undeclared` setting: no planning window will ask newt this
    round, so newt's turn (12, after ayla's 17) plays as an undeclared one would."""
    log = live_duel(dice=(15, 5, 10, 10, 2))
    log.do(SetSetting("undeclared", undeclared))
    attack_waiting_on_gob(log)
    log.do(AddCombatant(newcomer()))
    held = [d.actions for d in log.state.declarations if d.combatant == "newt"]
    assert held == ([(HoldAction("newt"),)] if undeclared == "hold" else [])
    window = log.state.window
    assert window is not None
    events = log.do(PassWindow("gob", window.id))  # ayla's attack resolves
    assert TurnStarted("newt", 1) in events
    assert (HoldBegan("newt") in events) == (undeclared == "hold")
    assert log.who("newt").holding == (undeclared == "hold")
    assert log.replays()


@pytest.mark.parametrize(
    ("joining", "code"),
    [
        (fighter("gob", "gm", 5, 5), "invalid_command"),  # the id is taken
        (fighter("newt", "gm", 1, 0), "blocked"),  # gob holds (1, 0)
        (fighter("newt", "gm", 5, 5, mounted_on="gob"), "invalid_command"),
        (evolve(fighter("newt", "gm", 5, 5), health=21), "invalid_command"),
        (fighter("newt", "", 5, 5), "invalid_command"),
        (fighter("", "gm", 5, 5), "invalid_command"),
    ],
)
def test_bad_newcomers_are_refused(joining: VerseCombatant, code: str) -> None:
    assert refused(two(), AddCombatant(joining)) == code


# --- removing a combatant ----------------------------------------------------------------


def test_a_removed_combatant_leaves_the_turn_order() -> None:
    log = Log(three())
    (removed,) = log.do(RemoveCombatant("gob"))
    assert removed == CombatantRemoved(log.initial.combatant("gob"), slots=(1,))
    assert "gob" not in log.state.combatants
    assert [s.combatant for s in log.state.turn_order] == ["ayla", "cora"]
    assert log.state.current == "ayla"
    assert log.do(EndTurn("ayla"))[1] == TurnStarted("cora", 1)
    assert log.replays()


def test_removing_the_current_combatant_ends_its_turn() -> None:
    log = Log(evolve(three(), turn=1))
    events = log.do(RemoveCombatant("gob"))
    assert names(events) == ["TurnEnded", "CombatantRemoved", "TurnStarted"]
    assert events[0] == TurnEnded("gob") and events[2] == TurnStarted("cora", 1)
    assert log.state.current == "cora"
    assert log.replays()


def test_removing_the_last_turn_of_the_round_starts_the_next_round() -> None:
    log = Log(evolve(three(), turn=2))
    events = log.do(RemoveCombatant("cora"))
    assert events[2:] == [RoundEnded(1), RoundStarted(2), TurnStarted("ayla", 0)]
    assert log.replays()


def test_a_fast_combatant_removed_on_its_turn_loses_all_its_turns() -> None:
    order = (
        TurnSlot("gob", 20, 2),
        TurnSlot("ayla", 19, 2),
        TurnSlot("gob", 18, 2),
        TurnSlot("cora", 17, 2),
    )
    log = Log(evolve(three(), turn_order=order, turn=2))
    events = log.do(RemoveCombatant("gob"))
    removed = events[1]
    assert isinstance(removed, CombatantRemoved) and removed.slots == (0, 2)
    assert events[2] == TurnStarted("cora", 1)
    assert [s.combatant for s in log.state.turn_order] == ["ayla", "cora"]
    assert log.replays()


def test_a_removed_ride_leaves_its_riders_unmounted_where_they_are() -> None:
    horse = fighter("horse", "pc", 2, 2, sheet_=sheet("horse", is_ride=True))
    ayla = fighter("ayla", "pc", 2, 2, mounted_on="horse")
    log = Log(in_combat(ayla, horse))
    (removed,) = log.do(RemoveCombatant("horse"))
    assert isinstance(removed, CombatantRemoved) and removed.riders == ("ayla",)
    assert (log.who("ayla").mounted_on, log.who("ayla").position) == ("", Cell(2, 2))
    assert log.replays()


def test_removing_the_only_defender_asked_gives_the_attacker_an_adapt_window() -> None:
    """V21/V23 in Live Combat: gob, asked to defend, leaves; the window has nobody left
    to wait for, the attack's target is gone, so ayla may choose another action."""
    log = live_duel()
    attack_waiting_on_gob(log)
    events = log.do(RemoveCombatant("gob"))
    removed = events[0]
    assert isinstance(removed, CombatantRemoved)
    assert [d.combatant for d in removed.declarations] == ["gob"]
    assert names(events)[1:3] == ["WindowClosed", "ActionStarted"]
    window = log.state.window
    assert window is not None and window.kind == WindowKind.ADAPT
    assert [a.combatant for a in window.asked] == ["ayla"]
    assert log.replays()


def test_removing_the_attacker_closes_the_window_about_its_attack() -> None:
    log = live_duel()
    attack_waiting_on_gob(log)
    window_id = log.state.window.id  # type: ignore[union-attr]
    attack = log.state.pending[0]
    events = log.do(RemoveCombatant("ayla"))
    assert events[:3] == [
        WindowClosed(window_id, "closed by the GM"),
        TurnEnded("ayla"),
        CombatantRemoved(
            log.initial.combatant("ayla"),
            slots=(0,),
            declarations=removed_declarations(events),
            pending=(attack,),  # its attack goes with it (R63)
        ),
    ]
    # The flow goes on: gob's turn plays its Face, the round ends, planning opens.
    assert events[3] == TurnStarted("gob", 0)
    assert Faced("gob", 4) in events
    assert isinstance(events[-1], WindowOpened) and log.state.round == 2
    assert log.state.window is not None and log.state.window.waiting_for == ("gob",)
    assert log.replays()


def four_in_live_combat() -> Log:
    """Live Combat: ayla 20, bram 19, g1 5, g2 4 (initiative, id order). Ayla faces,
    Bram holds, g1 attacks Ayla, g2 faces. In g1's turn, Ayla passes her Defensive
    Action and Bram answers g1's attack with a held attack on g2, which waits on g2's
    Defensive Action. Bram's attack: d20 15 + 5 = 20 against PD 12, 1d8 3 + 2."""
    ayla = fighter("ayla", "pc", 0, 0)
    bram = fighter("bram", "pc", 0, 1)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    g2 = fighter("g2", "gm", 1, 1, facing=4)
    state = encounter(ayla, bram, g1, g2, dice=(18, 17, 3, 2, 15, 3))
    log = Log(evolve(state, mode=Mode.LIVE))
    log.do(StartCombat())
    log.do(Declare("ayla", (Face("ayla", 0),)))
    log.do(Declare("bram", (HoldAction("bram"),)))
    log.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    log.do(Declare("g2", (Face("g2", 4),)))
    while "ayla" not in {a.combatant for a in log.state.window.asked}:  # type: ignore[union-attr]
        window = log.state.window
        assert window is not None
        for who in window.waiting_for:
            log.do(PassWindow(who, window.id))
    window = log.state.window
    assert window is not None and window.about == "g1" and log.state.current == "g1"
    log.do(PassWindow("ayla", window.id))
    log.do(Answer("bram", window.id, "hold", Attack("bram", "g2", "longsword")))
    held = log.state.window
    assert held is not None and [a.combatant for a in held.asked] == ["g2"]
    return log


def test_a_combatant_removed_on_its_turn_takes_only_its_own_actions_with_it() -> None:
    """R63: g1 leaves on its turn while Bram's held attack on g2, given in answer to
    g1's attack, waits on g2's window. g1's attack goes with g1; Bram's stays, g2 may
    still defend against it, and it resolves before g2's turn starts."""
    log = four_in_live_combat()
    held = log.state.window
    assert held is not None

    events = log.do(RemoveCombatant("g1"))

    assert not [e for e in events if isinstance(e, ActionLost)]  # Bram's is not lost
    removed = next(e for e in events if isinstance(e, CombatantRemoved))
    assert [p.action for p in removed.pending] == [Attack("g1", "ayla", "longsword")]
    assert TurnEnded("g1") in events and not [e for e in events if isinstance(e, TurnStarted)]
    window = log.state.window  # g2 is still asked about Bram's attack
    assert window is not None and (window.id, window.asked) == (held.id, held.asked)
    assert log.state.current is None and log.state.turn_over
    assert [p.actor for p in log.state.pending] == ["bram"]

    events = log.do(PassWindow("g2", held.id))

    rolled = [i for i, e in enumerate(events) if type(e).__name__ == "AttackRolled"]
    started = events.index(TurnStarted("g2", 2))
    assert len(rolled) == 1 and rolled[0] < started  # Bram's attack, then g2's turn
    assert log.who("g2").health == 20 - (3 + 2 - 2)  # 1d8 3 + 2 against PR 2
    assert log.state.current == "g2" and not log.state.turn_over
    assert log.replays()


def test_an_answer_aimed_at_the_removed_combatant_may_adapt_before_the_next_turn() -> None:
    """R63 with V23: Ayla's held attack answered g1's attack; g1 leaves on its turn.
    The window that asked g1 to defend has nobody left to wait for; Ayla's attack, its
    target gone, gets an adapt window; given up, the next turn starts."""
    ayla = fighter("ayla", "pc", 0, 0)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    fight = started_live(ayla, g1, dice=(18, 3))  # initiative: ayla 20, g1 5
    fight.do(Declare("ayla", (HoldAction("ayla"),)))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    held = Attack("ayla", "g1", "longsword")
    fight.do(Answer("ayla", fight.window.id, "hold", held))
    window = fight.window.id  # g1 is asked to defend against the held attack

    events = fight.do(RemoveCombatant("g1"))

    assert events[0] == TurnEnded("g1")
    removed = events[1]
    assert isinstance(removed, CombatantRemoved)
    assert [p.action for p in removed.pending] == [Attack("g1", "ayla", "longsword")]
    assert WindowClosed(window, "answered") in events
    assert fight.window.kind == WindowKind.ADAPT and fight.asked() == {"ayla": ("adapt",)}
    assert fight.state.round == 1 and fight.state.turn_over

    fight.do(Answer("ayla", fight.window.id, "adapt"))  # she gives it up

    assert fight.state.round == 2 and fight.window.kind == WindowKind.PLANNING
    assert fight.who("ayla").health == 20  # nothing was rolled
    assert fight.replays()


def test_in_turn_based_combat_the_holders_answer_resolves_before_the_next_turn() -> None:
    """R63 in Turn Based Combat (V25): g1 attacks on its turn; Bram and Cora hold, and
    Bram answers with an attack on g2 (d20 15 + 5 = 20 hits PD 12, 1d8 3 + 2) while
    the window waits for Cora. The GM removes g1: the window about its attack closes;
    Bram's attack stays, Cora may still answer it, then it resolves (no Defensive
    Actions in TBC) and only then does Ayla's turn start."""
    state = in_combat(
        fighter("g1", "gm", 1, 0, facing=4),
        fighter("ayla", "pc", 0, 0),
        fighter("bram", "pc", 0, 1),
        fighter("cora", "pc", 0, 2),
        fighter("g2", "gm", 1, 1, facing=4),
        dice=(15, 3),
    )
    for holder in ("bram", "cora"):
        state = state.with_combatant(evolve(state.combatant(holder), holding=True))
    log = Log(state)
    log.do(Attack("g1", "ayla", "longsword"))
    window = log.state.window
    assert window is not None and {a.combatant for a in window.asked} == {"bram", "cora"}
    log.do(Answer("bram", window.id, "hold", Attack("bram", "g2", "longsword")))

    events = log.do(RemoveCombatant("g1"))

    assert events[0] == WindowClosed(window.id, "closed by the GM")
    answered = log.state.window  # Cora, still holding, may answer Bram's attack
    assert answered is not None and answered.about == "bram" and log.state.turn_over
    events = log.do(PassWindow("cora", answered.id))
    rolled = [e for e in events if type(e).__name__ == "AttackRolled"]
    assert [(r.attacker, r.target) for r in rolled] == [("bram", "g2")]  # type: ignore[attr-defined]
    assert events[-1] == TurnStarted("ayla", 0)
    assert log.state.current == "ayla" and not log.state.turn_over
    assert log.who("g2").health == 17
    assert log.replays()


def test_removed_on_its_turn_while_paused_the_answers_resolve_at_resume() -> None:
    """The flow stops while paused (V24): the answers wait, then resolve after the
    resume, before the next turn starts."""
    log = four_in_live_combat()
    held = log.state.window
    assert held is not None
    log.do(Pause("gm"))
    log.do(RemoveCombatant("g1"))
    assert log.state.turn_over and log.state.window is not None
    events = log.do(Resume("gm"))
    assert not [e for e in events if isinstance(e, TurnStarted)]  # g2 is still asked
    events = log.do(PassWindow("g2", held.id))
    assert TurnStarted("g2", 2) in events
    assert log.replays()


def test_removing_the_last_one_planning_waits_for_closes_the_window() -> None:
    """V20: the window ends when all have declared; gob leaves undeclared, so the
    declarations are revealed and the round resolves."""
    log = live_duel()
    log.do(Declare("ayla", (Face("ayla", 1),)))
    events = log.do(RemoveCombatant("gob"))
    assert names(events)[:4] == [
        "CombatantRemoved",
        "WindowClosed",
        "DeclarationsRevealed",
        "TurnStarted",
    ]
    assert Faced("ayla", 1) in events
    assert log.state.round == 2 and log.state.window is not None
    assert log.state.window.waiting_for == ("ayla",)
    assert log.replays()


def removed_declarations(events: list[Event]) -> Any:
    return next(e.declarations for e in events if isinstance(e, CombatantRemoved))


def test_removing_an_unknown_combatant_is_refused() -> None:
    assert refused(two(), RemoveCombatant("nobody")) == "unknown_combatant"


# --- skipping a turn ------------------------------------------------------------------------


def test_skip_turn_in_turn_based_combat_ends_the_turn() -> None:
    log = Log(two())
    events = log.do(SkipTurn())
    assert events == [TurnSkipped("ayla", 0), TurnEnded("ayla"), TurnStarted("gob", 1)]
    assert log.replays()


def test_skip_turn_needs_a_turn_being_played() -> None:
    assert refused(encounter(fighter("ayla", "pc")), SkipTurn()) == "wrong_phase"
    planning = live_duel().state  # Live Combat planning: no turn is being played
    assert refused(planning, SkipTurn()) == "wrong_phase"


def test_skip_turn_in_live_combat_loses_the_turns_declared_actions() -> None:
    log = live_duel()
    attack_waiting_on_gob(log, Face("ayla", 3))
    window_id = log.state.window.id  # type: ignore[union-attr]
    events = log.do(SkipTurn())
    lost = [(e.action, e.reason) for e in events if isinstance(e, ActionLost)]
    assert lost == [
        (Attack("ayla", "gob", "longsword"), "the GM skipped the turn"),
        (Face("ayla", 3), "the GM skipped the turn"),
    ]
    assert events[:2] == [TurnSkipped("ayla", 0), WindowClosed(window_id, "closed by the GM")]
    assert TurnEnded("ayla") in events and TurnStarted("gob", 1) in events
    assert Faced("gob", 4) in events  # the flow went on with gob's turn
    assert log.who("gob").health == 20 and log.who("ayla").facing == 0
    assert log.state.round == 2 and log.replays()


def test_skip_turn_while_paused_stops_at_the_next_turn_until_resume() -> None:
    """V24: overrides are accepted while paused; the flow waits for the resume."""
    log = live_duel()
    attack_waiting_on_gob(log)
    log.do(Pause("gob"))
    assert refused(log.state, Declare("ayla", ())) == "paused"
    events = log.do(SkipTurn())
    assert events[-1] == TurnStarted("gob", 1)
    assert log.who("gob").facing == 0  # nothing resolves while paused
    events = log.do(Resume("gob"))
    assert Faced("gob", 4) in events
    assert log.replays()


# --- settings ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value", "stored", "previous"),
    [
        ("critical_tables", True, True, False),
        ("planning_seconds", 30, 30.0, 45.0),
        ("reaction_seconds", 2.5, 2.5, 8.0),
        ("adapt_seconds", 3600, 3600.0, 8.0),
        ("undeclared", "hold", "hold", "pass"),
        ("roll_visibility", "open", "open", "faces"),
        ("roll_visibility", "hidden", "hidden", "faces"),
    ],
)
def test_set_setting_records_the_previous_value(
    name: str, value: Any, stored: Any, previous: Any
) -> None:
    log = Log(two())
    assert log.do(SetSetting(name, value)) == [SettingChanged(name, stored, previous)]
    assert getattr(log.state.settings, name) == stored
    assert log.replays()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("critical_tables", 1),
        ("planning_seconds", True),
        ("planning_seconds", 0.5),
        ("reaction_seconds", 3601),
        ("adapt_seconds", float("nan")),
        ("adapt_seconds", 10**400),
        ("planning_seconds", "45"),
        ("undeclared", "attack"),
        ("undeclared", 0),
        ("roll_visibility", "secret"),
        ("roll_visibility", True),
        ("gravity", 1),
    ],
)
def test_bad_settings_are_refused(name: str, value: Any) -> None:
    assert refused(two(), SetSetting(name, value)) == "invalid_command"


def test_a_new_window_length_applies_to_the_next_window() -> None:
    state = evolve(encounter(fighter("ayla", "pc"), dice=(10,)), mode=Mode.LIVE)
    log = Log(state)
    log.do(SetSetting("planning_seconds", 20))
    log.do(StartCombat())
    assert log.state.window is not None and log.state.window.seconds == 20.0
    assert log.state.settings == Settings(planning_seconds=20.0)


# --- every override while paused ---------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        SetHealth("gob", 5),
        SetMana("gob", 5),
        SetArmour("gob", 5),
        SetAbility("gob", "strength", 1),
        SetCondition("gob", "Shaken"),
        SetPosition("gob", Cell(3, 3)),
        AddCombatant(fighter("newt", "gm", 5, 5)),
        RemoveCombatant("gob"),
        SkipTurn(),
        SetSetting("critical_tables", True),
    ],
)
def test_every_override_is_accepted_while_paused(command: Command) -> None:
    state = evolve(two(dice=(10,)), paused_by="ayla")
    after, events = execute(state, command)
    assert events and after.paused_by == "ayla"
    assert refused(state, EndTurn("ayla")) == "paused"  # a player's command is not


# --- items -------------------------------------------------------------------------------


def test_the_gm_puts_a_dropped_or_broken_item_back_in_hand() -> None:
    """R72: nothing in the text picks an item up or fixes it; the GM may."""
    ayla = evolve(fighter("ayla", "pc"), dropped=("longsword",), broken=("shortbow",))
    log = Log(in_combat(ayla, fighter("gob", "gm", x=1)))
    assert log.do(RecoverItem("ayla", "longsword")) == [
        ItemRecovered("ayla", "longsword", was_dropped=True, was_broken=False)
    ]
    log.do(RecoverItem("ayla", "shortbow"))
    assert (log.who("ayla").dropped, log.who("ayla").broken) == ((), ())
    assert refused(log.state, RecoverItem("ayla", "longsword")) == "invalid_command"
    assert refused(log.state, RecoverItem("ghost", "longsword")) == "unknown_combatant"
    assert log.replays()


def test_a_fight_that_waited_on_nobody_goes_on_when_the_gm_brings_someone_back() -> None:
    """With everyone down the round has nobody to ask, so no window opens. The GM takes
    Dead off ayla: her round goes on, its planning window asks her (V20)."""
    log = live_duel()
    log.do(SetCondition("gob", "Dead"))
    log.do(SetCondition("ayla", "Dead"))  # the last one able: planning closes, none act
    assert log.state.window is None and log.state.pending == ()
    events = log.do(RemoveCondition("ayla", "Dead"))
    opened = [e for e in events if isinstance(e, WindowOpened)]
    assert [(w.window.kind, w.window.waiting_for) for w in opened] == [
        (WindowKind.PLANNING, ("ayla",))
    ]
    assert log.replays()


def test_in_turn_based_combat_the_first_able_turn_starts() -> None:
    log = Log(two())
    log.do(SetCondition("gob", "Dead"))
    log.do(SetCondition("ayla", "Dead"))
    log.do(SkipTurn())  # ayla's turn ends; nobody can take the next one
    assert log.state.current is None
    events = log.do(RemoveCondition("gob", "Dead"))
    assert TurnStarted("gob", 1) in events and log.state.current == "gob"
    assert log.replays()


def test_a_round_in_which_nobody_can_act_passes_at_once_and_its_conditions_tick() -> None:
    """LIVE_COMBAT step 8: both stunned for two rounds while planning, nobody can act,
    so each round ends at once, the stuns wear off, and round 3's planning opens. Stuns
    without a duration: the round ends, and the fight waits for the GM."""
    log = live_duel()
    log.do(SetCondition("ayla", "Stunned", 2))
    events = log.do(SetCondition("gob", "Stunned", 2))
    assert [e.round for e in events if isinstance(e, RoundStarted)] == [2, 3]
    assert log.state.window is not None and log.state.window.waiting_for == ("ayla", "gob")
    assert (log.who("ayla").conditions, log.who("gob").conditions) == ((), ())
    log.do(SetCondition("ayla", "Stunned"))  # no duration
    events = log.do(SetCondition("gob", "Stunned"))
    assert [e.round for e in events if isinstance(e, RoundStarted)] == [4]  # then waits
    assert log.state.window is None
    assert log.replays()


def test_a_newcomer_that_cannot_act_gets_no_hold() -> None:
    log = live_duel(dice=(15, 5, 10, 10, 2))
    log.do(SetSetting("undeclared", "hold"))
    attack_waiting_on_gob(log)
    stunned = evolve(newcomer(), conditions=(Condition("Stunned", 1),))
    log.do(AddCombatant(stunned))
    assert [d for d in log.state.declarations if d.combatant == "newt"] == []
    assert log.replays()


def test_armour_is_made_whole_by_its_durability_not_by_recovering_it() -> None:
    broken = evolve(fighter("ayla", "pc"), broken=("armour",), armour_durability=0)
    assert refused(in_combat(broken, fighter("gob", "gm", x=1)), RecoverItem("ayla", "armour")) == (
        "invalid_command"
    )


def test_in_turn_based_combat_rounds_nobody_can_act_in_pass_at_once_too() -> None:
    log = Log(two())
    log.do(SetCondition("gob", "Stunned", 2))
    log.do(SetCondition("ayla", "Stunned", 2))
    events = log.do(SkipTurn())  # ayla's turn ends; nobody can act until round 3
    assert [e.round for e in events if isinstance(e, RoundStarted)] == [2, 3]
    assert events[-1] == TurnStarted("ayla", 0) and log.state.round == 3
    assert log.replays()


@pytest.mark.parametrize("name", ["gm", "GM", "room", "spectator", "host"])
def test_a_combatant_added_under_a_roles_name_is_refused(name: str) -> None:
    """A combatant called `gm` could speak as the GM (`Pause(by="gm")`) and would share
    the GM console's seat: added later as at the encounter's creation, it is refused."""
    state = encounter(fighter("ayla", "pc"), dice=())
    assert refused(state, AddCombatant(evolve(newcomer(), id=name))) == "invalid_command"
