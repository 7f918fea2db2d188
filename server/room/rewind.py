"""The GM's rewind: the one command the room decides itself, because it needs the log.

`Rewind(to_version)` takes the fight back to the state after event number `to_version`
(versions count applied events from the room's initial state, as `Encounter.version`
does). The room rebuilds that state by replaying the log prefix from its initial state
and appends `Rewound(to_version, state)`. The abandoned events stay in the log, and
`replay(initial, whole log)` follows the rewind because `Rewound` carries the state
(issue 3: "the log keeps the abandoned branch and a Rewound event").

The GM's `peek` (docs/protocol.md) shows that state before the rewind is sent: it asks
`state_at` the same question and appends nothing, so what the GM previews is what a
rewind to the same point restores, and a point a rewind would refuse is refused alike.
"""

from __future__ import annotations

from server.engine.commands import Rewind, Rewound
from server.engine.core import replay
from server.engine.errors import INVALID_COMMAND, CommandRefused
from server.engine.state import Encounter
from server.eventlog import EventLog


async def state_at(
    log: EventLog, room_id: str, initial: Encounter, current: int, to_version: int
) -> Encounter:
    """The fight after event `to_version`, rebuilt from the log, for a room at version
    `current`; `CommandRefused` (`invalid_command`) for a version out of the log's range
    or inside one command's events (no table ever showed that state)."""
    if not initial.version <= to_version <= current:
        raise CommandRefused(
            INVALID_COMMAND,
            f"can rewind only to after an event from {initial.version} to {current}"
            " (the numbers the log shows)",
        )
    prefix = to_version - initial.version
    entries = await log.read(room_id)
    if prefix > 0 and not entries[prefix - 1].ends_batch:
        ends = [i + 1 for i, entry in enumerate(entries) if entry.ends_batch]
        before = max((n for n in ends if n < prefix), default=0) + initial.version
        after = min((n for n in ends if n > prefix), default=len(entries)) + initial.version
        raise CommandRefused(
            INVALID_COMMAND,
            f"event {to_version} is in the middle of a command's events: "
            f"rewind to an event where a command ended, such as {before} or {after}",
        )
    return replay(initial, [entry.event for entry in entries[:prefix]])


async def rewound(
    log: EventLog, room_id: str, initial: Encounter, current: Encounter, command: Rewind
) -> Rewound:
    """The event that rewinds `current` as `command` asks, or `CommandRefused`."""
    state = await state_at(log, room_id, initial, current.version, command.to_version)
    return Rewound(command.to_version, state)
