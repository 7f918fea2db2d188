"""What travels between the processes of a cluster comes back as it left."""

from __future__ import annotations

import msgpack
import pytest

from server.cluster.codec import decode_message, encode_message
from server.cluster.forwarding import (
    Reply,
    Request,
    decode_reply,
    decode_request,
    encode_reply,
    encode_request,
)
from server.cluster.timing import Timing
from server.engine.authority import Principal
from server.engine.commands import Paused
from server.engine.grid import Cell
from server.engine.rulesets.verse.live import Declare
from server.engine.rulesets.verse.movement import Move
from server.eventlog import Entry


def test_an_entry_and_a_timing_come_back_equal() -> None:
    entry = Entry(7, Paused("ayla"), ends_batch=False)
    timing = Timing(7, 3, 6400, True)
    assert decode_message(encode_message(entry)) == entry
    assert decode_message(encode_message(timing)) == timing
    alone = Timing(9, None, 0, False, alone=True)
    assert decode_message(encode_message(alone)) == alone


@pytest.mark.parametrize(
    "data",
    [
        msgpack.packb([2, 1]),
        msgpack.packb({"seq": 1}),
        msgpack.packb([0, 1, {"$type": "Cell", "x": 0, "y": 0}, True]),  # not an event
        msgpack.packb([]),
    ],
)
def test_anything_else_on_the_channel_is_refused(data: bytes) -> None:
    with pytest.raises(ValueError):
        decode_message(data)


def test_a_forwarded_command_keeps_its_sender_and_every_field() -> None:
    command = Declare("ayla", (Move("ayla", (Cell(1, 0), Cell(2, 0))),), turn=1)
    request = Request("r1", "node-a", Principal("player", ("ayla",), "ayla"), command, "c-9")
    assert decode_request(encode_request(request)) == request
    asking = Request("r2", "node-a", None, None, None)
    assert decode_request(encode_request(asking)) == asking


def test_a_reply_comes_back_equal() -> None:
    reply = Reply("r1", "not_asked", "ayla is not asked in window 7", 0, 0)
    assert decode_reply(encode_reply(reply)) == reply
