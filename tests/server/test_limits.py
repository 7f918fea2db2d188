"""The server's limits over the wire, and its HTTP face (docs/protocol.md, "What the
server enforces" and "HTTP: health and metrics").

* a per-connection command rate: a `send` over it is refused with `rate_limited`,
  a connection that keeps far over it is closed with 4008;
* a per-connection send buffer: a client that does not read is closed with 4009
  (`slow_reader`) rather than slowing its room, and may come back;
* a per-room command queue: `room_busy` when full, retry with the same `cid`;
* new connections per client address: over the budget, HTTP 429 and `Retry-After`,
  and nobody else disturbed;
* `/healthz` and Prometheus `/metrics` on the websocket's port.

The 64 KiB frame limit is in test_bad_input.py.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus

from protocol.messages import Ack, Created, Hello, Refused, Snapshot
from server.engine.grid import Cell
from server.engine.records import evolve, to_data
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.gateway.connection import Limits
from server.sheets.verse import load_sheet
from tests.server.wire import Wire, gm_view, http_get, lone_goblin, open_socket
from tests.support.server import ROOT, Served, served, wait_for

FAST = Limits(commands_per_second=100_000.0, command_burst=100_000)


def setting(value: float) -> dict[str, Any]:
    return {"type": "SetSetting", "name": "reaction_seconds", "value": value}


def gm_token(server: Served) -> str:
    assert server.demo is not None
    return server.demo["gm"]


# -- the command rate ------------------------------------------------------------------


async def test_a_command_over_the_rate_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    """A burst of 3, then one command every two seconds: the fourth at once is refused."""
    limits = Limits(commands_per_second=0.5, command_burst=3, rate_strikes=10)
    async with served(tmp_path, limits=limits) as server:
        gm = await Wire.join(server.url, gm_token(server))
        for value in (9.0, 10.0, 11.0):
            await gm.acked(setting(value))
        before = await gm_view(server.url, gm_token(server))
        refused = await gm.command(setting(12.0), cid="over")
        assert isinstance(refused, Refused) and refused.code == "rate_limited", refused
        assert refused.cid == "over"
        assert await gm_view(server.url, gm_token(server)) == before
        await gm.ping(1)  # still connected: a single refusal does not close it


async def test_a_connection_far_over_the_rate_is_closed_4008(tmp_path: Path) -> None:
    limits = Limits(commands_per_second=0.5, command_burst=2, rate_strikes=3)
    async with served(tmp_path, limits=limits) as server:
        flooder = await Wire.join(server.url, gm_token(server))
        other = await Wire.join(server.url, gm_token(server))
        before = await gm_view(server.url, gm_token(server))
        for index in range(12):
            await flooder.send({"type": "send", "cid": f"f-{index}", "command": setting(9.0)})
        assert await flooder.closed() == 4008
        codes = [m.code for m in flooder.received if isinstance(m, Refused)]
        assert codes == ["rate_limited"] * 3  # the burst of 2 was acked, then 3 strikes
        assert [m.cid for m in flooder.received if isinstance(m, Ack)] == ["f-0", "f-1"]
        assert [e.code for e in flooder.errors] == ["rate_limited"]
        # two commands applied, nothing else; the other connection has its own rate
        seq, _ = await gm_view(server.url, gm_token(server))
        assert seq == before[0] + 2
        await other.ping(2)
        await other.acked(setting(10.0))


# -- the send buffer -------------------------------------------------------------------


def goblin_with_notes(combatant_id: str, size: int) -> dict[str, Any]:
    """A combatant whose GM notes make every event about it about `size` bytes."""
    sheet = load_sheet(ROOT / "server" / "samples" / "goblin.toml")
    sheet = evolve(sheet, notes="n" * size)
    return dict(to_data(VerseCombatant.from_sheet(combatant_id, "goblins", sheet, Cell(7, 7))))


async def never_reading(server: Served, token: str) -> Wire:
    """A connection that reads nothing after its hello (which asks for the raw events:
    big frames): a small receive buffer, no
    compression (so the bytes are what they seem), one frame taken at most."""
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    wire = Wire(await open_socket(server.url, sock=sock, max_queue=1, compression=None))
    await wire.send(Hello(token=token, events=True))
    return wire


async def test_a_client_that_never_reads_is_cut_off_and_the_room_goes_on(
    tmp_path: Path,
) -> None:
    """The GM adds and removes a combatant with 60 KB of notes 100 times: about 12 MB
    for a GM connection, more than the kernel's socket buffers, the server's write
    buffer and a 256 KiB send buffer can hold for a client that reads nothing. The GM
    who reads gets every event meanwhile; the slow one, once it reads, finds an
    unbroken start of the fight and a 4009 close."""
    limits = Limits(commands_per_second=100_000.0, command_burst=100_000, send_buffer=256 << 10)
    async with served(tmp_path, limits=limits) as server:
        gm = await Wire.join(server.url, gm_token(server))
        watcher = await Wire.join(server.url, gm_token(server))
        slow = await never_reading(server, gm_token(server))
        assert server.demo is not None
        hosted = await server.app.host.get(server.demo["room"])
        assert hosted is not None
        await wait_for(lambda: hosted.feed.listeners == 3)  # the slow one has joined
        last = await add_and_remove(gm, cycles=100, reader=watcher)
        assert watcher.seqs == list(range(1, last + 1))

        assert await slow.closed() == 4009
        assert slow.ws.close_reason == "slow_reader"
        held = slow.last_seq
        assert slow.seqs == list(range(1, held + 1)) and held < last
        # it may come back: a fresh join gets the fight as it is now
        back = await Wire.join(server.url, gm_token(server))
        await back.drain(0.1)
        assert back.last_seq == last


async def test_a_client_that_answers_no_keepalive_ping_is_closed_4009_not_1011(
    tmp_path: Path,
) -> None:
    """A laptop whose lid closed in a quiet room: it reads nothing, so it answers no
    keepalive ping. It is closed as a slow reader (4009), the code that says
    "reconnect and resume", never 1011, which says the server has a bug; the room
    plays on for the others."""
    limits = Limits(ping_interval=0.3, ping_timeout=0.3)
    async with served(tmp_path, limits=limits) as server:
        gm = await Wire.join(server.url, gm_token(server))
        asleep = await Wire.join(server.url, gm_token(server), ping_interval=None)
        asleep.ws.transport.pause_reading()  # the lid closes: no pong is ever read
        await asyncio.sleep(limits.ping_interval + limits.ping_timeout + 0.5)
        asleep.ws.transport.resume_reading()  # it wakes and finds why it was closed
        assert await asleep.closed() == 4009
        assert asleep.ws.close_reason == "slow_reader"
        await gm.acked(setting(9.0))  # the one answering pings is still served
        _, _, metrics = await http_get(server.url, "/metrics")
        assert b'combat_connections_closed_total{code="slow_reader"}' in metrics


async def add_and_remove(gm: Wire, cycles: int, reader: Wire | None = None) -> int:
    """The GM adds and removes a combatant with 60 KB of notes `cycles` times (two
    events of about 61 KB each for a GM); the room's seq after them."""
    big = goblin_with_notes("g9", 60_000)
    last = 0
    for _ in range(cycles):
        await gm.acked({"type": "AddCombatant", "combatant": big})
        last = (await gm.acked({"type": "RemoveCombatant", "combatant": "g9"})).last_seq
        if reader is not None:
            await reader.until_seq(last)  # the reader keeps up, cycle by cycle
        gm.pending.clear()
    return last


