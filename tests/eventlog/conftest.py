"""The backends the event log contract runs against: every backend passes the same suite.

A new backend (Redis Streams) adds a name to BACKENDS and a branch to `event_log`;
the contract tests (test_contract.py, test_contract_rooms.py) stay as they are.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.eventlog import EventLog
from server.eventlog.memory import MemoryEventLog
from server.eventlog.sqlite import SqliteEventLog

BACKENDS = ["memory", "sqlite"]


@pytest.fixture(params=BACKENDS)
async def event_log(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[EventLog]:
    log: EventLog
    if request.param == "memory":
        log = MemoryEventLog()
    elif request.param == "sqlite":
        log = SqliteEventLog(tmp_path / "events.sqlite")
    else:  # pragma: no cover - a backend named but not wired
        raise LookupError(request.param)
    yield log
    await log.close()
