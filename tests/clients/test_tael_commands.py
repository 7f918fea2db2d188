"""Typed lines in a World of Tael room become Tael's engine commands, without a network.

A line is read against the choices the server offers (`clients/matching.py`) for the
sample Tael fight reached by commands (`offers.py`, seed 6: the cultist, the bandit,
then Kaelen); each command is read back by the server's reader of a Tael room, so a
line never builds a command the server would not take. Tael adds only words
(`clients/tael_words.py`): `offhand`, `check`, `hp`, `status`, `skip`...
"""

from __future__ import annotations

from typing import Any

from clients.commands import ActAs, Command, Context, OpenWindow, ShowHelp, parse
from server.engine.rulesets.tael.attacks import AttackAction
from server.engine.rulesets.tael.overrides import SetStatus
from server.engine.rulesets.tael.preparations import Prepare
from server.engine.turns import EndTurn, StartCombat
from tests.clients.offers import encounter, gm, player, run

TURN = run(encounter("tael-ambush.toml", seed=6), StartCombat(), EndTurn(""), EndTurn(""))
KAELEN = player(TURN, "kaelen")  # his Action Phase (T2)
GM = gm(TURN)
PREPARING = run(TURN, EndTurn("kaelen"))  # his Preparation Phase
RIPOSTE = run(  # round 2: the bandit attacks him, his Riposte announced
    PREPARING,
    Prepare("kaelen", "Riposte"),
    *(EndTurn("") for _ in range(3)),
    AttackAction("bandit", "kaelen", "hand axe"),
)


def refusal(screen: Any, text: str) -> tuple[str, str]:
    error = screen.refused(text)
    return error.code, error.message


# --- the Action Phase (T2-T9) -----------------------------------------------------------


def test_an_attack_with_the_weapon_in_hand_or_a_named_one() -> None:
    assert KAELEN.command("attack bandit") == {
        "type": "AttackAction",
        "actor": "kaelen",
        "target": "bandit",
        "weapon": "longsword",  # the first offered: the main hand's
        "off_hand": False,
    }
    assert KAELEN.command("attack bandit parrying dagger")["weapon"] == "parrying dagger"
    assert KAELEN.command('attack "parrying dagger" bandit')["weapon"] == "parrying dagger"
    assert refusal(KAELEN, "attack") == ("missing_argument", "attack: target? bandit, tobin")
    assert refusal(KAELEN, "attack mira") == (
        "no_such_choice",
        "no 'mira' to attack: targets are bandit, tobin",
    )


def test_the_other_hand_follows_an_attack() -> None:
    """T5: once he has attacked, the off hand's attack is offered, `offhand` for short."""
    attacked = run(TURN, AttackAction("kaelen", "bandit", "longsword"))
    if attacked.window is not None:  # the bandit's answer (its Shield Up): it lets it go
        from server.engine.stack import PassWindow

        attacked = run(attacked, PassWindow("bandit", attacked.window.id))
    assert player(attacked, "kaelen").command("offhand bandit") == {
        "type": "AttackAction",
        "actor": "kaelen",
        "target": "bandit",
        "weapon": "",
        "off_hand": True,
    }


def test_moving_tile_by_tile_or_to_where_it_ends() -> None:
    steps = [{"$type": "Cell", "x": 0, "y": -1}, {"$type": "Cell", "x": 0, "y": -2}]
    assert KAELEN.command("move 0,-1 0,-2") == {
        "type": "MoveTiles",
        "actor": "kaelen",
        "path": steps,
    }
    assert KAELEN.command("move 0,-2")["path"][-1] == steps[-1]
    assert refusal(KAELEN, "move 1,0")[0] == "no_such_choice"  # the bandit stands there


def test_the_generic_actions() -> None:
    for verb in ("dash", "sprint", "brace", "hide"):
        assert KAELEN.command(verb) == {"type": verb.capitalize(), "actor": "kaelen"}
    assert refusal(KAELEN, "dash twice") == ("too_many_arguments", "dash takes nothing more: dash")
    assert KAELEN.command("stance Tanking") == {
        "type": "ChooseStance",
        "actor": "kaelen",
        "stance": "tanking",
    }
    assert refusal(KAELEN, "stance defensive") == (
        "no_such_choice",
        "no 'defensive' to stance: stances are tanking",
    )


def test_generic_bonus_actions_spend_an_action_or_with_bonus_the_bonus_action() -> None:
    assert KAELEN.command("check intimidation") == {
        "type": "SkillCheck",
        "actor": "kaelen",
        "skill": "intimidation",
        "as_bonus": False,
    }
    assert KAELEN.command("check intimidation bonus")["as_bonus"] is True
    assert KAELEN.command("surrender") == {
        "type": "Surrender",
        "actor": "kaelen",
        "as_bonus": False,
    }
    assert KAELEN.command("surrender bonus")["as_bonus"] is True


