"""Typed lines become the engine commands of docs/protocol.md, without a network."""

from __future__ import annotations

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
from clients.verse_commands import advice

AYLA = Context("player", ("ayla",))
GM = Context("gm")
REACTION = OpenWindow(4, "reaction", "g1", {"ayla": ("dodge", "block")})
PLANNING = OpenWindow(1, "planning", "", {"ayla": ("declare",), "g1": ("declare",)})


def command(text: str, context: Context = AYLA) -> dict[str, object]:
    parsed = parse(text, context)
    assert isinstance(parsed, Command), parsed
    return parsed.command


def refused(text: str, context: Context = AYLA) -> CommandError:
    with pytest.raises(CommandError) as error:
        parse(text, context)
    return error.value


def with_window(context: Context, window: OpenWindow, actor: str = "") -> Context:
    return Context(context.role, context.controls, actor, window)


# --- declaring (V20) --------------------------------------------------------------------


def test_a_player_declares_an_attack_for_its_only_combatant() -> None:
    assert command("declare attack g1 longsword") == {
        "type": "Declare",
        "actor": "ayla",
        "actions": [{"$type": "Attack", "actor": "ayla", "target": "g1", "weapon": "longsword"}],
        "turn": 0,
    }


def test_several_actions_are_joined_by_then_or_semicolons() -> None:
    expected = [
        {"$type": "Move", "actor": "ayla", "path": [{"$type": "Cell", "x": 1, "y": 0}]},
        {"$type": "Attack", "actor": "ayla", "target": "g1", "weapon": ""},
    ]
    assert command("declare move 1,0 then attack g1")["actions"] == expected
    assert command("declare move 1,0; attack g1")["actions"] == expected
    assert command("declare move 1,0 ; attack g1")["actions"] == expected


def test_a_later_turn_counts_from_one_as_people_do() -> None:
    assert command("declare turn 2 attack g2 spear")["turn"] == 1
    assert refused("declare turn 0 attack g2").code == "bad_number"


def test_spells_take_quoted_names_targets_cells_and_extra_dice() -> None:
    assert command('declare cast "Magic Missile" g1 +1')["actions"] == [
        {
            "$type": "CastSpell",
            "actor": "ayla",
            "spell": "Magic Missile",
            "targets": ["g1"],
            "target": None,
            "extra_spell_dice": 1,
        }
    ]
    rain = command('declare cast "Mana Rain" at 6,2')["actions"]
    assert rain[0]["target"] == {"$type": "Cell", "x": 6, "y": 2}
    assert rain[0]["targets"] == []


def test_other_game_actions() -> None:
    def action(text: str) -> object:
        return command(f"declare {text}")["actions"]

    assert action("stance defensive") == [
        {"$type": "SetStance", "actor": "ayla", "stance": "defensive"}
    ]
    assert action("use potion") == [{"$type": "UseItem", "actor": "ayla", "item": "potion"}]
    assert action("face 4") == [{"$type": "Face", "actor": "ayla", "facing": 4}]
    assert action("ascend") == [{"$type": "ChangeAscension", "actor": "ayla", "levels": 1}]
    assert action("ascend 3") == [{"$type": "ChangeAscension", "actor": "ayla", "levels": 3}]
    assert action("descend 2") == [{"$type": "ChangeAscension", "actor": "ayla", "levels": -2}]
    for bad in ("ascend 0", "descend -1", "ascend two"):
        assert refused(f"declare {bad}").code == "bad_number", bad
    assert refused("declare ascend 1 2").code == "too_many_arguments"
    assert action("stealth g1") == [{"$type": "StealthCheck", "sneaker": "ayla", "observer": "g1"}]


def test_knocking_an_item_away_is_only_a_quick_response() -> None:
    """R54: `KnockAway` answers a window that offers a Quick Response; the server refuses
    it declared (V20) or taken on a turn (V25), and the help listed it as declarable."""
    for text in ("declare knock g2 potion", "knock g2 potion"):
        error = refused(text)
        assert error.code == "quick_response_only", text
        assert "quick knock <target> <item>" in error.message
    ayla_tb = replace(AYLA, fight={"mode": "turn_based"})
    assert refused("knock g2 potion", ayla_tb).code == "quick_response_only"
    offered = OpenWindow(5, "reaction", "g2", {"ayla": ("quick_response",)})
    assert command("quick knock g2 potion", with_window(AYLA, offered)) == {
        "type": "Answer",
        "actor": "ayla",
        "window": 5,
        "option": "quick_response",
        "action": {"$type": "KnockAway", "actor": "ayla", "target": "g2", "item": "potion"},
    }
    help_text = parse("help", AYLA)
    assert isinstance(help_text, ShowHelp)
    declaring = help_text.text.split("Answer the open window")[0]
    assert "knock" not in declaring
    assert "quick knock <target> <item>" in help_text.text


