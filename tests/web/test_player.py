"""The player's seat in a real browser: a Live Combat round of the demo cast.

A real server on loopback serves the web app; Ayla and Bram each open their invite
link in a browser context of their own, a spectator opens the spectator's, and the GM
(and Corvin, who passes) play through the client library. With fixed dice (seed 20)
the goblin G1 goes first and attacks Ayla:

* both players declare by clicks: an action from their choices, its target on the map;
* Bram pauses from his page while the reaction window waits on Ayla: every page shows
  the pause and a frozen countdown; the GM refuses the pause and the window runs on;
* Ayla dodges from the prompt (one tap), and lets the counter go with Esc;
* the round ends, and no page of a player or the spectator ever held a GM-only value:
  not in its text, not in any frame its websocket received.

Screenshots of the player's face, desktop and phone, go to docs/screenshots/.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page, async_playwright, expect

from clients.client import Client
from clients.encounters import read_encounter
from protocol.messages import Created, Window
from tests.support.server import Served, served
from tests.support.waiting import within

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SEED = 20
SENTINEL = "GM-ONLY-5e7a"
"""Written into the goblins' GM notes: the GM's table shows it, nobody else's may."""
SEEN = 10_000
"""Milliseconds a page may take to show what the server told it."""


class Recorded:
    """A page and every websocket frame it received, as text."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.frames: list[str] = []
        page.on("websocket", self._watch)

    def _watch(self, ws: Any) -> None:
        ws.on("framereceived", self._keep)

    def _keep(self, payload: str | bytes) -> None:
        self.frames.append(payload if isinstance(payload, str) else payload.decode())

    def messages(self) -> list[dict[str, Any]]:
        return [json.loads(frame) for frame in self.frames]


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[tuple[Served, str]]:
    """A combat server and the web app beside it: (the server, the page's address)."""
    from server.web import WebApp

    async with served(tmp_path, demo=False) as running:
        port = int(running.url.rsplit(":", 1)[1].split("/")[0])
        web = await WebApp(ws_port=port).serve("127.0.0.1", 0)
        try:
            web_port = next(iter(web.sockets)).getsockname()[1]
            yield running, f"http://127.0.0.1:{web_port}/"
        finally:
            web.close()
            await within(web.wait_closed(), what="the web app to stop")


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            yield launched
        finally:
            await launched.close()


async def open_page(browser: Browser, url: str, viewport: dict[str, int] = DESKTOP) -> Recorded:
    context = await browser.new_context(viewport=viewport)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    recorded = Recorded(page)
    await page.goto(url)
    await expect(page.locator(".badge.connection.online")).to_be_visible(timeout=SEEN)
    assert errors == []
    return recorded


DEMO = ROOT / "server" / "samples" / "encounters" / "demo.toml"


async def create(url: str, host_token: str, encounter: dict[str, Any]) -> Created:
    async with await Client.connect(url, host_token) as host:
        created = await host.create(encounter, timeout=10)
    assert isinstance(created, Created), created
    return created


def sentinel_encounter(**settings: Any) -> dict[str, Any]:
    """The demo's cast with fixed dice, the given settings, and the sentinel in the
    goblins' GM notes."""
    encounter = read_encounter(DEMO)
    encounter["seed"] = SEED
    encounter["settings"] = {**encounter.get("settings", {}), **settings}
    for combatant in encounter["combatants"]:
        if combatant["side"] == "goblins":
            combatant["sheet"] = {**combatant["sheet"], "notes": f"{SENTINEL}: the cellar key"}
    return encounter


async def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.evaluate("window.scrollTo(0, 0)")
    await page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


async def pass_when_asked(client: Client, combatants: set[str], planning: bool) -> None:
    """Pass every window that asks one of `combatants` (planning ones too when
    `planning`), as a player with nothing to add would."""
    passed: set[tuple[int, str]] = set()
    async for message in client:
        if not isinstance(message, Window) or not message.running:
            continue
        if message.kind == "planning" and not planning:
            continue
        for ask in message.asked:
            key = (message.window, ask.combatant)
            asked = ask.combatant in combatants and ask.combatant not in message.answered
            if asked and key not in passed:
                passed.add(key)
                await client.send(
                    {"type": "PassWindow", "actor": ask.combatant, "window": message.window}
                )


async def pass_prompts(page: Page) -> None:
    """Let every prompt on `page` go with Esc, as a player who has nothing to add."""
    prompt = page.locator(".seat.prompt")
    while True:
        await prompt.first.wait_for(state="visible", timeout=60_000)
        window = await prompt.first.get_attribute("data-window")
        await page.keyboard.press("Escape")
        gone = page.locator(f'.seat.prompt[data-window="{window}"]')
        await gone.first.wait_for(state="detached", timeout=SEEN)


async def pick_by_clicks(page: Page, action: str, target: str) -> None:
    """Pick `action` from the choices and its target on the map: the declaration
    gathers it."""
    await page.get_by_role("button", name=action, exact=True).click()
    token = page.locator(f'svg.map .token[data-combatant="{target}"]')
    await expect(token).to_have_class("token pickable")
    await token.click()
    await expect(page.locator(".compose .parts li")).to_contain_text(target)


async def test_a_live_round_played_by_clicks(server: tuple[Served, str], browser: Browser) -> None:
    running, site = server
    room = await create(
        running.url,
        running.host_token,
        sentinel_encounter(planning_seconds=90, reaction_seconds=40, adapt_seconds=20),
    )
    gm = await Client.connect(running.url, room.gm, keep_events=True)
    corvin = await Client.connect(running.url, room.players["corvin"])
    ayla = await open_page(browser, f"{site}#join={room.codes.players['ayla']}")
    bram = await open_page(browser, f"{site}#join={room.codes.players['bram']}", PHONE)
    watcher = await open_page(browser, f"{site}#join={room.codes.spectator}")
    helpers = [
        asyncio.create_task(pass_when_asked(gm, {"g1", "g2"}, planning=False)),
        asyncio.create_task(pass_when_asked(corvin, {"corvin"}, planning=True)),
    ]
    try:
        await gm.send({"type": "StartCombat"})
        for page in (ayla, bram, watcher):
            await expect(page.page.locator(".ring")).to_contain_text("Planning", timeout=SEEN)

        # Everyone declares at once: the GM for its goblins, the players by clicks.
        await gm.send(_declare("g1", _attack("g1", "ayla", "scimitar")))
        await gm.send(_declare("g2", _attack("g2", "bram", "scimitar")))
        await pick_by_clicks(ayla.page, "Attack with longsword", "g1")
        await shoot(ayla.page, "player-desktop")
        await ayla.page.get_by_role("button", name="Send: Declare").click()
        await expect(ayla.page.locator(".declared-now")).to_contain_text("Goblin (g1)")
        # Each side sees that the other declared, never what (until revealed).
        await expect(watcher.page.locator(".log")).to_contain_text(
            "Ayla declares (hidden until revealed)"
        )
        await expect(watcher.page.locator(".rail li:has(.declared)")).to_have_count(5)
        await pick_by_clicks(bram.page, "Attack with quarterstaff", "g2")
        await shoot(bram.page, "player-phone")
        await bram.page.get_by_role("button", name="Send: Declare").click()
        await expect(bram.page.locator(".log")).to_contain_text(
            "Bram declares: attack Goblin (g2) with quarterstaff"
        )

        # G1 goes first and attacks Ayla: a reaction window asks her.
        prompt = ayla.page.locator('.seat.prompt[data-combatant="ayla"]')
        await expect(prompt).to_be_visible(timeout=SEEN)
        await expect(prompt.locator("button.option")).to_contain_text(["Dodge"])
        assert int(await ayla.page.evaluate("document.body.dataset.alerts || '0'")) >= 1
        await expect(ayla.page.locator(".ring")).to_contain_text("waiting on: Ayla")
        await shoot(ayla.page, "player-prompt-desktop")

        # Bram pauses from his page: every page shows it, every countdown stops.
        await bram.page.locator("button.pause").click()
        for page in (ayla, bram, watcher):
            await expect(page.page.locator(".pause-banner")).to_contain_text(
                "Paused by Bram", timeout=SEEN
            )
        frozen = await ayla.page.locator(".ring .time").inner_text()
        assert frozen.startswith("Paused: frozen at")
        await expect(prompt.locator("button.option").first).to_be_disabled()
        await shoot(watcher.page, "spectator-paused-desktop")
        await asyncio.sleep(1.2)  # bounded: time passes, the frozen countdown does not move
        assert await ayla.page.locator(".ring .time").inner_text() == frozen

        # The GM refuses the pause: the window runs on.
        answer = await gm.send({"type": "RefusePause"})
        assert answer.type == "ack", answer
        for page in (ayla, bram, watcher):
            await expect(page.page.locator(".pause-banner")).to_have_count(0, timeout=SEEN)
        await expect(ayla.page.locator(".ring .time")).to_contain_text("s left")

        # Ayla dodges with one tap, then lets the counter go with Esc.
        await prompt.locator('button.option[data-key="dodge"]').click()
        await expect(ayla.page.locator(".log")).to_contain_text("Ayla tries to dodge", timeout=SEEN)
        counter = ayla.page.locator('.seat.prompt[data-combatant="ayla"] button.option')
        await expect(counter.first).to_contain_text("Counter", timeout=SEEN)
        await ayla.page.keyboard.press("Escape")

        # The rest of the round: whatever else asks them, the players pass.
        helpers += [
            asyncio.create_task(pass_prompts(ayla.page)),
            asyncio.create_task(pass_prompts(bram.page)),
        ]
        for page in (ayla, bram, watcher):
            await expect(page.page.locator(".log")).to_contain_text(
                "End of round 1", timeout=60_000
            )
        await shoot(watcher.page, "spectator-desktop")
    finally:
        for helper in helpers:
            helper.cancel()
        await asyncio.gather(*helpers, return_exceptions=True)

    # What the GM's table held, no other page ever did.
    assert gm.table is not None
    assert SENTINEL in json.dumps(gm.table.view)
    for seen in (ayla, bram, watcher):
        assert seen.frames, "the page received no frame"
        assert not [frame for frame in seen.frames if SENTINEL in frame]
        assert SENTINEL not in await seen.page.locator("body").inner_text()
        assert SENTINEL not in await seen.page.content()
        for message in seen.messages():
            assert_no_goblin_numbers(message)
    await within(gm.close(), what="closing the GM")
    await within(corvin.close(), what="closing Corvin")


def assert_no_goblin_numbers(message: dict[str, Any]) -> None:
    """The goblins' health, mana and roll totals are the GM's side's numbers."""
    goblins = {"g1", "g2"}
    if message["type"] == "table":
        for cid in goblins:
            card = message["view"]["combatants"][cid]
            assert card["health"] is None and card["mana"] is None, card
            assert card["details"] == [], card
    if message["type"] == "update":
        for op in message["patch"]:
            for cid in goblins:
                if op["path"].startswith(f"/combatants/{cid}/health"):
                    assert op["path"].endswith("health_word") or op.get("value") is None, op
    for line in message.get("log", []) if message["type"] == "update" else message.get("lines", []):
        for roll in line["rolls"]:
            if roll["by"] in goblins:
                assert roll["total"] is None and roll["modifiers"] is None, roll


def _attack(actor: str, target: str, weapon: str) -> dict[str, Any]:
    return {"$type": "Attack", "actor": actor, "target": target, "weapon": weapon}


def _declare(actor: str, *actions: dict[str, Any]) -> dict[str, Any]:
    return {"type": "Declare", "actor": actor, "actions": list(actions), "turn": 0}
