"""What the terminal program asks of whom, and which window an answer goes to.

Found at two game nights (Verse and Tael, the real clients against a running server):

* an answer typed as a window expired was spent on the next window (the GM's late
  `as g1 block` on the next attack, a player's late `pass` on the next round's
  planning window): an answer is for the window whose prompt was on the screen;
* the GM was never prompted for the GM's own combatants;
* a fainted Tael player was told to act on a turn the same batch of events took away;
* the GM could not add or remove a combatant without writing JSON.

The console runs on the real server; `Clock` stands for the time the person took to
read a prompt and type (`Console.settle`).
"""

from __future__ import annotations

from pathlib import Path

from clients.client import Client
from clients.encounters import read_encounter
from protocol.messages import Ack, Created
from tests.clients.support import (
    ROOT,
    Clock,
    Terminal,
    attack,
    create,
    declare,
    demo_encounter,
    events_of,
)
from tests.support.server import Served, wait_for

GOBLIN = ROOT / "server" / "samples" / "goblin.toml"
CORVIN = ROOT / "server" / "samples" / "corvin.toml"
BRAM = ROOT / "server" / "samples" / "bram.toml"
AMBUSH = ROOT / "server" / "samples" / "encounters" / "tael-ambush.toml"
GOBLIN_ANSWERS = "  1. Dodge  2. Block with scimitar  3. Pass\n"
"""A goblin's choices in a reaction window (V22), as its prompt lists them."""
DECLARE = "  Declare: pick up to 8\n"
"""The first line of a planning prompt's choices (V20)."""


async def sent(client: Client, command: dict[str, object]) -> Ack:
    answer = await client.send(command, timeout=10)
    assert isinstance(answer, Ack), (command, answer)
    return answer


async def two_attacks_on_g1(gm: Client) -> None:
    """Round 1 with seed 7: Corvin's spear, then Ayla's longsword, at the goblin g1;
    each opens a reaction window asking g1 (windows 2 and 3); nobody else acts."""
    await sent(gm, {"type": "StartCombat"})
    await sent(gm, declare("ayla", attack("ayla", "g1", "longsword")))
    await sent(gm, declare("corvin", attack("corvin", "g1", "spear")))
    for who, turn in (("corvin", 1), ("g1", 0), ("g2", 0), ("bram", 0)):
        await sent(gm, declare(who, turn=turn))


# --- 1. a late answer is for the window it was typed for -------------------------------------


async def test_a_late_gm_answer_is_refused_not_spent_on_the_next_attack(
    server: Served, room: Created
) -> None:
    """Window 2 asks g1; it expires (here the GM closes it) and window 3, Ayla's attack
    on g1, opens in the same batch; 0.7 s later the GM's `as g1 block`, typed for
    window 2, arrives. Sent as before it blocked Ayla's attack: it is refused, saying
    window 2 closed, and window 3's prompt is shown; typed again, it is for window 3."""
    clock = Clock()
    async with await Client.connect(server.url, room.gm, keep_events=True) as client:
        gm = Terminal(client, "gm", plays=["g1", "g2"], clock=clock)
        await gm.shows("prompts for: Goblin (g1), Goblin (g2)")
        await two_attacks_on_g1(client)
        await gm.shows(">>> Goblin (g1): [window 2]  (as g1 ...)\n" + GOBLIN_ANSWERS)
        clock.now = 8.0  # window 2 has been on the screen for 8 s
        await sent(client, {"type": "CloseWindow", "window": 2})
        window_3 = ">>> Goblin (g1): [window 3]  (as g1 ...)\n" + GOBLIN_ANSWERS
        await gm.shows(window_3)
        clock.now = 8.7
        gm.keys.type("as g1 block")
        await gm.shows(
            "? window 2, the last shown asking g1, has closed (while you typed): "
            "nothing sent (window_closed)\n"
        )
        await wait_for(lambda: gm.text.count(window_3) == 2)  # the prompt of now, again
        assert not events_of(client, "Answered")
        gm.keys.type("as g1 block")  # now seen: it is for window 3
        await gm.shows("Goblin (g1) answers with block")
        assert [e["window"] for e in events_of(client, "Answered")] == [3]
        assert await gm.quit() == 0


