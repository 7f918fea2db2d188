"""The connection's protocol without sockets (gateway/connection.py): frames and time
in, frames, closes and requests for the room out. docs/protocol.md, "What the server
enforces" and "Error codes": the handshake, the frame budget, the pong rate, the
command rate and every refusal, with time as a number.
"""

from __future__ import annotations

import json
from typing import Any

import msgpack

from protocol.errors import ErrorCode
from server.engine.authority import Role
from server.eventlog import Invite
from server.gateway.connection import (
    Close,
    Connection,
    CreateRoom,
    Join,
    Limits,
    ListInvites,
    ListRooms,
    Output,
    Phase,
    Redeem,
    RenewTokens,
    RevokeInvite,
    Send,
    Submit,
    Welcomed,
)
from server.gateway.invites import grant_of
from server.gateway.tokens import TokenIssuer

SECRET = b"k" * 32
NOW = 1_000.0  # the connection's own clock (monotonic seconds)
WALL = 1_800_000_000.0  # the token issuer's clock (seconds since the epoch)


def issuer() -> TokenIssuer:
    return TokenIssuer(SECRET, clock=lambda: WALL)


def connection(limits: Limits | None = None, *, binary: bool = False) -> Connection:
    return Connection(limits or Limits(), issuer(), binary=binary, now=NOW)


def frame(message: dict[str, Any], *, binary: bool = False) -> bytes | str:
    return msgpack.packb(message) if binary else json.dumps(message)


def hello(token: str, **fields: Any) -> str:
    return json.dumps({"type": "hello", "token": token, **fields})


def read(output: Output) -> dict[str, Any]:
    """The message a `Send` (or a `Close`'s error) carries."""
    data = output.frame if isinstance(output, Send | Close) else None
    assert data is not None, output
    message: dict[str, Any] = msgpack.unpackb(data) if isinstance(data, bytes) else json.loads(data)
    return message


def joined(role: str = "player", limits: Limits | None = None) -> Connection:
    """A connection that has joined room r1 with a token for `role`."""
    conn = connection(limits)
    if role == "player":
        token = issuer().issue("r1", role, "ayla", ["ayla"])
    else:
        token = issuer().issue("r1", role)
    [join] = conn.received(hello(token, resume_from_seq=4), NOW)
    assert isinstance(join, Join) and join.resume_from_seq == 4
    [welcome] = conn.joined("r1", "verse", 9)
    assert read(welcome)["type"] == "welcome"
    return conn


def host() -> Connection:
    conn = connection()
    counted, welcome = conn.received(hello(issuer().host_token()), NOW)
    assert isinstance(counted, Welcomed)  # a host is counted from its welcome
    assert read(welcome)["role"] == "host"
    return conn


def send(cid: str = "c1") -> str:
    return json.dumps({"type": "send", "cid": cid, "command": {"type": "EndTurn"}})


# --- the handshake --------------------------------------------------------------------


def test_a_host_is_told_where_the_web_app_is_and_a_player_is_not() -> None:
    page = "http://127.0.0.1:8780/"
    conn = Connection(Limits(), issuer(), binary=False, now=NOW, web=page)
    _, welcome = conn.received(hello(issuer().host_token()), NOW)
    assert read(welcome)["role"] == "host" and read(welcome)["web"] == page

    player = Connection(Limits(), issuer(), binary=False, now=NOW, web=page)
    player.received(hello(issuer().issue("r1", "player", "ayla", ["ayla"])), NOW)
    [welcome] = player.joined("r1", "verse", 9)
    assert read(welcome)["role"] == "player" and "web" not in read(welcome)


def test_a_join_token_asks_for_its_room_and_is_welcomed_once_found() -> None:
    conn = connection()
    token = issuer().issue("r1", "player", "ayla", ["ayla"])
    [join] = conn.received(hello(token, client="test/1"), NOW)
    assert isinstance(join, Join)
    assert join.grant.room_id == "r1" and join.grant.role == Role.PLAYER
    assert join.client == "test/1" and join.resume_from_seq is None
    assert conn.phase is Phase.JOINING
    [welcome] = conn.joined("r1", "verse", 12)
    assert read(welcome) == {
        "type": "welcome",
        "protocol": 2,
        "room": "r1",
        "ruleset": "verse",
        "role": "player",
        "seat": "ayla",
        "controls": ["ayla"],
        "seq": 12,
    }
    assert conn.phase is Phase.JOINED


