"""Typed lines in a World of Tael room become Tael's engine commands (docs/protocol.md,
"World of Tael commands"), without a network; each is read back by the server's own
reader of a Tael room, so a line never builds a command the server would not take."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from clients.commands import (
    ActAs,
    Command,
    CommandError,
    Context,
    OpenWindow,
    ShowHelp,
    parse,
)
from server.engine.core import RULESETS
from server.gateway.commands import CommandReader

KAELEN = Context("player", ("kaelen",), ruleset="tael")
GM = Context("gm", ruleset="tael")
SPECTATOR = Context("spectator", ruleset="tael")
READER = CommandReader(RULESETS["tael"])
RIPOSTE = OpenWindow(5, "reaction", "bandit", {"kaelen": ("Riposte",), "tobin": ("Covering Shot",)})


def command(text: str, context: Context = KAELEN) -> dict[str, Any]:
    parsed = parse(text, context)
    assert isinstance(parsed, Command), parsed
    READER.read(parsed.command)  # the server of a Tael room takes it as it is
    return parsed.command


def refused(text: str, context: Context = KAELEN) -> CommandError:
    with pytest.raises(CommandError) as error:
        parse(text, context)
    return error.value


def in_window(context: Context, window: OpenWindow = RIPOSTE, actor: str = "") -> Context:
    return Context(context.role, context.controls, actor, window, context.ruleset)


# --- the Action Phase (T2-T9) -----------------------------------------------------------


def test_an_attack_with_the_weapon_in_hand_or_a_named_one() -> None:
    assert command("attack bandit") == {
        "type": "AttackAction",
        "actor": "kaelen",
        "target": "bandit",
        "weapon": "",
        "off_hand": False,
    }
    assert command("attack bandit longsword")["weapon"] == "longsword"
    assert command("offhand bandit parrying dagger") == {  # T5; words join into the name
        "type": "AttackAction",
        "actor": "kaelen",
        "target": "bandit",
        "weapon": "parrying dagger",
        "off_hand": True,
    }
    assert refused("attack").code == "missing_argument"


def test_a_spell_names_its_targets() -> None:
    expected = {
        "type": "SpellAction",
        "actor": "kaelen",
        "spell": "Ember Spray",
        "targets": ["bandit", "cultist"],
    }
    assert command("cast Ember Spray at bandit cultist") == expected
    assert command('cast "Ember Spray" bandit cultist') == expected
    assert refused("cast Ignite").code == "missing_argument"


def test_moving_tile_by_tile() -> None:
    assert command("move 1,1 2,1") == {
        "type": "MoveTiles",
        "actor": "kaelen",
        "path": [{"$type": "Cell", "x": 1, "y": 1}, {"$type": "Cell", "x": 2, "y": 1}],
    }
    assert refused("move 1;1").code == "bad_cell"


def test_the_generic_actions() -> None:
    for verb in ("dash", "sprint", "brace", "hide"):
        assert command(verb) == {"type": verb.capitalize(), "actor": "kaelen"}
    assert refused("dash twice").code == "too_many_arguments"
    assert command("help mira") == {"type": "Help", "actor": "kaelen", "target": "mira"}
    assert command("stance Tanking") == {
        "type": "ChooseStance",
        "actor": "kaelen",
        "stance": "tanking",
    }
    assert refused("stance defensive").code == "bad_stance"


def test_generic_bonus_actions_spend_an_action_or_with_bonus_the_bonus_action() -> None:
    assert command("punch bandit") == {
        "type": "Punch",
        "actor": "kaelen",
        "target": "bandit",
        "as_bonus": False,
    }
    assert command("punch bandit bonus")["as_bonus"] is True
    assert command("check intimidation bonus") == {
        "type": "SkillCheck",
        "actor": "kaelen",
        "skill": "intimidation",
        "as_bonus": True,
    }
    assert command("surrender") == {"type": "Surrender", "actor": "kaelen", "as_bonus": False}
    assert command("pick up parrying dagger bonus") == {
        "type": "PickUp",
        "actor": "kaelen",
        "weapon": "parrying dagger",
        "as_bonus": True,
    }
    assert command('equip longsword "parrying dagger" bonus') == {
        "type": "EquipWeapon",
        "actor": "kaelen",
        "main_hand": "longsword",
        "off_hand": "parrying dagger",
        "as_bonus": True,
    }
    assert command("equip - buckler")["main_hand"] == ""
    assert refused("equip a b c").code == "too_many_arguments"


def test_end_closes_the_action_phase() -> None:
    assert command("end") == {"type": "EndTurn", "actor": "kaelen"}
    assert refused("end combat").code == "gm_only"


# --- the Preparation Phase and reaction windows (T2) ------------------------------------


def test_prepare_announces_a_move_by_its_name() -> None:
    assert command("prepare Riposte") == {"type": "Prepare", "actor": "kaelen", "move": "Riposte"}
    tobin = Context("player", ("tobin",), ruleset="tael")
    assert command("prepare Covering Shot", tobin)["move"] == "Covering Shot"
    assert refused("prepare").code == "missing_argument"


def test_typing_an_offered_move_answers_the_window_with_it() -> None:
    assert command("riposte", in_window(KAELEN)) == {
        "type": "Answer",
        "actor": "kaelen",
        "window": 5,
        "option": "Riposte",
        "action": None,
    }
    tobin = Context("player", ("tobin",), window=RIPOSTE, ruleset="tael")
    assert command("covering shot", tobin)["option"] == "Covering Shot"
    assert command("use Riposte", in_window(KAELEN))["option"] == "Riposte"


def test_a_strike_back_may_name_another_weapon_in_hand() -> None:
    answer = command("riposte with parrying dagger", in_window(KAELEN))
    assert answer["action"] == {
        "$type": "PreparedStrike",
        "actor": "kaelen",
        "target": "bandit",
        "weapon": "parrying dagger",
    }


def test_a_move_the_window_does_not_offer_is_refused_before_sending() -> None:
    error = refused("use Flame Ward", in_window(KAELEN))
    assert (error.code, error.message) == ("not_offered", "kaelen may answer window 5 with Riposte")
    assert refused("use Riposte").code == "no_window"


def test_a_late_move_for_a_window_that_closed_is_refused() -> None:
    """Kaelen saw window 5 offer Riposte; it expired as he typed `riposte`, and window 6
    (the next attack on him) is open: his answer was for window 5, and is not sent."""
    closed = replace(RIPOSTE, closed="expired")
    now = OpenWindow(6, "reaction", "cultist", {"kaelen": ("Riposte",)})
    late = replace(KAELEN, window=now, seen={"kaelen": closed})
    for text in ("riposte", "use Riposte", "riposte with parrying dagger", "pass"):
        error = refused(text, late)
        assert (error.code, error.combatant) == ("window_closed", "kaelen"), text
        assert error.message.startswith("window 5, the last shown asking kaelen, has closed")
    assert command("riposte", replace(late, seen={"kaelen": now}))["window"] == 6


def test_a_tael_gm_cannot_add_or_remove_combatants() -> None:
    """The server takes AddCombatant and RemoveCombatant in Verse rooms only."""
    for text in ("remove bandit", "add bandit.toml b2 outlaws 1,1"):
        assert refused(text, GM).code == "not_in_tael"
    assert refused("remove bandit").code == "gm_only"


def test_pass_lets_the_window_go_by() -> None:
    assert command("pass", in_window(KAELEN)) == {
        "type": "PassWindow",
        "actor": "kaelen",
        "window": 5,
    }


def test_verse_words_say_tael_is_played_turn_by_turn() -> None:
    for text in ("declare attack bandit", "dodge", "counter", "hold attack bandit"):
        error = refused(text, in_window(KAELEN))
        assert error.code == "unknown_command"
        assert "World of Tael is played turn by turn" in error.message
    assert refused("juggle").code == "unknown_command"


# --- the GM -----------------------------------------------------------------------------


def test_the_gm_runs_the_fight() -> None:
    assert command("start", GM) == {"type": "StartCombat"}
    assert command("end", GM) == {"type": "EndTurn", "actor": ""}  # whoever's turn it is
    assert command("skip", GM) == {"type": "EndTurn", "actor": ""}
    assert command("end combat", GM) == {"type": "EndCombat"}
    assert command("end combat agreed", GM) == {"type": "EndCombat", "agreed": True}  # T10
    assert refused("end combat now", GM).code == "bad_argument"
    assert command("hp bandit 5", GM) == {
        "type": "SetHitPoints",
        "combatant": "bandit",
        "hit_points": 5,
    }
    assert command("remove-status tobin Burning", GM) == {
        "type": "RemoveStatus",
        "combatant": "tobin",
        "status": "Burning",
    }
    assert command("close", in_window(GM)) == {"type": "CloseWindow", "window": 5}
    assert command("pause", GM) == {"type": "Pause", "by": "gm"}
    assert command("rewind 12", GM) == {"type": "Rewind", "to_version": 12}
    assert refused("hp bandit lots", GM).code == "bad_number"


def test_the_gm_lays_a_status_it_rules() -> None:
    assert command("status bandit Frozen 2 skips", GM) == {
        "type": "SetStatus",
        "combatant": "bandit",
        "status": "Frozen",
        "turns": 2,
        "damage": "",
        "skips_turn": True,
    }
    burning = command("status tobin Holy Fire 3 1d4", GM)
    assert (burning["status"], burning["turns"], burning["damage"]) == ("Holy Fire", 3, "1d4")
    assert not burning["skips_turn"]
    assert refused("status bandit Frozen two", GM).code == "bad_number"
    assert refused("status bandit Frozen", GM).code == "missing_argument"
    assert refused("status bandit 2", GM).code == "missing_argument"
    assert refused("status bandit Frozen 2").code == "gm_only"


def test_a_bad_word_after_a_status_s_turns_is_named_not_taken_for_the_turns() -> None:
    """Game night 2: `status bandit Frozen 2 1x4` said `turns must be a whole number, not
    '1x4'`, though the turns (2) were fine and the dice were wrong; a trailing word
    likewise blamed the turns."""
    bad_dice = refused("status bandit Frozen 2 1x4", GM)
    assert bad_dice.code == "bad_dice"
    assert "'1x4'" in bad_dice.message and "1d4" in bad_dice.message
    assert "turns" not in bad_dice.message.split(":")[0]
    extra = refused("status bandit Frozen 2 1d4 skips extra", GM)
    assert extra.code == "too_many_arguments"
    assert extra.message.startswith("'extra' after the turns is neither damage dice nor 'skips'")
    assert command("status bandit Frozen 2 skips 1d4", GM)["damage"] == "1d4"
    assert refused("status bandit Frozen x", GM).message.startswith(
        "turns must be a whole number, not 'x'"
    )


@pytest.mark.parametrize(
    ("text", "instead"),
    [
        ("condition bandit Stunned 1", "status <combatant> <status> <turns>"),
        ("uncondition bandit Stunned", "remove-status <combatant> <status>"),
        ("recover kaelen longsword", "pick up <weapon>"),
        ("mana cultist 3", "hp, status and remove-status"),
    ],
)
def test_a_verse_gm_command_in_a_tael_room_says_so_and_what_to_type(
    text: str, instead: str
) -> None:
    """Game night 2: these answered `say whose action it is (who_acts)`."""
    error = refused(text, GM)
    assert error.code == "not_in_tael"
    verb = text.split()[0]
    assert error.message.startswith(f"'{verb}' is a Verse Chronicles GM command;"), error
    assert instead in error.message
    assert command("health bandit 3", GM)["type"] == "SetHitPoints"  # taken as `hp` here


def test_a_word_no_tael_room_knows_is_not_taken_for_an_action_of_someone() -> None:
    assert refused("frobnicate bandit", GM).code == "unknown_command"
    assert refused("frobnicate bandit").code == "unknown_command"
    assert refused("attack bandit", GM).code == "who_acts"  # a real action: whose?


def test_the_gm_plays_its_combatants_with_as() -> None:
    assert command("as bandit attack kaelen", GM)["actor"] == "bandit"
    assert command("as bandit end", GM) == {"type": "EndTurn", "actor": "bandit"}
    shield = OpenWindow(2, "reaction", "kaelen", {"bandit": ("Shield Up",)})
    assert command("as bandit shield up", in_window(GM, shield)) == {
        "type": "Answer",
        "actor": "bandit",
        "window": 2,
        "option": "Shield Up",
        "action": None,
    }
    assert parse("as bandit", GM) == ActAs("bandit")


def test_gm_commands_are_the_gms_alone() -> None:
    for text in ("start", "hp bandit 3", "remove-status tobin Burning", "skip", "rewind 3"):
        assert refused(text).code == "gm_only"


def test_help_lists_tael_s_own_words_and_help_with_an_ally_is_the_action() -> None:
    shown = parse("help", KAELEN)
    assert isinstance(shown, ShowHelp)
    assert "prepare <move>" in shown.text and "declare" not in shown.text
    gm_help = parse("help", GM)
    assert isinstance(gm_help, ShowHelp) and "end combat" in gm_help.text
    assert isinstance(parse("help kaelen", SPECTATOR), ShowHelp)  # spectators only watch
    verse = parse("help", Context("player", ("ayla",)))
    assert isinstance(verse, ShowHelp) and "declare" in verse.text
