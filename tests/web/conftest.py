"""The browser tests' harness: a real server, a real browser, one context per face.

Playwright (its async API, in pytest-asyncio tests) drives Debian's `chromium` at
/usr/bin/chromium: never a browser a tool downloads. Without that file the browser
tests skip locally and fail under CI (`.ci/run` installs the package).

Fixtures:

* `server`: `python -m server` as a child process on a fresh data dir, with the web
  app on a free port (`server.web_url`). A test may `server.kill()` it and
  `server.start()` it again: both ports stay the same, so an open page reconnects.
* `demo`: the demo room that server created, as its first start printed it: `links`
  (`"GM"`, `"ayla"`, `"bram"`, `"corvin"`, `"spectator"`: `http://.../#join=CODE`),
  `codes` (the same people's invite codes) and `create` (the host's `#host=` link).
* `browser`: a headless chromium.
* `faces`: opens a link in a browser context of its own (one per face, so no two
  pages share storage): `await faces.open(demo.links["ayla"])`, `phone=True` for a
  phone's screen and touch;
  each `Face` keeps the text of every websocket frame its page received (`frames`, for
  sentinel checks; `await face.message("welcome")` waits for one and parses it) and
  every error its page met (`errors`: uncaught exceptions, console errors,
  Content-Security-Policy refusals).
* `screenshot(page, name)`: `docs/screenshots/NAME-desktop.png` (1280x800) and
  `NAME-phone.png` (390x844), CSS animations stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    WebSocket,
    async_playwright,
)

from tests.support.server import JOIN_LINE, JOIN_LINES, ROOT, WEB_LINE, ServerProcess
from tests.support.waiting import until

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",  # root in CI, where chromium's sandbox cannot start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ACTION_TIMEOUT_MS = 10_000
"""How long one Playwright action or wait may take: well within the test's own limit."""
SCREENSHOTS = ROOT / "docs" / "screenshots"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
CREATE_PREFIX = "Or create one in a browser: "


@dataclass
class Demo:
    """The demo room of a first start, as printed: each person's link and code."""

    server: ServerProcess
    links: dict[str, str]
    codes: dict[str, str]
    create: str


@dataclass
class Face:
    """One person's page in a browser context of its own."""

    page: Page
    context: BrowserContext
    frames: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def messages(self, kind: str) -> list[dict[str, Any]]:
        """Every message of type `kind` (`"welcome"`, `"table"`, ...) the page received."""
        found = []
        for frame in self.frames:
            with contextlib.suppress(ValueError):
                message = json.loads(frame)
                if isinstance(message, dict) and message.get("type") == kind:
                    found.append(message)
        return found

    async def message(self, kind: str, timeout: float = ACTION_TIMEOUT_MS / 1000) -> dict[str, Any]:
        """The first message of type `kind` the page received, waiting up to `timeout` s."""
        await until(lambda: bool(self.messages(kind)), timeout, f"a {kind} for the page")
        return self.messages(kind)[0]


@dataclass
class Faces:
    """Opens links, each in a new context; closes them all at the end of the test."""

    browser: Browser
    opened: list[Face] = field(default_factory=list)

    async def open(self, link: str, *, phone: bool = False) -> Face:
        """Open `link` in a new context and wait for the page's load event."""
        width, height = SIZES["phone" if phone else "desktop"]
        context = await self.browser.new_context(
            viewport={"width": width, "height": height},
            is_mobile=phone,
            has_touch=phone,
        )
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        page = await context.new_page()
        face = Face(page, context)
        self.opened.append(face)
        page.on("websocket", lambda ws: _keep_frames(ws, face.frames))
        page.on("pageerror", lambda error: face.errors.append(f"uncaught: {error}"))
        page.on("console", lambda message: _keep_error(message, face.errors))
        await page.goto(link)
        return face

    async def close(self) -> None:
        for face in self.opened:
            await face.context.close()


def _keep_frames(ws: WebSocket, into: list[str]) -> None:
    ws.on("framereceived", lambda payload: into.append(_text(payload)))


def _text(payload: str | bytes) -> str:
    return payload if isinstance(payload, str) else payload.decode("utf-8", "replace")


def _keep_error(message: ConsoleMessage, into: list[str]) -> None:
    if message.type == "error":
        into.append(f"console: {message.text}")


@pytest.fixture
def chromium() -> Path:
    """The browser's path; a skip (a failure under CI) where it is not installed."""
    if not CHROMIUM.exists():
        reason = f"no browser at {CHROMIUM}: install Debian's chromium package (.ci/run does)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return CHROMIUM


@pytest.fixture
async def browser(chromium: Path) -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(chromium), args=CHROMIUM_ARGS, timeout=30_000
        )
        try:
            yield launched
        finally:
            await launched.close()


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[ServerProcess]:
    process = ServerProcess(tmp_path / "data")
    await asyncio.to_thread(process.start)
    try:
        yield process
    finally:
        await asyncio.to_thread(process.stop)


@pytest.fixture
async def demo(server: ServerProcess) -> Demo:
    lines = [line.rstrip("\n") for line in await asyncio.to_thread(server.read_output, JOIN_LINES)]
    links = {m.group(1).strip(): m.group(2) for line in lines if (m := WEB_LINE.match(line))}
    codes = {m.group(1).strip(): m.group(2) for line in lines if (m := JOIN_LINE.match(line))}
    [create] = [
        line.removeprefix(CREATE_PREFIX) for line in lines if line.startswith(CREATE_PREFIX)
    ]
    assert set(links) == {"GM", "ayla", "bram", "corvin", "spectator"}, lines
    return Demo(server, links, codes, create)


@pytest.fixture
async def faces(browser: Browser) -> AsyncIterator[Faces]:
    opened = Faces(browser)
    try:
        yield opened
    finally:
        await opened.close()


@dataclass(frozen=True)
class Screenshots:
    """Writes a page's screenshots at each of `SIZES` into `directory`."""

    directory: Path = SCREENSHOTS

    async def __call__(self, page: Page, name: str) -> list[Path]:
        """The page at each size, as DIRECTORY/NAME-SIZE.png (CSS animations stopped,
        no caret); the page's own size is given back after."""
        self.directory.mkdir(parents=True, exist_ok=True)
        before = page.viewport_size
        written = []
        for size, (width, height) in SIZES.items():
            await page.set_viewport_size({"width": width, "height": height})
            path = self.directory / f"{name}-{size}.png"
            await page.screenshot(path=path, animations="disabled", caret="hide")
            written.append(path)
        if before is not None:
            await page.set_viewport_size(before)
        return written


Shoot = Callable[[Page, str], Awaitable[list[Path]]]


@pytest.fixture
def screenshot() -> Shoot:
    """`await screenshot(page, "player")`: docs/screenshots/player-desktop.png and
    player-phone.png."""
    return Screenshots()
