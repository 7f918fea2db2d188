"""The terminal program's loop, fed typed lines, against the real server."""

from __future__ import annotations

import asyncio

from clients.client import Client
from clients.encounters import read_encounter
from protocol.messages import Created
from tests.clients.support import ANSWER, ROOT, Terminal, create, demo_encounter
from tests.support.server import Served, wait_for
from tests.support.waiting import within


async def test_the_gm_starts_pauses_and_resumes_the_fight(server: Served, room: Created) -> None:
    async with await Client.connect(server.url, room.gm) as client:
        gm = Terminal(client, "gm")
        await gm.shows(f"Room {room.room} (verse) as gm; type 'help'")
        await gm.shows("* Goblin (g2)  goblins  (1, 2)  health 12/12  hands: scimitar, dagger\n")
        gm.keys.type("start")
        await gm.shows("[2] Round 1")
        await gm.shows("[3] Window 1 opens (planning, 45s): Ayla may declare; Bram may declare")
        gm.keys.type("pause")
        await gm.shows("[4] Paused by the GM: every timer stops")
        await gm.shows("(window 1 frozen with")
        gm.keys.type("resume")
        await gm.shows("[5] Resumed by the GM: the timers go on")
        await gm.shows("(window 1 runs again:")
        gm.keys.type("health g1 lots", "as g1 declare attack ayla scimitar")
        await gm.shows("? health must be a whole number, not 'lots' (bad_number)")
        await gm.shows("[6] Goblin (g1) declares: attack Ayla with scimitar")
        gm.keys.type("look")
        await gm.shows("Fight after event 6:\n  Round 1  combat  live\n")
        await gm.shows("  Declared: Goblin (g1)\n")
        gm.keys.type("rewind 5")
        await gm.shows("[7] The GM rewinds the fight to after event 5\n")
        await gm.shows("  Fight after event 7: Round 1  combat  live\n")
        await wait_for(lambda: client.window is not None and client.window.id == 2)
        restored = client.table.view  # the rewind's table replaced the one held
        assert (restored["declared"], restored["window"]["id"]) == ([], 2)  # a new number
        gm.keys.type("look")
        await gm.shows("Fight after event 7:\n  Round 1  combat  live\n  Order: ")
        await gm.shows(
            "  planning window, waiting on: Ayla, Bram, Corvin, Goblin (g1), Goblin (g2)\n"
        )
        gm.keys.type("rewind 0")  # before the fight: no window at all
        await gm.shows("[8] The GM rewinds the fight to after event 0")
        await gm.shows("  Fight after event 8: Round 0  setup  live\n")
        await wait_for(lambda: client.table.view.get("phase") == "setup")
        assert client.window is None  # no countdown left from the window before
        assert await gm.quit() == 0


async def test_a_player_is_prompted_and_sees_refusals(server: Served, room: Created) -> None:
    async with (
        await Client.connect(server.url, room.gm) as gm,
        await Client.connect(server.url, room.players["ayla"]) as client,
    ):
        ayla = Terminal(client, "play")
        await ayla.shows("as player (seat ayla, plays ayla)")
        ayla.keys.type("declare attack g1 longsword")  # read against what is offered: nothing
        await ayla.shows("? nothing is offered to ayla now (nothing_to_choose)")
        await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        await ayla.shows(
            ">>> Ayla (ayla): [window 1]\n"
            "  Declare: pick up to 8\n"
            "  1. Attack with longsword\n"
            "       target: 1) Attack Goblin (g1) with longsword  2) Attack Goblin (g2) with "
            "longsword  3) Attack Bram (bram) with longsword  4) Attack Corvin (corvin) with "
            "longsword\n"
        )
        await ayla.shows("  9. Pass: declare nothing this round\n")
        await gm.send(
            {
                "type": "Declare",
                "actor": "g1",
                "actions": [{"$type": "Attack", "actor": "g1", "target": "ayla", "weapon": ""}],
                "turn": 0,
            },
            timeout=ANSWER,
        )
        await ayla.shows("[4] Goblin (g1) declares (hidden until revealed)")
        ayla.keys.type("declare attack g9 longsword")  # nobody is g9: not among the targets
        await ayla.shows("? no 'g9' to attack: targets are g1, g2, bram, corvin (no_such_choice)")
        ayla.keys.type(
            'raw {"type": "Declare", "actor": "ayla", "turn": 0, "actions": '
            '[{"$type": "Attack", "actor": "ayla", "target": "g9", "weapon": ""}]}'
        )
        await ayla.shows("! refused: unknown_combatant: no combatant 'g9' in this encounter")
        ayla.keys.type("declare attack g1 longsword")
        await ayla.shows("[5] Ayla declares: attack Goblin (g1) with longsword")
        ayla.keys.type("as g1 pass")
        await ayla.shows("? g1 is not yours to play (yours: ayla) (not_yours)")
        ayla.keys.end()  # Ctrl-D ends a seat
        assert await asyncio.wait_for(ayla.task, 5) == 0


