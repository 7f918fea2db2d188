"""The held table drawn for the terminal: what the GM, a player and a spectator read,
roll cards as each may see them (R77), numbered choices, and a ruleset nobody told the
client about. Every message is checked against the contract first (`kept`)."""

from __future__ import annotations

from typing import Any

from clients.table import HeldTable
from clients.table_screen import details_lines, draw, log_lines, roll_card
from protocol.messages import Choices, Table, Update
from protocol.table import LogLine, RollCard
from tests.clients.test_table import card, choices, gm_view, held_at, hp, kept, update

Data = dict[str, Any]


def held(view: Data, seq: int = 10) -> HeldTable:
    return held_at(seq, kept(Table, {"type": "table", "seq": seq, "view": view})["view"])


def player_view() -> Data:
    """The fight as a player of the heroes sees it: its side's numbers, the goblin's
    health as a word, no initiative of the goblin's."""
    view = gm_view()
    del view["combatants"]["g1"]["health"]
    del view["order"][1]["initiative"]
    return view


def spectator_view() -> Data:
    """The fight as a spectator sees it: no side's numbers."""
    view = player_view()
    for each in view["combatants"].values():
        each.pop("health", None)
        each.pop("mana", None)
    view["order"] = [{"combatant": slot["combatant"]} for slot in view["order"]]
    return view


def screen(view: Data, mine: tuple[str, ...] = ()) -> list[str]:
    return draw(held(view), mine)


# --- what each audience reads ---------------------------------------------------------------


def test_the_gm_reads_every_number() -> None:
    assert screen(gm_view()) == [
        "Round 2  combat  live  turn: Ayla (ayla)",
        "Order: [Ayla 17], Goblin 12, Bram 9",
        "  Ayla (ayla)  heroes  (3, 4)  health 12/20  mana 5/8  prone (2 rounds), blessed"
        "  hands: longsword, shield  notes: holding",
        "  Bram (bram)  heroes  (4, 4)  health 18/18",
        "  Goblin (g1)  goblins  (6, 5)  ascension 10  health 3/9",
    ]


def test_a_player_reads_its_sides_numbers_and_a_foes_health_word() -> None:
    lines = screen(player_view(), mine=("ayla",))
    assert lines[1] == "Order: [Ayla 17], Goblin, Bram 9"
    assert lines[2].startswith("* Ayla (ayla)  heroes  (3, 4)  health 12/20  mana 5/8")
    assert lines[3] == "  Bram (bram)  heroes  (4, 4)  health 18/18"
    assert lines[4] == "  Goblin (g1)  goblins  (6, 5)  ascension 10  health bloodied"


def test_a_spectator_reads_words_and_no_number_of_anyone() -> None:
    lines = screen(spectator_view())
    assert lines[1] == "Order: [Ayla], Goblin, Bram"
    assert lines[2].startswith("  Ayla (ayla)  heroes  (3, 4)  health wounded  prone")
    assert lines[3] == "  Bram (bram)  heroes  (4, 4)  health unhurt"
    assert lines[4] == "  Goblin (g1)  goblins  (6, 5)  ascension 10  health bloodied"
    assert not any("/" in line or "mana" in line for line in lines)


def test_the_header_says_the_pause_the_end_and_who_declared() -> None:
    view = gm_view()
    view.update(paused_by="bram", declared=["ayla", "g1"], mode="turn_based")
    assert screen(view)[:3] == [
        "Round 2  combat  turn based  turn: Ayla (ayla)  paused by Bram",
        "Order: [Ayla 17], Goblin 12, Bram 9",
        "Declared: Ayla, Goblin",
    ]
    view.update(paused_by="gm", phase="ended", turn="", result="The heroes win.", order=[])
    assert screen(view)[:2] == [
        "Round 2  ended  turn based  paused by the GM  result: The heroes win.",
        "Order: none yet",
    ]
    assert draw(HeldTable()) == ["(no table yet)"]


def test_a_fallen_mounted_combatant_with_things_dropped_and_broken() -> None:
    view = gm_view()
    view["combatants"]["g1"].update(
        active=False, mounted_on="bram", dropped=["spear"], broken=["buckler"], ascension=0
    )
    assert screen(view)[4] == (
        "  Goblin (g1)  goblins  (6, 5)  on Bram  health 3/9  out of the fight"
        "  dropped: spear  broken: buckler"
    )


def test_the_open_window_says_whom_it_waits_on_as_answers_come() -> None:
    view = gm_view()
    view["window"] = {
        "id": 4,
        "kind": "reaction",
        "about": "g1",
        "asked": ["ayla", "bram"],
        "seconds": 8.0,
    }
    table_ = held(view)
    assert draw(table_)[-1] == "reaction window about Goblin (g1), waiting on: Ayla, Bram"
    answer = {"op": "add", "path": "/window/answered", "value": ["ayla", "bram"]}
    table_.take(update(10, 11, answer))
    assert draw(table_)[-1] == "reaction window about Goblin (g1), waiting on: nobody"


# --- roll cards ----------------------------------------------------------------------------


def roll(**fields: Any) -> Data:
    return kept(RollCard, {"label": "attack", "by": "g1", **fields})


D20 = [{"sides": 20, "faces": [14]}]
PD = {"name": "PD", "value": 15}
MODS = [{"name": "Strength", "value": 3}, {"name": "Training", "value": 2}]


def test_a_roll_reads_whole_by_its_faces_or_hidden_as_the_audience_may_see_it() -> None:
    names = held(gm_view()).name_of
    whole = roll(dice=D20, modifiers=MODS, total=19, against=PD, outcome="hit")
    faces = roll(dice=D20, against={"name": "PD"}, outcome="hit")
    hidden = roll(against={"name": "PD"}, outcome="hit")
    assert roll_card(whole, names) == (
        "attack by Goblin: d20 14 + Strength 3 + Training 2 = 19 vs PD 15: hit"
    )
    assert roll_card(faces, names) == "attack by Goblin: d20 14 (modifiers hidden) vs PD: hit"
    assert roll_card(hidden, names) == "attack by Goblin: a hidden roll vs PD: hit"