async def test_a_client_resumes_after_missing_more_than_its_send_buffer(tmp_path: Path) -> None:
    """docs/protocol.md: a client closed as a slow reader should "reconnect and resume".
    It missed 20 add/remove cycles (about 2.4 MB of GM events, well within the events
    the server keeps): resuming must bring them, not close the connection again."""
    async with served(tmp_path, limits=FAST) as server:
        gm = await Wire.join(server.url, gm_token(server))
        last = await add_and_remove(gm, cycles=20)
        back = await Wire.join(server.url, gm_token(server), resume_from_seq=0)
        await back.until_seq(last)
        assert back.seqs == list(range(1, last + 1))


async def test_a_fight_bigger_than_the_send_buffer_can_be_joined(tmp_path: Path) -> None:
    """Twenty goblins with 60 KB of notes each: a GM snapshot of about 1.2 MB, within
    the protocol's 4 MiB for a server frame."""
    async with served(tmp_path, limits=FAST) as server:
        gm = await Wire.join(server.url, gm_token(server))
        for index in range(20):
            goblin = goblin_with_notes(f"n{index}", 60_000)
            goblin["position"] = {"$type": "Cell", "x": 10 + index, "y": 10}
            await gm.acked({"type": "AddCombatant", "combatant": goblin})
        late = await Wire.join(server.url, gm_token(server))
        snapshot = await late.expect(lambda m: isinstance(m, Snapshot))
        assert isinstance(snapshot, Snapshot)
        combatants = snapshot.view["combatants"]
        assert isinstance(combatants, dict) and len(combatants) == 25