def test_a_room_that_is_gone_or_away_closes_the_join() -> None:
    for code, close_code in ((ErrorCode.UNAUTHORIZED, 4001), (ErrorCode.UNAVAILABLE, 1011)):
        conn = connection()
        conn.received(hello(issuer().issue("r1", "gm")), NOW)
        [close] = conn.join_failed(code, "why")
        assert isinstance(close, Close) and close.close_code == close_code
        assert read(close) == {"type": "error", "code": str(code), "message": "why"}
        assert conn.closed


def test_the_first_frame_must_be_a_valid_hello() -> None:
    cases = {
        "not json": "malformed_frame: ",
        json.dumps({"type": "ping", "nonce": 1}): "the first message must be a hello, not a ping",
        json.dumps({"type": "hello"}): "invalid_message: ",
        json.dumps({"type": "shout"}): "unknown_message: ",
    }
    for data, start in cases.items():
        conn = connection()
        [close] = conn.received(data, NOW)
        assert isinstance(close, Close) and close.close_code == 4003, data
        error = read(close)
        assert error["code"] == "hello_required" and error["message"].startswith(start), error
        assert conn.received(hello(issuer().host_token()), NOW) == []  # closed: nothing more


def test_a_bad_token_or_version_closes_with_its_own_code() -> None:
    expired = TokenIssuer(SECRET, clock=lambda: WALL - 40 * 86_400).issue("r1", "gm")
    forged = TokenIssuer(b"x" * 32, clock=lambda: WALL).issue("r1", "gm")
    for data, code in (
        (hello(expired), 4002),
        (hello(forged), 4001),
        (hello(issuer().issue("r1", "gm"), protocol=1), 4000),
    ):
        [close] = connection().received(data, NOW)
        assert isinstance(close, Close) and close.close_code == code


def test_no_hello_in_time_closes_at_the_deadline_and_not_before() -> None:
    conn = connection(Limits(hello_seconds=5.0))
    assert conn.hello_deadline == NOW + 5.0
    assert conn.expire(NOW + 4.9) == []
    [close] = conn.expire(NOW + 5.0)
    assert isinstance(close, Close) and close.close_code == 4003
    assert read(close)["message"] == "no hello came in time"


def test_a_hello_after_the_deadline_is_too_late() -> None:
    conn = connection(Limits(hello_seconds=5.0))
    [close] = conn.received(hello(issuer().host_token()), NOW + 6)
    assert isinstance(close, Close) and close.close_code == 4003


def test_the_deadline_is_over_once_the_hello_came() -> None:
    conn = joined()
    assert conn.expire(NOW + 3_600) == []


# --- messages after the hello ---------------------------------------------------------


def test_a_send_becomes_a_command_for_the_room_as_the_token_s_principal() -> None:
    conn = joined()
    [submit] = conn.received(send("c7"), NOW)
    assert isinstance(submit, Submit) and submit.cid == "c7"
    assert submit.command == {"type": "EndTurn"}
    assert submit.principal.role == Role.PLAYER and submit.principal.controls == ("ayla",)
    [ack] = conn.acked("c7", 10, 12)
    assert read(ack) == {"type": "ack", "cid": "c7", "first_seq": 10, "last_seq": 12}
    assert isinstance(ack, Send) and ack.outcome == ("acked", "")
    [refused] = conn.refused("c8", "not_your_turn", "x" * 2000)
    assert read(refused)["code"] == "not_your_turn" and len(read(refused)["message"]) == 1024
    assert isinstance(refused, Send) and refused.outcome == ("refused", "not_your_turn")


def test_a_spectator_may_send_no_command() -> None:
    conn = joined("spectator")
    [refused] = conn.received(send(), NOW)
    assert read(refused)["code"] == "forbidden"
    assert "spectator" in read(refused)["message"]


