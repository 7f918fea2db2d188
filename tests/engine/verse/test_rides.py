"""Rides: Mount, Dismount, riders carried along, and riders thrown when the ride goes down."""

from __future__ import annotations

from typing import Any

import pytest

from server.engine import CommandRefused, decide, execute, replay
from server.engine.core import apply_all
from server.engine.dice import DiceCup
from server.engine.grid import Cell, Grid
from server.engine.records import evolve
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.rulesets.verse.combatant import (
    DEAD,
    UNCONSCIOUS,
    ActionsUsed,
    Charge,
    Condition,
    VerseCombatant,
)
from server.engine.rulesets.verse.conditions import ConditionGained
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.rides import (
    Dismount,
    Dismounted,
    Mount,
    Mounted,
    RideDestroyed,
    RiderCarried,
    RiderThrown,
    carry_riders_events,
    ride_destroyed_events,
    riders_of,
)
from server.engine.rulesets.verse.sheet import Defences
from server.engine.rulesets.verse.spells import ChargeLost
from tests.engine.verse.builders import fighter, in_combat, sheet

HORSE = sheet("horse", is_ride=True, defences=Defences(18, 4, 10, 2), health=6)


def horse(
    cid: str = "horse", side: str = "pc", x: int = 1, y: int = 0, **kw: Any
) -> VerseCombatant:
    return fighter(cid, side, x, y, sheet_=evolve(HORSE, name=cid), **kw)


def rider(cid: str, x: int = 1, y: int = 0, ride: str = "horse", **kw: Any) -> VerseCombatant:
    return fighter(cid, "pc", x, y, mounted_on=ride, **kw)


def down(c: VerseCombatant, condition: str = DEAD) -> VerseCombatant:
    return evolve(c, health=0, conditions=(Condition(condition),))


# --- Mount ----------------------------------------------------------------------


def test_mount_is_a_move_action_that_puts_the_rider_on_its_ride() -> None:
    state = in_combat(fighter("ayla", "pc"), horse(), fighter("gob", "gm", 8, 0))
    after, events = execute(state, Mount("ayla", "horse"))
    assert events == [Mounted("ayla", "horse", Cell(1, 0), 0, "move")]
    ayla = after.combatant("ayla")
    assert (ayla.position, ayla.mounted_on) == (Cell(1, 0), "horse")
    assert ayla.actions == ActionsUsed(move=True)
    assert riders_of(after, "horse") == (ayla,)


def test_mount_on_a_hex_grid() -> None:
    state = in_combat(fighter("ayla", "pc"), horse(x=0, y=1), grid=Grid(kind="hex"))
    after, _ = execute(state, Mount("ayla", "horse"))
    assert after.combatant("ayla").position == Cell(0, 1)


def mount_refusal_state(**ayla: Any) -> Any:
    return in_combat(
        fighter("ayla", "pc", **ayla),
        horse(),
        horse("nag", x=5),  # far away
        horse("warg", "gm", x=0, y=1),  # an enemy's ride
        horse("roc", x=-1, ascension=1),  # up in the air
        down(horse("dead_horse", x=-1, y=-1)),
        fighter("wolf", "pc", 1, 1),  # not a ride
    )


@pytest.mark.parametrize(
    ("command", "ayla", "code"),
    [
        (Mount("ayla", "wolf"), {}, "not_a_ride"),
        (Mount("ayla", "warg"), {}, "other_side"),
        (Mount("ayla", "nag"), {}, "out_of_reach"),
        (Mount("ayla", "roc"), {}, "other_ascension"),
        (Mount("ayla", "dead_horse"), {}, "target_down"),
        (Mount("ayla", "horse"), {"mounted_on": "nag"}, "already_mounted"),
        (Mount("ayla", "horse"), {"actions": ActionsUsed(move=True)}, "action_used"),
        (Mount("ayla", "nobody"), {}, "unknown_combatant"),
        (Mount("wolf", "horse"), {}, "not_your_turn"),
    ],
)
def test_refused_mounts(command: Mount, ayla: dict[str, Any], code: str) -> None:
    state = mount_refusal_state(**ayla)
    before = state.state_hash()
    with pytest.raises(CommandRefused) as refused:
        decide(state, command)
    assert refused.value.code == code
    assert state.state_hash() == before


