"""Typed lines become the engine commands of docs/protocol.md, without a network.

A line is read against the choices the server offers now (`clients/matching.py`), so
each test asks the real server's choices for a Verse fight reached by commands
(`offers.py`), and reads what the line makes back with the server's own reader. Where
a window is hard to reach by commands (a held action, an adapt window, a Quick
Response), the seat is written as the server writes it (`server/table/verse_choices.py`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest

from clients.commands import (
    ActAs,
    AddFromSheet,
    Command,
    CommandError,
    Context,
    Look,
    Nothing,
    OpenWindow,
    Plays,
    Quit,
    ShowHelp,
    parse,
)
from clients.verse_words import advice
from server.engine.flow import Mode
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.live import Declare
from server.engine.rulesets.verse.overrides import SetCondition
from server.engine.rulesets.verse.turns import StartCombat
from server.engine.stack import Answer, PassWindow
from tests.clients.offers import encounter, gm, player, run

SETUP = encounter("demo.toml")
PLANNING = run(SETUP, StartCombat())  # window 1: everyone declares (V20)
AYLA = player(PLANNING, "ayla")
CORVIN = player(PLANNING, "corvin")  # two turns a round (V16)
GM = gm(PLANNING)
ATTACKED = run(  # g1 attacks Ayla: window 2 asks her to dodge or block (V22)
    PLANNING,
    Declare("g1", (Attack("g1", "ayla", "scimitar"),)),
    *(PassWindow(who, 1) for who in ("ayla", "bram", "corvin", "g2")),
)
COUNTERING = run(ATTACKED, Answer("ayla", 2, "dodge"))  # her dodge succeeds: a counter


def attack(actor: str, target: str, weapon: str) -> dict[str, Any]:
    return {"$type": "Attack", "actor": actor, "target": target, "weapon": weapon}


def declared(actor: str, *actions: dict[str, Any], turn: int = 0) -> dict[str, Any]:
    return {"type": "Declare", "actor": actor, "turn": turn, "actions": list(actions)}


def refusal(screen: Any, text: str) -> tuple[str, str]:
    error = screen.refused(text)
    return error.code, error.message


# --- declaring (V20) --------------------------------------------------------------------


def test_a_player_declares_an_attack_for_its_only_combatant() -> None:
    expected = declared("ayla", attack("ayla", "g1", "longsword"))
    assert AYLA.command("declare attack g1 longsword") == expected
    assert AYLA.command("attack g1 longsword") == expected  # an action alone is declared
    assert AYLA.command("declare attack g1") == expected  # the first weapon offered
    assert AYLA.command("declare attack g1 shortbow")["actions"][0]["weapon"] == "shortbow"


def test_a_target_or_a_weapon_not_offered_is_refused_with_what_is() -> None:
    """The issue's own case: `declare attack g9 spear` was accepted, revealed and lost."""
    targets = "targets are g1, g2, bram, corvin"
    assert refusal(AYLA, "declare attack g9 longsword") == (
        "no_such_choice",
        f"no 'g9' to attack: {targets}",
    )
    assert refusal(AYLA, "declare attack ayla") == (
        "no_such_choice",
        f"no 'ayla' to attack: {targets}",
    )
    assert refusal(AYLA, "declare attack g1 spear") == (
        "too_many_arguments",
        "no 'spear' to attack <target> (of longsword, shortbow)",
    )
    assert refusal(AYLA, "declare attack") == (
        "missing_argument",
        "attack: target? g1, g2, bram, corvin",
    )
    code, message = refusal(AYLA, "declare attack goblin")  # two are called so
    assert (code, message) == (
        "ambiguous",
        "'goblin' is any of Attack Goblin (g1) with longsword, Attack Goblin (g2) with longsword",
    )


def test_several_actions_are_joined_by_then_or_semicolons() -> None:
    expected = [
        {"$type": "Move", "actor": "ayla", "path": [{"$type": "Cell", "x": 0, "y": -1}]},
        attack("ayla", "g1", "shortbow"),
    ]
    assert AYLA.command("declare move 0,-1 then attack g1 shortbow")["actions"] == expected
    assert AYLA.command("declare move 0,-1; attack g1 shortbow")["actions"] == expected
    assert AYLA.command("move 0,-1 ; attack g1 shortbow")["actions"] == expected


