"""The view a client holds, and the window countdown it shows (with a fake clock)."""

from __future__ import annotations

import io
import re

from clients.folding import SHARED, SHARED_UNCHANGED
from clients.rulesets import words_for
from clients.screen import CLEAR, Screen
from clients.view import View, WindowClock
from protocol.messages import Asked, Window
from tests.clients.support import ROOT


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def window(remaining_ms: int, running: bool = True, answered: list[str] | None = None) -> Window:
    return Window(
        seq=12,
        window=4,
        kind="reaction",
        about="g1",
        asked=[
            Asked(combatant="ayla", options=["dodge", "block"]),
            Asked(combatant="bram", options=[]),  # another side's options are hidden
        ],
        answered=answered or [],
        total_ms=8000,
        remaining_ms=remaining_ms,
        running=running,
    )


def test_the_countdown_runs_from_the_moment_the_message_arrived() -> None:
    clock = FakeClock()
    countdown = WindowClock.start(window(7500), clock)
    assert countdown.remaining() == 7.5
    clock.now += 2.0
    assert countdown.remaining() == 5.5
    assert countdown.running
    clock.now += 10.0
    assert countdown.remaining() == 0.0  # never below zero
    assert not countdown.running  # run out: the window closes with the next events


def test_a_paused_window_stays_frozen() -> None:
    clock = FakeClock()
    frozen = WindowClock.start(window(6200, running=False), clock)
    clock.now += 30.0
    assert frozen.remaining() == 6.2
    assert not frozen.running


def test_who_is_asked_and_who_the_window_still_waits_for() -> None:
    countdown = WindowClock.start(window(8000, answered=["bram"]), FakeClock())
    assert (countdown.id, countdown.kind, countdown.about, countdown.total) == (
        4,
        "reaction",
        "g1",
        8.0,
    )
    assert countdown.asked == {"ayla": ["dodge", "block"], "bram": []}
    assert countdown.waiting_for == ["ayla"]


COMBATANTS = {
    "ayla": {"id": "ayla", "side": "pc", "sheet": {"name": "Ayla"}},
    "g1": {"id": "g1", "side": "goblins", "sheet": {"name": "Goblin"}},
    "g2": {"id": "g2", "side": "goblins", "sheet": {"name": "Goblin"}},
}


def test_names_are_the_sheets_with_the_id_when_shared() -> None:
    view = View()
    view.reset(0, {"combatants": COMBATANTS})
    assert [view.name_of(c) for c in ("ayla", "g1", "g2", "nobody")] == [
        "Ayla",
        "Goblin (g1)",
        "Goblin (g2)",
        "nobody",
    ]
    assert view.side_of("g1") == "goblins"


def test_events_extend_the_view_and_fold_in_what_they_state() -> None:
    view = View()
    view.reset(3, {"combatants": COMBATANTS, "window": None, "paused_by": "", "round": 0})
    opened = {"$type": "Window", "id": 2, "kind": "reaction"}
    view.add(4, {"$type": "RoundStarted", "round": 1})
    view.add(5, {"$type": "WindowOpened", "window": opened})
    view.add(6, {"$type": "Paused", "by": "ayla"})
    state = view.state
    assert (state["round"], state["window"], state["paused_by"]) == (1, opened, "ayla")
    view.add(7, {"$type": "Resumed", "by": "gm", "refused": False})
    view.add(8, {"$type": "WindowClosed", "window": 2, "reason": "answered"})
    assert (view.state["window"], view.state["paused_by"]) == (None, "")
    assert [seq for seq, _ in view.events] == [4, 5, 6, 7, 8]
    assert (view.snapshot_seq, view.seq) == (3, 8)


