"""A Live Combat round end to end: the real server on loopback, real clients.

The GM, three players and two spectators play round 1 of the demo cast with fixed
dice (seed 20): Ayla's seat is the `combat play` program in a child process, driven
through its stdin like a person at a terminal, picking her declaration and her answers
by the numbers of the choices the server offers; everyone else uses the client library.

What happens (seed 20): everyone declares at once (V20); the goblin G1 goes first and
attacks Ayla; in the reaction window Bram pauses the fight (V24): every countdown
freezes at the same time left, the GM resumes and it runs on from there; Ayla dodges
(V22) and succeeds, then counters with her Riposte feat. Corvin's player drops right
after the declarations are revealed and comes back once the round is over, resuming
from the last event he held. Checked at the end: every connection holds the same
sequence numbers, no gap, no repeat; the resumed player holds exactly what his
side-mate holds; spectators never saw a declaration before `DeclarationsRevealed`.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from clients.client import Client
from protocol.messages import Created, Window
from tests.clients.support import ROOT, attack, create, declare, demo_encounter, events_of, seqs
from tests.support.server import Served, served, wait_for
from tests.support.waiting import within

SEED = 20
EXIT = 10.0
"""Seconds the program may take to exit, and its output to end once it has."""
PROMPT = re.compile(r">>> Ayla \(ayla\): \[window (?P<window>\d+)\]")
CHOICES = re.compile(r"^  (?P<options>1\. .*)$")
EVENT_LINE = re.compile(r"^\[(\d+)\] ")


class Seat:
    """`combat play` in a child process: lines typed on its stdin, its stdout read."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self._seen = 0
        self._changed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def start(cls, url: str, token: str) -> Seat:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "clients.cli",
            "play",
            "--server",
            url,
            "--token",
            token,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=ROOT,
            env=env,
        )
        return cls(process)

    async def _read(self) -> None:
        assert self.process.stdout is not None
        async for raw in self.process.stdout:
            self.lines.append(raw.decode().rstrip("\n"))
            self._changed.set()

    async def type(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        await within(self.process.stdin.drain(), what=f"typing {line!r} at the program")

    async def expect(self, pattern: str | re.Pattern[str], timeout: float = 5.0) -> re.Match[str]:
        """The next line (after those already matched) that matches `pattern`."""
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        try:
            async with asyncio.timeout(timeout):
                while True:
                    while self._seen < len(self.lines):
                        line = self.lines[self._seen]
                        self._seen += 1
                        found = regex.search(line)
                        if found:
                            return found
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            shown = "\n".join(line[:160] for line in self.lines[-40:])
            raise AssertionError(
                f"{regex.pattern!r} never showed; the last lines:\n{shown}"
            ) from None

    def seqs(self) -> list[int]:
        return [int(m.group(1)) for line in self.lines if (m := EVENT_LINE.match(line))]

    async def quit(self) -> int:
        await self.type("quit")
        code = await within(self.process.wait(), EXIT, "the program to exit on 'quit'")
        await within(self._reader, EXIT, "the program's output to end after it exited")
        return code

    async def kill(self) -> None:
        self._reader.cancel()
        if self.process.returncode is None:
            self.process.kill()
            await within(self.process.wait(), EXIT, "the killed program to exit")


async def pass_when_asked(client: Client, combatants: set[str]) -> None:
    """Let every reaction, counter and adapt window asking one of `combatants` go by,
    as a player who has nothing to add would."""
    passed: set[tuple[int, str]] = set()
    async for message in client:
        if not isinstance(message, Window) or not message.running or message.kind == "planning":
            continue
        for ask in message.asked:
            who, key = ask.combatant, (message.window, ask.combatant)
            if who in combatants and who not in message.answered and key not in passed:
                passed.add(key)
                await client.send({"type": "PassWindow", "actor": who, "window": message.window})


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Served]:
    async with served(tmp_path, demo=False) as running:
        yield running