async def test_an_answer_once_the_prompt_was_read_goes_to_the_window_shown(
    server: Served, room: Created
) -> None:
    """The guard costs nothing to an answer typed after the prompt was read."""
    clock = Clock()
    async with await Client.connect(server.url, room.gm, keep_events=True) as client:
        gm = Terminal(client, "gm", plays=["g1", "g2"], clock=clock)
        await two_attacks_on_g1(client)
        await gm.shows("[window 2]  (as g1 ...)")
        await sent(client, {"type": "CloseWindow", "window": 2})
        await gm.shows("[window 3]  (as g1 ...)")
        clock.now = 2.0  # window 3 has been on the screen for 2 s
        gm.keys.type("as g1 dodge")
        await gm.shows("Goblin (g1) answers with dodge")
        assert [e["window"] for e in events_of(client, "Answered")] == [3]
        assert "window_closed" not in gm.text
        assert await gm.quit() == 0


async def test_a_quick_answer_after_answering_the_window_before_is_not_refused(
    server: Served, room: Created
) -> None:
    """g1 let window 2 pass; window 3 asks it next: an answer typed at once can only be
    for window 3 (window 2 has its answer), so it goes there."""
    clock = Clock()
    async with await Client.connect(server.url, room.gm, keep_events=True) as client:
        gm = Terminal(client, "gm", plays=["g1", "g2"], clock=clock)
        await two_attacks_on_g1(client)
        await gm.shows("[window 2]  (as g1 ...)")
        clock.now = 3.0
        gm.keys.type("as g1 pass")  # the only one asked: window 2 closes, window 3 opens
        await gm.shows("[window 3]  (as g1 ...)")
        clock.now = 3.2
        gm.keys.type("as g1 block")
        await gm.shows("Goblin (g1) answers with block")
        assert [e["window"] for e in events_of(client, "Answered")] == [3]
        assert "window_closed" not in gm.text
        assert await gm.quit() == 0


async def test_a_late_pass_does_not_pass_the_next_rounds_planning_window(
    server: Served, room: Created
) -> None:
    """Bram is asked to dodge or block g2's attack; the window expires, the round ends
    and round 2's planning window opens in the same batch; his `pass`, typed for the
    reaction, used to pass round 2's declarations. It is refused; the planning prompt
    is shown; a `pass` typed after it passes the planning window."""
    clock = Clock()
    async with (
        await Client.connect(server.url, room.gm, keep_events=True) as gm,
        await Client.connect(server.url, room.players["bram"], keep_events=True) as playing,
    ):
        bram = Terminal(playing, "play", clock=clock)
        await bram.shows("as player (seat bram, plays bram)")
        await sent(gm, {"type": "StartCombat"})
        await sent(gm, declare("g2", attack("g2", "bram", "scimitar")))
        for who, turn in (("ayla", 0), ("corvin", 0), ("corvin", 1), ("g1", 0), ("bram", 0)):
            await sent(gm, declare(who, turn=turn))
        await bram.shows(
            ">>> Bram (bram): [window 2]\n  1. Dodge  2. Block with quarterstaff  3. Pass\n"
        )
        clock.now = 8.0
        await sent(gm, {"type": "CloseWindow", "window": 2})
        planning = ">>> Bram (bram): [window 3]\n" + DECLARE
        await bram.shows(planning)
        clock.now = 8.5
        bram.keys.type("pass")
        await bram.shows(
            "? window 2, the last shown asking bram, has closed (while you typed): "
            "nothing sent (window_closed)\n"
        )
        await wait_for(lambda: bram.text.count(planning) == 2)
        assert not events_of(playing, "Passed")
        bram.keys.type("declare attack g2 quarterstaff")  # he has read it now
        await bram.shows("Bram declares: attack Goblin (g2) with quarterstaff")
        assert await bram.quit() == 0


