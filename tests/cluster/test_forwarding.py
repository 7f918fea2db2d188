"""Forwarding between two processes' `Forwarder`s (both in this loop, on a private
Redis): nobody serving is known at once, an answer comes back to its asker, a lost
one is a timeout, and taking the room meanwhile ends the wait."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from server.cluster.forwarding import NOBODY, Forwarder, Reply, Request
from server.engine.authority import GM
from server.engine.turns import StartCombat
from tests.support.redis import forget_prefix, fresh_prefix
from tests.support.waiting import within


@pytest.fixture
async def forwarders(redis_url: str) -> AsyncIterator[tuple[Forwarder, Forwarder]]:
    prefix = fresh_prefix()
    pair = (
        Forwarder(redis_url, "asker", prefix=prefix),
        Forwarder(redis_url, "runner", prefix=prefix),
    )
    for forwarder in pair:
        await within(forwarder.start(), what=f"starting the {forwarder.node_id} forwarder")
    yield pair
    try:
        for forwarder in pair:
            await within(forwarder.close(), what=f"closing the {forwarder.node_id} forwarder")
    finally:
        await within(forget_prefix(redis_url, prefix), what="removing the test's keys")


async def test_a_room_nobody_serves_is_known_at_once(
    forwarders: tuple[Forwarder, Forwarder],
) -> None:
    asker, _ = forwarders
    assert await asker.ask("r", GM, StartCombat(), "c1", timeout=5) is NOBODY


async def test_the_runner_s_answer_comes_back_to_the_asker(
    forwarders: tuple[Forwarder, Forwarder],
) -> None:
    asker, runner = forwarders
    seen: list[Request] = []

    async def answer(request: Request) -> Reply | None:
        if request.command is None:
            return None  # the probe of `_until_served`
        seen.append(request)
        return Reply(request.id, "", "", 4, 6)

    serving = runner.serve("r", answer)
    try:
        await _until_served(asker)
        reply = await asker.ask("r", GM, StartCombat(), "c1", timeout=5)
        assert isinstance(reply, Reply) and (reply.first_seq, reply.last_seq) == (4, 6)
        assert seen[0].principal == GM and seen[0].command == StartCombat()
        assert seen[0].client_id == "c1" and seen[0].reply_to == "asker"
    finally:
        await within(serving.close(), what="the runner to stop serving")
    assert await asker.ask("r", GM, StartCombat(), "c2", timeout=5) is NOBODY


async def test_no_answer_is_a_timeout_and_a_change_of_runner_ends_the_wait(
    forwarders: tuple[Forwarder, Forwarder],
) -> None:
    asker, runner = forwarders

    async def silent(request: Request) -> None:
        return None  # as if the reply were lost

    serving = runner.serve("r", silent)
    try:
        await _until_served(asker)
        assert await asker.ask("r", GM, StartCombat(), "c1", timeout=0.2) is None
        changed = asyncio.Event()
        asyncio.get_running_loop().call_later(0.1, changed.set)
        started = asyncio.get_running_loop().time()
        assert await asker.ask("r", GM, StartCombat(), "c1", timeout=5, interrupt=changed) is None
        assert asyncio.get_running_loop().time() - started < 2
    finally:
        await within(serving.close(), what="the runner to stop serving")


async def _until_served(asker: Forwarder) -> None:
    """Wait until the runner's subscription to the room's requests is in place."""
    for _ in range(100):
        if await _reaches(asker):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the runner never subscribed")


async def _reaches(asker: Forwarder) -> bool:
    probe = Request("probe", "nobody", None, None, None)  # a countdown request: no answer
    return await asker.requests.publish_counted("r", [probe]) > 0
