"""Sequence numbers, resuming and retries over the wire (docs/protocol.md, "Sequence
numbers and resuming", "Retries").

Every event has a seq: 1, 2, 3, ... per room. A client that reconnects with the last
seq it holds gets exactly the events after it, each once and in order, or a snapshot
when it is too far behind (or ahead); a `send` retried with the same `cid` is applied
once and answered with the same `ack`.
"""

from __future__ import annotations

from pathlib import Path

from protocol.codec import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL
from protocol.messages import Ack, Events, Refused, Snapshot
from server.gateway.connection import Limits
from tests.server.wire import Wire, gm_view
from tests.support.server import Served, served

FAST = Limits(commands_per_second=100_000.0, command_burst=100_000)


def setting(value: float) -> dict[str, object]:
    """A GM command that makes exactly one event (`SettingChanged`)."""
    return {"type": "SetSetting", "name": "reaction_seconds", "value": value}


async def play(gm: Wire, commands: int) -> int:
    """`commands` one-event commands; the room's seq after them."""
    last = 0
    for index in range(commands):
        ack = await gm.acked(setting(8.0 + (index % 2 + 1)))
        assert ack.first_seq == ack.last_seq
        last = ack.last_seq
    return last


async def rounds(gm: Wire, count: int) -> int:
    """`count` Live Combat rounds nobody declares in: the GM closes each planning window
    (17 events a round in the demo). The room's seq after them."""
    last = gm.last_seq
    for _ in range(count):
        await gm.until_seq(last)
        opened = [e for _, e in gm.sequenced if e["$type"] == "WindowOpened"]
        ack = await gm.acked({"type": "CloseWindow", "window": opened[-1]["window"]["id"]})
        last = ack.last_seq
    return last


def tokens(server: Served) -> tuple[str, str, str]:
    demo = server.demo
    assert demo is not None
    return demo["gm"], demo["players"]["ayla"], demo["spectator"]


async def test_a_connection_sees_every_seq_once_in_order(tmp_path: Path) -> None:
    async with served(tmp_path, limits=FAST) as server:
        gm_token, ayla_token, _ = tokens(server)
        gm = await Wire.join(server.url, gm_token)
        ayla = await Wire.join(server.url, ayla_token, subprotocol=JSON_SUBPROTOCOL)
        start = await gm.acked({"type": "StartCombat"})
        last = await play(gm, 30)
        await ayla.until_seq(last)
        assert ayla.snapshots[0].seq == 0
        assert ayla.seqs == list(range(1, last + 1))
        assert (start.first_seq, start.last_seq) == (1, 3)  # initiative, round, window


async def test_resuming_from_k_gets_exactly_the_events_after_k(tmp_path: Path) -> None:
    async with served(tmp_path, limits=FAST) as server:
        gm_token, ayla_token, _ = tokens(server)
        gm = await Wire.join(server.url, gm_token)
        ayla = await Wire.join(server.url, ayla_token)
        await gm.acked({"type": "StartCombat"})
        k = await play(gm, 5)
        await ayla.until_seq(k)
        held = dict(ayla.sequenced)
        await ayla.close()

        seq = await play(gm, 12)  # ayla misses these
        for resume_from in (k, 0, 1, seq - 1):
            back = await Wire.join(server.url, ayla_token, resume_from_seq=resume_from)
            assert back.welcome is not None and back.welcome.seq == seq
            await back.until_seq(seq)
            await back.drain(0.1)
            assert not back.snapshots, f"resume from {resume_from} got a snapshot"
            assert back.seqs == list(range(resume_from + 1, seq + 1))
            if resume_from == k:
                # the events she missed, then live ones, with no gap or repeat
                after = await gm.acked(setting(11.0))
                await back.until_seq(after.last_seq)
                assert back.seqs == list(range(k + 1, after.last_seq + 1))
                seq = after.last_seq
            await back.close()
        # what she held before is what a resume from 0 sends again for those seqs
        again = await Wire.join(server.url, ayla_token, resume_from_seq=0)
        await again.until_seq(k)
        assert {s: e for s, e in again.sequenced if s <= k} == held


