"""The choices a seat is offered (`server.table.choices`): every one is a command the
engine takes, and none names what the combatant's side may not see.

The honest check (`check`): every choice, every hole filled with each of its options
(a spread of them when there are many), read off the wire as the gateway reads a
`send` (`CommandReader`) and decided by the engine on the fight as it is; a Live
declaration's part as the `Declare` holding it alone. Each seat validates against
`protocol.table.SeatChoices`, and no string the GM sees but the combatant's side does
not (a GM note, a foe's weapon) appears anywhere in it.

The fights: the sample encounters (Verse in Live and Turn Based Combat, Tael) played
from their seeds by picking one offered choice after another, checked at every step;
and scripted scenes for each kind of window (V19-V23, T2).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from protocol.table import SeatChoices, filling
from server.encounters import build, read_file
from server.engine import CommandRefused, decide, execute
from server.engine.commands import Pause, WindowExpired
from server.engine.core import RULESETS, Command
from server.engine.flow import Mode, WindowKind
from server.engine.grid import Cell
from server.engine.records import evolve
from server.engine.rng import SeededDice
from server.engine.rulesets.tael.attacks import AttackAction
from server.engine.rulesets.tael.combatant import Preparation
from server.engine.rulesets.tael.sheet import PreparationMove, Trigger
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.live import Declare
from server.engine.rulesets.verse.live_actions import HoldAction, UseItem
from server.engine.rulesets.verse.movement import Move
from server.engine.rulesets.verse.sheet import Feat, FeatKind, Item
from server.engine.stack import Answer, PassWindow
from server.engine.state import Encounter
from server.engine.turns import StartCombat
from server.engine.views import GM_AUDIENCE, player_audience, state_view
from server.gateway.commands import CommandReader
from server.table.choices import Offer, Probe, seat_choices
from server.table.verse_choices import moves
from tests.engine.tael import builders as tael
from tests.engine.verse.builders import fighter, sheet
from tests.engine.verse.live_script import started_live

SAMPLES = Path(__file__).parents[2] / "server" / "samples" / "encounters"
SPREAD = 6  # options tried per hole: the first, the last and some between


@cache
def reader(ruleset: str) -> CommandReader:
    return CommandReader(RULESETS[ruleset])


def spread(options: list[Any]) -> list[Any]:
    if len(options) <= SPREAD:
        return options
    step = (len(options) - 1) / (SPREAD - 1)
    return [options[round(i * step)] for i in range(SPREAD)]


def filled(template: Any, path: str, value: Any) -> Any:
    """`template` with `value` at JSON Pointer `path` (a copy)."""
    data = json.loads(json.dumps(template))
    *parents, last = path.split("/")[1:]
    here = data
    for name in parents:
        here = here[name]
    here[last] = value
    return data


def commands(seat: dict[str, Any], every: bool = False) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each command a seat's choices can send: (what was picked, the wire command)."""
    compose = seat["compose"]
    for choice in seat["options"]:
        made = [choice["command"] if choice["command"] is not None else choice["part"]]
        said = [choice["label"]]
        for hole in choice["holes"]:
            options = hole["options"] if every else spread(hole["options"])
            made = [
                filled(m, hole["path"], filling(hole, o["value"])) for m in made for o in options
            ]
            said = [o["label"] for o in options]
        for label, data in zip(said, made, strict=True):
            if choice["command"] is None:
                data = filled(compose["command"], compose["into"], [data])
            yield label, data


def record(state: Encounter, data: dict[str, Any]) -> Command:
    return reader(state.ruleset).read(data)


def strings(data: Any, under: str = "") -> Iterator[tuple[str, str]]:
    """Every string in plain data, with the key it is under."""
    if isinstance(data, str):
        yield under, str(data)
    elif isinstance(data, dict):
        for name, value in data.items():
            yield from strings(value, name)
    elif isinstance(data, list):
        for value in data:
            yield from strings(value, under)