def test_a_rewind_replaces_the_view_with_the_restored_one() -> None:
    """What must not go back in time stays: the version, the pause, window numbers (the
    restored window is numbered after every window opened so far)."""
    view = View()
    window = {"$type": "Window", "id": 4, "kind": "reaction", "asked": [], "answered": []}
    view.reset(9, {"combatants": COMBATANTS, "round": 2, "version": 9, "paused_by": "gm"})
    view.state["windows_opened"] = 6
    restored = {
        "combatants": {"ayla": COMBATANTS["ayla"]},
        "round": 1,
        "version": 3,
        "paused_by": "",
        "window": {**window, "id": 2},
        "windows_opened": 2,
    }
    view.add(10, {"$type": "Rewound", "to_version": 3, "state": restored})
    assert view.state == {
        "combatants": {"ayla": COMBATANTS["ayla"]},
        "round": 1,
        "version": 10,
        "paused_by": "gm",
        "window": {**window, "id": 7},
        "windows_opened": 7,
    }
    assert view.seq == 10


def test_a_snapshot_replaces_everything_held() -> None:
    view = View()
    view.reset(0, {"round": 0})
    view.add(1, {"$type": "RoundStarted", "round": 1})
    view.reset(40, {"round": 3})
    assert (view.state, view.events, view.seq) == ({"round": 3}, [], 40)


# --- folding what the events say (the fight now, not at joining) ------------------------


def goblin(**fields: object) -> dict[str, object]:
    """A goblin as another side sees it (a coarse health, no numbers)."""
    return {"id": "g1", "side": "goblins", "sheet": {"name": "Goblin"}, "conditions": [], **fields}


def verse_view(**combatants: dict[str, object]) -> View:
    view = View()
    view.reset(0, {"ruleset": "verse", "version": 0, "combatants": combatants})
    return view


def hit(target: str, to_health: int, to_armour: int = 0) -> dict[str, object]:
    return {
        "$type": "DamageDealt",
        "target": target,
        "to_health": to_health,
        "to_armour": to_armour,
    }


def test_damage_comes_off_health_and_armour_never_below_zero() -> None:
    view = verse_view(ayla={"id": "ayla", "health": 10, "armour_durability": 3, "conditions": []})
    view.add(1, hit("ayla", 4, 2))
    assert (view.state["combatants"]["ayla"]["health"], view.state["version"]) == (6, 1)
    view.add(2, hit("ayla", 9, 5))
    ayla = view.state["combatants"]["ayla"]
    assert (ayla["health"], ayla["armour_durability"]) == (0, 0)
    assert not view.approximate


def test_another_sides_health_after_a_hit_is_a_doubted_guess_until_an_event_says() -> None:
    view = verse_view(g1=goblin(health_state="unhurt"))
    view.add(1, hit("g1", 3))
    assert view.state["combatants"]["g1"]["health_state"] == "wounded"  # or bloodied
    assert view.doubts.about("g1") == {"health_state"}
    view.add(2, {"$type": "HealthSet", "combatant": "g1", "health_state": "bloodied"})
    assert view.state["combatants"]["g1"]["health_state"] == "bloodied"
    assert not view.approximate  # the override said it outright
    view.add(3, hit("g1", 2))  # bloodied only goes lower, and 0 brings Dead
    assert (view.state["combatants"]["g1"]["health_state"], view.approximate) == ("bloodied", False)
    dead = {"$type": "ConditionGained", "combatant": "g1", "condition": "Dead", "rounds": None}
    view.add(4, {**dead, "per_turn": False, "reason": "health 0"})
    g1 = view.state["combatants"]["g1"]
    assert (g1["health_state"], [c["name"] for c in g1["conditions"]]) == ("down", ["Dead"])


def test_a_foes_potion_and_a_hit_without_numbers_fold_the_health_they_state() -> None:
    """R77: another side's `DamageDealt` may come without any number, and its `ItemUsed`
    without the health healed; each states the combatant's coarse health after it."""
    view = verse_view(g1=goblin(health_state="unhurt"))
    view.add(
        1,
        {
            "$type": "DamageDealt",
            "target": "g1",
            "source": "ayla",
            "roll": None,
            "resistance_name": "PR",
            "affinity": "",
            "health_state": "bloodied",
        },
    )
    assert view.state["combatants"]["g1"]["health_state"] == "bloodied"
    potion = {"$type": "ItemUsed", "combatant": "g1", "item": "potion", "roll": None}
    view.add(2, {**potion, "health_state": "wounded"})
    g1 = view.state["combatants"]["g1"]
    assert (g1["health_state"], g1["items_used"], view.approximate) == (
        "wounded",
        ["potion"],
        False,
    )


