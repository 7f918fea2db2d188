"""Fresh tokens for an existing room: a host token asks, naming the seats again."""

from __future__ import annotations

from pathlib import Path

from protocol.messages import Created, Refused
from server.app import DEMO_ENCOUNTER
from server.encounters import read_file
from tests.server.wire import Wire
from tests.support.server import served


async def test_a_host_renews_the_tokens_of_an_existing_room(tmp_path: Path) -> None:
    async with served(tmp_path, demo=False) as server:
        host = await Wire.join(server.url, server.host_token)
        await host.send({"type": "create", "cid": "make", "encounter": read_file(DEMO_ENCOUNTER)})
        created = await host.expect(lambda m: isinstance(m, Created))
        assert isinstance(created, Created)
        gm = await Wire.join(server.url, created.gm)
        await gm.acked({"type": "StartCombat"})

        await host.send(
            {"type": "renew", "cid": "again", "room": created.room, "seats": {"ayla": ["ayla"]}}
        )
        renewed = await host.expect(lambda m: isinstance(m, Created | Refused))

        assert isinstance(renewed, Created), renewed
        assert (renewed.room, renewed.ruleset, set(renewed.players)) == (
            created.room,
            "verse",
            {"ayla"},
        )
        assert renewed.gm != created.gm
        new_gm = await Wire.join(server.url, renewed.gm)
        ayla = await Wire.join(server.url, renewed.players["ayla"])
        assert new_gm.welcome is not None and new_gm.welcome.role == "gm"
        assert new_gm.welcome.seq == gm.last_seq  # the same fight, where it was
        assert ayla.welcome is not None and ayla.welcome.controls == ["ayla"]


async def test_renewing_needs_a_host_token_a_room_and_its_combatants(tmp_path: Path) -> None:
    async with served(tmp_path) as server:
        assert server.demo is not None
        room = server.demo["room"]
        host = await Wire.join(server.url, server.host_token)
        gm = await Wire.join(server.url, server.demo["gm"])

        async def renew(wire: Wire, cid: str, **fields: object) -> Refused:
            await wire.send({"type": "renew", "cid": cid, **fields})
            answer = await wire.expect(lambda m: isinstance(m, Created | Refused))
            assert isinstance(answer, Refused), answer
            return answer

        nowhere = await renew(host, "r1", room="nowhere")
        stranger = await renew(host, "r2", room=room, seats={"x": ["nobody"]})
        twice = await renew(host, "r3", room=room, seats={"a": ["ayla"], "b": ["ayla"]})
        from_gm = await renew(gm, "r4", room=room)

    assert (nowhere.code, stranger.code, twice.code) == ("invalid_encounter",) * 3
    assert "nobody" in stranger.message and "ayla" in twice.message
    assert from_gm.code == "forbidden"
