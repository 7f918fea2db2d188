"""The backends the bus contract runs against (add Redis here when it lands)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from server.bus import Bus
from server.bus.memory import MemoryBus

BACKENDS = ["memory"]
MakeBus = Callable[[int], Awaitable[Bus[str]]]


@pytest.fixture(params=BACKENDS)
async def make_bus(request: pytest.FixtureRequest) -> AsyncIterator[MakeBus]:
    """Build a bus of the backend whose subscriptions buffer `limit` messages."""

    async def make(limit: int = 1024) -> Bus[str]:
        if request.param == "memory":
            return MemoryBus(limit)
        raise LookupError(request.param)  # pragma: no cover - a backend named but not wired

    yield make
