"""Every message survives both encodings unchanged; each direction knows only its own."""

from __future__ import annotations

import json

import msgpack
import pytest
from pydantic import BaseModel, ValidationError

from protocol.codec import decode, decode_server, encode, pack
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    CLIENT_MESSAGES,
    PROTOCOL_VERSION,
    SERVER_MESSAGES,
    Hello,
    Send,
    Welcome,
    command,
    tagged,
)
from tests.protocol.samples import CLIENT_SAMPLES, SERVER_SAMPLES


def test_the_samples_cover_every_message_type() -> None:
    assert {type(m) for m in CLIENT_SAMPLES} == set(CLIENT_MESSAGES)
    assert {type(m) for m in SERVER_SAMPLES} == set(SERVER_MESSAGES)


@pytest.mark.parametrize("binary", [True, False], ids=["msgpack", "json"])
@pytest.mark.parametrize("message", CLIENT_SAMPLES, ids=lambda m: type(m).__name__)
def test_client_messages_round_trip(message: BaseModel, binary: bool) -> None:
    frame = encode(message, binary=binary)
    assert isinstance(frame, bytes if binary else str)
    assert decode(frame) == message


@pytest.mark.parametrize("binary", [True, False], ids=["msgpack", "json"])
@pytest.mark.parametrize("message", SERVER_SAMPLES, ids=lambda m: type(m).__name__)
def test_server_messages_round_trip(message: BaseModel, binary: bool) -> None:
    frame = encode(message, binary=binary)
    assert isinstance(frame, bytes if binary else str)
    assert decode_server(frame) == message


@pytest.mark.parametrize("message", CLIENT_SAMPLES + SERVER_SAMPLES, ids=lambda m: type(m).__name__)
def test_both_encodings_carry_the_same_data_with_every_field(message: BaseModel) -> None:
    as_msgpack = msgpack.unpackb(encode(message, binary=True), raw=False)
    as_json = json.loads(encode(message, binary=False))
    assert as_msgpack == as_json == message.model_dump()
    assert as_json["type"] == type(message).model_fields["type"].default
    assert set(as_json) == set(type(message).model_fields)  # defaults are sent too


def test_pack_gives_the_bytes_encode_gives() -> None:
    for message in SERVER_SAMPLES:
        data = message.model_dump()
        assert pack(data) == encode(message)
        assert pack(data, binary=False) == encode(message, binary=False)


@pytest.mark.parametrize("message", SERVER_SAMPLES, ids=lambda m: type(m).__name__)
def test_the_server_does_not_accept_server_messages(message: BaseModel) -> None:
    with pytest.raises(ProtocolError) as refused:
        decode(encode(message))
    assert refused.value.code == ErrorCode.UNKNOWN_MESSAGE


@pytest.mark.parametrize("message", CLIENT_SAMPLES, ids=lambda m: type(m).__name__)
def test_a_client_does_not_accept_client_messages(message: BaseModel) -> None:
    with pytest.raises(ProtocolError) as refused:
        decode_server(encode(message, binary=False))
    assert refused.value.code == ErrorCode.UNKNOWN_MESSAGE


def test_defaults_a_client_may_leave_out() -> None:
    hello = decode('{"type": "hello", "token": "t"}')
    assert hello == Hello(
        token="t", protocol=PROTOCOL_VERSION, resume_from_seq=None, client="", events=False
    )
    assert PROTOCOL_VERSION == 2


def test_the_command_helpers_build_what_the_doc_shows() -> None:
    send = Send(
        cid="c-9",
        command=command("Move", actor="ayla", path=[tagged("Cell", x=1, y=0)]),
    )
    assert send.command == {
        "type": "Move",
        "actor": "ayla",
        "path": [{"$type": "Cell", "x": 1, "y": 0}],
    }
    assert decode(encode(send)) == send


def test_models_validate_when_built_too() -> None:
    """A client building a message in code gets pydantic's checks, not a bad frame."""
    with pytest.raises(ValidationError):
        Send(cid="", command={"type": "Attack"})
    with pytest.raises(ValidationError):
        Send(cid="c", command={"actor": "ayla"})  # no type
    with pytest.raises(ValidationError):
        Welcome(room="r", ruleset="verse", role="admin", seq=0)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Hello(token="t", resume_from_seq=-1)
