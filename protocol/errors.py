"""The protocol's error codes and websocket close codes: stable strings and numbers.

ARCHITECTURE, "Errors by cause, stable on the wire": a client switches on these codes,
so a code is never renamed or reused, only added. `docs/protocol.md` lists each one
with what the server does.

Three places carry a code:

* `Error(code, message)`: the connection's frames or the protocol itself went wrong
  (`malformed_frame`, `invalid_message`, ...). Some of these are fatal: the server
  sends the `Error` and then closes the connection with `CLOSE_CODES[code]`.
* `Refused(cid, code, message)`: one command was not applied. Its code is either one of
  the engine's refusal codes (`not_your_turn`, `forbidden`, `room_busy`, ...; listed in
  `docs/protocol.md`), passed through unchanged, or `rate_limited` from this module.
* The websocket close code, for the fatal errors in `CLOSE_CODES`.

The engine's codes are not imported here (`protocol` never imports `server`); where a
code means the same thing in both places (`forbidden`, `room_busy`, `room_closed`) the
string is the same, and a test holds them equal.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Final


class ErrorCode(StrEnum):
    """Why the server refused a frame, a handshake or a command (protocol level)."""

    # A frame the server cannot read: answered with `Error`, the connection goes on
    # (before the handshake it is closed with `HELLO_REQUIRED`).
    MALFORMED_FRAME = "malformed_frame"  # not msgpack (binary) / not JSON (text)
    UNKNOWN_MESSAGE = "unknown_message"  # a map whose "type" names no message
    INVALID_MESSAGE = "invalid_message"  # wrong shape: not a map, missing/extra fields, types
    UNEXPECTED_MESSAGE = "unexpected_message"  # a valid message at the wrong time (a 2nd hello)
    # Fatal: `Error`, then the connection is closed with `CLOSE_CODES[code]`.
    FRAME_TOO_LARGE = "frame_too_large"  # over MAX_FRAME bytes
    UNSUPPORTED_VERSION = "unsupported_version"  # hello.protocol is not PROTOCOL_VERSION
    HELLO_REQUIRED = "hello_required"  # the first frame was not a valid hello, or none came
    UNAUTHORIZED = "unauthorized"  # a token that is forged, malformed or for no known room
    TOKEN_EXPIRED = "token_expired"  # a genuine token past its expiry
    SLOW_READER = "slow_reader"  # the connection's send buffer overflowed
    ROOM_CLOSED = "room_closed"  # the room stopped (the same string as the engine's code)
    GOING_AWAY = "going_away"  # the server is shutting down
    INTERNAL_ERROR = "internal_error"  # a bug on the server; no details are sent
    FLOODING = "flooding"  # over the connection's frame budget (every frame counts)
    # Per command (`Refused`) or, when sustained, fatal.
    RATE_LIMITED = "rate_limited"  # over the connection's command rate
    # The engine's own refusal codes that the gateway also raises itself.
    FORBIDDEN = "forbidden"  # this role may not send this command (the engine's code)
    ROOM_BUSY = "room_busy"  # the room's command queue is full (the engine's code)
    # Per command (`Refused`): the room's store or the process running it cannot be reached
    # right now (the engine's code); retry shortly. At the handshake it comes in an `Error`
    # and the connection is closed with 1011: reconnect a little later.
    UNAVAILABLE = "unavailable"
    # Per `create` (`Refused`).
    INVALID_ENCOUNTER = "invalid_encounter"  # an encounter file that cannot be built
    # Per `revoke` (`Refused`).
    UNKNOWN_INVITE = "unknown_invite"  # not a live invite code of the GM's room


class CloseCode(IntEnum):
    """Websocket close codes: RFC 6455 ones, and 4000-4999 (private use) for ours."""

    NORMAL = 1000
    GOING_AWAY = 1001  # RFC 6455: the server is going down
    MESSAGE_TOO_BIG = 1009  # RFC 6455: a frame over MAX_FRAME
    INTERNAL_ERROR = 1011  # RFC 6455: an unexpected condition on the server
    UNSUPPORTED_VERSION = 4000
    UNAUTHORIZED = 4001
    TOKEN_EXPIRED = 4002
    HELLO_REQUIRED = 4003
    ROOM_CLOSED = 4004
    RATE_LIMITED = 4008
    SLOW_READER = 4009
    FLOODING = 4010


CLOSE_CODES: Final[dict[ErrorCode, CloseCode]] = {
    ErrorCode.FRAME_TOO_LARGE: CloseCode.MESSAGE_TOO_BIG,
    ErrorCode.UNSUPPORTED_VERSION: CloseCode.UNSUPPORTED_VERSION,
    ErrorCode.HELLO_REQUIRED: CloseCode.HELLO_REQUIRED,
    ErrorCode.UNAUTHORIZED: CloseCode.UNAUTHORIZED,
    ErrorCode.TOKEN_EXPIRED: CloseCode.TOKEN_EXPIRED,
    ErrorCode.SLOW_READER: CloseCode.SLOW_READER,
    ErrorCode.ROOM_CLOSED: CloseCode.ROOM_CLOSED,
    ErrorCode.GOING_AWAY: CloseCode.GOING_AWAY,
    ErrorCode.INTERNAL_ERROR: CloseCode.INTERNAL_ERROR,
    ErrorCode.RATE_LIMITED: CloseCode.RATE_LIMITED,
    ErrorCode.FLOODING: CloseCode.FLOODING,
}
"""The fatal errors and the close code each ends the connection with.

`rate_limited` is fatal only when sustained: a single command over the rate is
`Refused` with it and the connection goes on."""


class ProtocolError(Exception):
    """A frame or message the protocol does not accept: `code` is an `ErrorCode`.

    `message` is for people and names the offending field, never server internals.
    """

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    @property
    def close_code(self) -> CloseCode | None:
        """The close code when this error ends the connection, else None."""
        return CLOSE_CODES.get(self.code)
