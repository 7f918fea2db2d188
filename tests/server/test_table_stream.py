"""Protocol 2 on the wire: a thin client's table stays the server's, patch by patch.

docs/protocol.md, "Receiving the fight": a connection that did not ask for raw events
gets its `log` and `table`, then an `update` per batch whose patch turns the table it
holds into the next one. Whatever happens (declarations, a GM override, a pause, a
rewind), the table a client builds from those patches must equal the table a fresh
connection of the same role is sent, for the GM, a player and a spectator alike; and
a client of version 1 is told in words that it must be updated.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed

from clients.table import HeldTable, held_choices
from protocol.codec import decode_server, pack
from protocol.messages import Choices, Error, Events, Snapshot, Table, Update
from tests.server.wire import WAIT, Wire, open_socket
from tests.support.server import Served, served

ROLES = ("gm", "ayla", "spectator")


def token(server: Served, who: str) -> str:
    assert server.demo is not None
    if who in ("gm", "spectator"):
        return str(server.demo[who])  # type: ignore[literal-required]
    return server.demo["players"][who]


class Thin:
    """A connection that only draws: its table built from what it was sent."""

    def __init__(self, wire: Wire) -> None:
        self.wire = wire
        self.held = HeldTable()

    async def follow(self, seq: int) -> None:
        await self.wire.until_seq(seq)
        self._take()

    async def settle(self, choices: list[dict[str, Any]], what: str, timeout: float = WAIT) -> None:
        """Take what comes until the choices held are `choices`; fail after `timeout`
        seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        self._take()
        while self.held.choices != choices:
            try:
                await self.wire.receive(max(0.0, deadline - loop.time()))
            except TimeoutError:
                raise AssertionError(f"not settled within {timeout} s: {what}") from None
            self._take()

    def _take(self) -> None:
        for message in self.wire.received[self._taken :]:
            self.held.take(message.model_dump(exclude_unset=True))
        self._taken = len(self.wire.received)

    _taken = 0


async def fresh_table(server: Served, who: str) -> tuple[int, dict[str, Any]]:
    wire = await Wire.join(server.url, token(server, who), events=False)
    try:
        table = await wire.expect(lambda m: isinstance(m, Table))
        assert isinstance(table, Table)
        return table.seq, table.model_dump(exclude_unset=True)["view"]
    finally:
        await wire.close()


async def test_the_table_built_from_patches_is_the_servers(tmp_path: Path) -> None:
    async with served(tmp_path) as server:
        thin = {
            who: Thin(await Wire.join(server.url, token(server, who), events=False))
            for who in ROLES
        }
        gm = thin["gm"].wire
        ayla = thin["ayla"].wire
        steps: list[tuple[Wire, dict[str, Any]]] = [
            (gm, {"type": "StartCombat"}),
            (gm, {"type": "SetHealth", "combatant": "g1", "health": 3}),
            (gm, {"type": "Pause", "by": "gm"}),
            (gm, {"type": "Resume", "by": "gm"}),
            (ayla, {"type": "PassWindow", "actor": "ayla", "window": 1}),
            (gm, {"type": "Rewind", "to_version": 0}),  # its version: the first ack's seq
        ]
        started = 0
        for wire, command in steps:
            if command["type"] == "Rewind":
                command = {**command, "to_version": started}
            ack = await wire.acked(command)
            started = started or ack.last_seq
            for who in ROLES:
                await thin[who].follow(ack.last_seq)
                seq, view = await fresh_table(server, who)
                assert seq == ack.last_seq
                assert thin[who].held.seq == seq
                assert thin[who].held.view == view, f"{who}'s table after {command['type']}"
        for who in ROLES:
            received = thin[who].wire.received
            assert not [m for m in received if isinstance(m, Events | Snapshot)], who
            updates = [m for m in received if isinstance(m, Update)]
            assert updates and all(m.events is None for m in updates)
            logged = [line for m in updates for line in m.log]
            assert [line.seq for line in logged] == list(range(1, thin[who].held.seq + 1))
        # The planning window asks Ayla: her seat is offered its choices, a spectator none.
        assert any(isinstance(m, Choices) and m.seats for m in thin["ayla"].wire.received)
        assert not any(isinstance(m, Choices) for m in thin["spectator"].wire.received)
        for one in thin.values():
            await one.wire.close()


async def test_a_client_of_version_1_is_told_to_update(tmp_path: Path) -> None:
    async with served(tmp_path) as server:
        ws = await open_socket(server.url, ["verse.json.v1"])
        hello = {"type": "hello", "protocol": 1, "token": token(server, "ayla")}
        await ws.send(pack(hello, binary=False))
        error = decode_server(await ws.recv())
        assert isinstance(error, Error) and error.code == "unsupported_version"
        assert "protocol 2" in error.message
        with contextlib.suppress(ConnectionClosed):
            await ws.recv()
        assert ws.close_code == 4000


