"""Invite codes: a short code per seat, for the GM and for spectators, that joins as its
token would, is kept with the room, and that the GM may revoke."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from protocol.messages import Codes, Created, Error, Hello, Refused
from server.app import DEMO_ENCOUNTER
from server.encounters import read_file
from tests.server.wire import Wire, new_cid, open_socket
from tests.support.server import Served, served

CODE = re.compile(r"^[23456789ABCDEFGHJKMNPQRSTVWXYZ]{10}$")


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Served]:
    async with served(tmp_path, demo=False) as running:
        yield running


async def create(server: Served) -> Created:
    host = await Wire.join(server.url, server.host_token)
    await host.send({"type": "create", "cid": "make", "encounter": read_file(DEMO_ENCOUNTER)})
    created = await host.expect(lambda m: isinstance(m, Created | Refused))
    assert isinstance(created, Created), created
    await host.close()
    return created


async def refused_at_hello(url: str, token: str) -> tuple[int | None, list[Error]]:
    wire = Wire(await open_socket(url))
    await wire.send(Hello(token=token))
    return await wire.closed(), wire.errors


async def ask(wire: Wire, message: dict[str, object]) -> Codes | Refused:
    cid = new_cid("inv")
    await wire.send({**message, "cid": cid})
    answer = await wire.expect(lambda m: isinstance(m, Codes | Refused) and m.cid == cid)
    assert isinstance(answer, Codes | Refused)
    return answer


async def test_create_gives_a_short_code_per_seat_for_the_gm_and_for_spectators(
    server: Served,
) -> None:
    created = await create(server)
    codes = created.codes

    assert set(codes.players) == set(created.players) == {"ayla", "bram", "corvin"}
    every = [codes.gm, codes.spectator, *codes.players.values()]
    assert all(CODE.match(code) for code in every), every
    assert len(set(every)) == len(every)


async def test_a_code_joins_as_its_token_does(server: Served) -> None:
    created = await create(server)
    pairs = [
        (created.gm, created.codes.gm),
        (created.spectator, created.codes.spectator),
        *((created.players[seat], code) for seat, code in created.codes.players.items()),
    ]
    for token, code in pairs:
        by_token = await Wire.join(server.url, token)
        by_code = await Wire.join(server.url, code)
        assert by_code.welcome == by_token.welcome
        await by_token.close()
        await by_code.close()

    ayla = await Wire.join(server.url, created.codes.players["ayla"])
    answer = await ayla.command({"type": "Pause", "by": "ayla"})
    assert answer.type == "ack"  # her seat's command, as her token would send it


async def test_a_code_is_read_in_any_case_and_with_dashes(server: Served) -> None:
    created = await create(server)
    code = created.codes.players["bram"]

    typed = f"{code[:5].lower()}-{code[5:].lower()}"
    bram = await Wire.join(server.url, typed)

    assert bram.welcome is not None and bram.welcome.controls == ["bram"]


async def test_a_code_never_given_is_unauthorized(server: Served) -> None:
    await create(server)

    close, errors = await refused_at_hello(server.url, "ABCDE23456")

    assert close == 4001
    assert [(e.code, e.message) for e in errors] == [
        ("unauthorized", "the invite code is not valid: mistyped, revoked or never given")
    ]


async def test_the_gm_lists_the_rooms_codes_and_nobody_else_may(server: Served) -> None:
    created = await create(server)
    gm = await Wire.join(server.url, created.codes.gm)
    ayla = await Wire.join(server.url, created.codes.players["ayla"])
    watcher = await Wire.join(server.url, created.codes.spectator)
    host = await Wire.join(server.url, server.host_token)

    listed = await ask(gm, {"type": "invites"})
    refusals = [await ask(wire, {"type": "invites"}) for wire in (ayla, watcher, host)]

    assert isinstance(listed, Codes)
    assert (listed.room, listed.codes) == (created.room, created.codes)
    assert [(r.type, getattr(r, "code", "")) for r in refusals] == [("refused", "forbidden")] * 3
    assert isinstance(refusals[0], Refused)
    assert refusals[0].message == "only the GM may see the room's invite codes"


async def test_a_revoked_code_lets_nobody_in_and_the_seat_gets_a_fresh_one(
    server: Served,
) -> None:
    created = await create(server)
    old = created.codes.players["ayla"]
    gm = await Wire.join(server.url, created.codes.gm)
    ayla_in = await Wire.join(server.url, old)

    revoked = await ask(gm, {"type": "revoke", "code": old})

    assert isinstance(revoked, Codes)
    assert set(revoked.codes.players) == {"bram", "corvin"}
    assert revoked.codes.gm == created.codes.gm
    assert revoked.codes.spectator == created.codes.spectator
    close, errors = await refused_at_hello(server.url, old)
    assert (close, [e.code for e in errors]) == (4001, ["unauthorized"])
    await ayla_in.ping(1)  # a connection already in stays
    await Wire.join(server.url, created.players["ayla"])  # her token is not a code: it stays

    again = await ask(gm, {"type": "revoke", "code": old, "reissue": True})
    assert isinstance(again, Refused) and again.code == "unknown_invite"

    bram = created.codes.players["bram"]
    reissued = await ask(gm, {"type": "revoke", "code": bram, "reissue": True})
    assert isinstance(reissued, Codes)
    fresh = reissued.codes.players["bram"]
    assert CODE.match(fresh) and fresh != bram
    new_bram = await Wire.join(server.url, fresh)
    assert new_bram.welcome is not None and new_bram.welcome.controls == ["bram"]
    close, _ = await refused_at_hello(server.url, bram)
    assert close == 4001


async def test_revoking_what_is_not_a_live_code_of_the_room_changes_nothing(
    server: Served,
) -> None:
    first, second = await create(server), await create(server)
    gm = await Wire.join(server.url, first.codes.gm)
    ayla = await Wire.join(server.url, first.codes.players["ayla"])

    answers = [
        await ask(gm, {"type": "revoke", "code": second.codes.gm}),  # another room's
        await ask(gm, {"type": "revoke", "code": "ABCDE23456"}),  # never given
        await ask(gm, {"type": "revoke", "code": "not a code at all"}),
        await ask(ayla, {"type": "revoke", "code": first.codes.gm}),  # not the GM
    ]

    assert [(a.type, getattr(a, "code", "")) for a in answers] == [
        ("refused", "unknown_invite"),
        ("refused", "unknown_invite"),
        ("refused", "unknown_invite"),
        ("refused", "forbidden"),
    ]
    listed = await ask(gm, {"type": "invites"})
    assert isinstance(listed, Codes) and listed.codes == first.codes
    await Wire.join(server.url, second.codes.gm)


async def test_renew_keeps_the_codes_a_table_knows_and_replaces_a_changed_seats(
    server: Served,
) -> None:
    created = await create(server)
    host = await Wire.join(server.url, server.host_token)
    seats = {"ayla": ["ayla"], "bram": ["bram", "corvin"]}  # Bram now plays Corvin too

    await host.send({"type": "renew", "cid": "again", "room": created.room, "seats": seats})
    renewed = await host.expect(lambda m: isinstance(m, Created | Refused))

    assert isinstance(renewed, Created), renewed
    codes = renewed.codes
    assert (codes.gm, codes.spectator) == (created.codes.gm, created.codes.spectator)
    assert codes.players["ayla"] == created.codes.players["ayla"]
    assert codes.players["bram"] != created.codes.players["bram"]
    assert set(codes.players) == {"ayla", "bram"}
    bram = await Wire.join(server.url, codes.players["bram"])
    assert bram.welcome is not None and bram.welcome.controls == ["bram", "corvin"]
    close, _ = await refused_at_hello(server.url, created.codes.players["bram"])
    assert close == 4001  # it granted the seat as it was
    corvin = await Wire.join(server.url, created.codes.players["corvin"])  # untouched
    assert corvin.welcome is not None and corvin.welcome.controls == ["corvin"]
