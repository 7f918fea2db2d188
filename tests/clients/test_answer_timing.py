"""Which window a typed line answers, and what the screen says around it, as events and
window messages arrive at given moments (`Desk`: a console fed by hand, no server).

Found at the second game night: an answer typed 0.5 s after a new window
opened was refused as being for a window that had expired long before, or for one the
GM's rewind had thrown away; a GM was shown the same prompt twice when another of its
combatants answered; a passed adapt window read as time running out. The rule (README,
"Play a round"): only a line typed *as* the window it was meant for closed is refused.
"""

from __future__ import annotations

from typing import Any

from clients.commands import Command, CommandError
from tests.clients.support import Desk, closed, opened


def combatant(cid: str, side: str, name: str) -> dict[str, Any]:
    """A card as the server sends it (`protocol.table.Card`)."""
    return {"id": cid, "name": name, "side": side, "position": [0, 0], "health_word": "unhurt"}


def fight(**fields: Any) -> dict[str, Any]:
    """The table of a Verse fight in Live Combat, round 1, nothing open."""
    return {
        "ruleset": "verse",
        "mode": "live",
        "phase": "combat",
        "round": 1,
        "turn": "",
        "order": [],
        "paused_by": "",
        "window": None,
        "grid": {"kind": "square"},
        "combatants": {
            "ayla": combatant("ayla", "pc", "Ayla"),
            "corvin": combatant("corvin", "pc", "Corvin"),
            "g1": combatant("g1", "goblins", "Goblin"),
            "g2": combatant("g2", "goblins", "Goblin"),
            "s1": combatant("s1", "goblins", "Goblin Shaman"),
        },
        **fields,
    }


def answers(desk: Desk, text: str) -> int:
    """The window the line is sent to."""
    parsed = desk.line(text)
    assert isinstance(parsed, Command), parsed
    window = parsed.command.get("window")
    assert isinstance(window, int), parsed.command
    return window


def refused_as(desk: Desk, text: str) -> str:
    try:
        parsed = desk.line(text)
    except CommandError as error:
        assert error.code == "window_closed", error
        return error.message
    raise AssertionError(f"{text!r} was not refused: {parsed}")


def passed(wid: int, who: str) -> dict[str, Any]:
    return {"$type": "Passed", "window": wid, "combatant": who}


DODGE = ["dodge", "block"]


# --- 1. a fast answer to a new window goes to it ------------------------------------------


def test_a_fast_answer_to_a_new_window_is_not_taken_for_one_that_expired_long_ago() -> None:
    """gm.out 02:26:03-15: window 13 asked g2 and expired; 14 asked Corvin; the GM
    answered 15 for g2; `as g2 pass` 0.5 s after planning window 16 opened was refused
    as being for window 13. It passes window 16."""
    desk = Desk(fight(), plays=["g1", "g2"])
    desk.events(opened(13, "reaction", {"g2": DODGE}, about="ayla"))
    desk.window(13, "reaction", {"g2": DODGE})
    desk.clock.now = 8.0
    desk.events(closed(13), opened(14, "reaction", {"corvin": DODGE}, about="g2"))
    desk.clock.now = 9.0
    desk.events(passed(14, "corvin"), closed(14, "answered"))
    desk.events(opened(15, "reaction", {"g2": DODGE}, about="corvin"))
    desk.window(15, "reaction", {"g2": DODGE})
    desk.clock.now = 11.0
    assert answers(desk, "as g2 pass") == 15
    desk.events(passed(15, "g2"), closed(15, "answered"))
    desk.events(opened(16, "planning", {"g2": ["declare"], "ayla": ["declare"]}))
    desk.window(16, "planning", {"g2": ["declare"], "ayla": ["declare"]})
    desk.clock.now = 11.5
    assert answers(desk, "as g2 pass") == 16