async def test_resuming_when_up_to_date_sends_nothing_to_catch_up(tmp_path: Path) -> None:
    async with served(tmp_path, limits=FAST) as server:
        gm_token, _, spectator_token = tokens(server)
        gm = await Wire.join(server.url, gm_token)
        seq = await play(gm, 3)
        back = await Wire.join(server.url, spectator_token, resume_from_seq=seq)
        await back.drain(0.2)
        assert back.seqs == [] and back.snapshots == []
        after = await gm.acked(setting(12.0))
        await back.until_seq(after.last_seq)
        assert back.seqs == [after.last_seq]


async def test_resuming_from_beyond_the_rooms_seq_gets_a_snapshot(tmp_path: Path) -> None:
    async with served(tmp_path, limits=FAST) as server:
        gm_token, _, spectator_token = tokens(server)
        gm = await Wire.join(server.url, gm_token)
        seq = await play(gm, 4)
        fresh = await Wire.join(server.url, spectator_token)
        await fresh.until_seq(seq)
        for ahead in (seq + 1, seq + 1000):
            back = await Wire.join(server.url, spectator_token, resume_from_seq=ahead)
            snapshot = await back.expect(lambda m: isinstance(m, Snapshot | Events))
            assert isinstance(snapshot, Snapshot) and snapshot.seq == seq
            assert snapshot.view == fresh.snapshots[0].view
            await back.close()


async def test_resuming_far_behind_gets_a_snapshot_then_the_live_events(tmp_path: Path) -> None:
    """The server keeps recent events only; past them a resume gets a snapshot. Over
    1,100 events is beyond what the server keeps (the protocol allows either answer for
    a client a little behind, so the test goes well past it)."""
    async with served(tmp_path, limits=FAST) as server:
        gm_token, ayla_token, _ = tokens(server)
        gm = await Wire.join(server.url, gm_token)
        await gm.acked({"type": "StartCombat"})
        seq = await rounds(gm, 66)
        assert seq > 1100
        back = await Wire.join(server.url, ayla_token, resume_from_seq=2)
        first = await back.expect(lambda m: isinstance(m, Snapshot | Events))
        assert isinstance(first, Snapshot) and first.seq == seq
        fresh = await Wire.join(server.url, ayla_token)
        snapshot = await fresh.expect(lambda m: isinstance(m, Snapshot))
        assert isinstance(snapshot, Snapshot) and snapshot.view == first.view
        after = await gm.acked(setting(11.0))
        await back.until_seq(after.last_seq)
        assert back.seqs == [after.last_seq]  # nothing before the snapshot, no gap after


async def test_a_retried_send_is_applied_once_with_the_same_ack(tmp_path: Path) -> None:
    async with served(tmp_path, limits=FAST) as server:
        gm_token, ayla_token, _ = tokens(server)
        gm = await Wire.join(server.url, gm_token)
        await gm.acked({"type": "StartCombat"})
        ayla = await Wire.join(server.url, ayla_token, subprotocol=MSGPACK_SUBPROTOCOL)
        pause = {"type": "Pause", "by": "ayla"}
        first = await ayla.acked(pause, cid="pause-1")
        assert first.first_seq == first.last_seq == 4
        again = await ayla.acked(pause, cid="pause-1")
        assert again == first
        await ayla.close()

        # the connection dropped before the answer: reconnect, resume, retry
        back = await Wire.join(server.url, ayla_token, resume_from_seq=3)
        retried = await back.acked(pause, cid="pause-1")
        assert retried == first
        await back.drain(0.1)
        assert back.seqs == [4]  # the pause once, from the resume; no second Paused
        assert (await gm_view(server.url, gm_token))[0] == 4
        # the same cid from another token is another command
        other = await gm.command({"type": "Resume", "by": "gm"}, cid="pause-1")
        assert isinstance(other, Ack) and other.first_seq == 5


async def test_a_refused_command_is_not_remembered(tmp_path: Path) -> None:
    """Retrying a refused `cid` decides it again: before the fight a declaration is
    refused, once the planning window is open the same `cid` is applied."""
    async with served(tmp_path, limits=FAST) as server:
        gm_token, ayla_token, _ = tokens(server)
        gm = await Wire.join(server.url, gm_token)
        ayla = await Wire.join(server.url, ayla_token)
        hold = {"$type": "HoldAction", "actor": "ayla"}
        declare = {"type": "Declare", "actor": "ayla", "actions": [hold]}
        refused = await ayla.command(declare, cid="d")
        assert isinstance(refused, Refused) and refused.code == "wrong_phase", refused
        await gm.acked({"type": "StartCombat"})
        applied = await ayla.acked(declare, cid="d")
        assert applied.first_seq == 4
