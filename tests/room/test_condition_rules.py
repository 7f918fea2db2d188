"""The GM's change to the conditions table through the room (V27): logged, rewound and
replayed like any override."""

from __future__ import annotations

from server.engine.commands import Rewind
from server.engine.condition_table import SetConditionRule
from server.engine.core import replay
from server.engine.effects import Change, ConditionRule
from server.eventlog.memory import MemoryEventLog
from tests.engine.verse.builders import fighter, in_combat
from tests.room.conftest import MakeRoom
from tests.room.support import GM

PRONE = ConditionRule("Prone", (Change("defence.pd", "add", -2),))


async def test_a_table_change_is_logged_rewound_and_replayed(
    make_room: MakeRoom, log: MemoryEventLog
) -> None:
    gob = fighter("gob", "gm", x=1).with_condition("Prone")
    room = await make_room(in_combat(fighter("ayla", "pc"), gob, seed=3))

    await room.submit(GM, SetConditionRule(PRONE))
    assert room.state.condition_rules == (PRONE,)
    await room.submit(GM, Rewind(0))  # before the GM ruled Prone
    assert room.state.condition_rules == ()
    await room.submit(GM, SetConditionRule(PRONE))

    events = [entry.event for entry in await log.read(room.room_id)]
    assert replay(room.initial, events).state_hash() == room.state.state_hash()
    assert room.state.condition_rules == (PRONE,)