def test_hold_in_the_planning_window_declares_a_hold_action() -> None:
    assert command("hold", with_window(AYLA, PLANNING)) == {
        "type": "Declare",
        "actor": "ayla",
        "actions": [{"$type": "HoldAction", "actor": "ayla"}],
        "turn": 0,
    }


def test_withdraw_takes_back_a_declaration() -> None:
    assert command("withdraw") == {"type": "Withdraw", "actor": "ayla", "turn": 0}
    assert command("withdraw turn 2") == {"type": "Withdraw", "actor": "ayla", "turn": 1}


# --- Turn Based Combat (V25) ------------------------------------------------------------

TURN_BASED = {"mode": "turn_based"}


def test_in_a_turn_based_room_an_action_word_sends_the_action_itself() -> None:
    ayla = replace(AYLA, fight=TURN_BASED)
    assert command("attack g1 longsword", ayla) == {
        "type": "Attack",
        "actor": "ayla",
        "target": "g1",
        "weapon": "longsword",
    }
    assert command("move 1,0 2,0", ayla) == {
        "type": "Move",
        "actor": "ayla",
        "path": [{"$type": "Cell", "x": 1, "y": 0}, {"$type": "Cell", "x": 2, "y": 0}],
    }
    assert command('cast "Magic Missile" g1 +1', ayla)["type"] == "CastSpell"
    assert command("stance defensive", ayla) == {
        "type": "SetStance",
        "actor": "ayla",
        "stance": "defensive",
    }
    assert command("hold", ayla) == {"type": "HoldAction", "actor": "ayla"}
    assert command("end", ayla) == {"type": "EndTurn", "actor": "ayla"}
    gm = replace(GM, fight=TURN_BASED)
    assert command("as g1 attack ayla scimitar", gm)["type"] == "Attack"


def test_in_a_turn_based_room_nothing_is_declared() -> None:
    error = refused("declare attack g1", replace(AYLA, fight=TURN_BASED))
    assert error.code == "turn_based"
    assert "type the action itself (attack g1 spear" in error.message


def test_in_live_combat_an_action_word_says_to_declare_it() -> None:
    error = refused("attack g1 longsword", replace(AYLA, fight={"mode": "live"}))
    assert error.code == "unknown_command"
    assert "declare attack ..." in error.message


# --- answering windows (V22, V23) -------------------------------------------------------


def test_dodge_answers_the_open_window_for_the_one_asked() -> None:
    assert command("dodge", with_window(AYLA, REACTION)) == {
        "type": "Answer",
        "actor": "ayla",
        "window": 4,
        "option": "dodge",
        "action": None,
    }


def test_pass_lets_the_window_go_by() -> None:
    assert command("pass", with_window(AYLA, REACTION)) == {
        "type": "PassWindow",
        "actor": "ayla",
        "window": 4,
    }


def test_an_option_the_window_does_not_offer_is_refused_before_sending() -> None:
    error = refused("counter", with_window(AYLA, REACTION))
    assert error.code == "not_offered"
    assert "dodge, block" in error.message


def test_a_counter_defaults_to_the_attacker_the_window_is_about() -> None:
    window = OpenWindow(5, "counter", "g1", {"ayla": ("counter",)})
    assert command("counter", with_window(AYLA, window))["action"] == {
        "$type": "Counter",
        "actor": "ayla",
        "target": "g1",
        "weapon": "",
    }
    assert command("counter g1 longsword", with_window(AYLA, window))["action"] == {
        "$type": "Counter",
        "actor": "ayla",
        "target": "g1",
        "weapon": "longsword",
    }


