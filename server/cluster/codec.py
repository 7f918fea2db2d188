"""What travels on a room's event channel, as bytes: its log entries and its `Timing`.

Each message is a msgpack array tagged by its first item: `[0, seq, event, ends_batch]`
for an `Entry` (the event as `records.to_data`, the same plain data the log keeps), or
`[1, seq, window, remaining_ms, running, alone]` for a `Timing`. msgpack rather than JSON: it
is smaller and faster to read, and keeps map keys of any type exactly as they were.
"""

from __future__ import annotations

from typing import Any

import msgpack

from server.cluster.timing import Timing
from server.engine.core import Event
from server.engine.records import from_data, to_data
from server.eventlog import Entry

Message = Entry | Timing
_ENTRY = 0
_TIMING = 1


def encode_message(message: Message) -> bytes:
    if isinstance(message, Timing):
        fields: list[Any] = [_TIMING, *message]
    else:
        fields = [_ENTRY, message.seq, to_data(message.event), message.ends_batch]
    packed: bytes = msgpack.packb(fields, use_bin_type=True)
    return packed


def decode_message(data: bytes) -> Message:
    """The message in `data`; `ValueError` for bytes that are not one."""
    fields = msgpack.unpackb(data, raw=False, strict_map_key=False)
    if not isinstance(fields, list) or not fields:
        raise ValueError("not a message of a room's event channel")
    if fields[0] == _ENTRY and len(fields) == 4:
        event = from_data(fields[2])
        if not isinstance(event, Event):
            raise ValueError(f"an entry holds a {type(event).__name__}, not an event")
        return Entry(int(fields[1]), event, bool(fields[3]))
    if fields[0] == _TIMING and len(fields) == 6:
        seq, window, remaining_ms, running, alone = fields[1:]
        return Timing(
            int(seq),
            None if window is None else int(window),
            int(remaining_ms),
            bool(running),
            bool(alone),
        )
    raise ValueError(f"an unknown message on a room's event channel: {fields[0]!r}")