def test_a_move_names_where_it_ends_or_every_step() -> None:
    path = AYLA.command("declare move 0,-2")["actions"][0]["path"]
    assert len(path) == 2 and path[-1] == {"$type": "Cell", "x": 0, "y": -2}
    steps = [{"$type": "Cell", "x": -1, "y": -1}, {"$type": "Cell", "x": 0, "y": -2}]
    assert AYLA.command("declare move -1,-1 0,-2")["actions"][0]["path"] == steps
    code, message = refusal(AYLA, "declare move 9,9")
    assert code == "no_such_choice" and message.startswith("no '9,9' to move: cells are ")
    assert message.endswith("(164 in all)")
    assert refusal(AYLA, "declare move 1,0")[0] == "no_such_choice"  # g1 stands there


def test_a_later_turn_counts_from_one_as_people_do() -> None:
    assert CORVIN.command("declare turn 2 attack g2 spear") == declared(
        "corvin", attack("corvin", "g2", "spear"), turn=1
    )
    assert refusal(CORVIN, "declare turn 0 attack g2")[0] == "bad_number"
    assert refusal(CORVIN, "declare turn 2") == (
        "missing_argument",
        "declare <action> [then <action> ...]",
    )


def test_declare_pass_declares_that_turn_empty_and_pass_passes_the_window() -> None:
    assert CORVIN.command("declare turn 2 pass") == declared("corvin", turn=1)
    assert CORVIN.command("declare turn 2 PASS") == declared("corvin", turn=1)
    assert CORVIN.command("declare pass") == declared("corvin")
    assert AYLA.command("pass") == {"type": "PassWindow", "actor": "ayla", "window": 1}


def test_other_game_actions() -> None:
    """By their words or their labels; Ascension (V26) is `ascend`/`descend` and how
    many levels, as the server labels them ("Up 2 levels")."""

    def action(text: str) -> Any:
        return AYLA.command(f"declare {text}")["actions"]

    assert action("stance defensive") == [
        {"$type": "SetStance", "actor": "ayla", "stance": "defensive"}
    ]
    assert action("face 4") == [{"$type": "Face", "actor": "ayla", "facing": 4}]
    on_guard = [{"$type": "SetAwareness", "actor": "ayla", "awareness": "on_guard", "gm": False}]
    assert action("awareness on guard") == action("awareness on_guard") == on_guard
    assert action("stealth g1") == [{"$type": "StealthCheck", "sneaker": "ayla", "observer": "g1"}]
    assert action("hold") == [{"$type": "HoldAction", "actor": "ayla"}]
    assert refusal(AYLA, "declare face 0")[0] == "no_such_choice"  # she faces 0 already
    assert refusal(AYLA, "declare hold twice") == (
        "too_many_arguments",
        "hold takes nothing more: hold",
    )
    levels = [(n, f"{'Up' if n > 0 else 'Down'} {abs(n)} level") for n in (1, -1, 2, -2)]
    change = {"$type": "ChangeAscension", "actor": "bram", "levels": None}
    flying = seat(
        "bram",
        8,
        {
            **choice("ascension", answer("bram", 8, "hold", change)),
            "holes": [
                {
                    "path": "/action/levels",
                    "label": "levels",
                    "options": [{"value": n, "label": said} for n, said in levels],
                }
            ],
        },
    )
    for text, n in (("ascend 2", 2), ("descend 2", -2), ("descend 1", -1), ("ascension -2", -2)):
        parsed = parse(text, bram_with(flying))
        assert isinstance(parsed, Command) and parsed.command["action"]["levels"] == n, text


def test_withdraw_takes_back_a_declaration() -> None:
    both = run(PLANNING, Declare("corvin", (attack_of("corvin", "g1"),)))
    both = run(both, Declare("corvin", (attack_of("corvin", "g2"),), 1))
    corvin = player(both, "corvin")
    assert corvin.command("withdraw") == {"type": "Withdraw", "actor": "corvin", "turn": 0}
    assert corvin.command("withdraw turn 2") == {"type": "Withdraw", "actor": "corvin", "turn": 1}
    assert corvin.command("withdraw 2")["turn"] == 1


def attack_of(actor: str, target: str) -> Attack:
    return Attack(actor, target, "spear")