def test_a_bare_counter_strikes_with_the_weapon_in_hand() -> None:
    """The first item the card shows in her hands that is not Broken (V6); with none in
    hand (or another side's card, which shows no hands) she strikes unarmed."""
    window = OpenWindow(5, "counter", "g1", {"ayla": ("counter",)})
    ayla = {"id": "ayla", "hands": ["longsword", "shortbow"], "dropped": [], "broken": []}

    def countered(**changes: object) -> Any:
        fight = {"mode": "live", "combatants": {"ayla": {**ayla, **changes}}}
        context = replace(with_window(AYLA, window), fight=fight)
        return command("counter", context)["action"]

    assert countered() == {
        "$type": "Counter",
        "actor": "ayla",
        "target": "g1",
        "weapon": "longsword",
    }
    assert countered(hands=["shortbow"], dropped=["longsword"])["weapon"] == "shortbow"
    assert countered(broken=["longsword"])["weapon"] == "shortbow"
    assert countered(broken=["longsword", "shortbow"])["weapon"] == ""
    assert countered(hands=[])["weapon"] == ""
    opportunity = OpenWindow(6, "reaction", "g1", {"ayla": ("opportunity",)})
    context = replace(with_window(AYLA, opportunity), fight={"combatants": {"ayla": ayla}})
    struck: Any = command("opportunity", context)["action"]
    assert struck["weapon"] == "longsword"


def test_a_held_action_answers_with_the_action_it_takes() -> None:
    window = OpenWindow(8, "reaction", "g1", {"bram": ("hold",)})
    bram = Context("player", ("bram",), "", window)
    assert command("hold attack g1 quarterstaff", bram) == {
        "type": "Answer",
        "actor": "bram",
        "window": 8,
        "option": "hold",
        "action": {"$type": "Attack", "actor": "bram", "target": "g1", "weapon": "quarterstaff"},
    }
    assert refused("hold", bram).code == "missing_argument"


def test_adapt_with_or_without_a_new_action() -> None:
    window = OpenWindow(3, "adapt", "ayla", {"ayla": ("adapt",)})
    assert command("adapt", with_window(AYLA, window))["action"] is None
    assert command("adapt attack g2 shortbow", with_window(AYLA, window))["action"] == {
        "$type": "Attack",
        "actor": "ayla",
        "target": "g2",
        "weapon": "shortbow",
    }


def test_answers_need_an_open_window() -> None:
    assert refused("dodge").code == "no_window"
    assert refused("pass").code == "no_window"


def test_another_sides_hidden_options_do_not_block_an_answer() -> None:
    hidden = OpenWindow(4, "reaction", "g1", {"ayla": ()})  # the server hid them
    assert command("dodge", with_window(AYLA, hidden))["option"] == "dodge"


# --- who acts ---------------------------------------------------------------------------


def test_a_seat_with_several_combatants_says_who_acts() -> None:
    both = Context("player", ("ayla", "bram"))
    assert refused("declare attack g1", both).code == "who_acts"
    assert parse("as bram", both) == ActAs("bram")
    assert command("as bram declare attack g1 quarterstaff", both)["actor"] == "bram"
    assert command("declare attack g1", Context("player", ("ayla", "bram"), "bram"))["actor"] == (
        "bram"
    )


def test_a_window_that_waits_for_one_of_my_combatants_picks_it() -> None:
    both = Context("player", ("ayla", "bram"), "", REACTION)
    assert command("dodge", both)["actor"] == "ayla"


def test_a_player_cannot_act_as_someone_else() -> None:
    error = refused("as g1 declare attack ayla")
    assert (error.code, error.message) == ("not_yours", "g1 is not yours to play (yours: ayla)")


def test_the_gm_acts_for_its_combatants_with_as() -> None:
    assert command("as g1 declare attack ayla scimitar", GM) == {
        "type": "Declare",
        "actor": "g1",
        "actions": [{"$type": "Attack", "actor": "g1", "target": "ayla", "weapon": "scimitar"}],
        "turn": 0,
    }
    window = OpenWindow(2, "reaction", "bram", {"g2": ("dodge", "block")})
    assert command("as g2 pass", with_window(GM, window)) == {
        "type": "PassWindow",
        "actor": "g2",
        "window": 2,
    }


def test_the_gm_must_name_who_answers_so_it_never_answers_for_a_player_by_mistake() -> None:
    error = refused("pass", with_window(GM, REACTION))
    assert error.code == "who_acts"
    assert "as <ayla>" in error.message


# --- pausing (V24) and the GM's commands ------------------------------------------------


def test_a_player_pauses_and_resumes_as_its_combatant() -> None:
    assert command("pause") == {"type": "Pause", "by": "ayla"}
    assert command("resume") == {"type": "Resume", "by": "ayla"}