async def test_a_late_declaration_is_not_taken_into_the_next_round(
    server: Served, room: Created
) -> None:
    """A declaration carries no window id: typed for round 1's planning window after it
    closed, it would land in round 2's. The planning prompt seen is what counts."""
    clock = Clock()
    async with (
        await Client.connect(server.url, room.gm, keep_events=True) as gm,
        await Client.connect(server.url, room.players["ayla"], keep_events=True) as playing,
    ):
        ayla = Terminal(playing, "play", clock=clock)
        await ayla.shows("as player (seat ayla, plays ayla)")
        await sent(gm, {"type": "StartCombat"})
        await ayla.shows(">>> Ayla (ayla): [window 1]\n" + DECLARE)
        clock.now = 45.0
        await sent(gm, {"type": "CloseWindow", "window": 1})  # nobody declared: round 2
        await ayla.shows(">>> Ayla (ayla): [window 2]\n" + DECLARE)
        clock.now = 45.5
        ayla.keys.type("declare attack g1 longsword")
        await ayla.shows(
            "? planning window 1, the last shown asking ayla, has closed (while you typed): "
            "nothing sent (window_closed)"
        )
        assert not events_of(playing, "DeclarationMade")
        assert await ayla.quit() == 0


async def test_a_fast_answer_to_a_new_window_goes_to_it(server: Served, room: Created) -> None:
    """Game night 2: window 2 asked g1 and expired long ago; the GM answered window 3;
    `as g1 pass` typed 0.5 s after round 2's planning window opened was refused as
    being for window 2. Only a line typed as its window closed is refused: it passes
    the planning window."""
    clock = Clock()
    async with await Client.connect(server.url, room.gm, keep_events=True) as client:
        gm = Terminal(client, "gm", plays=["g1", "g2"], clock=clock)
        await two_attacks_on_g1(client)
        await gm.shows("[window 2]  (as g1 ...)")
        clock.now = 8.0
        await sent(client, {"type": "CloseWindow", "window": 2})  # as if it expired
        await gm.shows("[window 3]  (as g1 ...)")
        clock.now = 10.0
        gm.keys.type("as g1 pass")
        planning = ">>> Goblin (g1): [window 4]  (as g1 ...)\n" + DECLARE
        await gm.shows(planning)
        clock.now = 10.5
        gm.keys.type("as g1 pass")
        passes = "Goblin (g1) declares nothing for the turn: it passes"  # rounds 1 and 2
        await wait_for(lambda: gm.text.count(passes) == 2 or "window_closed" in gm.text)
        assert "window_closed" not in gm.text
        assert await gm.quit() == 0


async def test_an_answer_after_a_rewind_goes_to_the_window_of_now(
    server: Served, room: Created
) -> None:
    """Game night 2: after a rewind, a line typed 0.5 s after a new window opened was
    refused as being for the window the rewind threw away."""
    clock = Clock()
    async with await Client.connect(server.url, room.gm, keep_events=True) as client:
        gm = Terminal(client, "gm", plays=["g1", "g2"], clock=clock)
        await two_attacks_on_g1(client)
        await gm.shows("[window 2]  (as g1 ...)")
        opened = max(
            seq
            for seq, e in client.events
            if e["$type"] == "WindowOpened" and e["window"]["id"] == 2
        )
        clock.now = 5.0
        gm.keys.type(f"rewind {opened}")  # window 2 restored as window 3
        await gm.shows("[window 3]  (as g1 ...)")
        clock.now = 7.0
        gm.keys.type("as g1 pass")
        await gm.shows("[window 4]  (as g1 ...)")
        clock.now = 7.5
        gm.keys.type("as g1 block")
        await gm.shows("Goblin (g1) answers with block")
        assert [e["window"] for e in events_of(client, "Answered")] == [4]
        assert "window_closed" not in gm.text
        assert await gm.quit() == 0


# --- 2. the GM is prompted for its own combatants ------------------------------------------------


async def test_the_gm_is_prompted_for_its_combatants_only_and_after_a_rewind(
    server: Served, room: Created
) -> None:
    async with await Client.connect(server.url, room.gm, keep_events=True) as client:
        gm = Terminal(client, "gm", plays=["g1", "g2"])
        await gm.shows("prompts for: Goblin (g1), Goblin (g2)")
        gm.keys.type("start")
        await gm.shows(">>> Goblin (g1): [window 1]  (as g1 ...)\n" + DECLARE)
        await gm.shows(">>> Goblin (g2): [window 1]  (as g2 ...)\n" + DECLARE)
        assert ">>> Ayla" not in gm.text  # a player's: her seat is prompted, not the GM
        gm.keys.type("as g1 declare pass")
        await gm.shows("Goblin (g1) declares nothing for the turn: it passes")
        await two_attacks_after_planning(client)
        await gm.shows(">>> Goblin (g1): [window 2]  (as g1 ...)\n" + GOBLIN_ANSWERS)
        opened = max(
            seq
            for seq, e in client.events
            if e["$type"] == "WindowOpened" and e["window"]["id"] == 2
        )
        gm.keys.type("as g1 pass")
        await gm.shows("Goblin (g1) lets window 2 pass")
        await gm.shows("[window 3]  (as g1 ...)")
        gm.keys.type(f"rewind {opened}")  # back to window 2, restored as a new window
        await gm.shows(f"The GM rewinds the fight to after event {opened}")
        await gm.shows(">>> Goblin (g1): [window 4]  (as g1 ...)\n" + GOBLIN_ANSWERS)
        gm.keys.type("plays")
        await gm.shows("prompts for: Goblin (g1), Goblin (g2)\n")
        assert await gm.quit() == 0