# --- Turn Based Combat (V25) ------------------------------------------------------------

TURN = run(encounter("demo.toml", mode=Mode.TURN_BASED), StartCombat())  # Bram's turn
BRAM = player(TURN, "bram")


def test_in_a_turn_based_room_an_action_word_sends_the_action_itself() -> None:
    assert BRAM.command("attack g2 quarterstaff") == {
        "type": "Attack",
        "actor": "bram",
        "target": "g2",
        "weapon": "quarterstaff",
    }
    assert BRAM.command("hold") == {"type": "HoldAction", "actor": "bram"}
    assert BRAM.command("stance aggressive") == {
        "type": "SetStance",
        "actor": "bram",
        "stance": "aggressive",
    }
    assert BRAM.command('cast "Magic Missile" g1')["type"] == "CastSpell"
    assert BRAM.command("cast magic missile at g1")["targets"] == ["g1"]
    assert BRAM.command("end") == {"type": "EndTurn", "actor": "bram"}


def test_in_a_turn_based_room_nothing_is_declared() -> None:
    code, message = refusal(BRAM, "declare attack g1")
    assert code == "not_offered"
    assert message.startswith("nothing to declare now: bram may attack, move, cast, ")


# --- answering windows (V22, V23) -------------------------------------------------------


def test_dodge_block_and_pass_answer_the_window_asking_her() -> None:
    ayla = player(ATTACKED, "ayla")
    assert ayla.command("dodge") == {
        "type": "Answer",
        "actor": "ayla",
        "window": 2,
        "option": "dodge",
        "action": None,
    }
    assert ayla.command("block")["option"] == "block"
    assert ayla.command("pass") == {"type": "PassWindow", "actor": "ayla", "window": 2}


def test_an_answer_the_window_does_not_offer_is_refused_with_what_it_does() -> None:
    assert refusal(player(ATTACKED, "ayla"), "counter") == (
        "not_offered",
        "no 'counter' now: ayla may dodge, block or pass",
    )
    assert refusal(player(ATTACKED, "ayla"), "holder-dodge") == (
        "not_offered",
        "no 'holder-dodge' now: ayla may dodge, block or pass",
    )
    assert refusal(player(ATTACKED, "bram"), "dodge") == (
        "nothing_to_choose",
        "nothing is offered to bram now",
    )


def test_a_counter_strikes_the_attacker_with_the_weapon_in_hand_or_another() -> None:
    ayla = player(COUNTERING, "ayla")
    answer = ayla.command("counter")
    assert (answer["option"], answer["window"]) == ("counter", 3)
    assert answer["action"] == {
        "$type": "Counter",
        "actor": "ayla",
        "target": "g1",
        "weapon": "longsword",
    }
    assert ayla.command("counter g1 shortbow")["action"]["weapon"] == "shortbow"
    assert ayla.command("counter with shortbow")["action"]["weapon"] == "shortbow"
    assert refusal(ayla, "counter g2") == (
        "no_such_choice",
        "no 'g2' to counter: weapons are longsword, shortbow, Counter with bare hands",
    )


def seat(who: str, window: int, *options: dict[str, Any]) -> dict[str, Any]:
    return {"combatant": who, "window": window, "compose": None, "options": list(options)}


def answer(who: str, window: int, option: str, action: Any = None) -> dict[str, Any]:
    return {"type": "Answer", "actor": who, "window": window, "option": option, "action": action}


def choice(key: str, command: dict[str, Any], *holes: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "label": key, "command": command, "part": None, "holes": list(holes)}


def hole(path: str, label: str, *values: Any) -> dict[str, Any]:
    return {
        "path": path,
        "label": label,
        "options": [{"value": v, "label": str(v)} for v in values],
    }


