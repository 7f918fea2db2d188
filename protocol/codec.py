"""Frames ⇄ messages: msgpack on binary frames, JSON on text frames.

The websocket subprotocol says which encoding the server sends: `verse.msgpack.v2`
(binary frames) or `verse.json.v2` (text frames, for browsers and debugging tools).
Decoding goes by the frame itself: a binary frame is msgpack, a text frame JSON.

`decode(frame)` turns a client's frame into a `Hello`, `Send` or `Ping` and raises
`ProtocolError` for anything else, and nothing but `ProtocolError`, whatever the bytes:

* `frame_too_large`: over `MAX_FRAME` bytes (64 KiB; a text frame counts its UTF-8
  bytes). Checked first, before any parsing.
* `malformed_frame`: not msgpack / not JSON. msgpack is read with `raw=False` (strings
  must be UTF-8), `strict_map_key=True` (map keys are strings) and no extension types
  (msgpack's timestamp extension decodes, then fails validation: `invalid_message`);
  JSON with NaN or Infinity is not JSON, nor is a lone surrogate escape, nor nesting
  deeper than 200 levels.
* `unknown_message`: a map whose `type` names no message of this direction.
* `invalid_message`: anything else pydantic refuses: not a map, no `type`, a missing
  or unknown field, a value of the wrong type or out of range.

`decode_server(frame)` does the same for the server's messages, for clients; the
server's frames may be larger (`MAX_SERVER_FRAME`: a snapshot of a big fight).

Encoding takes a message model (`encode`), or already-built plain data (`pack`) for the
server's hot path: one `Events` batch encoded once per audience, without building
models. Both give the same bytes for the same message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, Literal, NoReturn, TypeVar, overload

import msgpack
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails, from_json, to_json

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import ClientMessage, ServerMessage

MAX_FRAME: Final = 64 * 1024
"""The largest frame a client may send, in bytes (the server closes with 1009 above)."""
MAX_SERVER_FRAME: Final = 4 * 1024 * 1024
"""The largest frame the server sends: clients must accept frames this large."""

MSGPACK_SUBPROTOCOL: Final = "verse.msgpack.v2"
JSON_SUBPROTOCOL: Final = "verse.json.v2"
SUBPROTOCOLS: Final = (MSGPACK_SUBPROTOCOL, JSON_SUBPROTOCOL)
"""In the server's order of preference."""
OLD_SUBPROTOCOLS: Final = ("verse.msgpack.v1", "verse.json.v1")
"""Version 1's names: the server still agrees to them, so that a client of version 1
is told in words why it cannot play (its `hello` is answered `unsupported_version`,
close code 4000) rather than refused at the upgrade with a bare HTTP 400."""

Frame = bytes | str
M = TypeVar("M")

_CLIENT: Final[TypeAdapter[ClientMessage]] = TypeAdapter(ClientMessage)
_SERVER: Final[TypeAdapter[ServerMessage]] = TypeAdapter(ServerMessage)


# --- decoding -------------------------------------------------------------------------


def decode(frame: Frame) -> ClientMessage:
    """A client's frame as its message, or `ProtocolError`."""
    return _validate(_CLIENT, _parse(frame, MAX_FRAME))


def decode_server(frame: Frame) -> ServerMessage:
    """A server's frame as its message, or `ProtocolError` (for clients)."""
    return _validate(_SERVER, _parse(frame, MAX_SERVER_FRAME))


def _parse(frame: Frame, limit: int) -> Any:
    if isinstance(frame, str):
        if _utf8_size(frame, limit) > limit:
            raise ProtocolError(ErrorCode.FRAME_TOO_LARGE, f"a frame may have {limit} bytes")
        try:
            return from_json(frame, allow_inf_nan=False)
        except Exception as error:  # jiter's ValueError, and anything it may raise
            raise ProtocolError(ErrorCode.MALFORMED_FRAME, f"not JSON: {error}"[:200]) from None
    if isinstance(frame, bytes):
        if len(frame) > limit:
            raise ProtocolError(ErrorCode.FRAME_TOO_LARGE, f"a frame may have {limit} bytes")
        try:
            return msgpack.unpackb(frame, raw=False, strict_map_key=True, ext_hook=_no_ext)
        except Exception:  # ValueError and its subclasses: FormatError, ExtraData, ...
            raise ProtocolError(ErrorCode.MALFORMED_FRAME, "not msgpack") from None
    raise ProtocolError(ErrorCode.MALFORMED_FRAME, "a frame is bytes (msgpack) or text (JSON)")