def test_a_setting_the_gm_changes_folds_in_every_rule_system() -> None:
    changed = {"$type": "SettingChanged", "name": "roll_visibility", "value": "open"}
    for ruleset in ("verse", "tael"):
        view = View()
        view.reset(0, {"ruleset": ruleset, "version": 0, "combatants": {}, "settings": {}})
        view.add(1, {**changed, "previous": "faces"})
        assert view.state["settings"] == {"roll_visibility": "open"}
        assert not view.approximate


def test_conditions_tick_down_at_round_ends_and_at_their_owners_turn_ends() -> None:
    def condition(name: str, rounds: int | None, per_turn: bool = False) -> dict[str, object]:
        return {"$type": "Condition", "name": name, "rounds": rounds, "per_turn": per_turn}

    conditions = [condition("Shaken", 1), condition("Stunned", 2, True), condition("Blind", None)]
    view = verse_view(g1=goblin(health_state="unhurt", conditions=conditions))
    view.add(1, {"$type": "RoundEnded", "round": 1})
    assert [c["name"] for c in view.state["combatants"]["g1"]["conditions"]] == ["Stunned", "Blind"]
    view.add(2, {"$type": "TurnEnded", "combatant": "g1"})
    assert view.state["combatants"]["g1"]["conditions"] == [
        condition("Stunned", 1, True),
        condition("Blind", None),
    ]


def test_folding_never_changes_the_snapshot_it_started_from() -> None:
    """The snapshot message is shared with the screen: folds put changed copies in."""
    snapshot = {"ruleset": "verse", "combatants": {"g1": goblin(health_state="unhurt")}}
    view = View()
    view.reset(0, snapshot)
    view.add(1, hit("g1", 3))
    view.add(2, {"$type": "Moved", "combatant": "g1", "path": [{"$type": "Cell", "x": 2, "y": 0}]})
    assert snapshot["combatants"]["g1"] == goblin(health_state="unhurt")  # type: ignore[index]
    assert view.state["combatants"]["g1"]["position"] == {"$type": "Cell", "x": 2, "y": 0}
    assert view.doubts.about("g1") == {"health_state", "facing"}  # facing: the grid's geometry


def test_an_event_nobody_here_can_fold_makes_the_view_approximate_until_a_snapshot() -> None:
    view = verse_view(g1=goblin(health_state="unhurt"))
    view.add(1, {"$type": "AttackRolled", "attacker": "g1", "target": "ayla"})  # changes nothing
    assert not view.approximate
    view.add(2, {"$type": "Glimmered", "combatant": "g1"})
    assert view.approximate and view.doubts.events == {"Glimmered"}
    view.reset(2, {"ruleset": "verse", "combatants": {}})
    assert not view.approximate


def test_tael_fainting_dying_and_standing_up_as_another_side_sees_them() -> None:
    view = View()
    bandit = {"id": "bandit", "health_state": "wounded", "fainted": False, "dead": False}
    view.reset(0, {"ruleset": "tael", "combatants": {"bandit": bandit}})
    view.add(1, {"$type": "Fainted", "combatant": "bandit"})
    assert view.state["combatants"]["bandit"]["health_state"] == "down"
    assert view.state["combatants"]["bandit"]["fainted"] is True
    view.add(
        2, {"$type": "WillpowerChecked", "combatant": "bandit", "success": True, "stood_up": True}
    )
    assert view.state["combatants"]["bandit"]["fainted"] is False
    assert view.state["combatants"]["bandit"]["health_state"] == "bloodied"  # 1 hit point
    assert view.doubts.about("bandit") == {"health_state"}  # unless its sheet has only 1
    view.add(3, {"$type": "DamageTaken", "target": "bandit", "damage": 4, "health_state": "down"})
    view.add(4, {"$type": "Died", "combatant": "bandit", "reason": "two failed checks"})
    bandit = view.state["combatants"]["bandit"]
    assert (bandit["health_state"], bandit["dead"], bandit["fainted"]) == ("down", True, False)
    assert not view.approximate


