"""Each kind of bad frame gets its own documented `ProtocolError` code."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import pytest
from pydantic import ValidationError

from protocol.codec import (
    _CLIENT,
    JSON_SUBPROTOCOL,
    MAX_FRAME,
    MSGPACK_SUBPROTOCOL,
    SUBPROTOCOLS,
    binary_for,
    decode,
    encode,
)
from protocol.errors import CLOSE_CODES, CloseCode, ErrorCode, ProtocolError
from protocol.messages import Hello, Send

HELLO = {"type": "hello", "protocol": 2, "token": "tok.sig"}
SEND = {"type": "send", "cid": "c-1", "command": {"type": "Attack", "actor": "ayla"}}


def packed(data: Any) -> bytes:
    frame: bytes = msgpack.packb(data, use_bin_type=True)
    return frame


def refusal(frame: bytes | str) -> ProtocolError:
    with pytest.raises(ProtocolError) as refused:
        decode(frame)
    error = refused.value
    assert "pydantic" not in error.message and "Traceback" not in error.message
    return error


MALFORMED: dict[str, bytes | str] = {
    "msgpack: a reserved byte": b"\xc1",
    "msgpack: truncated": packed(HELLO)[:-1],
    "msgpack: extra bytes after the message": packed(HELLO) + b"\x00",
    "msgpack: an extension type": packed({**HELLO, "token": msgpack.ExtType(5, b"x")}),
    "msgpack: an integer map key": packed({1: "hello"}),
    "msgpack: a string that is not UTF-8": b"\x81\xa4type\xa2\xff\xfe",
    "msgpack: nested past the stack": b"\x91" * 60_000 + b"\xc0",
    "msgpack: empty": b"",
    "json: NaN": '{"type": "ping", "nonce": NaN}',
    "json: Infinity": '{"type": "send", "cid": "c", "command": {"type": "X", "v": Infinity}}',
    "json: not JSON": "hello",
    "json: trailing data": json.dumps(HELLO) + " {}",
    "json: a lone surrogate": '{"type": "hello", "token": "\\ud800"}',
    "json: nested over 200 levels": '{"type": "ping", "x": ' + "[" * 300 + "]" * 300 + "}",
    "json: empty": "",
}


@pytest.mark.parametrize("frame", MALFORMED.values(), ids=MALFORMED.keys())
def test_frames_that_are_not_msgpack_or_json_are_malformed(frame: bytes | str) -> None:
    assert refusal(frame).code == ErrorCode.MALFORMED_FRAME


INVALID: dict[str, Any] = {
    "a list instead of a map": [HELLO],
    "a number instead of a map": 5,
    "no type": {"token": "t"},
    "a string where an int is required": {**HELLO, "resume_from_seq": "5"},
    "a float where an int is required": {**HELLO, "protocol": 2.0},
    "a boolean where an int is required": {"type": "ping", "nonce": True},
    "an int where a string is required": {**SEND, "cid": 12},
    "an extra field": {**HELLO, "room": "r-1"},
    "a missing field": {"type": "hello"},
    "a negative seq": {**HELLO, "resume_from_seq": -1},
    "a seq past 64 bits": {**HELLO, "resume_from_seq": 2**64 - 1},
    "an empty cid": {**SEND, "cid": ""},
    "a cid over 64 characters": {**SEND, "cid": "c" * 65},
    "an empty token": {**HELLO, "token": ""},
    "a command without type": {**SEND, "command": {"actor": "ayla"}},
    "a command with an empty type": {**SEND, "command": {"type": ""}},
    "a command type that is no record name": {**SEND, "command": {"type": "Attack now"}},
    "a command that is a list": {**SEND, "command": [["type", "Attack"]]},
    "the type in another case": {**HELLO, "type": "Hello"},
}


@pytest.mark.parametrize("binary", [True, False], ids=["msgpack", "json"])
@pytest.mark.parametrize("data", INVALID.values(), ids=INVALID.keys())
def test_messages_of_the_wrong_shape_are_invalid(data: Any, binary: bool) -> None:
    frame = packed(data) if binary else json.dumps(data)
    error = refusal(frame)
    expected = ErrorCode.UNKNOWN_MESSAGE if data == INVALID["the type in another case"] else None
    assert error.code == (expected or ErrorCode.INVALID_MESSAGE)


def test_the_message_names_the_field_without_echoing_internals() -> None:
    error = refusal(json.dumps({**HELLO, "resume_from_seq": "5", "room": "r"}))
    assert error.message == (
        "resume_from_seq: Input should be a valid integer; room: Extra inputs are not permitted"
    )
    nested = {**SEND, "command": {"type": "X", "a": {"b": [1, 2, {"c": 1e400}]}}}
    error = refusal(json.dumps(nested).replace("Infinity", "1e400"))
    assert error.message.startswith("command.a.b.2.c: not a plain value")


def nested_lists(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


MSGPACK_ONLY_INVALID: dict[str, bytes] = {
    "bytes where a string is required": packed({**HELLO, "token": b"tok"}),
    "a bytes map key": packed({b"type": "ping"}),
    "NaN in a command": packed({**SEND, "command": {"type": "X", "v": float("nan")}}),
    "infinity in a command": packed({**SEND, "command": {"type": "X", "v": float("inf")}}),
    "a timestamp (the one extension msgpack decodes itself)": packed(
        {"type": "ping", "nonce": msgpack.Timestamp(1, 0)}
    ),
    "nested deeper than the validator goes": packed(
        {**SEND, "command": {"type": "X", "v": nested_lists(1000)}}
    ),
}


@pytest.mark.parametrize("frame", MSGPACK_ONLY_INVALID.values(), ids=MSGPACK_ONLY_INVALID.keys())
def test_msgpack_values_json_cannot_express_are_invalid(frame: bytes) -> None:
    assert refusal(frame).code == ErrorCode.INVALID_MESSAGE


def test_unknown_types_are_unknown_messages() -> None:
    for frame in (packed({"type": "teleport"}), '{"type": "welcome", "seq": 1}'):
        error = refusal(frame)
        assert error.code == ErrorCode.UNKNOWN_MESSAGE
        assert error.close_code is None  # not fatal: the connection goes on


def padded_send(size: int, binary: bool) -> bytes | str:
    """A valid `send` frame of exactly `size` bytes."""
    message = Send(cid="c-1", command={"type": "Note", "text": ""})
    base = len(encode(message, binary=binary))
    # msgpack grows the string header from 2 to 3 bytes past 255 characters
    for pad in range(size - base - 4, size - base + 1):
        framed = encode(Send(cid="c-1", command={"type": "Note", "text": "x" * pad}), binary=binary)
        size_of = len(framed) if isinstance(framed, bytes) else len(framed.encode())
        if size_of == size:
            return framed
    raise AssertionError(f"no padding gives {size} bytes")


@pytest.mark.parametrize("binary", [True, False], ids=["msgpack", "json"])
def test_a_frame_of_64_kib_is_read_and_one_byte_more_is_too_large(binary: bool) -> None:
    assert MAX_FRAME == 64 * 1024
    assert isinstance(decode(padded_send(MAX_FRAME, binary)), Send)
    error = refusal(padded_send(MAX_FRAME + 1, binary))
    assert error.code == ErrorCode.FRAME_TOO_LARGE
    assert error.close_code == CloseCode.MESSAGE_TOO_BIG
    assert CloseCode.MESSAGE_TOO_BIG.value == 1009


def test_a_text_frame_counts_its_utf8_bytes_not_its_characters() -> None:
    text = json.dumps({**HELLO, "client": ""})[:-1] + ', "pad": "' + "é" * 33_000 + '"}'
    assert len(text) < MAX_FRAME < len(text.encode())
    assert refusal(text).code == ErrorCode.FRAME_TOO_LARGE


def test_the_size_is_checked_before_parsing() -> None:
    assert refusal(b"\xc1" * (MAX_FRAME + 1)).code == ErrorCode.FRAME_TOO_LARGE
    assert refusal("{" * (MAX_FRAME + 1)).code == ErrorCode.FRAME_TOO_LARGE


def test_integers_from_json_that_msgpack_cannot_carry_become_floats() -> None:
    """A command is passed on and may be encoded again as msgpack: no integer beyond 64
    bits survives decoding (pydantic reads it as a float; the server then refuses the
    command's field if it wanted an integer)."""
    frame = json.dumps({**SEND, "command": {"type": "Face", "facing": 2**70}})
    send = decode(frame)
    assert isinstance(send, Send)
    assert send.command["facing"] == float(2**70)
    assert isinstance(encode(send), bytes)


def test_subprotocols_name_the_encoding_and_version() -> None:
    assert SUBPROTOCOLS == ("verse.msgpack.v2", "verse.json.v2")
    assert binary_for(MSGPACK_SUBPROTOCOL) is True
    assert binary_for(JSON_SUBPROTOCOL) is False
    # Version 1's names are agreed to, so that its hello can be answered in words.
    assert binary_for("verse.msgpack.v1") is True
    assert binary_for("verse.json.v1") is False
    with pytest.raises(ValueError):
        binary_for("verse.msgpack.v3")
    with pytest.raises(ValueError):
        binary_for(None)


def test_fatal_errors_have_close_codes_and_the_others_do_not() -> None:
    fatal = {
        ErrorCode.FRAME_TOO_LARGE: 1009,
        ErrorCode.UNSUPPORTED_VERSION: 4000,
        ErrorCode.UNAUTHORIZED: 4001,
        ErrorCode.TOKEN_EXPIRED: 4002,
        ErrorCode.HELLO_REQUIRED: 4003,
        ErrorCode.ROOM_CLOSED: 4004,
        ErrorCode.RATE_LIMITED: 4008,
        ErrorCode.SLOW_READER: 4009,
        ErrorCode.FLOODING: 4010,
        ErrorCode.GOING_AWAY: 1001,
        ErrorCode.INTERNAL_ERROR: 1011,
    }
    assert {code: int(close) for code, close in CLOSE_CODES.items()} == fatal
    for code in ErrorCode:
        assert ProtocolError(code, "").close_code == fatal.get(code)


def test_a_valid_frame_of_each_encoding_decodes() -> None:
    assert decode(packed(HELLO)) == Hello(token="tok.sig")
    assert decode(json.dumps(HELLO)) == Hello(token="tok.sig")


def test_a_frame_full_of_bad_values_stops_at_the_first() -> None:
    """A 64 KiB frame can hold 30,000 bad values; pydantic stops at the first of each
    collection (FailFast) instead of building hundreds of thousands of errors."""
    for payload in ([b""] * 30_000, {str(i): b"" for i in range(9_000)}, [[[b""]]] * 10_000):
        frame = packed({**SEND, "command": {"type": "X", "v": payload}})
        assert len(frame) <= MAX_FRAME
        assert refusal(frame).code == ErrorCode.INVALID_MESSAGE
        with pytest.raises(ValidationError) as invalid:
            _CLIENT.validate_python(msgpack.unpackb(frame, raw=False))
        assert invalid.value.error_count() < 50