def test_an_answer_after_a_rewind_is_never_taken_for_the_abandoned_window() -> None:
    """ayla.out 02:27:25: after a rewind Ayla answered windows 27 and 28; her `pass` 0.5 s
    after window 29 opened was refused as being for window 25, which the rewind had
    closed. A window a rewind closed never takes a line."""
    desk = Desk(fight(), role="player", controls=["ayla"])
    desk.events(opened(25, "reaction", {"ayla": ["hold"]}, about="g2"))
    desk.window(25, "reaction", {"ayla": ["hold"]})
    desk.clock.now = 3.0
    desk.events({"$type": "Rewound", "table": fight()})
    desk.clock.now = 3.2  # typed as the GM rewound: not for the window thrown away
    assert "window 25" not in str(_outcome(desk, "pass"))
    desk.events(opened(28, "reaction", {"ayla": ["hold"]}, about="g2"))
    desk.window(28, "reaction", {"ayla": ["hold"]})
    desk.clock.now = 10.0
    assert answers(desk, "pass") == 28
    desk.events(passed(28, "ayla"), closed(28, "answered"))
    desk.events(opened(29, "reaction", {"ayla": ["hold"]}, about="corvin"))
    desk.window(29, "reaction", {"ayla": ["hold"]})
    desk.clock.now = 10.5
    assert answers(desk, "pass") == 29


def _outcome(desk: Desk, text: str) -> object:
    try:
        return desk.line(text)
    except CommandError as error:
        return error


def test_a_line_typed_as_its_window_closed_is_refused_and_not_later() -> None:
    """The guard the rule keeps: window 1 expires and window 2 opens in the same batch;
    a line 0.5 s later was typed for window 1 (refused); 1.6 s later, for window 2."""
    desk = Desk(fight(), plays=["g1"])
    desk.events(opened(1, "reaction", {"g1": DODGE}))
    desk.clock.now = 5.0
    desk.events(closed(1), opened(2, "reaction", {"g1": DODGE}))
    desk.clock.now = 5.5
    assert refused_as(desk, "as g1 dodge") == (
        "window 1, the last shown asking g1, has closed (while you typed): nothing sent"
    )
    desk.clock.now = 6.6
    assert answers(desk, "as g1 dodge") == 2


def test_a_line_typed_before_the_next_prompt_could_be_read_is_for_the_closed_window() -> None:
    """Window 1 expires; window 2 asks g1 0.8 s later (another batch); a line 1.9 s after
    the close but 1.1 s after the new prompt was typed for window 1. A window that closed
    long before the new prompt appeared takes nothing typed after it."""
    desk = Desk(fight(), plays=["g1"])
    desk.events(opened(1, "reaction", {"g1": DODGE}))
    desk.clock.now = 10.0
    desk.events(closed(1))
    desk.clock.now = 10.8
    desk.events(opened(2, "reaction", {"g1": DODGE}))
    desk.clock.now = 11.9
    assert "window 1," in refused_as(desk, "as g1 dodge")
    desk.clock.now = 12.4
    assert answers(desk, "as g1 dodge") == 2

    later = Desk(fight(), plays=["g1"])
    later.events(opened(1, "reaction", {"g1": DODGE}))
    later.clock.now = 10.0
    later.events(closed(1))
    later.clock.now = 13.0
    later.events(opened(2, "reaction", {"g1": DODGE}))
    later.clock.now = 13.3
    assert answers(later, "as g1 dodge") == 2


def test_a_window_closed_by_everyone_answering_it_takes_no_line() -> None:
    """Ayla's declaration closes the planning window ("answered": a declaration answers
    it, though no `Answered` event says so), and the goblin's attack asks her at once:
    her `dodge` right after is for the attack (tests/e2e/test_live_round.py)."""
    desk = Desk(fight(), role="player", controls=["ayla"])
    desk.events(opened(1, "planning", {"ayla": ["declare"], "g1": ["declare"]}))
    desk.window(1, "planning", {"ayla": ["declare"], "g1": ["declare"]})
    desk.clock.now = 3.0
    declared = {"$type": "DeclarationMade", "combatant": "ayla", "slot": 0, "actions": []}
    desk.events(declared, closed(1, "answered"))
    desk.events(opened(2, "reaction", {"ayla": DODGE}, about="g1"))
    desk.clock.now = 3.3
    assert answers(desk, "dodge") == 2