PASS_8 = choice("pass", {"type": "PassWindow", "actor": "bram", "window": 8})
HOLDING = seat(
    "bram",
    8,
    choice(
        "hold_attack:quarterstaff",
        answer("bram", 8, "hold", {**attack("bram", "", "quarterstaff"), "target": None}),
        hole("/action/target", "target", "g1", "g2"),
    ),
    choice("hold_hold", answer("bram", 8, "hold", {"$type": "HoldAction", "actor": "bram"})),
    PASS_8,
)
ADAPTING = seat(
    "bram",
    8,
    choice(
        "adapt_attack:quarterstaff",
        answer("bram", 8, "adapt", {**attack("bram", "", "quarterstaff"), "target": None}),
        hole("/action/target", "target", "g2"),
    ),
    choice("give_up", answer("bram", 8, "adapt")),
    PASS_8,
)
KNOCK = {"$type": "KnockAway", "actor": "bram", "target": "g1", "item": None}
QUICK = seat(
    "bram",
    8,
    choice(
        "quick_response",
        answer("bram", 8, "quick_response", KNOCK),
        hole("/action/item", "item", "scimitar"),
    ),
    PASS_8,
)


def bram_with(offered: dict[str, Any]) -> Context:
    return Context("player", ("bram",), fight={"combatants": {}}, choices={"bram": offered})


def test_a_held_action_answers_with_the_action_it_takes() -> None:
    bram = bram_with(HOLDING)
    assert parse("hold attack g1 quarterstaff", bram) == Command(
        answer("bram", 8, "hold", attack("bram", "g1", "quarterstaff"))
    )
    with pytest.raises(CommandError) as error:
        parse("hold", bram)
    assert (error.value.code, error.value.message) == (
        "missing_argument",
        "hold what? hold attack <target>, hold hold",
    )


def test_adapt_alone_gives_the_action_up_or_takes_a_new_one() -> None:
    bram = bram_with(ADAPTING)
    assert parse("adapt", bram) == Command(answer("bram", 8, "adapt"))
    assert parse("adapt attack g2", bram) == Command(
        answer("bram", 8, "adapt", attack("bram", "g2", "quarterstaff"))
    )


def test_a_knock_is_the_quick_response_of_a_window_that_offers_it() -> None:
    """R54: `KnockAway` answers a window that offers a Quick Response, the item the
    attacker's action names."""
    knocked = Command(answer("bram", 8, "quick_response", {**KNOCK, "item": "scimitar"}))
    for text in ("quick knock g1 scimitar", "knock scimitar", "quick scimitar"):
        assert parse(text, bram_with(QUICK)) == knocked, text
    with pytest.raises(CommandError) as error:
        parse("quick knock g1 potion", bram_with(QUICK))
    assert error.value.message == "no 'potion' to quick response: items are scimitar"
    assert refusal(player(ATTACKED, "ayla"), "knock g1 scimitar")[0] == "not_offered"


# --- who acts ---------------------------------------------------------------------------


def test_a_seat_with_several_combatants_says_who_acts_unless_one_alone_fits() -> None:
    both = player(PLANNING, "ayla", "bram")
    assert refusal(both, "declare attack g1") == ("who_acts", "say who acts: as <ayla|bram> ...")
    assert both.parse("as bram") == ActAs("bram")
    assert both.command("as bram declare attack g1")["actor"] == "bram"
    assert both.acting("bram").command("declare attack g1")["actor"] == "bram"
    assert both.command("declare attack g1 quarterstaff")["actor"] == "bram"  # hers: no
    assert player(ATTACKED, "ayla", "bram").command("dodge")["actor"] == "ayla"


def test_a_player_cannot_act_as_someone_else() -> None:
    assert refusal(AYLA, "as g1 declare attack ayla") == (
        "not_yours",
        "g1 is not yours to play (yours: ayla)",
    )


def test_the_gm_acts_for_its_combatants_with_as_and_must_name_them() -> None:
    assert GM.command("as g1 declare attack ayla scimitar") == declared(
        "g1", attack("g1", "ayla", "scimitar")
    )
    assert gm(ATTACKED, "ayla").command("pass") == {
        "type": "PassWindow",
        "actor": "ayla",
        "window": 2,
    }
    assert refusal(gm(ATTACKED), "pass") == ("who_acts", "say who acts: as <ayla> pass")


# --- pausing (V24), the room's commands and the GM's console ------------------------------


def test_a_player_pauses_and_resumes_as_its_combatant() -> None:
    assert AYLA.command("pause") == {"type": "Pause", "by": "ayla"}
    assert AYLA.command("resume") == {"type": "Resume", "by": "ayla"}