def secrets_of(state: Encounter, combatant: str) -> set[str]:
    """The names and notes the GM reads and the combatant's side does not: a foe's
    weapons, spells, items, feats and moves, the GM's notes (a name within a name the
    side sees, "dagger" in "parrying dagger", is no secret)."""
    side = [s for _, s in strings(state_view(state, player_audience([combatant], state)))]
    named = {s for key, s in strings(state_view(state, GM_AUDIENCE)) if key in ("name", "notes")}
    return {s for s in named if s and not any(s in seen for seen in side)}


def check(state: Encounter, seats: list[dict[str, Any]]) -> None:
    """Every seat valid, secret-free, and every command it can send taken by the engine
    (decided on dice of its own: a scene's scripted dice are for the scene)."""
    live = evolve(state, paused_by="", dice=SeededDice(0))
    for seat in seats:
        SeatChoices.model_validate(seat)
        said = [text for key, text in strings(seat) if key != "key"]
        said += [c["key"].partition(":")[2] for c in seat["options"]]
        for secret in secrets_of(state, seat["combatant"]):
            pattern = re.compile(rf"\b{re.escape(secret)}\b")
            shown = [text for text in said if pattern.search(text)]
            assert not shown, f"{seat['combatant']} is shown {secret!r}: {shown}"
        blind: dict[str, int] = {}  # sneaking past a foe: every foe is offered (its sight
        # is its own, R77), so the engine need take only one of them
        for label, data in commands(seat):
            sneak = label.startswith("Sneak past")
            try:
                decide(live, record(state, data))
            except CommandRefused as refusal:
                if not sneak:
                    raise AssertionError(f"{label}: {data} refused: {refusal}") from None
                blind.setdefault(data["type"], 0)
            else:
                if sneak:
                    blind[data["type"]] = blind.get(data["type"], 0) + 1
        assert all(blind.values()), f"a blind choice the engine takes for nobody: {blind}"


def everyone(state: Encounter) -> list[dict[str, Any]]:
    return seat_choices(state, sorted(state.combatants))


def keys(seat: dict[str, Any]) -> list[str]:
    return [c["key"] for c in seat["options"]]


def seat_of(state: Encounter, combatant: str) -> dict[str, Any]:
    (found,) = seat_choices(state, [combatant])
    return found


def choice(seat: dict[str, Any], key: str) -> dict[str, Any]:
    return next(c for c in seat["options"] if c["key"] == key)


def values(choice: dict[str, Any]) -> list[Any]:
    (hole,) = choice["holes"]
    return [o["value"] for o in hole["options"]]


# --- fights played from the samples' seeds --------------------------------------------


def sample(name: str, seed: int, **changes: Any) -> Encounter:
    spec = read_file(SAMPLES / name) | {"seed": seed, **changes}
    state, _ = execute(build(spec).encounter, StartCombat())
    return state


def play(state: Encounter, steps: int, seed: int) -> set[str]:
    """Pick one offered command after another (a seat, one of its choices, one of its
    options: a seeded pick), checking every seat's choices at each step; the kinds of
    window met."""
    pick = random.Random(seed)
    met: set[str] = set()
    for _ in range(steps):
        if state.phase != "combat":
            break
        if state.window is not None:
            met.add(state.window.kind)
        seats = everyone(state)
        check(state, seats)
        if not seats:
            assert state.window is not None, "a turn with nothing to do"
            state, _ = execute(state, WindowExpired(state.window.id))
            continue
        seat = pick.choice(seats)
        picked = pick.choice(seat["options"])
        _, data = pick.choice(list(commands({**seat, "options": [picked]}, every=True)))
        state, _ = execute(state, record(state, data))
    return met


@pytest.mark.parametrize("seed", [1, 2])
def test_a_live_fight_offers_only_what_the_engine_takes(seed: int) -> None:
    """V20-V23: planning, then the windows the round opens, each choice checked."""
    met = play(sample("demo.toml", seed), steps=25, seed=seed)
    assert {WindowKind.PLANNING, WindowKind.REACTION} <= met


