"""A ruleset the client has never heard of, played end to end by the `combat` console.

The issue: "a ruleset added on the server later must play in the client with no client
change". Skirmish (`tests/rulesets/skirmish.py`) exists only in the tests: importing it
registers it on the server's own registries. The host creates a skirmish encounter
over the wire on a real server in this process; the GM and Ayla's player each run the
terminal program (`Console`, fed typed lines). Nothing but numbers is typed: the
player picks "Strike" and a target from the choices the server offers, and the GM
starts the fight from its own seat of choices and ends the foes' turns the same way
(`as g1 2`: the GM's screen plays several). The program has no words of its own for
this ruleset: it says so when it joins.

Seed 5 deals the d6s: initiative Ayla 6, Goblin 5, Wolf 2; then Ayla's strikes 4
(the Goblin down to 1 of 5: "bloodied" to Ayla, its hit points to the GM), 3 (the
Wolf out, SK4) and 4 (the Goblin out: only the heroes stand, and the fight ends by
itself, SK5).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from clients.client import Client
from protocol.messages import Created
from tests.clients.support import Terminal, create
from tests.rulesets import skirmish
from tests.support.server import Served, served, wait_for

CLIENTS = Path(__file__).resolve().parents[2] / "clients"
SEED = 5


def encounter() -> dict[str, Any]:
    """Ayla's player against the GM's Goblin and Wolf, both next to her."""

    def one(cid: str, side: str, name: str, hit_points: int, at: list[int]) -> dict[str, Any]:
        entry = {"id": cid, "side": side, "at": at}
        return {**entry, "sheet": {"name": name, "hit_points": hit_points}}

    return {
        "name": "Skirmish at the ford",
        "ruleset": skirmish.NAME,
        "seed": SEED,
        "combatants": [
            {**one("ayla", "heroes", "Ayla", 12, [1, 1]), "seat": "ayla"},
            one("g1", "goblins", "Goblin", 5, [2, 1]),
            one("w1", "goblins", "Wolf", 3, [1, 2]),
        ],
    }


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Served]:
    async with served(tmp_path, demo=False) as running:
        yield running


async def shown(terminal: Terminal, text: str, times: int = 1) -> None:
    """`text` on the screen `times` times (a prompt comes back every round)."""
    try:
        await wait_for(lambda: terminal.text.count(text) >= times)
    except TimeoutError:
        raise AssertionError(f"{text!r} never showed {times} times in:\n{terminal.text}") from None


AYLA_S_TURN = ">>> Ayla (ayla): your turn: choose, or type a command ('help'), then end\n"
STRIKE_BOTH = "  1. Strike\n       target: 1) Goblin (g1)  2) Wolf (w1)\n  2. End turn\n"
STRUCK = ">>> Ayla (ayla): your turn: choose, or type a command ('help'), then end\n  1. End turn\n"


def foe_s_turn(name: str, cid: str) -> str:
    """The GM's prompt for a foe's turn: strike Ayla, or end the turn."""
    return (
        f">>> {name} ({cid}): your turn: choose, or type a command ('help'), then end"
        f"  (as {cid} ...)\n  1. Strike\n       target: 1) Ayla (ayla)\n  2. End turn\n"
    )


async def test_a_ruleset_only_the_server_knows_plays_in_the_console(server: Served) -> None:
    room: Created = await create(server.url, server.host_token, encounter())
    assert room.ruleset == "skirmish"
    async with (
        await Client.connect(server.url, room.gm) as gm_client,
        await Client.connect(server.url, room.players["ayla"]) as ayla_client,
    ):
        gm = Terminal(gm_client, "gm")
        ayla = Terminal(ayla_client, "play")
        ayla.console.rolls = True  # each log line's roll cards below it (`combat --rolls`)
        await ayla.shows(f"Room {room.room} (skirmish) as player (seat ayla, plays ayla)")
        await ayla.shows("! this program does not know the words of the 'skirmish' rules")
        await gm.shows("  * Goblin (g1)  goblins  (2, 1)  health 5/5\n")
        assert "console" not in gm.text  # not prompted by itself: it changes with every event
        gm.keys.type("console")  # the room's commands: the GM's console, shown when asked
        await gm.shows(">>> the GM's console (as gm <number>):\n  1. Start the fight  2. Pause\n")

        gm.keys.type("as gm 1")  # the room's commands are the GM's own seat of choices
        await ayla.shows("[2] Round 1\n[3] Ayla's turn\n")
        await ayla.shows(AYLA_S_TURN + STRIKE_BOTH)
        ayla.keys.type("look")
        await ayla.shows(
            "Fight after event 3:\n"
            "  Round 1  combat  turn based  turn: Ayla (ayla)\n"
            "  Order: [Ayla 6], Goblin, Wolf\n"  # another side's initiative is its own (R77)
            "  * Ayla (ayla)  heroes  (1, 1)  health 12/12\n"
            "    Goblin (g1)  goblins  (2, 1)  health unhurt\n"
            "    Wolf (w1)  goblins  (1, 2)  health unhurt\n"
        )

        # Round 1: Ayla strikes the Goblin (choice 1, target 1) and ends her turn.
        ayla.keys.type("1 1")
        await ayla.shows(
            "[4] Ayla strikes Goblin: d6 4 = 4; Goblin is bloodied\n"
            "        strike by Ayla: d6 4 = 4\n"
        )
        await gm.shows("[4] Ayla strikes Goblin: d6 4 = 4; Goblin has 1 hit point left\n")
        await ayla.shows(STRUCK)
        ayla.keys.type("look")
        await ayla.shows("    Goblin (g1)  goblins  (2, 1)  health bloodied\n")
        await ayla.shows("  * Ayla (ayla)  heroes  (1, 1)  health 12/12  notes: struck this turn\n")
        ayla.keys.type("1")
        await ayla.shows("[5] Ayla ends the turn\n[6] Goblin's turn\n")

        # The GM ends the foes' turns, by the number of "End turn".
        await shown(gm, foe_s_turn("Goblin", "g1"))
        gm.keys.type("as g1 2")
        await shown(gm, foe_s_turn("Wolf", "w1"))
        gm.keys.type("as w1 2")
        await ayla.shows("[9] Wolf ends the turn\n[10] End of round 1\n[11] Round 2\n")

        # Round 2: the Wolf (target 2) goes out of the fight; it has no turn after (SK4).
        await shown(ayla, AYLA_S_TURN + STRIKE_BOTH, times=2)
        ayla.keys.type("1 2")
        await ayla.shows("[13] Ayla strikes Wolf: d6 3 = 3; Wolf is out of the fight\n")
        await ayla.shows("        strike by Ayla: d6 3 = 3: out\n")
        await shown(ayla, STRUCK, times=2)
        ayla.keys.type("1")
        await shown(gm, foe_s_turn("Goblin", "g1"), times=2)
        gm.keys.type("as g1 2")
        await ayla.shows("[16] Goblin ends the turn\n[17] End of round 2\n[18] Round 3\n")

        # Round 3: only the Goblin is left to strike; felling it ends the fight (SK5).
        await shown(
            ayla, AYLA_S_TURN + "  1. Strike\n       target: 1) Goblin (g1)\n  2. End turn\n"
        )
        ayla.keys.type("1 1")
        await ayla.shows("[20] Ayla strikes Goblin: d6 4 = 4; Goblin is out of the fight")
        await ayla.shows("[21] The fight is over: only heroes still stand (beaten: goblins)\n")
        await gm.shows("[21] The fight is over: only heroes still stand (beaten: goblins)\n")
        await wait_for(lambda: ayla_client.table.view.get("phase") == "ended")
        ayla.keys.type("look")
        await ayla.shows(
            "Fight after event 21:\n  Round 3  ended  turn based  result: The fight has ended.\n"
        )
        await ayla.shows("    Wolf (w1)  goblins  (1, 2)  health down  out of the fight\n")
        await gm.shows("[13] Ayla strikes Wolf: d6 3 = 3; Wolf is out of the fight\n")
        said = (ayla.text + gm.text).splitlines()
        assert [line for line in said if line.startswith(("? ", "! refused", "! server"))] == []
        assert await ayla.quit() == 0
        assert await gm.quit() == 0
    await a_spectator_reads_the_fight_in_words(server, room)


async def a_spectator_reads_the_fight_in_words(server: Served, room: Created) -> None:
    """Joining after the end, a spectator gets the log as its side-less eyes may read it
    (SK6, R77): health words, rolls by their faces, no hit points, nothing to choose."""
    async with await Client.connect(server.url, room.spectator) as client:
        watcher = Terminal(client, "watch")
        await watcher.shows(
            "[4] Ayla strikes Goblin: d6 4 (modifiers hidden); Goblin is bloodied\n"
        )
        await watcher.shows("[21] The fight is over: only heroes still stand (beaten: goblins)\n")
        await watcher.shows(
            "  Ayla (ayla)  heroes  (1, 1)  health unhurt  notes: struck this turn\n"
        )
        assert "hit point" not in watcher.text and ">>>" not in watcher.text
        assert await watcher.quit() == 0


def test_no_client_file_names_the_ruleset() -> None:
    """The client was not changed for it: no file of the program says its name."""
    files = [path for path in CLIENTS.rglob("*") if path.is_file()]
    assert any(path.name == "console.py" for path in files)
    assert [path for path in files if b"skirmish" in path.read_bytes().lower()] == []