def test_the_rooms_commands() -> None:
    assert GM.command("start") == {"type": "StartCombat"}
    assert GM.command("pause") == {"type": "Pause", "by": "gm"}
    assert GM.command("resume") == {"type": "Resume", "by": "gm"}
    assert GM.command("refuse") == {"type": "RefusePause"}
    assert GM.command("close") == {"type": "CloseWindow", "window": 1}
    assert GM.command("close 9") == {"type": "CloseWindow", "window": 9}
    assert GM.command("rewind 41") == {"type": "Rewind", "to_version": 41}
    assert GM.command("end combat") == {"type": "EndCombat"}
    assert GM.command("end combat agreed") == {"type": "EndCombat", "agreed": True}
    assert refusal(GM, "end combat now")[0] == "bad_argument"
    assert refusal(GM, "rewind") == ("missing_argument", "rewind <seq>: the event to go back to")
    assert refusal(gm(SETUP), "close") == ("no_window", "no window is open")


def test_the_gms_overrides_are_its_consoles_options() -> None:
    assert GM.command("health g1 5") == {"type": "SetHealth", "combatant": "g1", "health": 5}
    assert GM.command("mana bram 3") == {"type": "SetMana", "combatant": "bram", "mana": 3}
    assert GM.command("remove g2") == {"type": "RemoveCombatant", "combatant": "g2"}
    assert GM.command("place g2 3 4")["cell"] == {"$type": "Cell", "x": 3, "y": 4}
    assert refusal(GM, "health g1 lots") == (
        "bad_number",
        "health must be a whole number, not 'lots'",
    )
    assert refusal(GM, "health g1 -1") == (
        "no_such_choice",
        "health: health? a whole number from 0",
    )
    assert refusal(GM, "health g9 3")[1].startswith("no 'g9' to set health: combatants are ")
    code, message = refusal(GM, "skip")  # not in a planning window
    assert code == "not_offered"
    assert message.startswith("no 'skip' now: the console may pause, close, end, health, mana, ")
    stunned = gm(run(PLANNING, SetCondition("g2", "Stunned", 1)))
    assert stunned.command("uncondition g2 stunned") == {
        "type": "RemoveCondition",
        "combatant": "g2",
        "condition": "Stunned",
    }


def test_gm_commands_are_the_gms_alone_and_say_what_they_do() -> None:
    for text in ("start", "refuse", "close", "skip", "health g1 5", "rewind 3", "end combat"):
        assert refusal(AYLA, text)[0] == "gm_only", text
    assert refusal(AYLA, "health g1 5")[1] == (
        "only the GM may set health ('health' is a GM command)"
    )
    assert refusal(AYLA, "start")[1] == "only the GM may start the fight ('start' is a GM command)"
    assert refusal(AYLA, "plays ayla")[0] == "gm_only"


def test_the_gm_gives_conditions_the_console_does_not_offer() -> None:
    """The console offers the conditions the rules name and the room's table's: one of
    its own, or for a number of rounds, is the GM's `condition` (SetCondition)."""
    assert GM.command("condition g1 Stunned 2") == {
        "type": "SetCondition",
        "combatant": "g1",
        "condition": "Stunned",
        "rounds": 2,
    }
    assert GM.command("condition g1 dead") == {  # the engine's name, not another one
        "type": "SetCondition",
        "combatant": "g1",
        "condition": "Dead",
        "rounds": None,
    }
    assert GM.command("condition g1 knocked out 1")["condition"] == "Knocked Out"
    assert GM.command('condition g1 "Knocked Out"')["condition"] == "Knocked Out"
    assert GM.command("condition g1 Cursed")["condition"] == "Cursed"  # the GM's own
    assert refusal(GM, "condition g1")[0] == "missing_argument"
    assert refusal(GM, "condition g1 2")[0] == "missing_argument"  # rounds, but of what?


def test_a_health_override_tells_the_gm_what_it_leaves_alone() -> None:
    """Health and the Dead condition are kept apart by the engine (GM overrides): `health
    g1 0` does not kill, `health g1 5` does not raise the dead. The GM is told how."""
    alive = Context("gm", fight={"combatants": {"g1": {"conditions": []}}})
    dead = Context("gm", fight={"combatants": {"g1": {"conditions": [{"name": "Dead"}]}}})
    zero = {"type": "SetHealth", "combatant": "g1", "health": 0}
    five = {**zero, "health": 5}
    assert advice(zero, alive) == (
        "health 0 is not Dead: g1 stays in the fight until you add the condition "
        "(condition g1 Dead)"
    )
    assert (
        advice(five, dead) == "g1 stays Dead until you remove the condition (uncondition g1 Dead)"
    )
    assert advice(five, alive) is None
    assert advice(zero, dead) is None
    assert advice({"type": "SkipTurn"}, alive) is None