async def two_attacks_after_planning(gm: Client) -> None:
    await sent(gm, declare("ayla", attack("ayla", "g1", "longsword")))
    await sent(gm, declare("corvin", attack("corvin", "g1", "spear")))
    for who, turn in (("corvin", 1), ("g2", 0), ("bram", 0)):
        await sent(gm, declare(who, turn=turn))


async def test_without_plays_the_gm_is_prompted_for_every_combatant(
    server: Served, room: Created
) -> None:
    """Neither `welcome` nor the table says which combatants no seat plays: until told
    (`--plays`, which `combat create` prints, or `plays`), the GM is prompted for every
    combatant the server offers it choices for, which are those no seat plays."""
    async with await Client.connect(server.url, room.gm, keep_events=True) as client:
        gm = Terminal(client, "gm")
        await gm.shows(
            "prompts for: every combatant the server offers you (say yours: plays g1 g2)"
        )
        gm.keys.type("start")
        await gm.shows(">>> Goblin (g1): [window 1]  (as g1 ...)\n" + DECLARE)
        await gm.shows(">>> Goblin (g2): [window 1]  (as g2 ...)\n" + DECLARE)
        assert ">>> Ayla" not in gm.text  # her seat plays her
        gm.keys.type("plays g1 g2")
        await gm.shows("prompts for: Goblin (g1), Goblin (g2)")
        assert await gm.quit() == 0


async def test_the_gm_is_told_when_its_combatants_turn_starts(server: Served) -> None:
    """Turn Based Combat (V25): seed 7 plays Bram, Corvin, then the goblin g1."""
    encounter = {**demo_encounter(seed=7), "mode": "turn_based"}
    room = await create(server.url, server.host_token, encounter)
    async with await Client.connect(server.url, room.gm, keep_events=True) as client:
        gm = Terminal(client, "gm", plays=["g1", "g2"])
        gm.keys.type("start", "as bram end", "as corvin end")
        await gm.shows(
            ">>> Goblin (g1): your turn: choose, or type a command ('help'), then end"
            "  (as g1 ...)\n"
            "  1. Attack with scimitar\n"
        )
        assert ">>> Bram" not in gm.text and ">>> Corvin" not in gm.text
        assert await gm.quit() == 0


# --- 3. no turn prompt for a turn the same batch takes away ---------------------------------


async def test_a_fainted_tael_player_is_not_told_to_act_on_a_lost_turn(server: Served) -> None:
    """Seed 6: the cultist, the bandit, Kaelen, Tobin, then Mira. She fainted; her turn
    starts, she checks Willpower and loses it, all in one batch of events: no prompt.
    Kaelen, whose turn it is after the round comes round, is prompted."""
    room = await create(server.url, server.host_token, {**read_encounter(AMBUSH), "seed": 6})
    async with (
        await Client.connect(server.url, room.gm, keep_events=True) as gm,
        await Client.connect(server.url, room.players["mira"], keep_events=True) as playing,
        await Client.connect(server.url, room.players["kaelen"], keep_events=True) as kaelen_client,
    ):
        mira = Terminal(playing, "play")
        kaelen = Terminal(kaelen_client, "play")
        await mira.shows("as player (seat mira, plays mira)")
        await kaelen.shows("as player (seat kaelen, plays kaelen)")
        await sent(gm, {"type": "StartCombat"})
        await sent(gm, {"type": "SetHitPoints", "combatant": "mira", "hit_points": 0})
        await mira.shows("Mira faints")
        for _ in range(2):  # the cultist, the bandit
            await sent(gm, {"type": "EndTurn", "actor": ""})
        # Kaelen is prompted before his turn is ended for him: the server sends a seat the
        # choices of now, so a turn ended before they went out is never offered at all.
        await wait_for(lambda: kaelen.text.count(">>> Kaelen (kaelen): your turn") == 1)
        for _ in range(4):  # Kaelen, Tobin; Mira's turn is lost; round 2: cultist, bandit
            await sent(gm, {"type": "EndTurn", "actor": ""})
        await mira.shows("Mira loses the turn (fainted)")
        await wait_for(lambda: kaelen.text.count(">>> Kaelen (kaelen): your turn") == 2)
        assert ">>> Mira" not in mira.text
        assert await mira.quit() == 0
        assert await kaelen.quit() == 0


