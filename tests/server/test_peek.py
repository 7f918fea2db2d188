"""The GM's `peek`: the table as it was after an event, before rewinding there.

docs/protocol.md, `peek`: only the GM may ask; the answer is the GM's table after that
event, exactly what a `Rewind` there restores; nothing changes and nobody is told; a
seq no rewind could go to is refused with `invalid_command`, naming where one can.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from protocol.messages import Peeked, Refused, Table, Update
from tests.server.wire import Wire, new_cid
from tests.support.server import Served, served


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Served]:
    async with served(tmp_path) as running:
        yield running


async def gm_of(server: Served) -> Wire:
    assert server.demo is not None
    return await Wire.join(server.url, server.demo["gm"], events=False)


async def peek(wire: Wire, seq: Any) -> Peeked | Refused:
    cid = new_cid("peek")
    await wire.send({"type": "peek", "cid": cid, "seq": seq})
    answer = await wire.expect(lambda m: isinstance(m, Peeked | Refused) and m.cid == cid)
    assert isinstance(answer, Peeked | Refused)
    return answer


async def table_now(server: Served) -> tuple[int, dict[str, Any]]:
    """The GM's table as a fresh GM connection is sent it."""
    wire = await gm_of(server)
    try:
        table = await wire.expect(lambda m: isinstance(m, Table))
        assert isinstance(table, Table)
        return table.seq, table.model_dump()["view"]
    finally:
        await wire.close()


async def test_the_gm_sees_the_fight_as_it_was_and_a_rewind_there_restores_it(
    server: Served,
) -> None:
    gm = await gm_of(server)
    started = await gm.acked({"type": "StartCombat"})
    before_seq, before = await table_now(server)
    assert before_seq == started.last_seq
    await gm.acked({"type": "SetHealth", "combatant": "g1", "health": 2})
    await gm.acked(
        {"type": "SetPosition", "combatant": "ayla", "cell": {"$type": "Cell", "x": 9, "y": 9}}
    )
    now_seq, now = await table_now(server)
    assert now["combatants"]["g1"]["health"]["now"] == 2
    await gm.until_seq(now_seq)
    gm.pending.clear()

    seen = await peek(gm, started.last_seq)

    assert isinstance(seen, Peeked), seen
    assert seen.seq == started.last_seq
    assert seen.model_dump()["view"] == before  # the GM's table then, hidden values and all
    assert seen.view.combatants["g1"].health is not None
    assert seen.view.combatants["g1"].health.now == 12
    assert seen.view.combatants["ayla"].position != [9, 9]
    assert await table_now(server) == (now_seq, now)  # nothing changed
    await gm.drain()
    assert not [m for m in gm.pending if isinstance(m, Update)]  # and nobody was told

    await gm.acked({"type": "Rewind", "to_version": seen.view.version})
    _, rewound = await table_now(server)
    assert rewound["combatants"] == seen.model_dump()["view"]["combatants"]
    assert rewound["round"] == seen.view.round
    await gm.close()


async def test_a_player_or_a_spectator_may_not_peek(server: Served) -> None:
    assert server.demo is not None
    for token in (server.demo["players"]["ayla"], server.demo["spectator"]):
        wire = await Wire.join(server.url, token, events=False)
        answer = await peek(wire, 0)
        assert isinstance(answer, Refused) and answer.code == "forbidden", answer
        assert "only the GM" in answer.message
        await wire.close()


async def test_a_point_no_rewind_could_go_to_is_refused_in_words(server: Served) -> None:
    gm = await gm_of(server)
    started = await gm.acked({"type": "StartCombat"})
    assert started.last_seq - started.first_seq >= 1  # several events: a middle to miss

    beyond = await peek(gm, started.last_seq + 5)
    inside = await peek(gm, started.first_seq)

    assert isinstance(beyond, Refused) and beyond.code == "invalid_command", beyond
    assert f"to {started.last_seq}" in beyond.message
    assert isinstance(inside, Refused) and inside.code == "invalid_command", inside
    assert "middle of a command's events" in inside.message
    assert str(started.last_seq) in inside.message
    before = await peek(gm, 0)  # before the first event: the encounter as created
    assert isinstance(before, Peeked) and before.view.phase == "setup"
    await gm.send({"type": "peek", "cid": new_cid("peek"), "seq": -1})
    error = await gm.expect(lambda m: m.type == "error")
    assert error.code == "invalid_message"  # type: ignore[union-attr]
    await gm.close()