def test_end_closes_the_action_phase_and_nothing_is_declared() -> None:
    assert KAELEN.command("end") == {"type": "EndTurn", "actor": "kaelen"}
    assert refusal(KAELEN, "end combat")[0] == "gm_only"
    code, message = refusal(KAELEN, "declare attack bandit")
    assert (code, message.split(":")[0]) == ("not_offered", "nothing to declare now")
    code, message = refusal(KAELEN, "dodge")  # Verse's word: not offered here
    assert code == "not_offered"
    assert message.startswith("no 'dodge' now: kaelen may attack, move, dash, sprint, brace, ")


def test_help_with_a_name_is_the_help_action_when_offered() -> None:
    """T8: `help mira` helps a fainted ally up; `help` alone is the program's help."""
    helping = {
        "key": "help",
        "label": "Help up",
        "command": {"type": "Help", "actor": "kaelen", "target": None},
        "holes": [
            {"path": "/target", "label": "ally", "options": [{"value": "mira", "label": "Mira"}]}
        ],
    }
    kaelen = Context(
        "player",
        ("kaelen",),
        ruleset="tael",
        choices={"kaelen": {"combatant": "kaelen", "options": [helping]}},
    )
    assert parse("help mira", kaelen) == Command(
        {"type": "Help", "actor": "kaelen", "target": "mira"}
    )
    assert isinstance(parse("help", kaelen), ShowHelp)
    assert isinstance(parse("help tobin", kaelen), ShowHelp)  # not offered: the help


# --- the Preparation Phase and reaction windows (T2) ------------------------------------


def test_prepare_announces_a_move_by_its_name() -> None:
    preparing = player(PREPARING, "kaelen")
    assert preparing.command("prepare Riposte") == {
        "type": "Prepare",
        "actor": "kaelen",
        "move": "Riposte",
    }
    assert preparing.command("prepare riposte")["move"] == "Riposte"
    assert preparing.command("prepare")["move"] == "Riposte"  # his only move fills itself
    assert refusal(preparing, "prepare Flame Ward")[0] == "no_such_choice"


def test_typing_an_offered_move_answers_the_window_with_it() -> None:
    kaelen = player(RIPOSTE, "kaelen")
    answer = kaelen.command("riposte")
    assert (answer["type"], answer["option"], answer["window"]) == ("Answer", "Riposte", 1)
    assert answer["action"] == {
        "$type": "PreparedStrike",
        "actor": "kaelen",
        "target": "bandit",
        "weapon": "longsword",  # the main hand's, when none is named
    }
    assert kaelen.command("use Riposte") == answer
    tobin = player(RIPOSTE, "tobin")
    assert tobin.command("covering shot")["option"] == "Covering Shot"
    assert kaelen.command("pass") == {"type": "PassWindow", "actor": "kaelen", "window": 1}


def test_a_strike_back_may_name_another_weapon_in_hand() -> None:
    answer = player(RIPOSTE, "kaelen").command("riposte with parrying dagger")
    assert answer["action"]["weapon"] == "parrying dagger"


def test_a_move_the_window_does_not_offer_is_refused_with_what_it_does() -> None:
    assert refusal(player(RIPOSTE, "kaelen"), "use Flame Ward") == (
        "not_offered",
        "no 'use' now: kaelen may riposte or pass",
    )


def test_a_late_move_for_a_window_that_closed_is_refused() -> None:
    """Kaelen saw window 0 offer Riposte; it expired as he typed `riposte`, and window 1
    (the next attack on him) is open: his answer was for window 0, and is not sent."""
    closed = OpenWindow(0, "reaction", "cultist", {"kaelen": ("Riposte",)}, closed="expired")
    late = player(RIPOSTE, "kaelen").seeing({"kaelen": closed})
    for text in ("riposte", "use Riposte", "riposte with parrying dagger", "pass"):
        error = late.refused(text)
        assert (error.code, error.combatant) == ("window_closed", "kaelen"), text
        assert error.message.startswith("window 0, the last shown asking kaelen, has closed")


# --- the GM -----------------------------------------------------------------------------