async def test_a_live_round_with_a_reaction_a_pause_and_a_dropped_player(server: Served) -> None:
    encounter = demo_encounter(seed=SEED, planning_seconds=30, reaction_seconds=8)
    room: Created = await create(server.url, server.host_token, encounter)
    gm = await Client.connect(server.url, room.gm, keep_events=True)
    bram = await Client.connect(server.url, room.players["bram"], encoding="json", keep_events=True)
    corvin = await Client.connect(server.url, room.players["corvin"], keep_events=True)
    watchers = [
        await Client.connect(server.url, room.spectator, keep_events=True),
        await Client.connect(server.url, room.spectator, encoding="json", keep_events=True),
    ]
    library = [gm, bram, corvin, *watchers]
    ayla = await Seat.start(server.url, room.players["ayla"])
    passers = [
        asyncio.create_task(pass_when_asked(gm, {"g1", "g2"})),
        asyncio.create_task(pass_when_asked(bram, {"bram"})),
        asyncio.create_task(pass_when_asked(corvin, {"corvin"})),
    ]
    try:
        async with asyncio.timeout(30):
            await play_the_round(server, gm, bram, corvin, watchers, ayla)
            await check_the_streams(gm, bram, corvin, watchers, ayla)
        assert await ayla.quit() == 0
    finally:
        for passer in passers:
            passer.cancel()
        await ayla.kill()
        for client in library:
            await within(client.close(), what="closing a client after the round")


async def play_the_round(
    server: Served,
    gm: Client,
    bram: Client,
    corvin: Client,
    watchers: list[Client],
    ayla: Seat,
) -> None:
    await ayla.expect(r"as player \(seat ayla, plays ayla\)")

    # The GM starts; the planning window asks everyone (V20).
    await gm.send({"type": "StartCombat"})
    await ayla.expect(r">>> Ayla \(ayla\): \[window 1\]")

    # Everyone declares at once; each sees only that the other side has declared.
    await gm.send(declare("g1", attack("g1", "ayla", "scimitar")))
    await gm.send(declare("g2", attack("g2", "bram", "scimitar")))
    await ayla.expect(r"\] Goblin \(g1\) declares \(hidden until revealed\)")
    await bram.send(declare("bram", attack("bram", "g2", "quarterstaff")))
    await corvin.send(declare("corvin", attack("corvin", "g2", "spear")))
    window = corvin.window
    assert window is not None
    await corvin.send({"type": "PassWindow", "actor": "corvin", "window": window.id})  # turn 2
    await ayla.type("2 2")  # the second choice, Attack with shortbow; its target Goblin (g2)
    await ayla.expect(r"\] Ayla declares: attack Goblin \(g2\) with shortbow")
    await ayla.expect(r"\] Declarations revealed:")

    # Corvin's player drops as the declarations are revealed.
    await wait_for(lambda: bool(events_of(corvin, "DeclarationsRevealed")))
    connection = corvin.connection
    assert connection is not None
    await connection.close()
    await wait_for(lambda: not corvin.connected)
    away_from = corvin.seq

    # G1 attacks Ayla: a reaction window asks her (dodge or block).
    prompt = await ayla.expect(PROMPT)
    assert (await ayla.expect(CHOICES))["options"] == "1. Dodge  2. Block with longsword  3. Pass"
    reaction = int(prompt["window"])
    await wait_for(lambda: gm.window is not None and gm.window.id == reaction)
    assert gm.window is not None and (gm.window.kind, gm.window.about) == ("reaction", "g1")

    # Bram pauses mid-window (V24): every countdown freezes at the same time left.
    await bram.send({"type": "Pause", "by": "bram"})
    watching = [gm, bram, *watchers]
    await wait_for(lambda: all(_frozen(c, reaction) for c in watching))
    await ayla.expect(r"\] Paused by Bram: every timer stops")
    await ayla.expect(rf"\(window {reaction} frozen with \d+\.\ds left\)")
    left = {c.window.remaining() for c in watching if c.window is not None}
    assert len(left) == 1, left  # the same for everyone: the server's frozen time
    frozen = left.pop()
    assert 0 < frozen <= 8.0
    await asyncio.sleep(0.1)  # bounded: time passes, the frozen countdown does not move
    assert all(c.window is not None and c.window.remaining() == frozen for c in watching)
    refused = await ayla_cannot_answer_while_paused(gm, reaction)
    assert refused == "paused"

    # The GM resumes; the countdown runs on from where it froze.
    await gm.send({"type": "Resume", "by": "gm"})
    await wait_for(lambda: all(_running(c, reaction) for c in watching))
    for client in watching:
        assert client.window is not None
        assert frozen - 1.0 < client.window.remaining() <= frozen
    await ayla.expect(r"\] Resumed by the GM: the timers go on")
    await ayla.expect(rf"\(window {reaction} runs again: \d+\.\ds left\)")

    # Ayla dodges (a Dexterity save, V22), then counters with her Riposte.
    await ayla.type("1")  # 1. Dodge
    await ayla.expect(r"\] Ayla answers with dodge")
    # The goblin's attack total is its side's number (R77): Ayla reads "vs the attack".
    await ayla.expect(
        r"\] Ayla tries to dodge: d20 \d+ \+ Dexterity 4 = \d+ vs the attack: succeeds"
    )
    await ayla.expect(PROMPT)
    assert (await ayla.expect(CHOICES))["options"] == "1. Counter Goblin (g1)"
    await ayla.type("1 1")  # 1. Counter Goblin (g1), weapon: 1) Counter with longsword
    await ayla.expect(r"\] Ayla answers with counter: counter Goblin \(g1\) with longsword")
    await ayla.expect(r"\] Ayla attacks Goblin \(g1\) with longsword: d20 ")

    # G2 falls before Ayla's turn: her declared shot gets an adapt window (V23).
    await ayla.expect(PROMPT)
    assert (await ayla.expect(CHOICES))["options"].startswith("1. Instead: Attack with longsword")
    await ayla.type("pass")
    await ayla.expect(r"\] End of round 1")

    # Corvin comes back and resumes from the last event he held.
    assert corvin.seq == away_from
    await wait_for(lambda: gm.window is not None and gm.window.kind == "planning")
    welcome = await corvin.reconnect()
    assert welcome.seq == gm.seq
    everyone = [gm, bram, corvin, *watchers]
    await wait_for(lambda: all(c.seq == gm.seq for c in everyone))
    await ayla.expect(rf"^\[{gm.seq}\] ")