# --- 5. the GM adds and removes combatants -----------------------------------------------


async def test_the_gm_adds_combatants_from_sheet_files_and_removes_them(
    server: Served, room: Created, tmp_path: Path
) -> None:
    """`add <sheet> <id> <side> <x,y>` reads the sheet file as `combat create` does and
    sends `AddCombatant`; every sample sheet's shape goes through (Bram's spells and
    their options, Corvin's thrown javelin and its whole-number weight, feats), and a
    sheet's starting conditions and items. The GM plays what it adds."""
    sheet = tmp_path / "wolf.toml"
    sheet.write_text(
        GOBLIN.read_text().replace('name = "Goblin"', 'name = "Wolf"')
        + '\n[[conditions]]\nname = "Shaken"\nrounds = 2\n'
        + '\n[[items]]\nname = "bone"\nheal = "1d4"\n'
    )
    async with await Client.connect(server.url, room.gm, keep_events=True) as client:
        gm = Terminal(client, "gm", plays=["g1", "g2"])
        await gm.shows("prompts for: Goblin (g1), Goblin (g2)")
        gm.keys.type(f"add {GOBLIN} g3 goblins 2,1")
        await gm.shows("Goblin (g3) joins the fight")
        await gm.shows("note: you play g3: prompts for it too")
        gm.keys.type(
            f"add {CORVIN} c2 pc 3,0 4", f"add {BRAM} b2 pc 3,1", f"add {sheet} w1 wolves 4,4"
        )
        await gm.shows("Wolf joins the fight")
        combatants = {
            e["combatant"]["id"]: e["combatant"] for e in events_of(client, "CombatantAdded")
        }
        assert combatants["c2"]["sheet"]["weapons"][1]["weight_lb"] == 2.0
        assert combatants["c2"]["facing"] == 4
        assert combatants["b2"]["sheet"]["spells"][1]["options"]
        assert combatants["w1"]["conditions"] == [
            {"$type": "Condition", "name": "Shaken", "rounds": 2, "per_turn": False}
        ]
        gm.keys.type("remove g3")
        await gm.shows("The GM takes Goblin (g3) out of the fight")
        gm.keys.type("look")
        await gm.shows(
            "* Wolf (w1)  wolves  (4, 4)  health 12/12  Shaken (2 rounds)  "
            "hands: scimitar, dagger\n"
        )
        assert "Goblin (g3)  goblins" not in gm.text.rsplit("Fight after event", 1)[1]
        gm.keys.type("add missing.toml g4 goblins 0,0", "add goblin.toml g4")
        await gm.shows("? missing.toml: cannot read: No such file or directory (bad_sheet)")
        await gm.shows("? add <sheet file> <id> <side> <x,y> [facing 0-7]")
        gm.keys.type("help")
        await gm.shows("  add <sheet file> <id> <side> <x,y> [facing]")
        await gm.shows("  remove <combatant>")
        assert await gm.quit() == 0


async def test_a_tael_gm_is_told_combatants_cannot_be_added_there(server: Served) -> None:
    room = await create(server.url, server.host_token, {**read_encounter(AMBUSH), "seed": 6})
    async with await Client.connect(server.url, room.gm, keep_events=True) as client:
        gm = Terminal(client, "gm")
        gm.keys.type("remove bandit")
        await gm.shows("? a World of Tael room cannot add or remove combatants")
        assert await gm.quit() == 0