def test_the_gm_commands() -> None:
    window = with_window(GM, REACTION)
    assert command("start", GM) == {"type": "StartCombat"}
    assert command("pause", GM) == {"type": "Pause", "by": "gm"}
    assert command("resume", GM) == {"type": "Resume", "by": "gm"}
    assert command("refuse", GM) == {"type": "RefusePause"}
    assert command("close", window) == {"type": "CloseWindow", "window": 4}
    assert command("close 9", GM) == {"type": "CloseWindow", "window": 9}
    assert command("skip", GM) == {"type": "SkipTurn"}
    assert command("health g1 5", GM) == {"type": "SetHealth", "combatant": "g1", "health": 5}
    assert command("rewind 41", GM) == {"type": "Rewind", "to_version": 41}


def test_gm_commands_are_the_gms_alone() -> None:
    for text in ("start", "refuse", "close", "skip", "health g1 5", "rewind 3"):
        assert refused(text).code == "gm_only"


def test_numbers_must_be_whole() -> None:
    error = refused("health g1 lots", GM)
    assert error.code == "bad_number"
    assert error.message == "health must be a whole number, not 'lots'"
    assert refused("rewind", GM).code == "missing_argument"
    assert refused("declare move 1;0").code == "bad_cell"


# --- raw, help, quit, spectators --------------------------------------------------------


def test_raw_sends_any_command_map_as_it_is() -> None:
    assert command('raw {"type": "SetMana", "combatant": "corvin", "mana": 12}', GM) == {
        "type": "SetMana",
        "combatant": "corvin",
        "mana": 12,
    }
    assert refused("raw {not json", GM).code == "bad_json"
    assert refused('raw ["type"]', GM).code == "bad_json"


def test_raw_after_as_keeps_its_json() -> None:
    assert command('as g1 raw {"type": "Face", "actor": "g1", "facing": 4}', GM) == {
        "type": "Face",
        "actor": "g1",
        "facing": 4,
    }


def test_screen_side_words() -> None:
    assert parse("", AYLA) == Nothing()
    assert parse("   ", AYLA) == Nothing()
    assert parse("quit", AYLA) == Quit()
    assert parse("look", AYLA) == Look()
    shown = parse("help", GM)
    assert isinstance(shown, ShowHelp) and "rewind <seq>" in shown.text


def test_spectators_only_watch() -> None:
    spectator = Context("spectator")
    assert parse("help", spectator) == ShowHelp(
        "You are watching: the fight prints as it happens. look: the fight now; quit: leave."
    )
    for text in ("pause", "declare attack g1", 'raw {"type": "Pause", "by": "gm"}'):
        assert refused(text, spectator).code == "read_only"


def test_unknown_words_and_bad_quotes() -> None:
    assert refused("dance").code == "unknown_command"
    assert refused("declare juggle g1").code == "unknown_action"
    assert refused('declare cast "Magic Missile').code == "bad_quotes"


# --- found at a game night ---------------------------------------------------------------


def test_declare_turn_n_pass_declares_that_turn_empty_as_the_prompt_suggests() -> None:
    """The planning prompt says `declare turn 2 <action> ... still needed ..., or pass`:
    `declare turn 2 pass` is that turn doing nothing (an empty Declare, V20)."""
    corvin = Context("player", ("corvin",))
    empty = {"type": "Declare", "actor": "corvin", "actions": [], "turn": 1}
    assert command("declare turn 2 pass", corvin) == empty
    assert command("declare turn 2 PASS", corvin) == empty
    assert command("declare pass", corvin) == {**empty, "turn": 0}
    assert refused("declare turn 2", corvin).code == "missing_argument"


