"""The cluster's fault paths, in this process: Redis cut, stalled, slowed or reset (by
the proxies of tests/cluster/proxied.py) under a running room, and what the room's
users see: commands refused with `unavailable` (retryable, nothing applied) while it
lasts, acknowledged once after, nothing lost or doubled; a runner that loses its lease
stops running the room and another process rebuilds it from the snapshot and the
Stream; a forwarded command that meets a store error is refused, plainly."""

from __future__ import annotations

import asyncio

import pytest

from server.engine.authority import GM
from server.engine.errors import UNAVAILABLE, CommandRefused
from server.engine.rulesets.verse.overrides import SetSetting
from server.engine.turns import StartCombat
from server.leases import fence_number
from tests.cluster.conftest import redis_url
from tests.cluster.proxied import FAST, Proxied, eventually, hold, proxied

__all__ = ["proxied", "redis_url"]

REFUSED_WITHIN = FAST.forward_timeout + 2.0  # a refusal comes after the wait, not much later


async def refused_unavailable(send: asyncio.Future[object] | object) -> CommandRefused:
    """The `unavailable` refusal `send` (an awaitable command) ends with, in time."""
    with pytest.raises(CommandRefused) as refused:
        await asyncio.wait_for(send, REFUSED_WITHIN)  # type: ignore[arg-type]
    assert refused.value.code == UNAVAILABLE, refused.value
    return refused.value


async def test_commands_during_a_redis_outage_are_refused_then_applied_once(
    proxied: Proxied,
) -> None:
    runner = await proxied.add("a")
    follower = await proxied.add("b")
    assert runner.room.holding and not follower.room.holding
    await runner.send("gm", StartCombat(), "start")
    before = await proxied.stream()

    for member in proxied.members:  # Redis is gone for everyone
        await member.proxy.cut()
    local, forwarded = await asyncio.gather(
        refused_unavailable(runner.send("ayla", hold("ayla"), "ayla-holds")),
        refused_unavailable(follower.send("bram", hold("bram"), "bram-holds")),
    )
    for refused in (local, forwarded):
        assert "retry with the same cid" in refused.message, refused
        assert "out of reach" in refused.message or "store failed" in refused.message
    assert await proxied.stream() == before  # nothing was applied

    for member in proxied.members:
        await member.proxy.heal()
    ayla = await runner.settle("ayla", hold("ayla"), "ayla-holds")
    bram = await follower.settle("bram", hold("bram"), "bram-holds")
    # sent once more: the same acks, applied once
    assert await runner.settle("ayla", hold("ayla"), "ayla-holds") == ayla
    again = await follower.settle("bram", hold("bram"), "bram-holds")
    assert (again.first_seq, again.last_seq) == (bram.first_seq, bram.last_seq)
    stream = await proxied.stream()
    assert [seq for seq, _, _ in stream] == list(range(1, len(stream) + 1))
    assert await proxied.declarations() == {"ayla": 1, "bram": 1}
    for member in proxied.members:  # and the room's own refusals are what they were
        with pytest.raises(CommandRefused) as forbidden:
            await member.send("ayla", hold("bram"), "not-hers")
        assert forbidden.value.code == "forbidden"
    await eventually(lambda: len(proxied.runners()) == 1, 5, "one process runs the room")
    running = proxied.runners()[0].room.room
    assert running is not None and running.version == len(stream)
    assert running.state.state_hash() == (await proxied.state_from_redis()).state_hash()


async def test_an_append_whose_reply_was_lost_is_applied_once(proxied: Proxied) -> None:
    runner = await proxied.add("a")
    await runner.send("gm", StartCombat(), "start")
    started = len(await proxied.stream())

    # Redis applies the append, its answer is held, then the connection is reset: the
    # runner cannot know the append landed; it finds out from the log
    runner.proxy.stall(to_redis=False)
    sending = asyncio.create_task(runner.send("ayla", hold("ayla"), "ayla-holds"))
    await eventually(
        lambda: _longer(proxied, started), 5, "the held append reached Redis", step=0.01
    )
    await runner.proxy.reset()
    await runner.proxy.heal()
    ack = await asyncio.wait_for(sending, REFUSED_WITHIN)
    assert (ack.first_seq, ack.last_seq) == (started + 1, started + 1)
    assert await proxied.declarations() == {"ayla": 1}
    await eventually(lambda: runner.room.room is not None, 5, "the room runs again")
    again = await runner.send("ayla", hold("ayla"), "ayla-holds")
    assert (again.first_seq, again.last_seq) == (ack.first_seq, ack.last_seq)
    assert len(await proxied.stream()) == started + 1


async def _longer(proxied: Proxied, than: int) -> bool:
    return len(await proxied.stream()) > than


