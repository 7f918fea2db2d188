"""The backends the event log contract runs against: every backend passes the same suite.

A new backend (SQLite, Redis Streams) adds a name to BACKENDS and a branch to
`event_log`; the tests in test_contract.py stay as they are.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.eventlog import EventLog
from server.eventlog.memory import MemoryEventLog

BACKENDS = ["memory"]


@pytest.fixture(params=BACKENDS)
async def event_log(request: pytest.FixtureRequest) -> AsyncIterator[EventLog]:
    if request.param == "memory":
        yield MemoryEventLog()
    else:  # pragma: no cover - a backend named but not wired
        raise LookupError(request.param)
