"""A World of Tael fight end to end: the real server on loopback, real clients.

The host creates the sample Tael encounter (server/samples/encounters/tael-ambush.toml,
fixed dice) over the wire. The GM plays the bandit and the cultist, Mira's and Tobin's
players use the client library, and Kaelen's seat is the `combat play` program in a
child process, driven through its stdin like a person at a terminal. Two spectators
watch: one through the client library, one on a bare websocket that keeps every frame
as it arrived.

Turn by turn (TR1), whoever's turn it is acts (seed 6: cultist, bandit, Kaelen, Tobin,
Mira). In round 1 Kaelen attacks the bandit, which answers with its Shield Up (a
prepared move raising its Defensive Value, T2), ends his Action Phase and, in his
Preparation Phase, announces a Riposte, hidden from every other side. In round 2 the
bandit attacks Kaelen: a reaction window asks Kaelen (Riposte) and Tobin (Covering
Shot, for an ally next to him); Kaelen types `riposte` out of his turn, Tobin passes,
Kaelen's strike resolves first and the Riposte keeps the bandit's hit off him. Mira's
Ignite sets the cultist burning, her Ember Spray makes it faint; the fight goes on into
round 3, where the cultist checks its Willpower and loses its turn.

Checked at the end: no frame a spectator received before the Riposte triggered holds
the word, while the GM's and Kaelen's side's did (so the check can fail); every
connection holds every event once, in order, no gap and no repeat; the program printed
one line per event.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from clients.client import Client
from clients.encounters import read_encounter
from protocol.codec import JSON_SUBPROTOCOL, MAX_SERVER_FRAME, decode_server, encode
from protocol.messages import Ack, Created, Events, Hello, Update, Welcome, Window
from tests.clients.support import ROOT, create, events_of, seqs
from tests.e2e.test_live_round import Seat
from tests.support.server import Served, served, wait_for
from tests.support.waiting import within

AMBUSH = ROOT / "server" / "samples" / "encounters" / "tael-ambush.toml"
SEED = 6
LAST_ROUND = 3  # play until this round starts: the fight goes on past the Riposte
PROMPT = r">>> Kaelen \(kaelen\): \[window (?P<window>\d+)\]"
CHOICES = r"^  (?P<options>1\. .*)$"


@dataclass
class Frames:
    """A connection on a bare websocket: every frame kept as the bytes that arrived."""

    ws: ClientConnection
    frames: list[bytes] = field(default_factory=list)
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    async def read(self) -> None:
        async for frame in self.ws:
            raw = frame.encode() if isinstance(frame, str) else frame
            self.frames.append(raw)
            message = decode_server(frame)
            if isinstance(message, Events | Update):
                self.events += [(item.seq, item.event) for item in message.events or ()]

    def seqs(self) -> list[int]:
        return [seq for seq, _ in self.events]


async def watch_raw(url: str, token: str) -> tuple[Frames, asyncio.Task[None]]:
    ws = await connect(url, subprotocols=[Subprotocol(JSON_SUBPROTOCOL)], max_size=MAX_SERVER_FRAME)
    await ws.send(encode(Hello(token=token, events=True), binary=False))
    welcome = decode_server(await within(ws.recv(), what="the welcome on a bare websocket"))
    assert isinstance(welcome, Welcome) and welcome.ruleset == "tael"
    frames = Frames(ws)
    return frames, asyncio.create_task(frames.read())


async def answer_when_asked(client: Client, combatants: set[str], use_move: bool) -> None:
    """Answer every reaction window asking one of `combatants`: with the first move
    offered (`use_move`), else by letting it pass, as a player with nothing to add."""
    done: set[tuple[int, str]] = set()
    async for message in client:
        if not isinstance(message, Window) or not message.running:
            continue
        for ask in message.asked:
            who, key = ask.combatant, (message.window, ask.combatant)
            if who not in combatants or who in message.answered or key in done:
                continue
            done.add(key)
            command: dict[str, Any] = {"type": "PassWindow", "actor": who, "window": message.window}
            if use_move and ask.options:
                command = {**command, "type": "Answer", "option": ask.options[0], "action": None}
            await client.send(command)


class Table:
    """The fight as the GM's connection follows it: whose turn, which round, the window."""

    def __init__(self, gm: Client) -> None:
        self.gm = gm

    def events(self, kind: str, **fields: Any) -> list[dict[str, Any]]:
        return [
            event
            for event in events_of(self.gm, kind)
            if all(event.get(k) == v for k, v in fields.items())
        ]

    @property
    def round(self) -> int:
        started = events_of(self.gm, "RoundStarted")
        return int(started[-1]["round"]) if started else 0

    @property
    def current(self) -> str | None:
        """Whose turn waits for them (the last turn started and not yet ended)."""
        who = None
        for _, event in self.gm.events:
            if event["$type"] == "TurnStarted":
                who = event["combatant"]
            elif event["$type"] in ("TurnEnded", "RoundEnded"):
                who = None
        return who

    @property
    def window_open(self) -> bool:
        return self.gm.table.view.get("window") is not None

    async def sees(self, predicate: Callable[[], bool], what: str) -> None:
        try:
            await wait_for(predicate, timeout=10)
        except TimeoutError:
            raise AssertionError(f"the GM never saw {what}") from None

    async def settled(self) -> None:
        """No window open: the last command's events are all in."""
        await self.sees(lambda: not self.window_open, "the window close")

    async def send(self, client: Client, command: dict[str, Any]) -> Ack:
        answer = await client.send(command, timeout=10)
        assert isinstance(answer, Ack), (command, answer)
        await self.sees(lambda: (self.gm.seq or 0) >= answer.last_seq, f"the events of {command}")
        return answer


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Served]:
    async with served(tmp_path, demo=False) as running:
        yield running