async def test_a_stalled_runner_is_fenced_off_and_another_rebuilds_the_room(
    proxied: Proxied,
) -> None:
    old = await proxied.add("a", snapshot_every=3)
    new = await proxied.add("b", snapshot_every=3)
    await old.send("gm", StartCombat(), "start")
    await old.send("ayla", hold("ayla"), "ayla-holds")
    await old.send("bram", hold("bram"), "bram-holds")
    snapshot = await proxied.snapshot_seq()
    written = await proxied.stream()
    assert snapshot is not None and 0 < snapshot < len(written)  # events after it too
    old_token = written[-1][2]

    # the runner's Redis stops answering, connections open: a user's command there is
    # refused within its wait, and the runner's renewal waits no longer than the lease
    # has left, so it stops running the room in time
    old.proxy.stall()
    loop = asyncio.get_running_loop()
    stalled_at = loop.time()
    await refused_unavailable(old.send("gm", hold("g2"), "g2-holds"))
    assert loop.time() - stalled_at < FAST.forward_timeout + 1.0
    await eventually(lambda: not old.room.holding, 2 * FAST.lease_ttl, "the old runner let go")
    await eventually(lambda: new.room.room is not None, 5, "the other process took over")
    rebuilt = new.room.room
    assert rebuilt is not None and rebuilt.version == len(written)
    assert rebuilt.state.state_hash() == (await proxied.state_from_redis()).state_hash()
    assert old.node.running == 0 and new.node.running == 1
    # the room goes on under the new runner
    g1 = await new.send("gm", hold("g1"), "g1-holds")
    assert g1.first_seq == len(written) + 1

    # what the old runner held back reaches Redis now: its append is fenced off
    await old.proxy.heal()
    g2 = await old.settle("gm", hold("g2"), "g2-holds")  # forwarded to the new runner
    assert g2.first_seq == g1.last_seq + 1
    stream = await proxied.stream()
    assert [token for _, _, token in stream[len(written) :]] == [stream[-1][2]] * (
        len(stream) - len(written)
    )
    assert fence_number(stream[-1][2]) > fence_number(old_token)
    assert await proxied.declarations() == {"ayla": 1, "bram": 1, "g1": 1, "g2": 1}
    assert not old.room.holding


async def test_a_runner_cut_off_for_its_lease_s_time_stops_and_another_takes_over(
    proxied: Proxied,
) -> None:
    old = await proxied.add("a")
    new = await proxied.add("b")
    await old.send("gm", StartCombat(), "start")

    await old.proxy.cut()
    # its user's command: it cannot reach Redis, so cannot be sure of anything
    await refused_unavailable(old.send("ayla", hold("ayla"), "ayla-holds"))
    assert not old.room.holding  # it stopped running the room: it cannot renew
    await eventually(lambda: new.room.room is not None, 5, "the other process took over")
    bram = await new.send("bram", hold("bram"), "bram-holds")

    await old.proxy.heal()
    ayla = await old.settle("ayla", hold("ayla"), "ayla-holds")  # forwarded now
    assert ayla.first_seq == bram.last_seq + 1
    assert not old.room.holding
    assert await proxied.declarations() == {"ayla": 1, "bram": 1}


async def test_a_forwarded_command_meeting_a_store_error_is_refused_plainly(
    proxied: Proxied,
) -> None:
    runner = await proxied.add("a", log_proxy=True)
    follower = await proxied.add("b")
    await runner.send("gm", StartCombat(), "start")
    assert runner.log_proxy is not None

    await runner.log_proxy.cut()  # the runner's log is away; its lease and pub/sub are not
    refused = await refused_unavailable(follower.send("bram", hold("bram"), "bram-holds"))
    assert runner.room.room is None  # it cannot start the room again without its log
    runner.room.want_timing()  # a feed asking for the countdown meanwhile: nothing to say
    assert "its store failed" in refused.message  # what the runner answered
    assert "retry with the same cid" in refused.message
    assert "127.0.0.1" not in refused.message  # Redis's address is not the players' business
    assert runner.room.holding  # it still holds the lease: nobody else may run the room

    await runner.log_proxy.heal()
    ack = await follower.settle("bram", hold("bram"), "bram-holds")
    assert ack.first_seq == len(await proxied.stream())
    assert await proxied.declarations() == {"bram": 1}


async def test_a_slow_redis_slows_commands_but_changes_no_runner(proxied: Proxied) -> None:
    runner = await proxied.add("a")
    follower = await proxied.add("b")
    await runner.send("gm", StartCombat(), "start")
    for member in proxied.members:
        member.proxy.slow(0.03)  # every chunk, either way: tens of ms per command
    loop = asyncio.get_running_loop()
    started = loop.time()
    await runner.send("ayla", hold("ayla"), "ayla-holds")
    await follower.send("bram", hold("bram"), "bram-holds")
    assert loop.time() - started >= 0.12  # it was slow
    for member in proxied.members:
        await member.proxy.heal()
    await follower.send("gm", hold("g1"), "g1-holds")
    stream = await proxied.stream()
    assert len({token for _, _, token in stream}) == 1  # one runner all along
    assert runner.room.holding and not follower.room.holding
    assert await proxied.declarations() == {"ayla": 1, "bram": 1, "g1": 1}


async def test_a_forwarded_command_without_a_client_id_is_never_sent_twice(
    proxied: Proxied,
) -> None:
    runner = await proxied.add("a", log_proxy=True)
    follower = await proxied.add("b")
    await runner.send("gm", StartCombat(), "start")
    started = len(await proxied.stream())
    assert runner.log_proxy is not None

    # the runner's append lands but its answer is lost: the runner cannot tell whether
    # it landed, and a command without a client id cannot be told from a new one if it
    # is sent again: it is refused, saying it may have been applied, and not sent again
    runner.log_proxy.stall(to_redis=False)
    sending = asyncio.create_task(
        follower.room.submit(GM, SetSetting("planning_seconds", 30), None)
    )
    await eventually(lambda: _longer(proxied, started), 5, "the held append reached Redis")
    await runner.log_proxy.reset()
    await runner.log_proxy.heal()
    refused = await refused_unavailable(sending)
    assert "may have been applied" in refused.message and "store failed" in refused.message
    await eventually(lambda: runner.room.room is not None, 5, "the room runs again")
    assert [kind for _, kind, _ in (await proxied.stream())[started:]] == ["SettingChanged"]