async def test_a_spectator_only_watches_until_the_connection_ends(
    server: Served, room: Created
) -> None:
    client = await Client.connect(server.url, room.spectator)
    watcher = Terminal(client, "watch", tick=0.02)
    watcher.keys.type("pause")
    await watcher.shows("? spectators watch: only 'look', 'help' and 'quit' work here (read_only)")
    watcher.keys.type("look")  # what the message offers works: the fight again
    await wait_for(lambda: watcher.text.count("Fight after event 0:\n  Round 0  setup") == 2)
    assert "may:" not in watcher.text and ">>>" not in watcher.text  # nothing to choose
    watcher.keys.end()  # watching goes on without a keyboard
    async with await Client.connect(server.url, room.gm) as gm:
        await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        await watcher.shows("[3] Window 1 opens")
        await watcher.shows("~ window 1 (planning):")  # the countdown line
        await watcher.shows("waiting for ayla, bram, corvin, g1, g2")
    assert not watcher.task.done()
    await within(client.close(), what="the spectator's connection to end")
    assert await asyncio.wait_for(watcher.task, 5) == 0


async def test_quit_ends_watching(server: Served, room: Created) -> None:
    async with await Client.connect(server.url, room.spectator) as client:
        watcher = Terminal(client, "watch")
        await watcher.shows("as spectator")
        assert await watcher.quit() == 0


async def test_a_tael_room_reads_tael_words_and_shows_hit_points(server: Served) -> None:
    """The console reads the room's ruleset from `welcome`: Tael's words, Tael's sheets."""
    ambush = read_encounter(ROOT / "server" / "samples" / "encounters" / "tael-ambush.toml")
    room = await create(server.url, server.host_token, {**ambush, "seed": 6})
    async with (
        await Client.connect(server.url, room.gm) as gm,
        await Client.connect(server.url, room.players["kaelen"]) as client,
    ):
        kaelen = Terminal(client, "play")
        await kaelen.shows(f"Room {room.room} (tael) as player (seat kaelen, plays kaelen)")
        await kaelen.shows("* Kaelen (kaelen)  party  (0, 0)  health 24/24  hands: ")  # his own
        await kaelen.shows("  Bandit (bandit)  outlaws  (1, 0)  health unhurt  hands: ")  # a foe
        kaelen.keys.type("prepare Riposte")
        await kaelen.shows("? nothing is offered to kaelen now (nothing_to_choose)")
        await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        await kaelen.shows("[2] Round 1")
        for _ in range(2):  # seed 6: the cultist, the bandit, then Kaelen
            await gm.send({"type": "EndTurn", "actor": ""}, timeout=ANSWER)
        await kaelen.shows(">>> Kaelen (kaelen): your turn")
        kaelen.keys.type("declare attack bandit")  # no planning window: nothing to declare
        await kaelen.shows("? nothing to declare now: kaelen may attack, move, dash, sprint, ")
        kaelen.keys.type("help")
        await kaelen.shows("  kaelen: attack [longsword|parrying dagger] <target> | ")
        await kaelen.shows("Tael's words: offhand <target> | check <skill> [bonus]")
        assert await kaelen.quit() == 0


