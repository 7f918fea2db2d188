"""`rooms`: a host lists every room the server knows, with its seats and the codes that
join it, so a GM who lost the first start's lines finds the fight again."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from clients import cli
from protocol.messages import Codes, Created, Listing, Refused
from server.app import DEMO_ENCOUNTER
from server.encounters import build, read_file
from tests.server.wire import Wire, new_cid
from tests.support.server import Served, served


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Served]:
    async with served(tmp_path, demo=False) as running:
        yield running


async def create(host: Wire, encounter: dict[str, Any]) -> Created:
    await host.send({"type": "create", "cid": new_cid("make"), "encounter": encounter})
    created = await host.expect(lambda m: isinstance(m, Created | Refused))
    assert isinstance(created, Created), created
    return created


async def rooms(wire: Wire) -> Listing | Refused:
    cid = new_cid("rooms")
    await wire.send({"type": "rooms", "cid": cid})
    answer = await wire.expect(lambda m: isinstance(m, Listing | Refused) and m.cid == cid)
    assert isinstance(answer, Listing | Refused)
    return answer


def duel() -> dict[str, Any]:
    """A fight of two, one seat: the demo's Ayla against its first goblin, GM-played."""
    demo = read_file(DEMO_ENCOUNTER)
    fighters = [entry for entry in demo["combatants"] if entry["id"] in ("ayla", "g1")]
    return {**demo, "name": "Duel", "mode": "turn_based", "combatants": fighters}


async def test_a_host_lists_every_room_with_its_seats_and_codes(server: Served) -> None:
    host = await Wire.join(server.url, server.host_token)
    empty = await rooms(host)
    ambush, duel_room = await create(host, read_file(DEMO_ENCOUNTER)), await create(host, duel())

    listing = await rooms(host)

    assert isinstance(empty, Listing) and empty.rooms == []
    assert isinstance(listing, Listing)
    by_id = {room.room: room for room in listing.rooms}
    assert [room.room for room in listing.rooms] == sorted(by_id)
    first, second = by_id[ambush.room], by_id[duel_room.room]
    assert (first.name, first.ruleset, first.mode) == ("Goblin ambush", "verse", "live")
    assert first.seats == {"ayla": ["ayla"], "bram": ["bram"], "corvin": ["corvin"]}
    assert first.gm_plays == ["g1", "g2"]
    assert first.codes == ambush.codes
    assert (second.name, second.mode, second.seats) == ("Duel", "turn_based", {"ayla": ["ayla"]})
    assert second.gm_plays == ["g1"] and second.codes == duel_room.codes


async def test_the_listing_follows_revokes_and_renewed_seats(server: Served) -> None:
    host = await Wire.join(server.url, server.host_token)
    created = await create(host, read_file(DEMO_ENCOUNTER))
    gm = await Wire.join(server.url, created.codes.gm)
    await gm.send({"type": "revoke", "cid": "r1", "code": created.codes.players["corvin"]})
    await gm.expect(lambda m: isinstance(m, Codes))
    seats = {"ayla": ["ayla"], "bram": ["bram", "g2"]}
    await host.send({"type": "renew", "cid": "again", "room": created.room, "seats": seats})
    await host.expect(lambda m: isinstance(m, Created))

    listing = await rooms(host)

    assert isinstance(listing, Listing)
    [room] = listing.rooms
    assert room.seats == {"ayla": ["ayla"], "bram": ["bram", "g2"]}  # no corvin: revoked
    assert room.gm_plays == ["corvin", "g1"]  # nobody else plays them now
    assert set(room.codes.players) == {"ayla", "bram"}


async def test_only_a_host_lists_the_rooms(server: Served) -> None:
    host = await Wire.join(server.url, server.host_token)
    created = await create(host, read_file(DEMO_ENCOUNTER))

    for token in (created.codes.gm, created.players["ayla"], created.spectator):
        joined = await Wire.join(server.url, token)
        answer = await rooms(joined)
        assert isinstance(answer, Refused)
        assert (answer.code, answer.message) == (
            "forbidden",
            "only a host token may list the rooms",
        )


async def test_a_room_made_before_cards_and_codes_is_listed_with_how_to_give_it_codes(
    server: Served,
) -> None:
    """A room an older server created: its initial encounter alone is in the log."""
    built = build(read_file(DEMO_ENCOUNTER))
    await server.app.log.save_initial(built.encounter.id, built.encounter)
    out = io.StringIO()

    assert await cli.rooms(server.url, server.host_token, "msgpack", out) == 0

    room = built.encounter.id
    lines = out.getvalue().splitlines()
    assert lines[0] == f"1 room on {server.url}:"
    assert lines[2] == f"{room}: (verse, live), player seats: none"
    assert lines[3] == (
        f"  (codes missing: {cli.this_program()} renew ENCOUNTER.toml --room {room} "
        f"--server {server.url} --token-file DATA_DIR/host-token gives them)"
    )
    renewed = io.StringIO()
    assert (
        await cli.renew(DEMO_ENCOUNTER, room, server.url, server.host_token, "json", renewed) == 0
    )
    again = io.StringIO()
    await cli.rooms(server.url, server.host_token, "msgpack", again)
    assert f"{room}: (verse, live), player seats: ayla, bram, corvin" in again.getvalue()
    assert "codes missing" not in again.getvalue()


async def test_combat_rooms_prints_the_commands_that_join_each_room(server: Served) -> None:
    out = io.StringIO()
    assert await cli.rooms(server.url, server.host_token, "msgpack", out) == 0
    assert out.getvalue() == (
        f"No rooms on {server.url} yet: {cli.this_program()} create ENCOUNTER.toml makes one.\n"
    )
    host = await Wire.join(server.url, server.host_token)
    created = await create(host, read_file(DEMO_ENCOUNTER))
    printed = io.StringIO()

    assert await cli.rooms(server.url, server.host_token, "msgpack", printed) == 0

    combat = cli.this_program()
    lines = printed.getvalue().splitlines()
    assert (
        lines[2]
        == f"{created.room}: 'Goblin ambush' (verse, live), player seats: ayla, bram, corvin"
    )
    assert lines[3] == (
        f"  GM:        {combat} gm --server {server.url} --token {created.codes.gm} --plays g1,g2"
    )
    assert lines[4] == (
        f"  ayla:      {combat} play --server {server.url} --token {created.codes.players['ayla']}"
    )
    assert lines[-1] == (
        f"  spectator: {combat} watch --server {server.url} --token {created.codes.spectator}"
    )
    gm = await Wire.join(server.url, lines[3].split(" --token ")[1].split()[0])
    assert gm.welcome is not None and gm.welcome.room == created.room


async def test_combat_rooms_with_a_join_token_says_it_needs_the_host_token(
    server: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    host = await Wire.join(server.url, server.host_token)
    created = await create(host, read_file(DEMO_ENCOUNTER))

    assert await cli.rooms(server.url, created.codes.gm, "msgpack", io.StringIO()) == 1

    assert "combat rooms: not a host token" in capsys.readouterr().err
