"""Bad input over the wire: each gets its documented error or close code, nothing in the
room changes, and the server keeps serving everyone else (docs/protocol.md, "Errors and
close codes").

Every test runs next to a bystander: a GM connection of the demo room that joined
before the bad input. Afterwards the room's seq and the GM's whole view are what they
were before, and the bystander still gets a `pong` and an acknowledged command with
its events.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import msgpack
import pytest
from websockets.exceptions import InvalidStatus

from protocol.codec import JSON_SUBPROTOCOL, MAX_FRAME, MSGPACK_SUBPROTOCOL
from protocol.messages import Error, Refused
from server.gateway.connection import Limits
from server.gateway.tokens import SECRET_FILE_NAME, TokenIssuer
from tests.server.wire import Frame, Wire, gm_view, open_socket
from tests.support.server import Served, served

DAY = 24 * 60 * 60


@asynccontextmanager
async def bystanded(tmp_path: Path, **gateway: Any) -> AsyncIterator[Served]:
    """A server whose demo room has a GM connected; checks after the block that the room
    did not change and that the GM is still served."""
    async with served(tmp_path, **gateway) as server:
        assert server.demo is not None
        gm_token = server.demo["gm"]
        bystander = await Wire.join(server.url, gm_token, subprotocol=JSON_SUBPROTOCOL)
        before = await gm_view(server.url, gm_token)
        yield server
        assert await gm_view(server.url, gm_token) == before, "the bad input changed the room"
        await bystander.ping(77)
        ack = await bystander.acked(
            {"type": "SetSetting", "name": "reaction_seconds", "value": 9.0}
        )
        assert ack.first_seq == before[0] + 1
        await bystander.until_seq(ack.last_seq)


async def joined(server: Served, subprotocol: str = MSGPACK_SUBPROTOCOL) -> Wire:
    """A spectator of the demo room: a connection past its handshake."""
    assert server.demo is not None
    return await Wire.join(server.url, server.demo["spectator"], subprotocol=subprotocol)


async def fails_handshake(wire: Wire, error_codes: set[str], close_code: int) -> None:
    """The server sent an `error` with one of `error_codes`, then closed with `close_code`."""
    assert await wire.closed() == close_code
    assert [e.code for e in wire.errors] in [[code] for code in error_codes], wire.errors
    assert wire.welcome is None


def deep_json(levels: int) -> str:
    return '{"type": "ping", "nonce": ' + "[" * levels + "]" * levels + "}"


# A frame after the handshake that the server cannot take: `error`, the connection goes on.
NOT_FATAL: list[tuple[str, Frame, str]] = [
    ("not msgpack", b"\xc1\xc1", "malformed_frame"),
    ("msgpack with trailing bytes", msgpack.packb({"type": "ping"}) + b"\x00", "malformed_frame"),
    ("msgpack with an integer key", msgpack.packb({1: "ping"}), "malformed_frame"),
    ("msgpack extension type", msgpack.packb(msgpack.ExtType(5, b"xx")), "malformed_frame"),
    ("not JSON", '{"type": "ping",', "malformed_frame"),
    ("JSON with NaN", '{"type": "ping", "nonce": NaN}', "malformed_frame"),
    ("JSON nested over 200 levels", deep_json(300), "malformed_frame"),
    ("not a map", msgpack.packb(["ping", 1]), "invalid_message"),
    ("no type", '{"nonce": 1}', "invalid_message"),
    ("a string for an integer", '{"type": "ping", "nonce": "7"}', "invalid_message"),
    ("a float for an integer", msgpack.packb({"type": "ping", "nonce": 7.0}), "invalid_message"),
    ("a boolean for an integer", '{"type": "ping", "nonce": true}', "invalid_message"),
    ("an unknown field", '{"type": "ping", "nonce": 1, "urgent": true}', "invalid_message"),
    ("a send with no cid", '{"type": "send", "command": {"type": "SkipTurn"}}', "invalid_message"),
    (
        "a cid too long",
        msgpack.packb({"type": "send", "cid": "c" * 65, "command": {}}),
        "invalid_message",
    ),
    ("an unknown message", '{"type": "shout", "text": "hi"}', "unknown_message"),
    ("a server's message", '{"type": "pong", "nonce": 1}', "unknown_message"),
]


@pytest.mark.parametrize(
    ("frame", "code"), [(f, c) for _, f, c in NOT_FATAL], ids=[n for n, _, _ in NOT_FATAL]
)
async def test_a_bad_frame_gets_an_error_and_the_connection_goes_on(
    tmp_path: Path, frame: Frame, code: str
) -> None:
    async with bystanded(tmp_path) as server:
        wire = await joined(server)
        await wire.send_raw(frame)
        error = await wire.expect(lambda m: isinstance(m, Error))
        assert isinstance(error, Error) and error.code == code, error
        await wire.ping(1)  # the same connection is still served


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (b"\xc1", "malformed_frame: not msgpack"),
        ('{"type": "hello",', "malformed_frame: not JSON: "),
        ('{"type": "hello"}', "invalid_message: token: "),
        ('{"type": "shout"}', "unknown_message: "),
        ('{"type": "ping", "nonce": 1}', "the first message must be a hello, not a ping"),
    ],
    ids=["not msgpack", "not JSON", "a hello without token", "an unknown message", "a ping"],
)
async def test_a_first_frame_that_is_not_a_valid_hello_closes_4003(
    tmp_path: Path, frame: Frame, message: str
) -> None:
    """Always `hello_required`; the message starts with the underlying code, if any."""
    async with bystanded(tmp_path) as server:
        wire = Wire(await open_socket(server.url))
        await wire.send_raw(frame)
        await fails_handshake(wire, {"hello_required"}, 4003)
        assert wire.errors[0].message.startswith(message), wire.errors


async def test_no_hello_in_time_closes_4003(tmp_path: Path) -> None:
    async with bystanded(tmp_path, limits=Limits(hello_seconds=0.3)) as server:
        wire = Wire(await open_socket(server.url))
        await fails_handshake(wire, {"hello_required"}, 4003)
        assert wire.errors[0].message == "no hello came in time", wire.errors


async def test_another_protocol_version_closes_4000(tmp_path: Path) -> None:
    async with bystanded(tmp_path) as server:
        assert server.demo is not None
        wire = Wire(await open_socket(server.url))
        await wire.send({"type": "hello", "protocol": 3, "token": server.demo["gm"]})
        await fails_handshake(wire, {"unsupported_version"}, 4000)


def forged_tokens(server: Served) -> dict[str, str]:
    assert server.demo is not None
    gm = server.demo["gm"]
    header, claims, signature = gm.split(".")
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    stranger = TokenIssuer(b"another server's secret, 32 bytes long")
    own_key = TokenIssuer(secret_of(server))
    return {
        "a changed signature": f"{header}.{claims}.{flipped}",
        "claims of another token": f"{header}.{server.demo['spectator'].split('.')[1]}.{signature}",
        "another server's key": stranger.issue(server.demo["room"], "gm"),
        "no room of this server": own_key.issue("no-such-room", "gm"),
        "not a token at all": "let me in",
    }


@pytest.mark.parametrize(
    "kind",
    [
        "a changed signature",
        "claims of another token",
        "another server's key",
        "no room of this server",
        "not a token at all",
    ],
)
async def test_a_forged_token_closes_4001(tmp_path: Path, kind: str) -> None:
    async with bystanded(tmp_path) as server:
        wire = Wire(await open_socket(server.url))
        await wire.send({"type": "hello", "token": forged_tokens(server)[kind]})
        await fails_handshake(wire, {"unauthorized"}, 4001)


def secret_of(server: Served) -> bytes:
    """The server's signing key, as it keeps it in its data dir."""
    return (server.app.options.data_dir / SECRET_FILE_NAME).read_bytes().rstrip(b"\r\n")


