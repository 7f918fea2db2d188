"""Invite codes and the rooms list live in Redis: every process of a cluster knows the
codes and the rooms another one created, and a code one revokes is refused by all."""

from __future__ import annotations

from pathlib import Path

from protocol.messages import Codes, Created, Error, Hello, Listing, Refused
from server.app import DEMO_ENCOUNTER
from server.encounters import read_file
from tests.server.wire import Wire, open_socket
from tests.support.redis import RedisServer
from tests.support.server import served


async def test_a_code_made_on_one_process_joins_lists_and_revokes_on_another(
    tmp_path: Path,
) -> None:
    redis = RedisServer(tmp_path, appendfsync="always")
    redis.start()
    try:
        async with (
            served(tmp_path / "first", redis=redis.url, demo=False) as first,
            served(tmp_path / "second", redis=redis.url, demo=False) as second,
        ):
            host = await Wire.join(first.url, first.host_token)
            await host.send(
                {"type": "create", "cid": "new", "encounter": read_file(DEMO_ENCOUNTER)}
            )
            created = await host.expect(lambda m: isinstance(m, Created | Refused))
            assert isinstance(created, Created), created

            other_host = await Wire.join(second.url, second.host_token)
            await other_host.send({"type": "rooms", "cid": "list"})
            listing = await other_host.expect(lambda m: isinstance(m, Listing))
            assert isinstance(listing, Listing)
            [room] = listing.rooms
            assert (room.room, room.name, room.codes) == (
                created.room,
                "Goblin ambush",
                created.codes,
            )

            gm = await Wire.join(second.url, room.codes.gm)
            bram_code = room.codes.players["bram"]
            await gm.send({"type": "revoke", "cid": "out", "code": bram_code})
            assert isinstance(await gm.expect(lambda m: isinstance(m, Codes)), Codes)

            wire = Wire(await open_socket(first.url))
            await wire.send(Hello(token=bram_code))
            refused = await wire.expect(lambda m: isinstance(m, Error))
            assert isinstance(refused, Error) and refused.code == "unauthorized"
            ayla = await Wire.join(first.url, room.codes.players["ayla"])
            assert ayla.welcome is not None and ayla.welcome.controls == ["ayla"]
    finally:
        redis.kill()