def test_a_turn_based_verse_fight_offers_only_what_the_engine_takes() -> None:
    """V25: the actions of a turn and its end, and the windows of holders and moves."""
    play(sample("demo.toml", 5, mode=Mode.TURN_BASED), steps=30, seed=5)


@pytest.mark.parametrize("seed", [1, 3])
def test_a_tael_fight_offers_only_what_the_engine_takes(seed: int) -> None:
    """T2: the Action Phase, prepared moves and their windows."""
    play(sample("tael-ambush.toml", seed), steps=30, seed=seed)


# --- Verse: planning (V20, R78) -------------------------------------------------------


def test_planning_offers_a_declaration_of_the_actions_with_targets_to_pick() -> None:
    state = sample("demo.toml", 3)
    ayla = seat_of(state, "ayla")
    assert state.window is not None and ayla["window"] == state.window.id
    assert ayla["compose"] == {
        "label": "Declare",
        "command": {"type": "Declare", "actor": "ayla", "turn": 0, "actions": []},
        "into": "/actions",
        "most": 8,
    }
    attack = choice(ayla, "attack:longsword")
    assert attack["label"] == "Attack with longsword"
    assert attack["part"] == {
        "$type": "Attack",
        "actor": "ayla",
        "target": None,
        "weapon": "longsword",
    }
    (hole,) = attack["holes"]
    assert (hole["path"], hole["label"]) == ("/target", "target")
    assert hole["options"][0] == {"value": "g1", "label": "Attack Goblin (g1) with longsword"}
    assert values(attack) == ["g1", "g2", "bram", "corvin"]  # foes first
    assert {"move", "stance", "face", "hold", "pass"} <= set(keys(ayla))
    # a move's paths come short, [x, y] a cell, each ending on the cell its label names
    (cells,) = choice(ayla, "move")["holes"]
    assert (cells["path"], cells["kind"]) == ("/path", "path")
    for option in cells["options"]:
        assert all(len(cell) == 2 and all(type(n) is int for n in cell) for cell in option["value"])
        x, y = option["value"][-1]
        assert option["label"] == f"Move to ({x}, {y})"
    assert filling(cells, [[1, 2]]) == [{"$type": "Cell", "x": 1, "y": 2}]
    # Corvin has two turns (60 ft, V16): his declaration is for the first one.
    assert seat_of(state, "corvin")["compose"]["label"] == "Declare for turn 1 of 2"
    check(state, everyone(state))


def test_a_target_out_of_any_reach_this_round_is_not_offered() -> None:
    """R78: a goblin 100 cells away could not come within a longsword's reach or a
    shortbow's range this round: the engine refuses the declaration, so it is not
    offered; the shortbow reaches the one 20 cells away."""
    spec = read_file(SAMPLES / "demo.toml") | {"seed": 3}
    far = {"id": "g3", "side": "goblins", "sheet": spec["combatants"][3]["sheet"], "at": [100, 0]}
    near = {"id": "g4", "side": "goblins", "sheet": spec["combatants"][3]["sheet"], "at": [20, 0]}
    spec["combatants"] = [*spec["combatants"], far, near]
    state, _ = execute(build(spec).encounter, StartCombat())
    ayla = seat_of(state, "ayla")
    assert "g3" not in values(choice(ayla, "attack:longsword"))
    assert "g4" not in values(choice(ayla, "attack:longsword"))
    assert "g3" not in values(choice(ayla, "attack:shortbow"))
    assert "g4" in values(choice(ayla, "attack:shortbow"))
    with pytest.raises(CommandRefused) as refused:
        decide(state, Declare("ayla", (Attack("ayla", "g3", "shortbow"),)))
    assert refused.value.code == "out_of_range"
    check(state, [ayla])