async def test_choices_are_sent_again_only_when_they_change(tmp_path: Path) -> None:
    """The GM's choices (its console and the goblins it plays) do not change when a
    player declares: the GM is not sent them again, however many batches go by."""
    async with served(tmp_path) as server:
        gm = await Wire.join(server.url, token(server, "gm"), events=False)
        ayla = await Wire.join(server.url, token(server, "ayla"), events=False)
        await gm.acked({"type": "StartCombat"})
        started = await gm.acked({"type": "Pause", "by": "gm"})
        await gm.acked({"type": "Resume", "by": "gm"})
        await gm.drain(0.3)
        offered = [m for m in gm.received if isinstance(m, Choices)]
        held = HeldTable()
        for message in offered:
            held.take(message.model_dump(exclude_unset=True))
        seats = {seat["combatant"] for seat in held.choices}
        assert seats == {"gm", "g1", "g2"}  # its console and the combatants no seat plays
        assert started.last_seq < offered[-1].seq  # a pause changes the console: sent again
        attack = {"$type": "Attack", "actor": "ayla", "target": "g1", "weapon": "longsword"}
        last = await ayla.acked({"type": "Declare", "actor": "ayla", "actions": [attack]})
        await gm.until_seq(last.last_seq)
        await gm.drain(0.3)
        assert [m for m in gm.received if isinstance(m, Choices)] == offered
        await gm.close()
        await ayla.close()


def offered(held: HeldTable, key: str) -> dict[str, Any] | None:
    """The command of the first choice `key` a connection holds, if it has no holes."""
    for seat in held.choices:
        for option in seat["options"]:
            if option["key"] == key and option["command"] is not None and not option["holes"]:
                return dict(option["command"])
    return None


async def fresh_choices(server: Served, who: str) -> tuple[int, list[dict[str, Any]]]:
    """The whole choices a fresh connection of `who` is sent first, and their seq."""
    wire = await Wire.join(server.url, token(server, who), events=False)
    try:
        first = await wire.expect(lambda m: isinstance(m, Choices))
        assert isinstance(first, Choices) and first.whole
        return first.seq, held_choices([], first.model_dump(exclude_unset=True))
    finally:
        await wire.close()


async def test_the_choices_built_message_by_message_are_the_servers(tmp_path: Path) -> None:
    """A connection is sent its seats whole once, then only what changed (docs/protocol.md,
    "Choices"): through a fight, the choices the GM and a player build from those
    messages equal the whole choices a fresh connection is sent.

    The choices come after the batch's update; once no command follows, what a
    connection is sent settles, so it is read until it equals the fresh one (or the
    wait's deadline fails the test)."""
    async with served(tmp_path) as server:
        thin = {
            who: Thin(await Wire.join(server.url, token(server, who), events=False))
            for who in ("gm", "ayla")
        }
        gm, ayla = thin["gm"], thin["ayla"]
        attack = {"$type": "Attack", "actor": "ayla", "target": "g1", "weapon": "longsword"}
        scripted: list[tuple[Thin, dict[str, Any]]] = [
            (gm, {"type": "StartCombat"}),
            (gm, {"type": "Pause", "by": "gm"}),
            (gm, {"type": "Resume", "by": "gm"}),
            (ayla, {"type": "Declare", "actor": "ayla", "actions": [attack]}),
        ]
        started = 0

        async def check(last_seq: int, after: str) -> None:
            for who, one in thin.items():
                await one.follow(last_seq)
                seq, whole = await fresh_choices(server, who)
                assert seq == last_seq
                await one.settle(whole, f"{who} after {after}")

        steps = 0
        while steps < 12:
            if scripted:
                one, command = scripted.pop(0)
            elif steps == 11:
                one, command = gm, {"type": "Rewind", "to_version": started}
            else:  # whoever is asked passes; with no one asked the GM closes the window
                passing = [(o, offered(o.held, "pass")) for o in (gm, ayla)]
                found = [(o, c) for o, c in passing if c is not None]
                one, command = found[0] if found else (gm, offered(gm.held, "close_window"))
                assert command is not None, "the fight offered nothing to go on with"
            ack = await one.wire.acked(command)
            started = started or ack.last_seq
            await check(ack.last_seq, command["type"])
            steps += 1
        sent = [m for m in gm.wire.received if isinstance(m, Choices)]
        assert sent[0].whole and not any(m.whole for m in sent[1:])
        assert any(m.gone for m in sent) and any(m.order is not None for m in sent)
        assert any(len(m.seats) < len(gm.held.choices) for m in sent[1:])
        for one in thin.values():
            await one.wire.close()