async def test_look_shows_the_fight_as_it_is_now_not_as_it_was_on_joining(
    server: Served,
) -> None:
    """A turn-based Verse room (V25), its actions typed as words: after Corvin's spear
    hits the goblin, `look` shows the goblin's health of now to the GM, and to a
    spectator its coarse health after the hit (the damage says it to other sides)."""
    encounter = {**demo_encounter(seed=7), "mode": "turn_based"}
    room = await create(server.url, server.host_token, encounter)
    async with (
        await Client.connect(server.url, room.gm) as client,
        await Client.connect(server.url, room.spectator) as watching,
        await Client.connect(server.url, room.players["bram"]) as playing,
        await Client.connect(server.url, room.players["corvin"]) as fast,
    ):
        gm = Terminal(client, "gm")
        watcher = Terminal(watching, "watch")
        bram = Terminal(playing, "play")
        corvin = Terminal(fast, "play")
        await gm.shows("* Goblin (g1)  goblins  (1, 0)  health 12/12  hands: scimitar, dagger\n")
        gm.keys.type("start")
        await bram.shows(">>> Bram (bram): your turn: choose, or type a command ('help'), then end")
        bram.keys.type("declare attack g2 quarterstaff")
        await bram.shows("? nothing to declare now: bram may attack, move, ")
        bram.keys.type("attack g2 quarterstaff", "end")
        await gm.shows("[5] Bram ends the turn")
        await corvin.shows(">>> Corvin (corvin): your turn")
        corvin.keys.type("attack g1 spear", "end")
        await gm.shows(">>> Goblin (g1): your turn")
        gm.keys.type("as g1 attack ayla scimitar", "as g1 end")
        await gm.shows("[12] Corvin's turn")
        corvin.keys.type("attack g1 spear")
        await gm.shows("[14] Goblin (g1) takes")
        gm.keys.type("look")
        await gm.shows("* Goblin (g1)  goblins  (1, 0)  health 5/12  hands: scimitar, dagger\n")
        await wait_for(lambda: watching.seq == 14)
        watcher.keys.type("look")
        await watcher.shows("Fight after event 14:\n  Round 1  combat  turn based  turn: ")
        await watcher.shows("  Goblin (g1)  goblins  (1, 0)  health bloodied\n")  # 5 of 12
        assert await gm.quit() == 0
        assert await bram.quit() == 0
        assert await corvin.quit() == 0
        assert await watcher.quit() == 0


async def test_a_combatant_with_two_turns_is_told_the_second_still_waits(
    server: Served, room: Created
) -> None:
    """V16: Corvin has two turns a round; the planning window waits for both (V20)."""
    async with (
        await Client.connect(server.url, room.gm) as gm,
        await Client.connect(server.url, room.players["corvin"]) as client,
    ):
        corvin = Terminal(client, "play")
        await corvin.shows("as player (seat corvin, plays corvin)")
        await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        await corvin.shows(
            ">>> Corvin (corvin): [window 1]\n  Declare for turn 1 of 2: pick up to 8\n"
        )
        corvin.keys.type("declare attack g1 spear")
        await corvin.shows("Corvin declares for turn 1: attack Goblin (g1) with spear")
        await corvin.shows(">>> Corvin (corvin): [window 1]\n  Declare for turn 2 of 2: ")
        corvin.keys.type("look")  # the window still waits on him, for his second turn
        await corvin.shows("  planning window, waiting on: Ayla, Bram, Corvin, Goblin (g1), ")
        corvin.keys.type("declare turn 2 attack g2 spear")
        await corvin.shows("Corvin declares for turn 2: attack Goblin (g2) with spear")
        await wait_for(lambda: client.window is not None and "corvin" in client.window.answered)
        corvin.keys.type("look")
        await corvin.shows("  planning window, waiting on: Ayla, Bram, Goblin (g1), Goblin (g2)\n")
        assert await corvin.quit() == 0


