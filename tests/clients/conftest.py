"""The fixtures of the client tests that talk to a real server: a server with no demo
on a free port, and the demo encounter created on it with seeded dice."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from protocol.messages import Created
from tests.clients.support import create, demo_encounter
from tests.support.server import Served, served


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Served]:
    async with served(tmp_path, demo=False) as running:
        yield running


@pytest.fixture
async def room(server: Served) -> Created:
    return await create(server.url, server.host_token, demo_encounter(seed=7))