# -- the room's queue ------------------------------------------------------------------


async def test_a_full_room_queue_refuses_with_room_busy(tmp_path: Path) -> None:
    """A room that queues one command at most, and twelve GMs sending at once: some are
    refused with `room_busy` and changed nothing; retried with the same `cid`, each is
    applied once."""
    async with served(tmp_path, limits=FAST, demo=False) as server:
        server.app.host.queue_limit = 1
        host = await Wire.join(server.url, server.host_token)
        await host.send({"type": "create", "cid": "busy", "encounter": ENCOUNTER})
        created = await host.expect(lambda m: isinstance(m, Created | Refused))
        assert isinstance(created, Created), created
        gms = [await Wire.join(server.url, created.gm) for _ in range(12)]
        answers = await asyncio.gather(
            *(wire.command(setting(9.0 + i % 2), cid=f"g{i}") for i, wire in enumerate(gms))
        )
        busy = [i for i, a in enumerate(answers) if isinstance(a, Refused)]
        assert busy, "no command met a full queue"
        assert {a.code for a in answers if isinstance(a, Refused)} == {"room_busy"}
        applied = len(answers) - len(busy)
        seq, _ = await gm_view(server.url, created.gm)
        assert seq == applied  # one event per applied command, none for the refused
        for index in busy:
            for _ in range(50):  # bounded: retry shortly, as the protocol asks
                answer = await gms[index].command(setting(9.0 + index % 2), cid=f"g{index}")
                if isinstance(answer, Ack):
                    break
                await asyncio.sleep(0.01)
            assert isinstance(answer, Ack)
        seq, _ = await gm_view(server.url, created.gm)
        assert seq == len(gms)


ENCOUNTER = lone_goblin("Queue")


# -- new connections per address ------------------------------------------------------


async def test_new_connections_over_the_address_s_budget_are_refused_429(tmp_path: Path) -> None:
    """A burst of 3 new connections from one address (a request of any kind counts),
    then one a second: the fourth at once is refused with 429 before its upgrade, the
    connections already open play on, and a second later one more is let in."""
    limits = Limits(
        address_connections_per_second=1.0, address_connection_burst=3, limit_loopback=True
    )
    async with served(tmp_path, limits=limits) as server:
        gm = await Wire.join(server.url, gm_token(server))  # 1
        assert server.demo is not None
        spectator = await Wire.join(server.url, server.demo["spectator"])  # 2
        status, _, _ = await http_get(server.url, "/healthz")  # 3
        assert status == 200

        with pytest.raises(InvalidStatus) as refused:
            await open_socket(server.url)
        response = refused.value.response
        assert response.status_code == 429
        assert 1 <= int(response.headers["Retry-After"]) <= 2
        assert (await http_get(server.url, "/healthz"))[0] == 429

        await gm.acked(setting(9.0))  # nobody else disturbed
        await spectator.ping(1)
        await asyncio.sleep(int(response.headers["Retry-After"]))  # as a client does
        status, _, body = await http_get(server.url, "/metrics")
        assert status == 200
        assert 'combat_connections_refused_total{reason="address"} 2.0' in body.decode()


