"""The GM's rewind: the one command the room decides itself, because it needs the log.

`Rewind(to_version)` takes the fight back to the state after event number `to_version`
(versions count applied events from the room's initial state, as `Encounter.version`
does). The room rebuilds that state by replaying the log prefix from its initial state
and appends `Rewound(to_version, state)`. The abandoned events stay in the log, and
`replay(initial, whole log)` follows the rewind because `Rewound` carries the state
(issue 3: "the log keeps the abandoned branch and a Rewound event").

The GM's `peek` (docs/protocol.md) shows that state before the rewind is sent: it asks
`past_of` the same question and appends nothing, so what the GM previews is what a
rewind to the same point restores, and a point a rewind would refuse is refused alike.

The replay itself is a `Replayer`'s: a replay of thousands of events would hold up
every other room and connection of the process, so the host gives its rooms one that
replays in its workshop (`server/workshop.py`); `in_thread` otherwise.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from server.engine.commands import Rewind, Rewound
from server.engine.core import Event, replay
from server.engine.errors import INVALID_COMMAND, CommandRefused
from server.engine.state import Encounter
from server.eventlog import EventLog

Replayer = Callable[[Encounter, Sequence[Event]], Awaitable[Encounter]]
"""Replays events from a state, away from the event loop."""


async def in_thread(start: Encounter, events: Sequence[Event]) -> Encounter:
    """A replay in a thread: the engine's functions share nothing they change."""
    return await asyncio.to_thread(replay, start, events)


async def state_at(
    log: EventLog,
    room_id: str,
    initial: Encounter,
    current: int,
    to_version: int,
    replayer: Replayer = in_thread,
) -> Encounter:
    """The fight after event `to_version`, rebuilt from the log, for a room at version
    `current` (`past_of` says which versions may be asked for)."""
    return await replayer(*await past_of(log, room_id, initial, current, to_version))


async def past_of(
    log: EventLog, room_id: str, initial: Encounter, current: int, to_version: int
) -> tuple[Encounter, list[Event]]:
    """The state to replay from and the events to replay for the fight after event
    `to_version`, read from the log, for a room at version `current`; `CommandRefused`
    (`invalid_command`) for a version out of the log's range or inside one command's
    events (no table ever showed that state)."""
    if not initial.version <= to_version <= current:
        raise CommandRefused(
            INVALID_COMMAND,
            f"can rewind only to after an event from {initial.version} to {current}"
            " (the numbers the log shows)",
        )
    prefix = to_version - initial.version  # the log's seq of that event
    # From the latest snapshot when it is not after that event (snapshots are taken
    # where a command's events end), else from the start, reading only the events
    # replayed: a long fight's log holds tens of thousands (bench.long_fight).
    snapshot = await log.latest_snapshot(room_id)
    start, after = (initial, 0)
    if snapshot is not None and snapshot.seq <= prefix:
        start, after = snapshot.state, snapshot.seq
    entries = await log.read(room_id, after_seq=after, until_seq=prefix)
    if entries and not entries[-1].ends_batch:
        raise await _inside_a_batch(log, room_id, initial, to_version)
    return start, [entry.event for entry in entries]


NEAR = 256
"""Events either side of a refused point looked at for the nearest ones a rewind takes."""


async def _inside_a_batch(
    log: EventLog, room_id: str, initial: Encounter, to_version: int
) -> CommandRefused:
    """The refusal of a point inside one command's events, naming the nearest points a
    rewind takes (looked for among the `NEAR` events either side)."""
    prefix = to_version - initial.version
    near = await log.read(room_id, after_seq=max(0, prefix - NEAR), until_seq=prefix + NEAR)
    ends = [entry.seq for entry in near if entry.ends_batch]
    before = [n for n in ends if n < prefix]
    after = [n for n in ends if n > prefix]
    named = [str(n + initial.version) for n in (*before[-1:], *after[:1])]
    if prefix - NEAR <= 0 and not before:
        named.insert(0, str(initial.version))  # the start of the fight
    such = f", such as {' or '.join(named)}" if named else ""
    return CommandRefused(
        INVALID_COMMAND,
        f"event {to_version} is in the middle of a command's events: "
        f"rewind to an event where a command ended{such}",
    )


async def rewound(
    log: EventLog,
    room_id: str,
    initial: Encounter,
    current: Encounter,
    command: Rewind,
    replayer: Replayer = in_thread,
) -> Rewound:
    """The event that rewinds `current` as `command` asks, or `CommandRefused`."""
    state = await state_at(log, room_id, initial, current.version, command.to_version, replayer)
    return Rewound(command.to_version, state)