def test_a_ride_cannot_mount_a_ride() -> None:
    state = in_combat(horse("pony", x=0), horse())
    before = state.state_hash()
    with pytest.raises(CommandRefused) as refused:
        decide(state, Mount("pony", "horse"))
    assert refused.value.code == "invalid_command"
    assert state.state_hash() == before


# --- Dismount -------------------------------------------------------------------


def test_dismount_is_a_move_action_into_a_free_cell_next_to_the_ride() -> None:
    state = in_combat(rider("ayla"), horse())
    after, events = execute(state, Dismount("ayla", Cell(2, 1)))
    assert events == [Dismounted("ayla", "horse", Cell(2, 1), "move")]
    ayla = after.combatant("ayla")
    assert (ayla.position, ayla.mounted_on) == (Cell(2, 1), "")
    assert ayla.actions == ActionsUsed(move=True)
    assert riders_of(after, "horse") == ()


@pytest.mark.parametrize(
    ("ayla", "cell", "code"),
    [
        (fighter("ayla", "pc", 0, 0), Cell(0, 1), "not_mounted"),
        (rider("ayla"), Cell(3, 0), "out_of_reach"),
        (rider("ayla"), Cell(1, 0), "out_of_reach"),  # the ride's own cell
        (rider("ayla"), Cell(2, 0), "blocked"),  # gob stands there
        (rider("ayla", actions=ActionsUsed(move=True)), Cell(0, 0), "action_used"),
    ],
)
def test_refused_dismounts(ayla: VerseCombatant, cell: Cell, code: str) -> None:
    state = in_combat(ayla, horse(), fighter("gob", "gm", 2, 0))
    before = state.state_hash()
    with pytest.raises(CommandRefused) as refused:
        decide(state, Dismount("ayla", cell))
    assert refused.value.code == code
    assert state.state_hash() == before


@pytest.mark.parametrize("condition", [DEAD, UNCONSCIOUS])
def test_a_downed_body_does_not_block_a_dismount(condition: str) -> None:
    state = in_combat(rider("ayla"), horse(), down(fighter("gob", "gm", 2, 0), condition))
    after, _ = execute(state, Dismount("ayla", Cell(2, 0)))
    assert after.combatant("ayla").position == Cell(2, 0)


# --- riders move with their ride ------------------------------------------------


def test_riders_are_carried_with_their_ride_and_nobody_else() -> None:
    state = in_combat(rider("ayla"), rider("bo"), horse(), fighter("cid", "pc", 0, 0))
    events = carry_riders_events(state, "horse", Cell(4, 2))
    assert events == [
        RiderCarried("ayla", "horse", Cell(4, 2), 0),
        RiderCarried("bo", "horse", Cell(4, 2), 0),
    ]
    after = apply_all(state, events)
    assert [after.combatant(c).position for c in ("ayla", "bo", "cid")] == [
        Cell(4, 2),
        Cell(4, 2),
        Cell(0, 0),
    ]
    assert after.combatant("ayla").actions == ActionsUsed()  # no action of its own


def test_riders_ascend_with_their_ride() -> None:
    state = in_combat(rider("ayla"), horse())
    after = apply_all(state, carry_riders_events(state, "horse", Cell(2, 0), ascension=1))
    assert (after.combatant("ayla").position, after.combatant("ayla").ascension) == (Cell(2, 0), 1)


def test_a_ride_without_riders_carries_nobody() -> None:
    state = in_combat(fighter("ayla", "pc"), horse())
    assert carry_riders_events(state, "horse", Cell(3, 0)) == []


# --- attacks on a ride use the ride's own defences ------------------------------


def test_an_attack_on_a_ride_uses_the_rides_dodge_and_resistance() -> None:
    # d20 10 + Strength 3 + Training 2 = 15 would hit the rider (PD 12) but not the horse (PD 18).
    state = in_combat(fighter("gob", "gm", 2, 0), rider("ayla"), horse(), dice=(10,))
    _, events = execute(state, Attack("gob", "horse", "longsword"))
    assert isinstance(events[0], AttackRolled)
    assert events[0].describe() == "d20 10 + Strength 3 + Training 2 = 15 vs PD 18: miss"
    # d20 13 -> 18 hits; 1d8 6 + 2 = 8 against the horse's PR 4: 4 to its health.
    state = in_combat(fighter("gob", "gm", 2, 0), rider("ayla"), horse(), dice=(13, 6))
    after, events = execute(state, Attack("gob", "horse", "longsword"))
    damage = events[1]
    assert isinstance(damage, DamageDealt) and (damage.resistance, damage.to_health) == (4, 4)
    assert (after.combatant("horse").health, after.combatant("ayla").health) == (2, 20)


