"""Whatever arrives, `decode` answers with a message or a `ProtocolError`, nothing else;
and every valid message survives both encodings."""

from __future__ import annotations

import json
from typing import Any

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.codec import decode, decode_server, encode
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import Hello, Ping, Send
from tests.protocol.samples import CLIENT_SAMPLES, SERVER_SAMPLES

FAST = settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)


def answers(frame: bytes | str, server: bool = False) -> object:
    """`decode`'s answer: a message, or the ProtocolError it raised (anything else fails)."""
    try:
        return (decode_server if server else decode)(frame)
    except ProtocolError as error:
        assert error.code in set(ErrorCode)
        return error


@FAST
@given(st.binary(max_size=2048))
def test_random_bytes(frame: bytes) -> None:
    answers(frame)
    answers(frame, server=True)


@FAST
@given(st.text(max_size=2048))
def test_random_text(frame: str) -> None:
    answers(frame)
    answers(frame, server=True)


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)  # what msgpack can carry
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.binary(max_size=8)
    | st.sampled_from(["hello", "send", "ping", "welcome", "type", "cid", "command", "token"])
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.text(max_size=8) | st.sampled_from(["type", "$type"]), inner, max_size=4
        )
    ),
    max_leaves=20,
)
message_like = st.fixed_dictionaries(
    {"type": st.sampled_from(["hello", "send", "ping", "pong", "Hello", ""])},
    optional={
        "protocol": values,
        "token": values,
        "resume_from_seq": values,
        "client": values,
        "cid": values,
        "command": values,
        "nonce": values,
    },
)


@FAST
@given(st.one_of(values, message_like))
def test_random_msgpack_structures(data: Any) -> None:
    answers(msgpack.packb(data, use_bin_type=True))


@FAST
@given(st.one_of(values, message_like))
def test_random_json_structures(data: Any) -> None:
    try:
        text = json.dumps(data)
    except TypeError:  # bytes: JSON has none
        return
    answers(text)


@FAST
@given(
    st.sampled_from(CLIENT_SAMPLES + SERVER_SAMPLES),
    st.booleans(),
    st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), min_size=1, max_size=4),
)
def test_valid_frames_with_bytes_changed(message: Any, binary: bool, edits: Any) -> None:
    frame = encode(message, binary=binary)
    raw = bytearray(frame if isinstance(frame, bytes) else frame.encode())
    for position, byte in edits:
        raw[position % len(raw)] = byte
    answers(bytes(raw))
    answers(bytes(raw), server=True)
    answers(raw.decode("utf-8", "replace"))


names = st.text(st.characters(codec="utf-8"), min_size=1, max_size=64)
plain = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8"), max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
commands = st.builds(
    lambda name, fields: {**fields, "type": name},
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True),
    st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=8), plain, max_size=5),
)
client_messages = st.one_of(
    st.builds(
        Hello,
        token=st.text(st.characters(codec="utf-8"), min_size=1, max_size=200),
        resume_from_seq=st.none() | st.integers(min_value=0, max_value=2**63 - 1),
        client=st.text(st.characters(codec="utf-8"), max_size=64),
    ),
    st.builds(Send, cid=names, command=commands),
    st.builds(Ping, nonce=st.none() | st.integers(min_value=0, max_value=2**63 - 1)),
)


@FAST
@given(client_messages, st.booleans())
def test_every_valid_client_message_round_trips(message: Any, binary: bool) -> None:
    assert decode(encode(message, binary=binary)) == message