def test_of_several_windows_shown_only_one_that_closed_just_now_takes_a_line() -> None:
    """Windows 1 and 2 asked g1 and expired, 1 long ago; 2 closed 0.4 s ago: the line was
    typed for window 2, not window 1."""
    desk = Desk(fight(), plays=["g1"])
    desk.events(opened(1, "reaction", {"g1": DODGE}))
    desk.clock.now = 8.0
    desk.events(closed(1), opened(2, "reaction", {"g1": DODGE}))
    desk.clock.now = 16.0
    desk.events(closed(2), opened(3, "planning", {"g1": ["declare"]}))
    desk.clock.now = 16.4
    assert "window 2," in refused_as(desk, "as g1 pass")


# --- 5. one prompt per window and combatant; a passed adapt window -----------------------


def seat(who: str, window: int, *keys: str) -> dict[str, Any]:
    """A `SeatChoices` of the server: `who`'s options in `window`."""
    options = [
        {"key": key, "label": key.title(), "command": {"type": key, "window": window}}
        for key in keys
    ]
    return {"combatant": who, "window": window, "options": options}


def test_a_prompt_is_not_shown_again_when_another_asked_combatant_answers() -> None:
    """gm2.out 02:26:53: a GM without --plays was prompted for Goblin Shaman in window 21
    a second time when Ayla passed it."""
    desk = Desk(fight())
    asked = {"ayla": ["hold"], "s1": DODGE}
    desk.events(opened(21, "reaction", asked, about="corvin"))
    desk.window(21, "reaction", asked)
    desk.choices(seat("ayla", 21, "hold", "pass"), seat("s1", 21, "dodge", "block", "pass"))
    shaman = ">>> Goblin Shaman (s1): [window 21]  (as s1 ...)\n  1. Dodge  2. Block  3. Pass"
    assert desk.text.count(shaman) == 1
    assert ">>> Ayla (ayla): [window 21]  (as ayla ...)\n  1. Hold  2. Pass" in desk.text
    desk.events(passed(21, "ayla"))
    desk.window(21, "reaction", asked, answered=["ayla"])
    desk.choices(seat("s1", 21, "dodge", "block", "pass"))
    assert desk.text.count(shaman) == 1
    assert answers(desk, "as s1 2") == 21  # a number picks the choice shown
    assert desk.line("as s1 2").command["type"] == "block"  # type: ignore[union-attr]


# --- 4. a rewind says where the fight is ---------------------------------------------------


def test_a_rewind_says_where_the_restored_fight_is() -> None:
    """The log line of the rewind is the server's; a line after it says where the
    fight is now, from the table it restored (R70: paused by the GM after an end)."""
    planning = opened(5, "planning", {"ayla": ["declare"], "g1": ["declare"]})["window"]
    restored = fight(window={**planning, "asked": ["ayla", "g1"]}, paused_by="gm")
    gm = Desk(fight(phase="ended"), plays=["g1"])
    gm.events({"$type": "Rewound", "table": restored})
    assert gm.text.endswith(
        "[1] Rewound\n"
        "  Fight after event 1: Round 1  combat  live  paused by the GM; type 'resume' to go on\n"
        "  planning window, waiting on: Ayla, Goblin (g1)\n"
    )
    look = gm.console.describe_fight()
    assert "Round 1  combat  live  paused by the GM" in look
    assert "planning window, waiting on: Ayla, Goblin" in look


# --- 2. `look` draws the table: a spell being charged shows as the card's note ------------------


def test_look_shows_the_spell_being_charged_and_how_far_along() -> None:
    table = fight()
    table["combatants"]["s1"]["notes"] = ["charging Lightning Lance 1/2"]
    desk = Desk(table, plays=["g1"])
    look = desk.console.describe_fight()
    assert "Goblin Shaman (s1)  goblins  (0, 0)  health unhurt" in look
    assert "notes: charging Lightning Lance 1/2" in look