def test_tael_statuses_come_and_count_down_with_their_owners_turns() -> None:
    view = View()
    kaelen = {"id": "kaelen", "hit_points": 20, "statuses": [], "turn": {"lost": False}}
    view.reset(0, {"ruleset": "tael", "combatants": {"kaelen": kaelen}})
    burning = {"$type": "TaelStatus", "name": "Burning", "turns": 2, "damage": "1d4"}
    view.add(1, {"$type": "StatusGained", "target": "kaelen", "status": burning})
    view.add(2, {"$type": "DamageTaken", "target": "kaelen", "damage": 3, "hit_points": 17})
    view.add(3, {"$type": "TurnEnded", "combatant": "kaelen"})
    kaelen = view.state["combatants"]["kaelen"]
    assert (kaelen["hit_points"], kaelen["statuses"]) == (17, [{**burning, "turns": 1}])
    assert kaelen["preparation"] == "open"  # T2: its Preparation Phase begins
    view.add(4, {"$type": "StatusEnded", "target": "kaelen", "status": "Burning"})
    assert view.state["combatants"]["kaelen"]["statuses"] == []


def test_a_hold_ends_when_the_holders_next_turn_starts() -> None:
    """V19: the engine ends it with the turn, no `HoldEnded` comes."""
    view = verse_view(
        bram={"id": "bram", "health": 16, "holding": False, "awareness": "distracted"}
    )
    view.add(1, {"$type": "HoldBegan", "combatant": "bram"})
    assert view.state["combatants"]["bram"]["holding"] is True
    assert view.state["combatants"]["bram"]["awareness"] == "alert"
    view.add(2, {"$type": "TurnStarted", "combatant": "bram", "turn": 3})
    assert (view.state["combatants"]["bram"]["holding"], view.state["turn"]) == (False, 3)


# --- the screen's status line -----------------------------------------------------------


def test_a_terminal_redraws_the_status_line_in_place() -> None:
    out = io.StringIO()
    screen = Screen(out, live=True)
    screen.status("7s left")
    screen.line("[5] Ayla answers with dodge")
    screen.status("6s left")
    assert out.getvalue() == (
        f"{CLEAR}7s left{CLEAR}[5] Ayla answers with dodge\n7s left{CLEAR}6s left"
    )


def test_a_pipe_gets_each_new_status_once_as_a_line() -> None:
    out = io.StringIO()
    screen = Screen(out, live=False)
    screen.status("7s left")
    screen.status("7s left")
    screen.line("[5] Ayla answers with dodge")
    screen.status("6s left")
    screen.status(None)
    assert out.getvalue() == "7s left\n[5] Ayla answers with dodge\n6s left\n"


# --- every event the protocol documents is known to the folds ---------------------------

PROTOCOL = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")


def documented(table: str) -> set[str]:
    """The events of a generated table of docs/protocol.md, by `$type`."""
    start = PROTOCOL.index(f"<!-- BEGIN GENERATED: {table} -->")
    end = PROTOCOL.index(f"<!-- END GENERATED: {table} -->")
    return set(re.findall(r"^\| `(\w+)` \|", PROTOCOL[start:end], re.MULTILINE))


def test_every_event_a_room_sends_is_folded_or_known_to_change_nothing_kept() -> None:
    """A new event the folds do not know would make every view approximate: this
    fails first, naming it."""
    verse_events = documented("events")
    shared_line = re.search(
        r"A Tael room also sends these events of the table above: (.+)\.", PROTOCOL
    )
    assert shared_line is not None
    tael_events = documented("tael-events") | set(re.findall(r"`(\w+)`", shared_line.group(1)))
    assert len(verse_events) > 50 and len(tael_events) > 30
    for ruleset, events in (("verse", verse_events), ("tael", tael_events)):
        folding = words_for(ruleset).folding
        unknown = {
            e
            for e in events
            if e not in SHARED and e not in SHARED_UNCHANGED and not folding.knows(e)
        }
        assert unknown == set(), ruleset


# --- what `look` shows of a combatant (game night: the fumbled spear was never shown) ------
