"""A command interrupted on its way to the log may still land: its `unavailable`
refusal says so instead of "nothing was applied" (docs/protocol.md, "Error codes").
A player told nothing happened would send it again under a new cid and get it twice;
told it may have landed, the client retries with the same cid, which is applied once.
"""

from __future__ import annotations

import asyncio

import pytest

from server.engine.authority import GM
from server.engine.errors import CommandRefused
from server.engine.rulesets.verse.overrides import SetSetting
from server.engine.turns import StartCombat
from tests.cluster.conftest import redis_url
from tests.cluster.proxied import Proxied, eventually, proxied

__all__ = ["proxied", "redis_url"]


@pytest.mark.parametrize("cid", ["again", None])
async def test_an_append_stalled_past_the_wait_is_said_to_maybe_have_landed(
    proxied: Proxied, cid: str | None
) -> None:
    runner = await proxied.add("a", log_proxy=True)
    await runner.send("gm", StartCombat(), "start")
    assert runner.log_proxy is not None
    runner.log_proxy.stall()  # Redis stops answering the room's appends
    setting = SetSetting("planning_seconds", 30)
    with pytest.raises(CommandRefused) as refused:
        await asyncio.wait_for(runner.room.submit(GM, setting, cid), 15)
    assert refused.value.code == "unavailable"
    assert "nothing was applied" not in refused.value.message
    assert "may have been applied" in refused.value.message, refused.value.message
    await runner.log_proxy.heal()

    async def landed() -> bool:
        kinds = [kind for _, kind, _ in await proxied.stream()]
        return kinds.count("SettingChanged") == 1

    # It did land: "nothing was applied" would have been false.
    await eventually(landed, 10, "the stalled append to land once")
    if cid is not None:  # the retry the message asks for finds it, and adds nothing
        await asyncio.wait_for(runner.room.submit(GM, setting, cid), 15)
        assert [kind for _, kind, _ in await proxied.stream()].count("SettingChanged") == 1