async def test_an_expired_token_closes_4002(tmp_path: Path) -> None:
    """A genuine token for the room, issued two days ago with a day to live."""
    async with bystanded(tmp_path) as server:
        assert server.demo is not None
        past = TokenIssuer(secret_of(server), clock=lambda: time.time() - 2 * DAY, ttl_seconds=DAY)
        for role, seat, controls in (("gm", "gm", ()), ("player", "ayla", ("ayla",))):
            token = past.issue(server.demo["room"], role, seat, controls)
            wire = Wire(await open_socket(server.url))
            await wire.send({"type": "hello", "token": token})
            await fails_handshake(wire, {"token_expired"}, 4002)


async def test_a_second_hello_is_unexpected_and_the_connection_goes_on(tmp_path: Path) -> None:
    async with bystanded(tmp_path) as server:
        assert server.demo is not None
        wire = await joined(server)
        await wire.send({"type": "hello", "token": server.demo["gm"]})
        error = await wire.expect(lambda m: isinstance(m, Error))
        assert isinstance(error, Error) and error.code == "unexpected_message"
        await wire.ping(2)
        # still the spectator it joined as: the second token changed nothing
        refused = await wire.command(
            {"type": "SetSetting", "name": "reaction_seconds", "value": 9.0}
        )
        assert isinstance(refused, Refused) and refused.code == "forbidden"