def test_the_gm_ends_the_fight_and_gives_or_removes_conditions() -> None:
    dead_g1 = replace(
        GM, fight={"combatants": {"g1": {"conditions": [{"$type": "Condition", "name": "Dead"}]}}}
    )
    assert command("end combat", GM) == {"type": "EndCombat"}
    assert command("end combat agreed", GM) == {"type": "EndCombat", "agreed": True}
    assert refused("end combat now", GM).code == "bad_argument"
    assert command("condition g1 Stunned 2", GM) == {
        "type": "SetCondition",
        "combatant": "g1",
        "condition": "Stunned",
        "rounds": 2,
    }
    assert command("condition g1 dead", GM) == {  # the engine's name, not another one
        "type": "SetCondition",
        "combatant": "g1",
        "condition": "Dead",
        "rounds": None,
    }
    assert command("condition g1 knocked out 1", GM)["condition"] == "Knocked Out"
    assert command('condition g1 "Knocked Out"', GM)["condition"] == "Knocked Out"
    assert command("condition g1 Cursed", GM)["condition"] == "Cursed"  # the GM's own
    assert command("uncondition g1 dead", dead_g1) == {
        "type": "RemoveCondition",
        "combatant": "g1",
        "condition": "Dead",
    }
    assert refused("condition g1", GM).code == "missing_argument"
    assert refused("condition g1 2", GM).code == "missing_argument"  # rounds, but of what?
    assert refused("uncondition g1", GM).code == "missing_argument"
    for text in ("end combat", "end combat agreed", "condition ayla Dead", "uncondition ayla Dead"):
        assert refused(text).code == "gm_only"
    assert command("end") == {"type": "EndTurn", "actor": "ayla"}  # a player's own end
    shown = parse("help", GM)
    assert isinstance(shown, ShowHelp)
    for words in ("end combat", "condition <combatant> <condition> [rounds]", "uncondition"):
        assert words in shown.text


def test_a_health_override_tells_the_gm_what_it_leaves_alone() -> None:
    """Health and the Dead condition are kept apart by the engine (GM overrides): `health
    g1 0` does not kill, `health g1 5` does not raise the dead. The GM is told how."""
    alive = replace(GM, fight={"combatants": {"g1": {"conditions": []}}})
    dead = replace(GM, fight={"combatants": {"g1": {"conditions": [{"name": "Dead"}]}}})
    assert advice(command("health g1 0", alive), alive) == (
        "health 0 is not Dead: g1 stays in the fight until you add the condition "
        "(condition g1 Dead)"
    )
    assert advice(command("health g1 5", dead), dead) == (
        "g1 stays Dead until you remove the condition (uncondition g1 Dead)"
    )
    assert advice(command("health g1 5", alive), alive) is None
    assert advice(command("health g1 0", dead), dead) is None
    assert advice(command("skip", GM), GM) is None


def test_help_says_a_move_lists_every_step() -> None:
    """`move 2,0` is one step to 2,0, not a destination: every adjacent cell is listed."""
    for context in (AYLA, GM):
        shown = parse("help", context)
        assert isinstance(shown, ShowHelp)
        assert "lists every step, one adjacent cell after another" in shown.text
        assert "declare move 1,0 2,0" in shown.text
    assert "every step, one adjacent cell" in refused("declare move").message


# --- an answer is for the window whose prompt was seen (game night: late answers) ----------

WINDOW_7 = OpenWindow(7, "reaction", "corvin", {"g1": ("dodge", "block")}, closed="expired")
WINDOW_8 = OpenWindow(8, "reaction", "ayla", {"g1": ("dodge", "block")})


def test_a_late_answer_to_a_closed_window_is_refused_not_sent_to_the_open_one() -> None:
    """The GM saw window 7 ask g1; it expired while `as g1 block` was typed, and window
    8 (another attack on g1) is open: the answer was for window 7."""
    late = replace(GM, window=WINDOW_8, seen={"g1": WINDOW_7})
    error = refused("as g1 block", late)
    assert (error.code, error.combatant) == ("window_closed", "g1")
    assert error.message == (
        "window 7, the last shown asking g1, has closed (expired): nothing sent"
    )
    assert refused("as g1 pass", late).code == "window_closed"
    assert refused("as g1 counter", late).code == "window_closed"
    seen = replace(late, seen={"g1": WINDOW_8})  # window 8's prompt was read: it is for 8
    assert command("as g1 block", seen)["window"] == 8
    assert command("as g1 pass", replace(late, seen={}))["window"] == 8  # never prompted


def test_a_players_late_pass_does_not_pass_the_next_planning_window() -> None:
    reaction = OpenWindow(4, "reaction", "g2", {"bram": ("dodge", "block")}, closed="expired")
    planning = OpenWindow(5, "planning", "", {"bram": ("declare",), "g1": ("declare",)})
    bram = Context("player", ("bram",), window=planning, seen={"bram": reaction})
    error = refused("pass", bram)
    assert (error.code, error.combatant) == ("window_closed", "bram")
    assert "window 4" in error.message
    assert command("pass", replace(bram, seen={"bram": planning})) == {
        "type": "PassWindow",
        "actor": "bram",
        "window": 5,
    }