async def test_a_second_turn_passes_with_declare_turn_2_pass_and_the_reveal_says_so(
    server: Served, room: Created
) -> None:
    """The prompt's `declare turn 2 ... or pass` works as typed, and the reveal tells
    a passed turn from a combatant that declared nothing (V16, V20)."""
    async with (
        await Client.connect(server.url, room.gm) as gm,
        await Client.connect(server.url, room.players["corvin"]) as client,
    ):
        corvin = Terminal(client, "play")
        await corvin.shows("as player (seat corvin, plays corvin)")
        await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        corvin.keys.type("declare attack g1 spear")
        await corvin.shows("[4] Corvin declares for turn 1: attack Goblin (g1) with spear")
        corvin.keys.type("declare turn 2 pass")
        await corvin.shows("Corvin declares nothing for turn 2: it passes")
        await gm.send({"type": "CloseWindow", "window": 1}, timeout=ANSWER)
        await corvin.shows("  Corvin, turn 1: attack Goblin (g1) with spear\n")
        await corvin.shows("  Corvin, turn 2: nothing (passes)\n")
        await corvin.shows("  declared nothing: Ayla, Bram, Goblin (g1), Goblin (g2)")
        assert "passed a turn" not in corvin.text and "? " not in corvin.text
        assert await corvin.quit() == 0


async def test_an_undeclared_second_turn_reads_as_a_passed_turn(
    server: Served, room: Created
) -> None:
    async with (
        await Client.connect(server.url, room.gm) as gm,
        await Client.connect(server.url, room.players["corvin"]) as client,
    ):
        corvin = Terminal(client, "play")
        await corvin.shows("as player (seat corvin, plays corvin)")
        await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        corvin.keys.type("declare attack g1 spear")
        await corvin.shows("Corvin declares for turn 1: attack Goblin (g1) with spear")
        await gm.send({"type": "CloseWindow", "window": 1}, timeout=ANSWER)
        await corvin.shows("  passed a turn: Corvin (turn 2 not declared)")
        assert "declared nothing: Ayla, Bram, Goblin (g1), Goblin (g2)\n" in corvin.text
        assert await corvin.quit() == 0


async def test_the_gm_is_told_health_0_is_not_dead_and_ends_the_fight(
    server: Served, room: Created
) -> None:
    async with await Client.connect(server.url, room.gm) as client:
        gm = Terminal(client, "gm")
        await gm.shows("* Goblin (g2)  goblins  (1, 2)  health 12/12  hands: scimitar, dagger\n")
        gm.keys.type("start", "health g1 0")
        await gm.shows("The GM sets Goblin (g1)'s health to 0 (was 12): health 0 alone is not Dead")
        await gm.shows(
            "  note: health 0 is not Dead: g1 stays in the fight until you add the "
            "condition (condition g1 Dead)"
        )
        gm.keys.type("condition g1 dead")
        await gm.shows("Goblin (g1) dies (GM override)")
        gm.keys.type("health g1 4")
        await gm.shows("  note: g1 stays Dead until you remove the condition (uncondition g1 Dead)")
        gm.keys.type("condition g2 stunned 1", "uncondition g2 Stunned")
        await gm.shows("Goblin (g2) gains Stunned for 1 round (GM override)")
        await gm.shows("Goblin (g2) is no longer Stunned (GM override)")
        gm.keys.type("end combat")  # g1 is dead, g2 stands: the goblins are not beaten
        await gm.shows("The GM ends the fight: no side is beaten (each still has someone able")
        await wait_for(lambda: client.table.view.get("phase") == "ended")
        assert client.table.view.get("window") is None
        assert client.window is None  # no countdown left on the status line
        assert await gm.quit() == 0