# --- the ride goes down ---------------------------------------------------------


def test_riders_of_a_destroyed_ride_make_a_dc_20_dex_save() -> None:
    # gob stands in (2,0), the first neighbour; ayla lands in (2,1), bo in (1,1).
    # ayla: d20 18 + Dexterity 2 = 20 meets DC 20; bo: 17 + 2 = 19 fails and is Prone.
    state = in_combat(
        fighter("gob", "gm", 2, 0), rider("ayla"), rider("bo"), down(horse()), dice=(18, 17)
    )
    after, events = execute(state, RideDestroyed("horse"))
    thrown_ayla, thrown_bo, prone = events
    assert isinstance(thrown_ayla, RiderThrown) and isinstance(thrown_bo, RiderThrown)
    assert thrown_ayla.describe() == (
        "Dex save d20 18 + Dexterity 2 = 20 vs DC 20: lands on its feet"
    )
    assert (thrown_ayla.success, thrown_ayla.cell) == (True, Cell(2, 1))
    assert (thrown_bo.success, thrown_bo.cell) == (False, Cell(1, 1))
    assert prone == ConditionGained("bo", "Prone", reason="thrown from horse")
    ayla, bo = after.combatant("ayla"), after.combatant("bo")
    assert (ayla.position, ayla.mounted_on, ayla.has("Prone")) == (Cell(2, 1), "", False)
    assert (bo.position, bo.mounted_on, bo.has("Prone")) == (Cell(1, 1), "", True)
    assert replay(state, events).state_hash() == after.state_hash()


def test_riders_of_a_disabled_ride_are_thrown_too() -> None:
    state = in_combat(rider("ayla"), down(horse(), UNCONSCIOUS), dice=(5,))
    after, _ = execute(state, RideDestroyed("horse"))
    assert after.combatant("ayla").has("Prone")
    assert after.combatant("ayla").position == Cell(2, 0)


def test_thrown_riders_land_in_hex_neighbour_order() -> None:
    # Hex neighbours of (0,0) start (1,0), (1,-1): gob holds (1,0).
    state = in_combat(
        rider("ayla", 0, 0),
        down(horse(x=0)),
        fighter("gob", "gm", 1, 0),
        dice=(19,),
        grid=Grid(kind="hex"),
    )
    after, events = execute(state, RideDestroyed("horse"))
    assert events == [RiderThrown("ayla", "horse", events[0].rolls()[0], 20, True, Cell(1, -1))]
    assert after.combatant("ayla").position == Cell(1, -1)


def test_with_no_free_neighbour_the_rider_stays_in_the_rides_cell() -> None:
    ring = [fighter(f"g{i}", "gm", c.x, c.y) for i, c in enumerate(Grid().neighbours(Cell(1, 0)))]
    state = in_combat(rider("ayla"), down(horse()), *ring, dice=(20,))
    after, _ = execute(state, RideDestroyed("horse"))
    ayla = after.combatant("ayla")
    assert (ayla.position, ayla.mounted_on) == (Cell(1, 0), "")


def test_killing_a_ride_throws_its_rider() -> None:
    # d20 15 -> 20 hits PD 18; 1d8 8 + 2 = 10 vs PR 4: 6 to health, the horse (6) dies.
    state = in_combat(fighter("gob", "gm", 2, 0), rider("ayla"), horse(), dice=(15, 8, 4))
    # The killing blow itself throws the rider: its DC 20 save (4 + Dex) fails.
    state, events = execute(state, Attack("gob", "horse", "longsword"))
    assert isinstance(events[0], AttackRolled)
    assert not state.combatant("horse").alive
    assert [type(e) for e in events[-2:]] == [RiderThrown, ConditionGained]
    assert state.combatant("ayla").has("Prone")
    assert not state.combatant("ayla").mounted_on