def test_a_counter_strikes_the_subject_of_the_window_it_answers() -> None:
    """The window seen, not the one open, says whom a bare counter strikes."""
    seen = OpenWindow(3, "counter", "g2", {"ayla": ("counter",)})
    ayla = Context(
        "player", ("ayla",), window=OpenWindow(3, "counter", "g2", {}), seen={"ayla": seen}
    )
    assert command("counter", ayla)["action"]["target"] == "g2"


def test_a_declaration_for_a_planning_window_that_closed_is_refused() -> None:
    """A `Declare` carries no window id: the server would take a late one into the next
    round's planning window."""
    closed = OpenWindow(1, "planning", "", {"ayla": ("declare",)}, closed="closed by the GM")
    now = OpenWindow(2, "planning", "", {"ayla": ("declare",)})
    ayla = Context("player", ("ayla",), window=now, seen={"ayla": closed})
    for text in ("declare attack g1 longsword", "declare pass", "hold", "withdraw"):
        error = refused(text, ayla)
        assert (error.code, error.combatant) == ("window_closed", "ayla"), text
    assert command("declare attack g1", replace(ayla, seen={"ayla": now}))["type"] == "Declare"
    reaction = OpenWindow(9, "reaction", "g1", {"ayla": ("dodge",)}, closed="answered")
    assert command("declare attack g1", replace(ayla, seen={"ayla": reaction}))["type"] == (
        "Declare"  # a reaction seen last: the declaration is for the planning window open
    )


# --- the GM's roster and the words for GM commands ----------------------------------------------


def test_the_gm_adds_a_combatant_from_a_sheet_file_and_removes_one() -> None:
    assert parse("add goblin.toml g3 goblins 2,1", GM) == AddFromSheet(
        "goblin.toml", "g3", "goblins", {"$type": "Cell", "x": 2, "y": 1}
    )
    assert parse("add 'my sheets/orc.toml' o1 orcs 0,4 6", GM) == AddFromSheet(
        "my sheets/orc.toml", "o1", "orcs", {"$type": "Cell", "x": 0, "y": 4}, 6
    )
    assert refused("add goblin.toml g3", GM).code == "missing_argument"
    assert refused("add goblin.toml g3 goblins two", GM).code == "bad_cell"
    assert command("remove g2", GM) == {"type": "RemoveCombatant", "combatant": "g2"}
    assert command("recover corvin spear", GM) == {
        "type": "RecoverItem",
        "combatant": "corvin",
        "item": "spear",
    }
    assert parse("plays g1 g2", GM) == Plays(("g1", "g2"))


def test_the_gm_approves_a_counter_or_a_quick_response_without_the_feat() -> None:
    assert command("approve bram counter", GM) == {
        "type": "ApproveFeat",
        "combatant": "bram",
        "kind": "counter",
    }
    assert command("unapprove bram quick", GM) == {
        "type": "WithdrawApproval",
        "combatant": "bram",
        "kind": "quick_response",
    }
    assert refused("approve bram dodge", GM).code == "bad_argument"
    assert refused("approve bram", GM).code == "missing_argument"
    assert refused("approve bram counter").code == "gm_only"


def test_a_player_is_told_what_a_gm_command_does() -> None:
    """Game night: `? only the GM may health (gm_only)`."""
    assert refused("health g1 5").message == (
        "only the GM may set a combatant's health ('health' is a GM command)"
    )
    assert refused("remove g1").message == (
        "only the GM may remove a combatant ('remove' is a GM command)"
    )
    assert refused("start").message == "only the GM may start the fight ('start' is a GM command)"
    assert refused("plays ayla").code == "gm_only"


def test_help_says_which_initiative_each_declared_turn_is() -> None:
    shown = parse("help", AYLA)
    assert isinstance(shown, ShowHelp)
    assert (
        "turn 1 is the\n    one at your highest initiative, turn 2 the one at your lower"
        in shown.text
    )
    gm_help = parse("help", GM)
    assert isinstance(gm_help, ShowHelp)
    for words in ("add <sheet file> <id> <side> <x,y> [facing]", "remove <combatant>", "plays"):
        assert words in gm_help.text


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
    error = refused(text, GM)
    assert error.code == "not_in_verse"
    verb = text.split()[0]
    assert error.message.startswith(f"'{verb}' is a World of Tael GM command;"), error
    assert instead in error.message