async def test_the_gm_is_reminded_to_end_a_fight_with_one_side_left(
    server: Served, room: Created
) -> None:
    """R70: a Verse fight ends when the GM says so; when a round starts with only one
    side able to fight, the GM's screen says how."""
    async with await Client.connect(server.url, room.gm) as client:
        gm = Terminal(client, "gm")
        await gm.shows("* Goblin (g2)  goblins  (1, 2)  health 12/12  hands: scimitar, dagger\n")
        gm.keys.type("start", "condition g1 Dead")
        await gm.shows("Goblin (g1) dies (GM override)")
        gm.keys.type("close")  # round 1 plays out: nobody declared
        await gm.shows("] Round 2")
        assert "can still fight" not in gm.text  # g2 still stands
        gm.keys.type("condition g2 Dead")
        await gm.shows("Goblin (g2) dies (GM override)")
        gm.keys.type("close")
        await gm.shows("note: only pc can still fight: 'end combat' ends the fight")
        assert await gm.quit() == 0


async def test_a_player_who_joins_on_their_turn_is_told_so(server: Served) -> None:
    """V25: a turn-based fight waits, with no timer, for the one whose turn it is. Who
    joins (or rejoins) then gets no `TurnStarted`; the snapshot must tell them."""
    encounter = {**demo_encounter(seed=7), "mode": "turn_based"}
    room = await create(server.url, server.host_token, encounter)
    async with await Client.connect(server.url, room.gm) as client:
        gm = Terminal(client, "gm")
        gm.keys.type("start")
        await gm.shows("Bram's turn")
        async with await Client.connect(server.url, room.players["bram"]) as playing:
            bram = Terminal(playing, "play")
            await bram.shows("  Round 1  combat  turn based  turn: Bram (bram)\n")  # at a glance
            await bram.shows(
                ">>> Bram (bram): your turn: choose, or type a command ('help'), then end\n"
                "  1. Attack with quarterstaff\n"
            )
            await bram.shows("  10. End turn\n")
            assert await bram.quit() == 0
        assert await gm.quit() == 0


async def test_look_shows_what_a_tael_turn_has_left_and_the_move_prepared(server: Served) -> None:
    """Game night: `look` hid the Actions, Bonus Actions and tiles left, the move
    announced (its own side sees it), and whether one braced, hid or surrendered."""
    ambush = read_encounter(ROOT / "server" / "samples" / "encounters" / "tael-ambush.toml")
    room = await create(server.url, server.host_token, {**ambush, "seed": 6})
    async with (
        await Client.connect(server.url, room.gm) as gm,
        await Client.connect(server.url, room.players["kaelen"]) as client,
        await Client.connect(server.url, room.players["mira"]) as ally,
        await Client.connect(server.url, room.spectator) as watching,
    ):
        kaelen = Terminal(client, "play")
        mira = Terminal(ally, "play")
        watcher = Terminal(watching, "watch")
        await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        for _ in range(2):  # seed 6: the cultist, the bandit, then Kaelen
            await gm.send({"type": "EndTurn", "actor": ""}, timeout=ANSWER)
        await kaelen.shows(">>> Kaelen (kaelen): your turn")
        kaelen.keys.type("attack bandit")
        await kaelen.shows("Window 1 opens (reaction to Kaelen, 8s): Bandit may answer")
        await gm.send({"type": "PassWindow", "actor": "bandit", "window": 1}, timeout=ANSWER)
        await kaelen.shows("Kaelen attacks Bandit with longsword")
        kaelen.keys.type("look")  # what his turn has left: the off-hand attack too
        await kaelen.shows("    3. Attack with the other hand (parrying dagger)\n")
        await kaelen.shows("    13. End turn\n")
        kaelen.keys.type("hide", "end", "prepare Riposte")
        await kaelen.shows("Kaelen prepares Riposte")
        await wait_for(lambda: ally.seq == client.seq and watching.seq == client.seq)
        hands = "hands: longsword, parrying dagger"
        kaelen.keys.type("look")
        await kaelen.shows(
            f"* Kaelen (kaelen)  party  (0, 0)  health 24/24  {hands}  "
            "notes: stance: dodging, preparing Riposte, hidden\n"
        )
        mira.keys.type("look")
        await mira.shows(
            f"  Kaelen (kaelen)  party  (0, 0)  health 24/24  {hands}  "
            "notes: stance: dodging, preparing Riposte, hidden\n"
        )
        watcher.keys.type("look")  # another side: the move prepared is not named
        await watcher.shows(
            f"  Kaelen (kaelen)  party  (0, 0)  health unhurt  {hands}  "
            "notes: stance: dodging, preparing, hidden\n"
        )
        for terminal in (kaelen, mira, watcher):
            assert await terminal.quit() == 0


