"""The client library against the real server (`served`: same loop, loopback)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from clients.client import Client, ConnectionLost, JoinError
from protocol.messages import Ack, Created, Refused, Welcome
from tests.clients.support import ANSWER, attack, declare, demo_encounter, events_of, seqs
from tests.support.server import Served, wait_for


async def test_each_role_is_welcomed_and_sent_the_fight(server: Served, room: Created) -> None:
    async with (
        await Client.connect(server.url, room.gm, keep_events=True) as gm,
        await Client.connect(server.url, room.players["ayla"], keep_events=True) as ayla,
        await Client.connect(
            server.url, room.spectator, encoding="json", keep_events=True
        ) as spectator,
    ):
        assert (gm.role, gm.controls) == ("gm", [])
        assert (ayla.role, ayla.controls) == ("player", ["ayla"])
        assert ayla.welcome is not None and ayla.welcome.seat == "ayla"
        assert spectator.role == "spectator"
        clients = (gm, ayla, spectator)
        await wait_for(lambda: all(c.table.seq == 0 and c.snapshot for c in clients))
        for client in clients:
            assert client.welcome is not None and client.welcome.room == room.room
            assert set(client.table.view["combatants"]) == {"ayla", "bram", "corvin", "g1", "g2"}
            assert client.snapshot is not None and client.snapshot.seq == 0
        # Redaction is the server's: a spectator sees a goblin's health as a word only,
        # on its card and in the raw snapshot.
        assert gm.table.combatant("g1")["health"] is not None
        goblin = spectator.table.combatant("g1")
        assert goblin["health_word"] == "unhurt" and goblin.get("health") is None
        assert gm.snapshot is not None and spectator.snapshot is not None
        assert "health" in gm.snapshot.view["combatants"]["g1"]
        assert spectator.snapshot.view["combatants"]["g1"]["health_state"] == "unhurt"
        assert "health" not in spectator.snapshot.view["combatants"]["g1"]


async def test_a_command_is_acknowledged_and_everyone_gets_its_events(
    server: Served, room: Created
) -> None:
    async with (
        await Client.connect(server.url, room.gm, keep_events=True) as gm,
        await Client.connect(
            server.url, room.spectator, encoding="json", keep_events=True
        ) as spectator,
    ):
        ack = await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        assert isinstance(ack, Ack) and ack.first_seq == 1
        await wait_for(lambda: spectator.seq == ack.last_seq and gm.seq == ack.last_seq)
        assert seqs(gm) == seqs(spectator) == list(range(1, ack.last_seq + 1))
        assert [e["$type"] for e in events_of(gm, "RoundStarted")] == ["RoundStarted"]
        assert spectator.window is not None and spectator.window.kind == "planning"
        assert spectator.window.waiting_for == ["ayla", "bram", "corvin", "g1", "g2"]


async def test_a_refusal_carries_its_code_and_changes_nothing(
    server: Served, room: Created
) -> None:
    async with (
        await Client.connect(server.url, room.players["ayla"], keep_events=True) as ayla,
        await Client.connect(server.url, room.spectator, keep_events=True) as spectator,
    ):
        refused = await ayla.send({"type": "StartCombat"}, timeout=ANSWER)
        assert isinstance(refused, Refused) and refused.code == "forbidden"
        early = await ayla.send(declare("ayla", attack("ayla", "g1", "longsword")), timeout=ANSWER)
        assert isinstance(early, Refused) and early.code == "wrong_phase"
        watching = await spectator.send({"type": "Pause", "by": "gm"}, timeout=ANSWER)
        assert isinstance(watching, Refused) and watching.code == "forbidden"
        assert ayla.seq == 0 and ayla.events == []
        assert ayla.pending() == []


async def test_command_ids_are_a_random_prefix_and_a_counter(server: Served, room: Created) -> None:
    async with (
        await Client.connect(server.url, room.gm, keep_events=True) as one,
        await Client.connect(server.url, room.gm, keep_events=True) as other,
    ):
        first, second = one.next_cid(), one.next_cid()
        prefix = first.rsplit("-", 1)[0]
        assert (first, second) == (f"{prefix}-1", f"{prefix}-2")
        assert not other.next_cid().startswith(prefix + "-")


async def test_a_bad_token_is_refused_at_the_handshake(server: Served) -> None:
    with pytest.raises(JoinError) as error:
        await Client.connect(server.url, "not-a-token")
    assert (error.value.code, error.value.close_code) == ("unauthorized", 4001)
    assert error.value.final


async def test_no_server_is_a_join_error_too(tmp_path: Path) -> None:
    with pytest.raises(JoinError) as error:
        await Client.connect("ws://127.0.0.1:9/ws", "token", handshake_timeout=2)
    assert error.value.code == "connection_failed"
    assert not error.value.final


async def test_a_host_creates_encounters_and_only_a_host(server: Served, room: Created) -> None:
    assert room.name == "Goblin ambush"
    assert sorted(room.players) == ["ayla", "bram", "corvin"]
    async with await Client.connect(server.url, server.host_token) as host:
        assert host.role == "host"
        bad = demo_encounter()
        bad["combatants"][1]["at"] = [0, 0]  # Bram on Ayla's cell
        refused = await host.create(bad, timeout=ANSWER)
        assert isinstance(refused, Refused) and refused.code == "invalid_encounter"
        assert "combatants[1].at" in refused.message
    async with await Client.connect(server.url, room.gm, keep_events=True) as gm:
        forbidden = await gm.create(demo_encounter(), timeout=ANSWER)
        assert isinstance(forbidden, Refused) and forbidden.code == "forbidden"


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_the_window_counts_down_and_freezes_while_paused(
    server: Served, room: Created
) -> None:
    clock = FakeClock()  # the client's clock; the server keeps its own
    async with await Client.connect(server.url, room.gm, clock=clock, keep_events=True) as gm:
        await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        await wait_for(lambda: gm.window is not None)
        assert gm.window is not None
        start = gm.window.remaining()
        assert 40.0 < start <= 45.0
        clock.now += 5.0
        assert gm.window.remaining() == pytest.approx(start - 5.0)
        await gm.send({"type": "Pause", "by": "gm"}, timeout=ANSWER)
        await wait_for(lambda: gm.window is not None and not gm.window.running)
        frozen = gm.window.remaining()
        assert frozen <= start  # the server froze what its own clock had left
        clock.now += 100.0
        assert gm.window.remaining() == frozen
        await gm.send({"type": "Resume", "by": "gm"}, timeout=ANSWER)
        await wait_for(lambda: gm.window is not None and gm.window.running)
        assert frozen - 1.0 < gm.window.remaining() <= frozen  # it goes on from there


async def test_a_thin_client_drops_the_countdown_of_a_window_that_closed(
    server: Served, room: Created
) -> None:
    """No `window` message says a window closed: a client of the table alone (no raw
    events) sees it go from the table, and stops counting it down (docs/protocol.md).
    Ending the fight closes the planning window and opens none."""
    async with await Client.connect(server.url, room.gm, events=False) as gm:
        await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        await wait_for(lambda: gm.window is not None)
        ack = await gm.send({"type": "EndCombat"}, timeout=ANSWER)
        assert isinstance(ack, Ack)
        await wait_for(lambda: gm.seq == ack.last_seq)
        assert gm.table.view["phase"] == "ended" and gm.table.view["window"] is None
        assert gm.window is None


async def test_a_dropped_player_resumes_without_missing_or_repeating(
    server: Served, room: Created
) -> None:
    async with (
        await Client.connect(server.url, room.gm, keep_events=True) as gm,
        await Client.connect(server.url, room.players["bram"], keep_events=True) as bram,
        await Client.connect(server.url, room.players["ayla"], keep_events=True) as ayla,
    ):
        await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        await wait_for(lambda: ayla.seq == gm.seq == 3)
        connection = ayla.connection
        assert connection is not None
        await connection.close()  # the player drops
        await wait_for(lambda: not ayla.connected)
        await gm.send(declare("g1", attack("g1", "ayla", "scimitar")), timeout=ANSWER)
        await bram.send(declare("bram", attack("bram", "g2", "quarterstaff")), timeout=ANSWER)
        await wait_for(lambda: bram.seq == gm.seq == 5)
        assert ayla.seq == 3  # away

        welcome = await ayla.reconnect()
        assert welcome.seq == 5
        await wait_for(lambda: ayla.seq == 5)
        assert seqs(ayla) == seqs(bram) == [1, 2, 3, 4, 5]
        assert ayla.events == bram.events  # the same side: the same events
        assert (ayla.gaps, ayla.repeats, ayla.connections) == (0, 0, 2)
        assert ayla.snapshot is not None and ayla.snapshot.seq == 0  # resumed from history


async def test_commands_sent_while_away_go_out_on_reconnecting(
    server: Served, room: Created
) -> None:
    async with (
        await Client.connect(server.url, room.gm, keep_events=True) as gm,
        await Client.connect(server.url, room.players["ayla"], keep_events=True) as ayla,
    ):
        await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        await wait_for(lambda: ayla.seq == 3)
        connection = ayla.connection
        assert connection is not None
        await connection.close()
        await wait_for(lambda: not ayla.connected)
        sending = asyncio.create_task(ayla.send(declare("ayla", attack("ayla", "g1", "longsword"))))
        await wait_for(lambda: len(ayla.pending()) == 1)
        cid = ayla.pending()[0]
        await ayla.reconnect()
        answer = await asyncio.wait_for(sending, 5)
        assert isinstance(answer, Ack) and answer.cid == cid
        await wait_for(lambda: gm.seq == answer.last_seq)
        assert [e["combatant"] for e in events_of(gm, "DeclarationMade")] == ["ayla"]


async def test_a_retry_with_the_same_cid_is_applied_once(server: Served, room: Created) -> None:
    async with await Client.connect(server.url, room.gm, keep_events=True) as gm:
        first = await gm.send({"type": "StartCombat"}, cid="start-1", timeout=ANSWER)
        again = await gm.send({"type": "StartCombat"}, cid="start-1", timeout=ANSWER)
        assert isinstance(first, Ack) and again == first
        await wait_for(lambda: gm.seq == first.last_seq)
        assert len(events_of(gm, "RoundStarted")) == 1


async def test_auto_reconnect_resumes_after_a_cut_connection(server: Served, room: Created) -> None:
    async with (
        await Client.connect(server.url, room.gm, keep_events=True) as gm,
        await Client.connect(
            server.url, room.spectator, auto_reconnect=True, backoff=(0.01,), keep_events=True
        ) as spectator,
    ):
        stream = spectator.messages()
        assert isinstance(await asyncio.wait_for(anext(stream), 5), Welcome)
        connection = spectator.connection
        assert connection is not None
        connection.transport.abort()  # no closing handshake: the network went away
        await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        kinds = []
        while not (kinds and kinds[-1] == "Welcome" and len(kinds) > 2):
            message = await asyncio.wait_for(anext(stream), 5)
            kinds.append(type(message).__name__)
            if isinstance(message, ConnectionLost):
                assert message.reconnecting
        assert "ConnectionLost" in kinds
        await wait_for(lambda: spectator.seq == gm.seq)
        assert seqs(spectator) == seqs(gm)
        assert (spectator.connections, spectator.gaps, spectator.repeats) == (2, 0, 0)


async def test_a_lost_connection_drops_the_countdown_until_the_server_tells_it_again(
    server: Served, room: Created
) -> None:
    """While away, a client cannot know whether the window closed (another process may
    have closed it): it shows no countdown, and the next handshake tells the open one."""
    async with (
        await Client.connect(server.url, room.gm, keep_events=True) as gm,
        await Client.connect(
            server.url, room.spectator, auto_reconnect=True, backoff=(0.2,), keep_events=True
        ) as spectator,
    ):
        await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        await wait_for(lambda: spectator.window is not None)
        stream = spectator.messages()
        connection = spectator.connection
        assert connection is not None
        connection.transport.abort()
        while not isinstance(message := await asyncio.wait_for(anext(stream), 5), ConnectionLost):
            pass
        assert message.reconnecting and spectator.window is None
        await wait_for(lambda: spectator.window is not None)  # told again on reconnecting