def test_critical_dice_subtracted_dice_and_a_roll_of_nobody_in_particular() -> None:
    names = held(gm_view()).name_of
    damage = roll(
        label="damage",
        dice=[{"sides": 6, "faces": [3, 5]}, {"sides": 4, "faces": [2], "negative": True}],
        multiplier=2,
        modifiers=[{"name": "Prone", "value": -2}],
        total=10,
    )
    assert roll_card(damage, names) == "damage by Goblin: 2x(2d6 3+5 - d4 2) - Prone 2 = 10"
    weather = kept(RollCard, {"label": "storm", "multiplier": 2})
    assert roll_card(weather, names) == "storm: a hidden roll (x2)"


def test_a_log_line_reads_its_text_then_its_roll_cards() -> None:
    logged = kept(
        LogLine,
        {
            "seq": 11,
            "kind": "AttackRolled",
            "text": "Goblin attacks Ayla with a scimitar.\nAyla is hit.",
            "rolls": [roll(dice=D20, outcome="hit"), roll(label="damage", outcome="")],
        },
    )
    assert log_lines(logged, held(player_view()).name_of) == [
        "Goblin attacks Ayla with a scimitar.",
        "Ayla is hit.",
        "    attack by Goblin: d20 14 (modifiers hidden): hit",
        "    damage by Goblin: a hidden roll",
    ]


# --- choices --------------------------------------------------------------------------------


def option(key: str, label: str, *holes: Data) -> Data:
    return {"key": key, "label": label, "command": {"type": key.title()}, "holes": list(holes)}


def hole(label: str, *pairs: tuple[str, str]) -> Data:
    options = [{"value": value, "label": text} for value, text in pairs]
    return {"path": f"/{label}", "label": label, "options": options}


def test_choices_are_numbered_on_one_line_when_nothing_is_to_fill_in() -> None:
    table_ = held(player_view())
    seat = {
        "combatant": "ayla",
        "window": 4,
        "options": [option("dodge", "Dodge"), option("block", "Block"), option("pass", "Pass")],
    }
    table_.take(choices(10, seat, {"combatant": "bram"}))
    assert draw(table_, mine=("ayla", "bram"))[-4:] == [
        "Ayla (ayla) may:",
        "  1. Dodge  2. Block  3. Pass",
        "Bram (bram) may:",
        "  nothing to choose now",
    ]


def test_holes_are_listed_as_numbered_options_under_their_choice() -> None:
    table_ = held(player_view())
    attack = option(
        "attack",
        "Attack",
        hole("target", ("g1", "Goblin (g1)"), ("o1", "Orc (o1)")),
        hole("weapon", ("longsword", "longsword")),
    )
    seat = {
        "combatant": "ayla",
        "compose": {
            "label": "Declare",
            "command": {"type": "Declare", "actor": "ayla", "actions": []},
            "into": "/actions",
            "most": 2,
        },
        "options": [attack, option("hold", "Hold")],
    }
    table_.take(kept(Choices, {"type": "choices", "seq": 10, "seats": [seat]}))
    assert draw(table_)[-6:] == [
        "Ayla (ayla) may:",
        "  Declare: pick up to 2",
        "  1. Attack",
        "       target: 1) Goblin (g1)  2) Orc (o1)",
        "       weapon: 1) longsword",
        "  2. Hold",
    ]


# --- a ruleset the client has never heard of --------------------------------------------------


def test_a_ruleset_unknown_to_the_client_draws_from_what_the_server_wrote() -> None:
    view = gm_view("test-skirmish")
    view["combatants"] = {
        "k1": card(
            "k1",
            "Kestrel",
            "wind",
            0,
            0,
            health=hp(4, 4),
            health_word="gusty",
            conditions=[{"name": "becalmed", "rounds_left": 1}],
            notes=["tacking 2/3", "sail: furled"],
            details=[["Knots", "12"], ["Rigging", "square"]],
        )
    }
    view.update(turn="k1", order=[{"combatant": "k1"}], mode="broadside")
    table_ = held(view)
    table_.take(
        kept(
            Update,
            {
                "type": "update",
                "from_seq": 10,
                "seq": 11,
                "patch": [{"op": "replace", "path": "/combatants/k1/health", "value": hp(2, 4)}],
                "log": [
                    {
                        "seq": 11,
                        "kind": "GustRolled",
                        "text": "A gust fills Kestrel's sails.",
                        "rolls": [
                            roll(
                                label="gust",
                                by="k1",
                                dice=[{"sides": 12, "faces": [9]}],
                                modifiers=[{"name": "Luff", "value": -1}],
                                total=8,
                                against={"name": "Calm", "value": 7},
                                outcome="billows",
                            )
                        ],
                    }
                ],
            },
        )
    )
    assert draw(table_, mine=("k1",)) == [
        "Round 2  combat  broadside  turn: Kestrel (k1)",
        "Order: [Kestrel]",
        "* Kestrel (k1)  wind  (0, 0)  health 2/4  becalmed (1 round)"
        "  notes: tacking 2/3, sail: furled",
    ]
    assert details_lines(table_.combatant("k1")) == ["Knots: 12", "Rigging: square"]
    assert log_lines(table_.log[-1], table_.name_of) == [
        "A gust fills Kestrel's sails.",
        "    gust by Kestrel: d12 9 - Luff 1 = 8 vs Calm 7: billows",
    ]
