"""Test-wide settings.

Property tests hunt with fresh random examples on a developer's machine; under CI
(`CI` set) they replay a fixed derivation, so a red build always means a change broke
something and never that the search happened to find an old bug that day.

Every test has a time limit (pytest-timeout, pyproject.toml). Its signal method fails
a test that runs out of time and goes on with the run, but it fires once: a test whose
teardown then waits for ever (a fixture stopping what the failed test left running)
would hold the run for good. So a test still running `BACKSTOP` seconds after its limit
ends the run, with every thread's stack on stderr.
"""

from __future__ import annotations

import faulthandler
import logging
import os
import sys
import threading
from collections.abc import Generator

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

BACKSTOP = 60.0
"""Seconds past a test's time limit after which the whole run is ended."""


def time_limit(item: pytest.Item) -> float:
    """The test's pytest-timeout limit in seconds (0: none): its marker, else
    `--timeout`, else `PYTEST_TIMEOUT`, else the configuration's `timeout`."""
    marker = item.get_closest_marker("timeout")
    if marker is not None and (marker.args or "timeout" in marker.kwargs):
        given = marker.args[0] if marker.args else marker.kwargs["timeout"]
    else:
        given = (
            item.config.getoption("timeout", None)
            or os.environ.get("PYTEST_TIMEOUT")
            or item.config.getini("timeout")
        )
    try:
        return max(0.0, float(given))
    except (TypeError, ValueError):
        return 0.0


def end_the_run(item: pytest.Item, after: float) -> None:
    """The test is stuck past its limit and the backstop: dump every stack, exit."""
    capture = item.config.pluginmanager.getplugin("capturemanager")
    if capture is not None:
        capture.suspend_global_capture(in_=True)
    sys.stderr.write(
        f"\n{item.nodeid} is still running {after:.0f} s after it started, past its time "
        "limit: something it waits for (its teardown, most likely) never comes. "
        "Ending the run. Stacks:\n"
    )
    sys.stderr.flush()
    faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
    sys.stderr.flush()
    os._exit(1)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    limit = time_limit(item)
    if not limit:
        return (yield)
    after = limit + BACKSTOP
    watchdog = threading.Timer(after, end_the_run, (item, after))
    watchdog.daemon = True
    watchdog.start()
    try:
        return (yield)
    finally:
        watchdog.cancel()


class _UnreadableFrames(logging.Handler):
    """Collects the client library's word that a server frame did not match the
    protocol's types (`clients.client`: "unreadable frame from the server")."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("unreadable frame from the server"):
            self.found.append(record.getMessage())


@pytest.fixture(autouse=True)
def every_frame_matches_the_protocol() -> Generator[None, None, None]:
    """Every frame a client of the tests receives is checked against the types of
    `protocol/` (the client decodes each with `decode_server`, which validates it): one
    that does not match fails the test that received it, even if the test itself only
    looked at other messages."""
    handler = _UnreadableFrames()
    logger = logging.getLogger("clients.client")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
    assert not handler.found, f"the server sent frames outside the protocol: {handler.found[:3]}"