def test_the_gm_runs_the_fight() -> None:
    assert GM.command("start") == {"type": "StartCombat"}
    assert GM.command("skip") == {"type": "EndTurn", "actor": ""}  # whoever's turn it is
    assert GM.command("end combat") == {"type": "EndCombat"}
    assert GM.command("end combat agreed") == {"type": "EndCombat", "agreed": True}  # T10
    assert GM.command("hp bandit 5") == {
        "type": "SetHitPoints",
        "combatant": "bandit",
        "hit_points": 5,
    }
    assert GM.command("health bandit 3")["type"] == "SetHitPoints"  # taken as `hp` here
    assert GM.command("pause") == {"type": "Pause", "by": "gm"}
    assert GM.command("rewind 12") == {"type": "Rewind", "to_version": 12}
    assert refusal(GM, "hp bandit lots") == (
        "bad_number",
        "hit points must be a whole number, not 'lots'",
    )
    assert refusal(GM, "end")[0] == "who_acts"  # whose turn ends: as <combatant> end
    burning = gm(run(TURN, SetStatus("tobin", "Burning", 2)))
    assert burning.command("remove-status tobin Burning") == {
        "type": "RemoveStatus",
        "combatant": "tobin",
        "status": "Burning",
    }


def test_the_gm_lays_a_status_it_rules() -> None:
    assert GM.command("status bandit Frozen 2 skips") == {
        "type": "SetStatus",
        "combatant": "bandit",
        "status": "Frozen",
        "turns": 2,
        "damage": "",
        "skips_turn": True,
    }
    burning = GM.command("status tobin Holy Fire 3 1d4")
    assert (burning["status"], burning["turns"], burning["damage"]) == ("Holy Fire", 3, "1d4")
    assert not burning["skips_turn"]
    assert refusal(GM, "status bandit Frozen two")[0] == "bad_number"
    assert refusal(GM, "status bandit Frozen")[0] == "missing_argument"
    assert refusal(GM, "status bandit 2")[0] == "missing_argument"
    assert refusal(KAELEN, "status bandit Frozen 2")[0] == "gm_only"


def test_a_bad_word_after_a_status_s_turns_is_named_not_taken_for_the_turns() -> None:
    """Game night 2: `status bandit Frozen 2 1x4` blamed the turns, though the dice were
    wrong; a trailing word likewise blamed the turns."""
    code, message = refusal(GM, "status bandit Frozen 2 1x4")
    assert code == "bad_dice"
    assert "'1x4'" in message and "1d4" in message
    code, message = refusal(GM, "status bandit Frozen 2 1d4 skips extra")
    assert code == "too_many_arguments"
    assert message.startswith("'extra' after the turns is neither damage dice nor 'skips'")
    assert GM.command("status bandit Frozen 2 skips 1d4")["damage"] == "1d4"
    assert refusal(GM, "status bandit Frozen x")[1].startswith(
        "turns must be a whole number, not 'x'"
    )


def test_verse_gm_words_say_what_a_tael_room_has_instead() -> None:
    """Game night 2: these answered `say whose action it is (who_acts)`."""
    for text, instead in (
        ("condition bandit Stunned 1", "status <combatant> <status> <turns>"),
        ("uncondition bandit Stunned", "remove-status <combatant> <status>"),
        ("recover kaelen longsword", "pick up <weapon>"),
        ("mana cultist 3", "hp, status and remove-status"),
    ):
        code, message = refusal(GM, text)
        assert code == "not_in_tael"
        assert message.startswith(f"'{text.split()[0]}' is a Verse Chronicles GM command;")
        assert instead in message
    for text in ("remove bandit", "add bandit.toml b2 outlaws 1,1"):
        assert refusal(GM, text) == (
            "not_in_tael",
            "a World of Tael room cannot add or remove combatants (the server takes them in Verse)",
        )


def test_the_gm_plays_its_combatants_with_as() -> None:
    bandit_turn = gm(run(encounter("tael-ambush.toml", seed=6), StartCombat(), EndTurn("")))
    assert bandit_turn.command("as bandit attack kaelen")["actor"] == "bandit"
    assert bandit_turn.command("as bandit end") == {"type": "EndTurn", "actor": "bandit"}
    assert bandit_turn.parse("as bandit") == ActAs("bandit")
    assert gm(RIPOSTE, "tobin").command("covering shot")["option"] == "Covering Shot"


def test_gm_commands_are_the_gms_alone() -> None:
    for text in ("start", "hp bandit 3", "remove-status tobin Burning", "skip", "rewind 3"):
        assert refusal(KAELEN, text)[0] == "gm_only", text


def test_help_lists_tael_s_own_words_and_what_is_offered_now() -> None:
    shown = KAELEN.parse("help")
    assert isinstance(shown, ShowHelp)
    assert "  kaelen: attack [longsword|parrying dagger] <target> | move <tile> | " in shown.text
    assert "check <skill> | " in shown.text and "end" in shown.text
    assert "declare" not in shown.text
    gm_help = GM.parse("help")
    assert isinstance(gm_help, ShowHelp)
    assert "status <combatant> <status> <turns> [<damage dice>] [skips]" in gm_help.text
    assert (
        "the console now: pause | end combat agreed | hp <combatant> <hit points>" in gm_help.text
    )