def test_a_declared_turn_may_be_withdrawn_and_declared_again() -> None:
    state = sample("demo.toml", 3)
    state, _ = execute(state, Declare("ayla", (HoldAction("ayla"),)))
    ayla = seat_of(state, "ayla")
    assert "withdraw1" in keys(ayla) and "pass" not in keys(ayla)
    assert ayla["compose"]["command"]["turn"] == 0
    check(state, [ayla])


def test_the_choices_stay_listed_while_paused() -> None:
    """V24: the pause freezes the window; the player may still think about the move."""
    state = sample("demo.toml", 3)
    paused, _ = execute(state, Pause("bram"))
    assert seat_choices(paused, ["ayla", "g1"]) == seat_choices(state, ["ayla", "g1"])


def test_nothing_is_offered_before_or_after_the_fight() -> None:
    spec = read_file(SAMPLES / "demo.toml") | {"seed": 3}
    assert seat_choices(build(spec).encounter, ["ayla"]) == []


# --- Verse: windows (V19-V23) -----------------------------------------------------------

RIPOSTE = Feat("Riposte", FeatKind.COUNTER)
QUICK_HANDS = Feat("Quick Hands", FeatKind.QUICK_RESPONSE)
POTION = Item("potion", heal="2d4+2")


def test_a_reaction_window_offers_its_defences_to_the_target_only() -> None:
    """V22: Ayla, aware of g1's attack, may Dodge, Block or pass; g1 is asked nothing."""
    ayla = fighter("ayla", "pc", 0, 0)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    fight = started_live(ayla, g1, dice=(5, 15, 10, 13, 4))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    fight.do(WindowExpired(fight.window.id))
    seats = everyone(fight.state)
    assert [s["combatant"] for s in seats] == ["ayla"]
    assert keys(seats[0]) == ["dodge", "block", "pass"]
    assert choice(seats[0], "block")["label"] == "Block with longsword"
    assert choice(seats[0], "dodge")["command"] == {
        "type": "Answer", "actor": "ayla", "window": fight.window.id, "option": "dodge",
        "action": None,
    }  # fmt: skip
    check(fight.state, seats)


def test_a_counter_window_offers_the_counter_with_each_weapon() -> None:
    """V22: after her successful Dodge Ayla may Counter g1, with a weapon to pick."""
    ayla = fighter("ayla", "pc", 0, 0, sheet_=sheet("ayla", feats=(RIPOSTE,)))
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    fight = started_live(ayla, g1, dice=(5, 15, 10, 13, 15, 6))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    fight.do(WindowExpired(fight.window.id))
    fight.do(Answer("ayla", fight.window.id, "dodge"))
    assert fight.window.kind == WindowKind.COUNTER
    ayla_seat = seat_of(fight.state, "ayla")
    counter = choice(ayla_seat, "counter")
    assert counter["label"] == "Counter g1 (g1)"
    (hole,) = counter["holes"]
    assert hole["path"] == "/action/weapon"
    assert values(counter) == ["longsword", "shortbow", ""]
    check(fight.state, [ayla_seat])


def test_a_quick_response_names_the_item_the_action_uses() -> None:
    """V22: g2 drinks a potion in Corvin's sight: he may knock the potion away."""
    corvin = fighter("corvin", "pc", 2, 0, facing=4, sheet_=sheet("corvin", feats=(QUICK_HANDS,)))
    g2 = evolve(fighter("g2", "gm", 1, 0, sheet_=sheet("g2", items=(POTION,))), health=5)
    fight = started_live(corvin, g2, dice=(3, 15, 12))
    fight.do(Declare("g2", (UseItem("g2", "potion"),)))
    fight.do(WindowExpired(fight.window.id))
    seat = seat_of(fight.state, "corvin")
    knock = choice(seat, "quick_response")
    assert values(knock) == ["potion"]
    check(fight.state, [seat])