def _utf8_size(text: str, limit: int) -> int:
    if len(text) * 4 <= limit:  # cheap: no character takes more than 4 bytes
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _no_ext(code: int, data: bytes) -> NoReturn:
    raise ValueError("msgpack extension types are not part of the protocol")


def _validate(adapter: TypeAdapter[M], data: Any) -> M:
    try:
        return adapter.validate_python(data)
    except ValidationError as invalid:
        raise _refusal(invalid.errors(include_input=False, include_url=False)) from None
    except RecursionError:  # nesting deeper than the validator's stack
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, "nested too deeply") from None


def _refusal(errors: list[ErrorDetails]) -> ProtocolError:
    first = errors[0]
    if first["type"] == "union_tag_invalid":
        tag = str(first.get("ctx", {}).get("tag", ""))[:64]
        return ProtocolError(ErrorCode.UNKNOWN_MESSAGE, f"no message has type {tag!r}")
    if first["type"] == "union_tag_not_found":
        return ProtocolError(ErrorCode.INVALID_MESSAGE, "a message needs a 'type' field")
    if not first["loc"]:
        return ProtocolError(ErrorCode.INVALID_MESSAGE, "a message is a map")
    reasons: dict[str, list[str]] = {}
    for error in errors[:_ERRORS_READ]:  # bounded: a 64 KiB frame can hold 100,000 errors
        reasons.setdefault(_where(error["loc"][1:]), []).append(error["msg"])
    # A union (a plain value) reports every branch it tried at every level on the way
    # down: only the deepest places say where the value actually went wrong.
    places = [p for p in reasons if not any(q.startswith(p + ".") for q in reasons)]
    text = "; ".join(f"{where}: {_why(reasons[where])}" for where in places[:3])
    if len(places) > 3:
        text += f"; and {len(places) - 3} more"
    return ProtocolError(ErrorCode.INVALID_MESSAGE, text)


_ERRORS_READ = 60


def _why(messages: list[str]) -> str:
    if len(messages) == 1:
        return messages[0]
    return "not a plain value (a string, integer, finite number, boolean, null, list or map)"


_UNION_BRANCH = re.compile(r"[`\[\]-]|^(str|int|float|bool|none)$")


def _where(loc: tuple[int | str, ...]) -> str:
    """`command.actions.0` from pydantic's location, without the names pydantic gives
    the branches of a union (`list[...]`, `str`), at most 80 characters."""
    parts = [str(p) for p in loc if isinstance(p, int) or not _UNION_BRANCH.search(p)]
    where = ".".join(parts) or "message"
    return where if len(where) <= 80 else "..." + where[-77:]


# --- encoding -------------------------------------------------------------------------


@overload
def encode(message: BaseModel, *, binary: Literal[True] = True) -> bytes: ...
@overload
def encode(message: BaseModel, *, binary: Literal[False]) -> str: ...
@overload
def encode(message: BaseModel, *, binary: bool) -> Frame: ...


def encode(message: BaseModel, *, binary: bool = True) -> Frame:
    """A message as a frame: msgpack bytes, or JSON text when `binary` is False."""
    return pack(message.model_dump(), binary=binary)


@overload
def pack(data: Mapping[str, Any], *, binary: Literal[True] = True) -> bytes: ...
@overload
def pack(data: Mapping[str, Any], *, binary: Literal[False]) -> str: ...
@overload
def pack(data: Mapping[str, Any], *, binary: bool) -> Frame: ...


def pack(data: Mapping[str, Any], *, binary: bool = True) -> Frame:
    """A message already in plain data (`{"type": "events", "events": [...]}`) as a
    frame, without validating it: for the server's own, trusted data."""
    if binary:
        packed: bytes = msgpack.packb(data, use_bin_type=True)
        return packed
    return to_json(data).decode()


def binary_for(subprotocol: str | None) -> bool:
    """Whether the server sends binary (msgpack) frames on a connection that agreed on
    `subprotocol`; `ValueError` for one that is not ours."""
    if subprotocol in (MSGPACK_SUBPROTOCOL, OLD_SUBPROTOCOLS[0]):
        return True
    if subprotocol in (JSON_SUBPROTOCOL, OLD_SUBPROTOCOLS[1]):
        return False
    raise ValueError(f"not a subprotocol of this protocol: {subprotocol!r}")
