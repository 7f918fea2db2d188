"""The role matrix over the wire: every command of the ruleset from every role.

docs/protocol.md, "What the server enforces": the GM may send every command but the
room's own (`WindowExpired`); a player the commands "the player controlling ..." for
its own combatants, and `Pause`/`Resume` speaking as one of them; a spectator none; a
host token joins no room, so none either. A command the role may send can still be
refused by the engine (not now, not legal), but never with `forbidden`; one it may not
send is refused with `forbidden` and changes nothing: the room's seq and the GM's
whole view are the same after it.

The commands come from `commands_of(RULESETS["verse"])`, so a command added to the
ruleset joins the matrix by itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from protocol.messages import Ack, Created, Refused
from server.engine.core import RULESETS, Command
from server.gateway.commands import commands_of
from tests.server.commands import wire_command
from tests.server.wire import Wire, gm_view, lone_goblin, new_cid
from tests.support.server import Served, served

VERSE = commands_of(RULESETS["verse"])
OWN = "ayla"  # the demo's seat "ayla" controls combatant "ayla"
OTHER = "bram"  # another player's seat, controlling "bram"


@dataclass(frozen=True)
class Sender:
    """Someone connected to the demo room, and how they speak in `Pause.by`."""

    name: str
    voice: str

    def token(self, server: Served) -> str:
        demo = server.demo
        assert demo is not None
        if self.name == "gm":
            return demo["gm"]
        if self.name == "own player":
            return demo["players"][OWN]
        if self.name == "other player":
            return demo["players"][OTHER]
        if self.name == "spectator":
            return demo["spectator"]
        return server.host_token


GM = Sender("gm", "gm")
OWN_PLAYER = Sender("own player", OWN)
OTHER_PLAYER = Sender("other player", OTHER)
SPECTATOR = Sender("spectator", OWN)
HOST = Sender("host", OWN)
SENDERS = (GM, OWN_PLAYER, OTHER_PLAYER, SPECTATOR, HOST)


def documented_allowed(sender: Sender, cls: type[Command]) -> bool:
    """May `sender` send `cls` acting for `OWN`'s combatant? (docs/protocol.md)"""
    issuers = cls.issuers
    if sender is GM:
        return "gm" in issuers
    if sender is OWN_PLAYER:
        return "player" in issuers or "controller" in issuers
    if sender is OTHER_PLAYER:
        return "player" in issuers  # speaking as its own combatant; acting for none of OWN's
    return False  # spectators and host tokens send no command


async def assert_forbidden_changes_nothing(
    server: Served, wire: Wire, command: dict[str, Any]
) -> None:
    gm_token = GM.token(server)
    before = await gm_view(server.url, gm_token)
    answer = await wire.command(command)
    assert isinstance(answer, Refused), f"{command} was applied for a role that may not"
    assert answer.code == "forbidden", answer
    assert await gm_view(server.url, gm_token) == before


@pytest.mark.parametrize("name", sorted(VERSE))
async def test_every_role_sending_the_command(tmp_path: Path, name: str) -> None:
    cls = VERSE[name]
    async with served(tmp_path) as server:
        wires = {s: await Wire.join(server.url, s.token(server)) for s in SENDERS}
        forbidden = [s for s in SENDERS if not documented_allowed(s, cls)]
        allowed = [s for s in SENDERS if documented_allowed(s, cls)]
        # Refusals first, so every one of them meets the room as it started.
        for sender in forbidden:
            await assert_forbidden_changes_nothing(
                server, wires[sender], wire_command(cls, OWN, sender.voice)
            )
        for sender in reversed(allowed):  # the GM last: its commands may change the fight
            answer = await wires[sender].command(wire_command(cls, OWN, sender.voice))
            assert isinstance(answer, Ack) or answer.code != "forbidden", (sender, answer)
        for wire in wires.values():
            await wire.close()


def test_the_matrix_covers_the_documented_rules() -> None:
    """The matrix is not vacuous: each role has commands it may and may not send."""
    for sender in (GM, OWN_PLAYER, OTHER_PLAYER):
        verdicts = {documented_allowed(sender, cls) for cls in VERSE.values()}
        assert verdicts == {True, False}, sender
    assert not documented_allowed(GM, VERSE["WindowExpired"])
    assert documented_allowed(OWN_PLAYER, VERSE["Attack"])
    assert not documented_allowed(OTHER_PLAYER, VERSE["Attack"])


async def test_nobody_may_speak_for_someone_else(tmp_path: Path) -> None:
    """`Pause(by=...)` names its sender: a player pausing as another seat's combatant,
    or the GM pausing as a player, is refused with `forbidden`; as themselves, applied."""
    async with served(tmp_path) as server:
        gm = await Wire.join(server.url, GM.token(server))
        other = await Wire.join(server.url, OTHER_PLAYER.token(server))
        await gm.acked({"type": "StartCombat"})
        await assert_forbidden_changes_nothing(server, other, {"type": "Pause", "by": OWN})
        await assert_forbidden_changes_nothing(server, gm, {"type": "Pause", "by": OWN})
        await other.acked({"type": "Pause", "by": OTHER})
        await gm.acked({"type": "Resume", "by": "gm"})


async def test_a_player_cannot_claim_the_gms_flag(tmp_path: Path) -> None:
    """`SetAwareness(gm=true)` is the GM's override: the role comes from the token, so a
    player setting the flag for its own combatant is `forbidden`."""
    async with served(tmp_path) as server:
        own = await Wire.join(server.url, OWN_PLAYER.token(server))
        command = {"type": "SetAwareness", "actor": OWN, "awareness": "on_guard", "gm": True}
        await assert_forbidden_changes_nothing(server, own, command)


async def test_a_player_acts_for_its_own_combatants_only(tmp_path: Path) -> None:
    """Each seat's Declare for its own combatant is taken; the same Declare for the other
    seat's combatant is `forbidden`."""
    async with served(tmp_path) as server:
        gm = await Wire.join(server.url, GM.token(server))
        own = await Wire.join(server.url, OWN_PLAYER.token(server))
        other = await Wire.join(server.url, OTHER_PLAYER.token(server))
        await gm.acked({"type": "StartCombat"})
        declare = {"type": "Declare", "actor": OTHER, "actions": [hold(OTHER)]}
        await assert_forbidden_changes_nothing(server, own, declare)
        await other.acked(declare)
        await own.acked({"type": "Declare", "actor": OWN, "actions": [hold(OWN)]})


async def test_only_a_host_token_creates_encounters(tmp_path: Path) -> None:
    """`create` on a join token's connection is `forbidden` and makes no room."""
    async with served(tmp_path) as server:
        rooms = server.app.host.rooms
        for sender in (GM, OWN_PLAYER, SPECTATOR):
            wire = await Wire.join(server.url, sender.token(server))
            cid = new_cid("new")
            await wire.send({"type": "create", "cid": cid, "encounter": ENCOUNTER})
            answer = await wire.expect(lambda m: isinstance(m, Refused))
            assert isinstance(answer, Refused) and answer.cid == cid, answer
            assert answer.code == "forbidden", answer
            await wire.close()
        assert server.app.host.rooms == rooms
        host = await Wire.join(server.url, HOST.token(server))
        await host.send({"type": "create", "cid": "made", "encounter": ENCOUNTER})
        created = await host.expect(lambda m: isinstance(m, Created | Refused))
        assert isinstance(created, Created) and created.cid == "made", created
        assert server.app.host.rooms == rooms + 1


def hold(actor: str) -> dict[str, Any]:
    return {"$type": "HoldAction", "actor": actor}


ENCOUNTER = lone_goblin("Duel")