async def test_a_rewound_ended_fight_says_it_waits_for_the_gms_resume(
    server: Served, room: Created
) -> None:
    """Game night 2 (gm.out 02:31:24): the GM rewound an ended fight; the engine brings
    it back paused by the GM (R70) and nothing said so: the planning countdown stood
    still until the GM happened to type `resume`. The rewind's line says who paused it
    and who resumes, and a line after it says where the fight is."""
    async with (
        await Client.connect(server.url, room.gm) as client,
        await Client.connect(server.url, room.players["ayla"]) as playing,
    ):
        gm = Terminal(client, "gm", plays=["g1", "g2"])
        ayla = Terminal(playing, "play")
        await ayla.shows("as player (seat ayla, plays ayla)")
        gm.keys.type("start")
        await gm.shows("[3] Window 1 opens (planning")
        gm.keys.type("end combat")
        await gm.shows("[4] The GM ends the fight")
        gm.keys.type("rewind 3")
        waiting = "  planning window, waiting on: Ayla, Bram, Corvin, Goblin (g1), Goblin (g2)\n"
        await gm.shows(
            "[5] The GM rewinds the fight to after event 3\n"
            "  Fight after event 5: Round 1  combat  live  paused by the GM; "
            "type 'resume' to go on\n" + waiting
        )
        await ayla.shows(
            "[5] The GM rewinds the fight to after event 3\n"
            "  Fight after event 5: Round 1  combat  live  paused by the GM; "
            "the GM's 'resume' lets it go on\n" + waiting
        )
        gm.keys.type("resume")
        await gm.shows("[6] Resumed by the GM: the timers go on")
        gm.keys.type("rewind 3")  # mid-fight, not paused: where it is, nothing more
        await gm.shows(
            "[7] The GM rewinds the fight to after event 3\n"
            "  Fight after event 7: Round 1  combat  live\n  planning window, waiting on: "
        )
        assert await gm.quit() == 0
        assert await ayla.quit() == 0


async def test_the_gm_sees_the_rooms_codes_and_revokes_one(server: Served, room: Created) -> None:
    async with (
        await Client.connect(server.url, room.gm) as client,
        await Client.connect(server.url, room.codes.players["ayla"]) as ayla_client,
    ):
        gm = Terminal(client, "gm", plays=["g1", "g2"])
        await gm.shows(f"Room {room.room} (verse) as gm; type 'help'")
        gm.keys.type("invites")
        await gm.shows(f"invite codes of room {room.room} (valid until you revoke them):")
        await gm.shows(f"gm --server {server.url} --token {room.codes.gm} --plays g1,g2")
        await gm.shows(f"play --server {server.url} --token {room.codes.players['ayla']}")
        old = room.codes.players["bram"]
        gm.keys.type(f"revoke {old.lower()} reissue")
        await gm.shows(f"revoked {old}; invite codes of room {room.room}")
        listed = await within(client.invites(), what="the codes after revoking")
        assert listed.type == "codes"
        assert listed.codes.players["bram"] != old
        await gm.shows(f"play --server {server.url} --token {listed.codes.players['bram']}")
        gm.keys.type(f"revoke {old}")
        await gm.shows("! refused: unknown_invite: no such invite code in this room")
        gm.keys.type("revoke")
        await gm.shows("? revoke <code> [reissue]   (reissue: a fresh code for the same seat)")

        ayla = Terminal(ayla_client, "play")
        await ayla.shows("as player (seat ayla, plays ayla)")
        ayla.keys.type("invites")
        await ayla.shows(
            "? only the GM may see the room's invite codes ('invites' is a GM command)"
        )
        assert await gm.quit() == 0