@pytest.mark.parametrize(
    ("command", "code"),
    [
        ({"type": "SetHealth", "combatant": "g1"}, "invalid_command"),
        ({"type": "SetHealth", "combatant": "g1", "health": "5"}, "invalid_command"),
        ({"type": "SetHealth", "combatant": "g1", "health": 5.0}, "invalid_command"),
        ({"type": "SetHealth", "combatant": "g1", "health": 5, "heal": True}, "invalid_command"),
        ({"type": "Move", "actor": "g1", "path": [[1, 0]]}, "invalid_command"),
        ({"type": "Declare", "actor": "g1", "actions": [{"$type": "Nope"}]}, "invalid_command"),
        ({"type": "Fireball", "actor": "g1"}, "unknown_command"),
        ({"type": "Cell", "x": 1, "y": 2}, "unknown_command"),
        ({"type": "HealthSet", "combatant": "g1", "health": 1, "previous": 12}, "unknown_command"),
    ],
    ids=[
        "a missing field",
        "a string for an integer",
        "a float for an integer",
        "an unknown field",
        "an untagged record",
        "an action of no kind",
        "no such command",
        "a record that is not a command",
        "an event",
    ],
)
async def test_a_command_the_engine_cannot_read_is_refused(
    tmp_path: Path, command: dict[str, Any], code: str
) -> None:
    async with bystanded(tmp_path) as server:
        assert server.demo is not None
        wire = await Wire.join(server.url, server.demo["gm"])
        answer = await wire.command(command)
        assert isinstance(answer, Refused) and answer.code == code, answer
        await wire.ping(3)


def entry(**fields: Any) -> dict[str, Any]:
    return {"type": "SetConditionRule", "rule": {"$type": "ConditionRule", "name": "X", **fields}}


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (entry(damage="1" * 5000), "'X': damage: dice expression '1111"),
        (entry(damage="+".join(["1d4"] * 3000)), "'X': damage: dice expression '1d4+1d4"),
        (entry(damage="1" + "0" * 30), "'X': damage: dice expression '1000"),
        (entry(drain=[["strength", "1" + "0" * 30]]), "'X': drain.strength: dice expression"),
        (entry(damage="101d4"), "'X': damage: '101d4': at most 100 dice a round"),
    ],
    ids=["5000 digits", "3000 terms", "10**30 damage", "10**30 drain", "101 dice a round"],
)
async def test_a_conditions_entry_past_its_bounds_is_refused_and_changes_nothing(
    tmp_path: Path, command: dict[str, Any], message: str
) -> None:
    """R82: the GM's entry whose dice could not be read, rolled or carried is refused
    (`invalid_command`, with what is wrong), never a failure of the server."""
    async with bystanded(tmp_path) as server:
        assert server.demo is not None
        wire = await Wire.join(server.url, server.demo["gm"], subprotocol=JSON_SUBPROTOCOL)
        answer = await wire.command(command)
        assert isinstance(answer, Refused) and answer.code == "invalid_command", answer
        assert answer.message.startswith(message)
        assert len(answer.message) < 300
        await wire.ping(3)


def padded_send(size: int) -> bytes:
    """A `send` msgpack frame of exactly `size` bytes (its padding makes it invalid)."""
    message: dict[str, Any] = {"type": "send", "cid": "big", "command": {"type": "Pause"}}
    base = len(msgpack.packb({**message, "command": {"type": "Pause", "pad": ""}}))
    for extra in range(size - base - 4, size - base + 1):
        message["command"] = {"type": "Pause", "pad": "x" * extra}
        frame: bytes = msgpack.packb(message)
        if len(frame) == size:
            return frame
    raise AssertionError(f"no frame of {size} bytes")


async def test_a_frame_of_64_kib_is_read_and_one_byte_more_closes_1009(tmp_path: Path) -> None:
    async with bystanded(tmp_path) as server:
        wire = await joined(server)
        await wire.send_raw(padded_send(MAX_FRAME))
        answer = await wire.expect(lambda m: isinstance(m, Refused))
        assert isinstance(answer, Refused) and answer.cid == "big"  # read, then refused
        await wire.send_raw(padded_send(MAX_FRAME + 1))
        assert await wire.closed() == 1009


async def test_an_oversized_first_frame_closes_1009(tmp_path: Path) -> None:
    async with bystanded(tmp_path) as server:
        wire = Wire(await open_socket(server.url, [JSON_SUBPROTOCOL]))
        await wire.send_raw('{"type": "hello", "token": "' + "t" * MAX_FRAME + '"}')
        assert await wire.closed() == 1009


@pytest.mark.parametrize("offered", [[], ["verse.xml.v1"], ["chat"]])
async def test_an_upgrade_without_our_subprotocol_is_refused_with_400(
    tmp_path: Path, offered: list[str]
) -> None:
    async with bystanded(tmp_path) as server:
        with pytest.raises(InvalidStatus) as refused:
            await open_socket(server.url, offered)
        assert refused.value.response.status_code == 400