def test_the_gm_adds_recovers_and_approves() -> None:
    assert GM.parse("add goblin.toml g3 goblins 2,1") == AddFromSheet(
        "goblin.toml", "g3", "goblins", {"$type": "Cell", "x": 2, "y": 1}
    )
    assert GM.parse("add 'my sheets/orc.toml' o1 orcs 0,4 6") == AddFromSheet(
        "my sheets/orc.toml", "o1", "orcs", {"$type": "Cell", "x": 0, "y": 4}, 6
    )
    assert refusal(GM, "add goblin.toml g3")[0] == "missing_argument"
    assert refusal(GM, "add goblin.toml g3 goblins two")[0] == "bad_cell"
    assert GM.command("recover corvin spear") == {
        "type": "RecoverItem",
        "combatant": "corvin",
        "item": "spear",
    }
    assert GM.command("approve bram counter") == {
        "type": "ApproveFeat",
        "combatant": "bram",
        "kind": "counter",
    }
    assert GM.command("unapprove bram quick") == {
        "type": "WithdrawApproval",
        "combatant": "bram",
        "kind": "quick_response",
    }
    assert refusal(GM, "approve bram dodge")[0] == "bad_argument"
    assert refusal(GM, "approve bram")[0] == "missing_argument"
    assert refusal(AYLA, "approve bram counter")[0] == "gm_only"
    assert GM.parse("plays g1 g2") == Plays(("g1", "g2"))


@pytest.mark.parametrize(
    ("text", "instead"),
    [
        ("status g1 Frozen 2", "condition <combatant> <condition> [rounds]"),
        ("remove-status g1 Frozen", "uncondition <combatant> <condition>"),
        ("hp g1 3", "health <combatant> <n>"),
    ],
)
def test_a_tael_gm_command_in_a_verse_room_says_so_and_what_to_type(
    text: str, instead: str
) -> None:
    """Game night 2: `status g1 Frozen 2` answered `no command 'status'`."""
    code, message = refusal(GM, text)
    assert code == "not_in_verse"
    assert message.startswith(f"'{text.split()[0]}' is a World of Tael GM command;")
    assert instead in message


# --- raw, help, quit, spectators --------------------------------------------------------


def test_raw_sends_any_command_map_as_it_is() -> None:
    assert GM.command('raw {"type": "SetMana", "combatant": "corvin", "mana": 12}') == {
        "type": "SetMana",
        "combatant": "corvin",
        "mana": 12,
    }
    assert refusal(GM, "raw {not json")[0] == "bad_json"
    assert refusal(GM, 'raw ["type"]')[0] == "bad_json"
    assert GM.command('as g1 raw {"type": "Face", "actor": "g1", "facing": 4}') == {
        "type": "Face",
        "actor": "g1",
        "facing": 4,
    }


def test_screen_side_words() -> None:
    assert AYLA.parse("") == Nothing()
    assert AYLA.parse("   ") == Nothing()
    assert AYLA.parse("quit") == Quit()
    assert AYLA.parse("look") == Look()


def test_spectators_only_watch() -> None:
    spectator = Context("spectator")
    assert parse("help", spectator) == ShowHelp(
        "You are watching: the fight prints as it happens. look: the fight now; quit: leave."
    )
    for text in ("pause", "declare attack g1", 'raw {"type": "Pause", "by": "gm"}'):
        with pytest.raises(CommandError) as error:
            parse(text, spectator)
        assert error.value.code == "read_only"


def test_unknown_words_and_bad_quotes() -> None:
    assert refusal(AYLA, "dance") == (
        "not_offered",
        "no 'dance' now: ayla may attack, move, stance, face, awareness, stealth, hold or pass",
    )
    assert refusal(AYLA, "declare juggle g1")[0] == "not_offered"
    assert refusal(AYLA, 'declare cast "Magic Missile')[0] == "bad_quotes"


