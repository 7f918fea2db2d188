"""The wire protocol between the combat server and its clients (`docs/protocol.md`).

`messages` holds the typed, versioned messages; `codec` turns them into websocket
frames and back (msgpack on binary frames, JSON on text frames); `errors` holds the
stable error and close codes. This package imports no part of the server
(import-linter), so a client needs only `protocol`.
"""

from protocol.codec import (
    JSON_SUBPROTOCOL,
    MAX_FRAME,
    MSGPACK_SUBPROTOCOL,
    SUBPROTOCOLS,
    decode,
    decode_server,
    encode,
    pack,
)
from protocol.errors import CloseCode, ErrorCode, ProtocolError
from protocol.messages import PROTOCOL_VERSION

__all__ = [
    "JSON_SUBPROTOCOL",
    "MAX_FRAME",
    "MSGPACK_SUBPROTOCOL",
    "PROTOCOL_VERSION",
    "SUBPROTOCOLS",
    "CloseCode",
    "ErrorCode",
    "ProtocolError",
    "decode",
    "decode_server",
    "encode",
    "pack",
]