async def test_a_tael_fight_with_a_riposte_out_of_turn(server: Served) -> None:
    encounter = read_encounter(AMBUSH)
    encounter["seed"] = SEED
    encounter["settings"] = {"reaction_seconds": 30}  # nobody's window runs out by accident
    room: Created = await create(server.url, server.host_token, encounter)
    assert room.ruleset == "tael"
    gm = await Client.connect(server.url, room.gm, keep_events=True)
    mira = await Client.connect(server.url, room.players["mira"], encoding="json", keep_events=True)
    tobin = await Client.connect(server.url, room.players["tobin"], keep_events=True)
    watcher = await Client.connect(server.url, room.spectator, keep_events=True)
    raw, raw_reader = await watch_raw(server.url, room.spectator)
    side, side_reader = await watch_raw(server.url, room.players["tobin"])  # Kaelen's side
    kaelen = await Seat.start(server.url, room.players["kaelen"])
    library = [gm, mira, tobin, watcher]
    helpers = [
        asyncio.create_task(answer_when_asked(gm, {"bandit", "cultist"}, use_move=True)),
        asyncio.create_task(answer_when_asked(mira, {"mira"}, use_move=False)),
        asyncio.create_task(answer_when_asked(tobin, {"tobin"}, use_move=False)),
    ]
    try:
        async with asyncio.timeout(60):
            await kaelen.expect(r"Room \S+ \(tael\) as player \(seat kaelen, plays kaelen\)")
            await play_the_fight(Table(gm), gm, mira, tobin, kaelen)
            everyone = [gm, mira, tobin, watcher]
            await wait_for(lambda: all(c.seq == gm.seq for c in everyone))
            await wait_for(lambda: raw.seqs()[-1:] == side.seqs()[-1:] == [gm.seq])
            await kaelen.expect(rf"^\[{gm.seq}\] ")
            check_the_streams(gm, mira, tobin, watcher, raw, kaelen)
            check_the_secret(gm, tobin, watcher, raw, side)
        assert await kaelen.quit() == 0
    finally:
        for helper in helpers:
            helper.cancel()
        for reader, frames in ((raw_reader, raw), (side_reader, side)):
            reader.cancel()
            await frames.ws.close()
        await kaelen.kill()
        for client in library:
            await within(client.close(), what="closing a client after the fight")