def test_an_attack_of_opportunity_is_offered_when_a_foe_leaves_the_reach() -> None:
    ayla = fighter("ayla", "pc", 0, 0)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    fight = started_live(ayla, g1, dice=(15, 5, 10, 3))
    fight.do(Declare("ayla", (Move("ayla", (Cell(-1, 0), Cell(-2, 0))),)))
    fight.do(WindowExpired(fight.window.id))
    seat = seat_of(fight.state, "g1")
    assert choice(seat, "opportunity:ayla")["label"] == "Attack of opportunity on ayla (ayla)"
    check(fight.state, [seat])


def test_a_holder_may_take_a_standard_or_swift_action_in_anothers_window() -> None:
    """V19: Ayla holds; g1 attacks her: she may answer with a held attack or stance."""
    ayla = fighter("ayla", "pc", 0, 0)
    bram = fighter("bram", "pc", 1, 1)
    g1 = fighter("g1", "gm", 1, 0, facing=4)
    fight = started_live(ayla, bram, g1, dice=(18, 17, 3, 10, 2, 10, 2, 2))
    fight.do(Declare("ayla", (HoldAction("ayla"),)))
    fight.do(Declare("bram", (HoldAction("bram"),)))
    fight.do(Declare("g1", (Attack("g1", "ayla", "longsword"),)))
    # Bram's Hold Action is itself answered: Ayla may take a held action.
    held = seat_of(fight.state, "ayla")
    assert "hold_attack:longsword" in keys(held)
    check(fight.state, [held])
    fight.do(PassWindow("ayla", fight.window.id))
    # g1 attacks Ayla: she may defend or use her hold, Bram his hold.
    assert keys(seat_of(fight.state, "ayla"))[:2] == ["dodge", "block"]
    seat = seat_of(fight.state, "bram")
    assert {"hold_attack:longsword", "hold_stance", "pass"} <= set(keys(seat))
    assert "hold_move" not in keys(seat)  # a Move is neither a Standard nor a Swift (V19)
    assert choice(seat, "hold_attack:longsword")["holes"][0]["path"] == "/action/target"
    check(fight.state, everyone(fight.state))


def test_an_adapt_window_offers_a_new_action_or_giving_up() -> None:
    """V23: Bram's target died before his turn: a new target, or give the action up."""
    ayla = fighter("ayla", "pc", 0, 0)
    bram = fighter("bram", "pc", 1, 1)
    g1 = fighter("g1", "gm", 1, 0, sheet_=sheet("g1", health=3))
    g2 = fighter("g2", "gm", 2, 1, facing=4)
    fight = started_live(ayla, bram, g1, g2, dice=(18, 17, 3, 2, 10, 3))
    fight.do(Declare("ayla", (Attack("ayla", "g1", "longsword"),)))
    fight.do(Declare("bram", (Attack("bram", "g1", "longsword"),)))
    fight.do(WindowExpired(fight.window.id))
    fight.do(PassWindow("g1", fight.window.id))
    assert fight.window.kind == WindowKind.ADAPT
    seat = seat_of(fight.state, "bram")
    attack = choice(seat, "adapt_attack:longsword")
    assert "g1" not in values(attack) and "g2" in values(attack)
    assert "give_up" in keys(seat)
    check(fight.state, [seat])


def test_a_turn_in_turn_based_combat_offers_the_actions_and_the_end_of_the_turn() -> None:
    state = sample("demo.toml", 5, mode=Mode.TURN_BASED)
    current = state.current
    assert current is not None
    seat = seat_of(state, current)
    assert seat["window"] is None and seat["compose"] is None
    assert "end_turn" in keys(seat)
    assert choice(seat, "end_turn")["command"] == {"type": "EndTurn", "actor": current}
    others = [c for c in state.combatants if c != current]
    assert seat_choices(state, others) == []
    check(state, [seat])


# --- Tael (T2) ---------------------------------------------------------------------------

RIPOSTE_MOVE = PreparationMove(
    "Riposte", Trigger.MELEE_ATTACK, prevents_damage=True, strikes_back=True
)
SHIELD_UP = PreparationMove("Shield Up", Trigger.ATTACKED, defensive_bonus=3)