# --- help lists the words that work now ---------------------------------------------------


def test_help_lists_what_is_offered_now_and_each_of_its_words_works() -> None:
    shown = AYLA.parse("help")
    assert isinstance(shown, ShowHelp)
    line = next(row for row in shown.text.splitlines() if row.startswith("  ayla: "))
    assert line == (
        "  ayla: attack [longsword|shortbow] <target> | move <cell> | stance <stance> | "
        "face <facing> | awareness <awareness> | stealth <observer> | hold | pass"
    )
    seat = AYLA.context().choices["ayla"]
    firsts = {
        option["key"].split(":")[0]: [hole["options"][0]["value"] for hole in option["holes"]]
        for option in seat["options"]
    }
    for usage in line.removeprefix("  ayla: ").split(" | "):
        verb = usage.split()[0]
        values = [v[-1] if isinstance(v, list) else v for v in firsts[verb]]
        said = " ".join(
            [verb, *(f"{v['x']},{v['y']}" if isinstance(v, dict) else str(v) for v in values)]
        )
        assert isinstance(AYLA.parse(said), Command), said
    assert "declare turn 2 <action> | declare pass" in shown.text  # a declaration is offered
    assert "quick knock <item>" in shown.text  # Verse's words
    assert "declare" not in BRAM.parse("help").text  # turn based: nothing to compose


def test_the_gms_help_lists_its_console_and_its_commands() -> None:
    shown = GM.parse("help")
    assert isinstance(shown, ShowHelp)
    for words in (
        "end combat [agreed]",
        "rewind <seq>",
        "condition <combatant> <condition> [rounds]",
        "uncondition <combatant> <condition>",
        "add <sheet file> <id> <side> <x,y> [facing]",
        "remove <combatant>",
        "plays",
        "the console now: pause | close | end combat | health <combatant> <health> | ",
    ):
        assert words in shown.text, words


# --- an answer is for the window whose prompt was seen (game night: late answers) ----------


def test_a_late_answer_to_a_closed_window_is_refused_not_sent_to_the_open_one() -> None:
    """The GM saw window 1 ask Ayla; it expired while `as ayla dodge` was typed, and
    window 2 (another attack on her) is open: the answer was for window 1."""
    closed = OpenWindow(1, "reaction", "g2", {"ayla": ("dodge", "block")}, closed="expired")
    late = gm(ATTACKED, "ayla").seeing({"ayla": closed})
    for text in ("dodge", "pass", "block"):
        error = late.refused(text)
        assert (error.code, error.combatant) == ("window_closed", "ayla"), text
        assert (
            error.message
            == "window 1, the last shown asking ayla, has closed (expired): nothing sent"
        )
    now = OpenWindow(2, "reaction", "g1", {"ayla": ("dodge", "block")})
    assert late.seeing({"ayla": now}).command("dodge")["window"] == 2
    assert late.seeing({}).command("dodge")["window"] == 2  # never prompted: the open one


def test_a_declaration_for_a_planning_window_that_closed_is_refused() -> None:
    """A `Declare` carries no window id: the server would take a late one into the next
    round's planning window."""
    closed = OpenWindow(0, "planning", "", {"ayla": ("declare",)}, closed="closed by the GM")
    late = AYLA.seeing({"ayla": closed})
    for text in ("declare attack g1 longsword", "declare pass", "hold", "pass"):
        error = late.refused(text)
        assert (error.code, error.combatant) == ("window_closed", "ayla"), text
        assert error.message.startswith(("planning window 0, ", "window 0, ")), text
    answered = OpenWindow(9, "reaction", "g1", {"ayla": ("dodge",)}, closed="answered")
    after = AYLA.seeing({"ayla": answered})  # a reaction seen last: for the planning open
    assert after.command("declare attack g1")["type"] == "Declare"


def test_a_line_the_help_offers_is_never_a_regex_of_the_old_grammar() -> None:
    """`move x,y` takes where the move ends; the help says so (no more `not_adjacent`)."""
    shown = AYLA.parse("help").text
    assert re.search(r"move <x,y>: where the move ends, or every step", shown)
    assert replace(AYLA, seen={}).command("move 0,-1")["actions"][0]["path"] == [
        {"$type": "Cell", "x": 0, "y": -1}
    ]