async def play_the_fight(
    table: Table, gm: Client, mira: Client, tobin: Client, kaelen: Seat
) -> None:
    await table.send(gm, {"type": "StartCombat"})
    turns: dict[str, int] = {}
    while table.round < LAST_ROUND:
        await table.settled()
        who = table.current
        assert who is not None, "a turn waits for its combatant"
        turns[who] = turns.get(who, 0) + 1
        if who == "kaelen":
            await kaelen_s_turn(table, kaelen, turns[who])
        elif who == "bandit":
            await bandit_s_turn(table, gm, kaelen)
        else:
            client = {"mira": mira, "tobin": tobin, "cultist": gm}[who]
            for command in PLANS[who][turns[who] - 1]:
                await table.send(client, command)
                await table.settled()
            await table.send(client, {"type": "EndTurn", "actor": who})
    assert table.events("Answered", combatant="kaelen", option="Riposte"), "no Riposte"


async def kaelen_s_turn(table: Table, kaelen: Seat, turn: int) -> None:
    """Kaelen's player types at the `combat` program: the parser makes the commands."""
    if turn == 1:
        await kaelen.type("attack bandit longsword")
        await table.sees(lambda: bool(table.events("HitChecked", attacker="kaelen")), "it")
        await table.settled()
        await kaelen.type("end")
        await table.sees(lambda: bool(table.events("TurnEnded", combatant="kaelen")), "it")
        await kaelen.type("prepare Riposte")  # his Preparation Phase (T2)
        await table.sees(lambda: bool(table.events("PreparationAnnounced")), "the Riposte")
        await kaelen.expect(r"^\[\d+\] Kaelen prepares Riposte$")
    else:
        await kaelen.type("stance tanking")  # free, at the beginning of the turn (T7)
        await table.sees(lambda: bool(table.events("StanceChosen", combatant="kaelen")), "it")
        ended = len(table.events("TurnEnded", combatant="kaelen"))
        await kaelen.type("end")
        await table.sees(
            lambda: len(table.events("TurnEnded", combatant="kaelen")) > ended, "his turn end"
        )


async def bandit_s_turn(table: Table, gm: Client, kaelen: Seat) -> None:
    """The GM's bandit attacks Kaelen once his Riposte is announced; else it waits."""
    announced = table.events("PreparationAnnounced", combatant="kaelen")
    if not announced or table.events("Answered", option="Riposte"):
        await table.send(gm, {"type": "EndTurn", "actor": "bandit"})
        return
    await table.send(
        gm,
        {
            "type": "AttackAction",
            "actor": "bandit",
            "target": "kaelen",
            "weapon": "hand axe",
            "off_hand": False,
        },
    )
    await kaelen.expect(PROMPT)
    offered = (await kaelen.expect(CHOICES))["options"]
    assert offered.startswith("1. Riposte: strike back at Bandit (bandit)")  # announced (T2)
    await kaelen.type("riposte")  # out of his turn
    await kaelen.expect(r"\] Kaelen uses the prepared move Riposte")
    await table.settled()
    await kaelen.expect(r"\] Kaelen strikes back at Bandit with longsword: d20 ")
    if table.current == "bandit":  # a strike that fells it ends its turn (TR28)
        await table.send(gm, {"type": "EndTurn", "actor": "bandit"})


# What Mira, Tobin and the cultist do on their first and later turns.
PLANS: dict[str, list[list[dict[str, Any]]]] = {
    "mira": [
        [{"type": "SpellAction", "actor": "mira", "spell": "Ignite", "targets": ["cultist"]}],
        [
            {
                "type": "SpellAction",
                "actor": "mira",
                "spell": "Ember Spray",
                "targets": ["bandit", "cultist"],
            }
        ],
        [],
    ],
    "tobin": [
        [{"type": "AttackAction", "actor": "tobin", "target": "cultist", "weapon": "longbow"}],
        [{"type": "Dash", "actor": "tobin"}],
        [],
    ],
    "cultist": [
        [{"type": "SpellAction", "actor": "cultist", "spell": "Shadow Bolt", "targets": ["mira"]}],
        [],
        [],
    ],
}