def riposte_fight() -> tael.Fight:
    k = tael.fighter(
        "k", "heroes", 0, 0, sheet_=tael.sheet("k", preparations=(RIPOSTE_MOVE, SHIELD_UP))
    )
    k = evolve(k, preparation=Preparation.OPEN)
    return tael.Fight(tael.in_combat(tael.fighter("g", "foes", 1, 0), k, dice=(14, 6, 15)))


def test_a_tael_turn_offers_its_actions_and_a_preparer_may_announce_its_move() -> None:
    fight = riposte_fight()
    g = seat_of(fight.state, "g")
    assert {"attack:sword", "move", "dash", "end_turn"} <= set(keys(g))
    assert values(choice(g, "attack:sword")) == ["k"]
    k = seat_of(fight.state, "k")
    assert keys(k) == ["prepare"]
    assert values(choice(k, "prepare")) == ["Riposte", "Shield Up"]
    check(fight.state, [g, k])


def test_a_tael_window_offers_each_move_the_attack_sets_off() -> None:
    """T2: a Riposte strikes back with a weapon in hand; Shield Up is answered as it is."""
    fight = riposte_fight()
    fight.do(AttackAction("g", "k"))
    assert fight.window.about == "g"
    seats = everyone(fight.state)
    assert [s["combatant"] for s in seats] == ["k"]
    assert keys(seats[0]) == ["Riposte", "Shield Up", "pass"]
    riposte = choice(seats[0], "Riposte")
    assert riposte["label"] == "Riposte: strike back at g (g)"
    assert riposte["holes"][0]["path"] == "/action/weapon"
    assert values(riposte) == ["sword"]
    check(fight.state, seats)


# --- asking the engine once for alike options ---------------------------------------------


def fight_states(state: Encounter, steps: int, seed: int) -> Iterator[Encounter]:
    """The states of a fight played by seeded picks among the offered commands (those the
    engine takes: every foe is offered to sneak past when the engine takes any)."""
    pick = random.Random(seed)
    for _ in range(steps):
        if state.phase != "combat":
            return
        yield state
        seats = everyone(state)
        if not seats:
            assert state.window is not None
            state, _ = execute(state, WindowExpired(state.window.id))
            continue
        seat = pick.choice(seats)
        picked = pick.choice(seat["options"])
        _, data = pick.choice(list(commands({**seat, "options": [picked]}, every=True)))
        try:
            state, _ = execute(state, record(state, data))
        except CommandRefused:  # a blind choice's foe who sees the sneaker: pick again
            continue


@pytest.mark.parametrize("mode", [Mode.LIVE, Mode.TURN_BASED])
def test_a_move_offers_every_cell_the_engine_takes_and_no_other(mode: str) -> None:
    """A move's cells are asked of the engine once per path length (`Candidate.alike`):
    at every step of a fight, for every combatant in the planning window or on its
    turn, the cells offered are exactly those the engine takes when each is asked alone
    (V17, R71)."""
    compared = 0
    for state in fight_states(sample("demo.toml", 4, mode=mode), steps=30, seed=4):
        probe = Probe(state)
        window = state.window
        for cid, c in sorted(state.combatants.items()):
            if window is not None and window.kind == WindowKind.PLANNING:
                if window.ask_of(cid) is None:
                    continue
                offer = Offer(tested=lambda action, cid=cid: Declare(cid, (action,), 0))
            elif window is None and state.current == cid:
                offer = Offer()
            else:
                continue
            for candidate in moves(probe, c):
                if candidate.alike is None:
                    continue
                alone = [
                    o.value
                    for o in candidate.options
                    if probe.accepts(offer.tested(candidate.make(o.value)))
                ]
                grouped = [o.value for o in offer.kept(probe, candidate, candidate.make)]
                assert grouped == alone, f"{cid} at {state.version}"
                compared += 1
    assert compared >= 5