def test_a_host_creates_and_renews_but_sends_no_command() -> None:
    conn = host()
    [refused] = conn.received(send(), NOW)
    assert read(refused)["code"] == "forbidden"
    create = json.dumps({"type": "create", "cid": "n1", "encounter": {"name": "x"}})
    [request] = conn.received(create, NOW)
    assert isinstance(request, CreateRoom) and request.encounter == {"name": "x"}
    renew = json.dumps({"type": "renew", "cid": "n2", "room": "r1", "seats": {"a": ["ayla"]}})
    [request] = conn.received(renew, NOW)
    assert isinstance(request, RenewTokens) and request.seats == {"a": ["ayla"]}


def test_an_invite_code_is_looked_up_then_joins_as_what_it_grants() -> None:
    conn = connection()
    [redeem] = conn.received(hello("abcde-fghjk", resume_from_seq=2, client="cli"), NOW)
    assert redeem == Redeem("ABCDEFGHJK", 2, "cli")  # any case, dashes ignored
    assert conn.phase is Phase.JOINING and conn.grant is None

    grant = grant_of(Invite("ABCDEFGHJK", "r1", "player", "ayla", ("ayla",)))
    assert grant is not None
    [join] = conn.redeemed(redeem, grant)

    assert join == Join(grant, 2, "cli")
    assert conn.role == "player"
    [welcome] = conn.joined("r1", "verse", 9)
    assert read(welcome)["controls"] == ["ayla"]


def test_a_code_the_store_does_not_know_closes_unauthorized() -> None:
    conn = connection()
    [redeem] = conn.received(hello("ABCDEFGHJK"), NOW)
    assert isinstance(redeem, Redeem)

    [close] = conn.redeemed(redeem, None)

    assert isinstance(close, Close) and close.close_code == 4001
    assert read(close)["code"] == "unauthorized"


def test_only_the_gm_lists_or_revokes_the_rooms_codes() -> None:
    gm = joined("gm")
    [listing] = gm.received(json.dumps({"type": "invites", "cid": "i1"}), NOW)
    assert listing == ListInvites("i1", "r1")
    revoke = {"type": "revoke", "cid": "i2", "code": "abcdefghjk", "reissue": True}
    [revoking] = gm.received(json.dumps(revoke), NOW)
    assert revoking == RevokeInvite("i2", "r1", "ABCDEFGHJK", True)
    [not_a_code] = gm.received(json.dumps({**revoke, "code": "eyJ.x.y"}), NOW)
    assert read(not_a_code)["code"] == "unknown_invite"

    for conn in (joined("player"), joined("spectator"), host()):
        [refused] = conn.received(json.dumps(revoke), NOW)
        assert read(refused)["code"] == "forbidden"
        assert read(refused)["message"] == "only the GM may revoke the room's invite codes"


def test_only_a_host_lists_the_rooms() -> None:
    rooms = json.dumps({"type": "rooms", "cid": "l1"})
    [request] = host().received(rooms, NOW)
    assert request == ListRooms("l1")

    [refused] = joined("gm").received(rooms, NOW)
    assert read(refused)["message"] == "only a host token may list the rooms"
    listed = host().listed("l2", [{"room": "r1", "name": "", "ruleset": "verse"}])
    assert read(listed[0]) == {
        "type": "listing",
        "cid": "l2",
        "rooms": [{"room": "r1", "name": "", "ruleset": "verse"}],
    }


def test_only_a_host_creates_or_renews() -> None:
    conn = joined("gm")
    create = json.dumps({"type": "create", "cid": "n1", "encounter": {}})
    [refused] = conn.received(create, NOW)
    assert read(refused) == {
        "type": "refused",
        "cid": "n1",
        "code": "forbidden",
        "message": "only a host token may create encounters",
    }


def test_a_bad_frame_gets_an_error_and_the_connection_goes_on() -> None:
    conn = joined()
    for data, code in (
        ("{", "malformed_frame"),
        (json.dumps({"type": "shout"}), "unknown_message"),
        (json.dumps({"type": "send", "cid": 5}), "invalid_message"),
        (hello("again"), "unexpected_message"),
    ):
        [error] = conn.received(data, NOW)
        assert isinstance(error, Send) and read(error)["code"] == code
    [pong] = conn.received(json.dumps({"type": "ping", "nonce": 3}), NOW)
    assert read(pong) == {"type": "pong", "nonce": 3}