def check_the_streams(
    gm: Client, mira: Client, tobin: Client, watcher: Client, raw: Frames, kaelen: Seat
) -> None:
    last = gm.seq
    assert last is not None
    every_seq = list(range(1, last + 1))
    for client in (gm, mira, tobin, watcher):
        assert seqs(client) == every_seq
        assert (client.gaps, client.repeats) == (0, 0)
    assert raw.seqs() == every_seq
    assert kaelen.seqs() == every_seq  # the program printed one line per event
    assert [e["round"] for e in events_of(gm, "RoundStarted")] == list(range(1, LAST_ROUND + 1))

    # The Riposte triggered out of Kaelen's turn: the bandit's attack was on the stack,
    # Kaelen's strike resolved first, and the Riposte kept the bandit's damage off him.
    answered = next(
        seq for seq, e in gm.events if e["$type"] == "Answered" and e["option"] == "Riposte"
    )
    turn = [e for seq, e in gm.events if seq < answered and e["$type"] == "TurnStarted"]
    assert turn[-1]["combatant"] == "bandit"
    window = [
        e["window"] for seq, e in gm.events if seq < answered and e["$type"] == "WindowOpened"
    ][-1]
    asked = {ask["combatant"]: ask["options"] for ask in window["asked"]}
    assert asked == {"kaelen": ["Riposte"], "tobin": ["Covering Shot"]}
    assert (window["kind"], window["about"]) == ("reaction", "bandit")
    assert [e["combatant"] for e in events_of(gm, "Passed") if e["window"] == window["id"]] == [
        "tobin"
    ]
    checks = [
        (e["attacker"], e["kind"])
        for seq, e in gm.events
        if seq > answered and e["$type"] == "HitChecked"
    ]
    assert checks[:2] == [("kaelen", "prepared"), ("bandit", "weapon")]
    assert [e["combatant"] for e in events_of(gm, "TurnLost")] == ["cultist"]  # fainted (T8)
    assert [e["combatant"] for e in events_of(gm, "WillpowerChecked")] == ["cultist"]
    prevented = events_of(gm, "DamagePrevented")
    assert [(e["target"], e["move"]) for e in prevented] == [("kaelen", "Riposte")]


def check_the_secret(gm: Client, tobin: Client, watcher: Client, raw: Frames, side: Frames) -> None:
    """Nobody outside Kaelen's side saw the move before it triggered: not in any byte a
    spectator received. Kaelen's side did, in the same frames (so the check can fail)."""
    announced = next(seq for seq, e in gm.events if e["$type"] == "PreparationAnnounced")
    answered = next(
        seq for seq, e in gm.events if e["$type"] == "Answered" and e["option"] == "Riposte"
    )
    for frames in (raw, side):
        assert frames.seqs() == list(range(1, (gm.seq or 0) + 1))
        assert _frame_of(frames, announced) < _frame_of(frames, answered)
    assert b"Riposte" not in b"".join(raw.frames[: _frame_of(raw, answered)])
    assert b"Riposte" in b"".join(side.frames[: _frame_of(side, announced) + 1])
    assert [e["move"] for e in events_of(watcher, "PreparationAnnounced")] == [""]
    assert [e["move"] for e in events_of(tobin, "PreparationAnnounced")] == ["Riposte"]
    assert [e["move"] for e in events_of(gm, "PreparationAnnounced")] == ["Riposte"]
    revealed = [e for e in events_of(watcher, "Answered") if e["combatant"] == "kaelen"]
    assert [e["option"] for e in revealed] == ["Riposte"]  # it triggered: now everyone knows


def _frame_of(raw: Frames, seq: int) -> int:
    """The index of the frame that carried event `seq`."""
    for index, frame in enumerate(raw.frames):
        message = decode_server(frame.decode())
        events = message.events if isinstance(message, Events | Update) else None
        if events and any(item.seq == seq for item in events):
            return index
    raise AssertionError(f"no frame carried event {seq}")