async def ayla_cannot_answer_while_paused(gm: Client, window: int) -> str:
    """While paused only resuming and GM overrides are accepted (V24)."""
    answer = await gm.send({"type": "PassWindow", "actor": "ayla", "window": window})
    assert answer.type == "refused"
    return answer.code


def _frozen(client: Client, window: int) -> bool:
    countdown = client.window
    return (
        countdown is not None
        and countdown.id == window
        and not countdown.message.running
        and client.table.view.get("paused_by") == "bram"
    )


def _running(client: Client, window: int) -> bool:
    countdown = client.window
    return countdown is not None and countdown.id == window and countdown.message.running


async def check_the_streams(
    gm: Client, bram: Client, corvin: Client, watchers: list[Client], ayla: Seat
) -> None:
    last = gm.seq
    assert last is not None
    every_seq = list(range(1, last + 1))

    # Every connection holds every event once, in order: no gap, no repeat.
    for client in (gm, bram, corvin, *watchers):
        assert seqs(client) == every_seq
        assert (client.gaps, client.repeats) == (0, 0)
    assert ayla.seqs() == every_seq  # what the terminal printed, one line per event

    # The dropped player missed nothing: he holds what his side-mate holds.
    assert corvin.connections == 2
    assert corvin.events == bram.events
    assert corvin.snapshot is not None and corvin.snapshot.seq == 0  # resumed from history

    # The same view for the same audience, whatever the encoding.
    assert watchers[0].events == watchers[1].events

    # The round as the GM saw it: the reaction, the pause, the counter.
    answered = [(e["combatant"], e["option"]) for e in events_of(gm, "Answered")]
    assert answered[:2] == [("ayla", "dodge"), ("ayla", "counter")]
    assert [e["by"] for e in events_of(gm, "Paused")] == ["bram"]
    assert [(e["by"], e["refused"]) for e in events_of(gm, "Resumed")] == [("gm", False)]
    assert [(e["defender"], e["success"]) for e in events_of(gm, "DefenceRolled")] == [
        ("ayla", True)
    ]
    assert [e["round"] for e in events_of(gm, "RoundEnded")] == [1]

    # Declarations stay secret until revealed: spectators see none, players their side's
    # (six: Corvin's pass of his second turn is a declaration of nothing, V20).
    for watcher in watchers:
        assert [e["actions"] for e in events_of(watcher, "DeclarationMade")] == [[]] * 6
    declared = {e["combatant"]: e["actions"] for e in events_of(bram, "DeclarationMade")}
    assert declared["g1"] == declared["g2"] == []
    assert declared["ayla"] == [attack("ayla", "g2", "shortbow")]
    revealed: dict[str, list[Any]] = {}
    for d in events_of(watchers[0], "DeclarationsRevealed")[0]["declarations"]:
        revealed.setdefault(d["combatant"], []).append(d["actions"])
    assert revealed["g1"] == [[attack("g1", "ayla", "scimitar")]]
    assert revealed["corvin"] == [[attack("corvin", "g2", "spear")], []]  # turn 2 passed