def test_ride_destroyed_events_can_be_called_before_the_ride_is_dead() -> None:
    # The lead calls it from damage handling with the state the damage was decided on.
    state = in_combat(rider("ayla"), horse(), dice=(20,))
    cup = DiceCup(state.dice)
    events = ride_destroyed_events(state, cup, "horse")
    assert [type(e) for e in events] == [RiderThrown]
    assert cup.used == 1
    assert ride_destroyed_events(in_combat(horse()), DiceCup(state.dice), "horse") == []


@pytest.mark.parametrize(
    ("ride", "command", "code"),
    [
        (horse(), RideDestroyed("horse"), "ride_standing"),
        (down(horse()), RideDestroyed("ayla"), "not_a_ride"),
        (down(horse()), RideDestroyed("nobody"), "unknown_combatant"),
    ],
)
def test_refused_ride_destroyed(ride: VerseCombatant, command: RideDestroyed, code: str) -> None:
    state = in_combat(rider("ayla"), ride, dice=(10,))
    before = state.state_hash()
    with pytest.raises(CommandRefused) as refused:
        decide(state, command)
    assert refused.value.code == code
    assert state.state_hash() == before


def test_a_downed_ride_without_riders_throws_nobody() -> None:
    state = in_combat(fighter("ayla", "pc"), down(horse()), dice=(10,))
    before = state.state_hash()
    with pytest.raises(CommandRefused) as refused:
        decide(state, RideDestroyed("horse"))
    assert refused.value.code == "not_mounted"
    assert state.state_hash() == before


def test_a_moving_ride_carries_its_rider_and_a_rider_cannot_walk_off_alone() -> None:
    from server.engine.rulesets.verse.movement import Move

    state = in_combat(rider("ayla"), horse())
    before = state.state_hash()
    with pytest.raises(CommandRefused) as refused:
        decide(state, Move("ayla", (Cell(2, 1),)))
    assert refused.value.code == "invalid_command"
    assert state.state_hash() == before
    state = evolve(state, turn=1)  # the horse's turn
    horse_at = state.combatant("horse").position
    step = Cell(horse_at.x + 1, horse_at.y)
    state, events = execute(state, Move("horse", (step,)))
    assert any(isinstance(e, RiderCarried) for e in events)
    assert state.combatant("ayla").position == state.combatant("horse").position == step


# --- V12: Mount and Dismount are Move actions and break a charge ----------------


CHARGING = Charge("Fireball", mc=20, spell_dice=0, actions_needed=2, actions_done=1)


def test_mounting_while_charging_a_spell_loses_the_charge() -> None:
    state = in_combat(fighter("ayla", "pc", charging=CHARGING), horse())
    after, events = execute(state, Mount("ayla", "horse"))
    assert events == [
        Mounted("ayla", "horse", Cell(1, 0), 0, "move"),
        ChargeLost("ayla", "Fireball", "moved"),
    ]
    assert after.combatant("ayla").charging is None


def test_dismounting_while_charging_a_spell_loses_the_charge() -> None:
    state = in_combat(rider("ayla", charging=CHARGING), horse())
    after, events = execute(state, Dismount("ayla", Cell(2, 1)))
    assert events == [
        Dismounted("ayla", "horse", Cell(2, 1), "move"),
        ChargeLost("ayla", "Fireball", "moved"),
    ]
    assert after.combatant("ayla").charging is None


# --- determinism: riders go by id, not by the state's dict order ----------------


def test_thrown_riders_roll_in_id_order_whatever_the_dict_order() -> None:
    # amy rolls the first d20 (18: on her feet), zed the second (3: Prone), in both states.
    listed = in_combat(down(horse()), rider("zed"), rider("amy"), dice=(18, 3))
    by_id = {cid: listed.combatants[cid] for cid in ("amy", "horse", "zed")}
    reordered = evolve(listed, combatants=by_id)
    assert listed.state_hash() == reordered.state_hash()
    events = decide(listed, RideDestroyed("horse"))
    assert events == decide(reordered, RideDestroyed("horse"))
    thrown = [(e.rider, e.success) for e in events if isinstance(e, RiderThrown)]
    assert thrown == [("amy", True), ("zed", False)]