async def test_no_address_limit_when_it_is_0(tmp_path: Path) -> None:
    limits = Limits(
        address_connections_per_second=0.0, address_connection_burst=1, limit_loopback=True
    )
    async with served(tmp_path, limits=limits) as server:
        for _ in range(5):
            assert (await http_get(server.url, "/healthz"))[0] == 200


# -- HTTP ------------------------------------------------------------------------------


async def test_healthz_answers_200_with_the_room_count(tmp_path: Path) -> None:
    async with served(tmp_path) as server:
        status, headers, body = await http_get(server.url, "/healthz")
        assert status == 200
        assert headers["content-type"].startswith("application/json")
        assert json.loads(body) == {"status": "ok", "rooms": 1}


async def test_metrics_lists_the_documented_metrics(tmp_path: Path) -> None:
    async with served(tmp_path) as server:
        gm = await Wire.join(server.url, gm_token(server))
        await gm.acked(setting(9.0))
        refused = await gm.command({"type": "WindowExpired", "window": 1})
        assert isinstance(refused, Refused)
        rude = Wire(await open_socket(server.url))
        await rude.send({"type": "hello", "protocol": 3, "token": gm_token(server)})
        await rude.closed()

        status, headers, body = await http_get(server.url, "/metrics")
        assert status == 200
        assert headers["content-type"].startswith("text/plain")
        text = body.decode()
        for name in (
            "combat_connections",
            "combat_rooms",
            "combat_commands_total",
            "combat_command_seconds_bucket",
            "combat_command_seconds_count",
            "combat_frames_sent_total",
            "combat_connections_closed_total",
            "combat_connections_refused_total",
        ):
            assert name in text, name
        samples = dict(line.rsplit(" ", 1) for line in text.splitlines() if line and line[0] != "#")
        assert float(samples['combat_connections{role="gm"}']) == 1.0
        assert float(samples["combat_rooms"]) == 1.0
        assert float(samples['combat_commands_total{code="",outcome="acked"}']) == 1.0
        assert float(samples['combat_commands_total{code="forbidden",outcome="refused"}']) == 1.0
        assert float(samples["combat_command_seconds_count"]) >= 1.0
        assert float(samples["combat_frames_sent_total"]) >= 3.0
        closed = samples['combat_connections_closed_total{code="unsupported_version"}']
        assert float(closed) == 1.0


async def test_the_connections_gauge_counts_each_open_connection_once(tmp_path: Path) -> None:
    """A host is counted from its welcome, not from its first request; every role's
    count goes back down when its connection ends."""

    async def gauge() -> dict[str, float]:
        _, _, body = await http_get(server.url, "/metrics")
        found = re.findall(r'^combat_connections\{role="(\w+)"\} (\S+)$', body.decode(), re.M)
        return {role: float(count) for role, count in found}

    async with served(tmp_path) as server:
        assert server.demo is not None
        host = await Wire.join(server.url, server.host_token)
        gm = await Wire.join(server.url, gm_token(server))
        watcher = await Wire.join(server.url, server.demo["spectator"])
        assert await gauge() == {"host": 1.0, "gm": 1.0, "spectator": 1.0}
        for wire in (host, gm, watcher):
            await wire.close()
        deadline = asyncio.get_running_loop().time() + 5
        while set((await gauge()).values()) - {0.0}:
            assert asyncio.get_running_loop().time() < deadline, await gauge()
            await asyncio.sleep(0.02)


async def test_other_paths_are_404_and_a_plain_get_on_ws_is_400(tmp_path: Path) -> None:
    async with served(tmp_path) as server:
        assert (await http_get(server.url, "/nothing-here"))[0] == 404
        assert (await http_get(server.url, "/ws"))[0] == 400