def test_frames_follow_the_subprotocol() -> None:
    conn = Connection(Limits(), issuer(), binary=True, now=NOW)
    _, welcome = conn.received(
        frame({"type": "hello", "token": issuer().host_token()}, binary=True), NOW
    )
    assert isinstance(welcome, Send) and isinstance(welcome.frame, bytes)


# --- budgets --------------------------------------------------------------------------


def test_every_frame_counts_against_the_budget_and_a_flooder_is_closed_4010() -> None:
    conn = joined(limits=Limits(frames_per_second=10.0, frame_burst=20))
    assert all(conn.arrived(NOW) == [] for _ in range(20))
    [close] = conn.arrived(NOW)
    assert isinstance(close, Close) and close.close_code == 4010
    assert close.code == ErrorCode.FLOODING and close.frame is None
    assert conn.closed
    assert conn.received(send(), NOW) == []  # nothing more is handled
    assert conn.arrived(NOW + 60) == []  # and it is closed once


def test_the_frame_budget_refills_with_time() -> None:
    conn = joined(limits=Limits(frames_per_second=10.0, frame_burst=20))
    at = NOW
    for _ in range(200):  # 10 a second, for 20 seconds: within the budget
        at += 0.1
        assert conn.arrived(at) == []
    assert not conn.closed


def test_pings_are_answered_at_a_bounded_rate() -> None:
    conn = joined(limits=Limits(pongs_per_second=2.0, pong_burst=3))
    ping = json.dumps({"type": "ping", "nonce": None})
    answers = [conn.received(ping, NOW) for _ in range(10)]
    assert [len(a) for a in answers] == [1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    assert len(conn.received(ping, NOW + 0.5)) == 1  # one more every half second
    assert not conn.closed


def test_a_command_over_the_rate_is_refused_then_the_connection_closed_4008() -> None:
    limits = Limits(commands_per_second=1.0, command_burst=2, rate_strikes=3)
    conn = joined(limits=limits)
    outputs = [conn.received(send(f"c{n}"), NOW) for n in range(6)]
    assert [type(o[0]) for o in outputs[:2]] == [Submit, Submit]
    assert [read(o[0])["code"] for o in outputs[2:5]] == ["rate_limited"] * 3
    [close] = outputs[5]
    assert isinstance(close, Close) and close.close_code == 4008
    assert read(close)["code"] == "rate_limited"


def test_a_command_within_the_rate_clears_the_strikes() -> None:
    limits = Limits(commands_per_second=1.0, command_burst=1, rate_strikes=2)
    conn = joined(limits=limits)
    at = NOW
    for _ in range(5):  # one in, two strikes, a second later one in again
        assert isinstance(conn.received(send(), at)[0], Submit)
        assert read(conn.received(send(), at)[0])["code"] == "rate_limited"
        assert read(conn.received(send(), at)[0])["code"] == "rate_limited"
        at += 1.0
    assert not conn.closed


def test_a_slow_reader_is_closed_without_an_error_and_a_bug_with_one() -> None:
    conn = joined()
    [close] = conn.slow()
    assert isinstance(close, Close) and close.close_code == 4009 and close.frame is None
    conn = joined()
    [close] = conn.failed()
    assert isinstance(close, Close) and close.close_code == 1011
    assert read(close)["code"] == "internal_error"


def test_a_connection_cut_off_while_its_room_loads_is_not_welcomed() -> None:
    conn = connection(Limits(frames_per_second=1.0, frame_burst=2))
    [join] = conn.received(hello(issuer().issue("r1", "gm")), NOW)
    assert isinstance(join, Join)
    conn.arrived(NOW), conn.arrived(NOW)
    [close] = conn.arrived(NOW)  # a flood while the room is being found
    assert isinstance(close, Close) and close.close_code == 4010
    assert conn.joined("r1", "verse", 3) == []
    assert conn.closed
