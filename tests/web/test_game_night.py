"""A game night in real browsers: the GM, two players and a spectator, each in a
browser context of their own, play a Live Combat round of the demo cast on a real
server, everything done on the pages by clicks and keys.

With fixed dice (seed 20) the goblin G1 goes first and attacks Ayla:

* the GM starts the fight from its console;
* Ayla and Bram declare by clicks (an action, its target on the map or the turn
  order); the GM's page declares for its goblins and, later, lets their prompts go;
* Bram pauses with key P while the reaction window waits on Ayla; the GM refuses the
  pause from its console: every page shows the pause, then the fight running again;
* Ayla dodges from her prompt;
* in the next planning window the GM sets a goblin's health from the console: the GM
  sees the number, the players and the spectator only the health word;
* the GM rewinds from the timeline after seeing the preview, and every page follows;
* the server is killed and started again: every page reconnects by itself and Ayla
  declares again;
* no page of a player or the spectator ever held a GM-only value: not in its text,
  not in any frame its websocket received.

Corvin, the third seat, has no page: he passes through the client library. The demo
room a first start makes is not used: its dice are not fixed, its reaction windows
last 8 s and its sheets carry no sentinel, so the room is the demo encounter created
with those three changed.

Screenshots of each face at the end: docs/screenshots/game-night-FACE-desktop.png.
"""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Locator, Page, expect

from clients.client import Client
from tests.support.server import ServerProcess
from tests.support.waiting import within
from tests.web.conftest import SCREENSHOTS, Face, Faces
from tests.web.rooms import (
    GOBLINS,
    ROUND,
    SEEN,
    SENTINEL,
    assert_never_held,
    create_room,
    encounter,
    frames_with,
    last_seq,
    link,
    pass_prompts,
    pass_when_asked,
    pick_by_clicks,
)

pytestmark = pytest.mark.timeout(120)

BACK = 30_000
"""Milliseconds a page may take to find the restarted server: its reconnect pause
grows (0.5 s to 15 s) while the server is down."""


async def declare_for(page: Page, goblin: str, action: str, target: str) -> None:
    """The GM's page declares `action` on `target` for `goblin`, by clicks."""
    seat = page.locator(f'.seat.planning[data-combatant="{goblin}"]')
    await seat.get_by_role("button", name=action, exact=True).click()
    await page.locator(f'svg.map .token.pickable[data-combatant="{target}"]').click()
    await seat.get_by_role("button", name="Send: Declare").click()


def token(face: Face, combatant: str) -> Locator:
    return face.page.locator(f'svg.map .token[data-combatant="{combatant}"]')


def card(face: Face, combatant: str) -> Locator:
    return face.page.locator(f'section.sheet[data-combatant="{combatant}"]')


def not_the_connection(errors: list[str]) -> list[str]:
    """The errors a page met, but for the browser's own word that a websocket could
    not connect (what it says while the server is down)."""
    return [e for e in errors if "net::ERR_CONNECTION_REFUSED" not in e]


async def test_a_game_night_in_four_browsers(server: ServerProcess, faces: Faces) -> None:
    fight = encounter(
        "demo.toml", 20, "goblins", planning_seconds=180, reaction_seconds=40, adapt_seconds=20
    )
    room = await create_room(server, fight)
    corvin = await Client.connect(server.url, room.players["corvin"])
    gm = await faces.open(link(server, room.codes.gm))
    ayla = await faces.open(link(server, room.codes.players["ayla"]))
    bram = await faces.open(link(server, room.codes.players["bram"]))
    watcher = await faces.open(link(server, room.codes.spectator))
    everyone = (gm, ayla, bram, watcher)
    others = (ayla, bram, watcher)
    for face in everyone:
        await expect(face.page.locator(".badge.connection.online")).to_be_visible(timeout=SEEN)
    console = gm.page.locator(".gm-console")
    helpers = [asyncio.create_task(pass_when_asked(corvin, {"corvin"}, planning=True))]
    try:
        # The GM starts the fight from the console.
        await console.locator('.gm-room button[data-key="start"]').click()
        for face in everyone:
            await expect(face.page.locator(".ring")).to_contain_text("Planning", timeout=SEEN)

        # The GM's page declares for its goblins; the players by clicks.
        await declare_for(gm.page, "g1", "Attack with scimitar", "ayla")
        await declare_for(gm.page, "g2", "Attack with scimitar", "bram")
        await expect(gm.page.locator(".log")).to_contain_text(
            "Goblin (g2) declares: attack Bram with scimitar", timeout=SEEN
        )
        await pick_by_clicks(ayla.page, "Attack with longsword", "g1")
        await ayla.page.get_by_role("button", name="Send: Declare").click()
        await expect(ayla.page.locator(".declared-now")).to_contain_text("Goblin (g1)")
        await pick_by_clicks(bram.page, "Attack with quarterstaff", "g2", on="rail")
        await bram.page.get_by_role("button", name="Send: Declare").click()
        # The last declaration closes the window: the log tells it.
        await expect(bram.page.locator(".log")).to_contain_text(
            "Bram declares: attack Goblin (g2) with quarterstaff", timeout=SEEN
        )
        await expect(watcher.page.locator(".log")).to_contain_text(
            "Bram declares (hidden until revealed)", timeout=SEEN
        )

        # G1 goes first and attacks Ayla: her prompt asks for an answer.
        prompt = ayla.page.locator('.seat.prompt[data-combatant="ayla"]')
        await expect(prompt.locator("button.option")).to_contain_text(["Dodge"], timeout=SEEN)
        await expect(watcher.page.locator(".ring")).to_contain_text("waiting on: Ayla")

        # Bram pauses with key P; the GM refuses it from the console.
        await bram.page.keyboard.press("p")
        for face in everyone:
            await expect(face.page.locator(".pause-banner")).to_contain_text(
                "Paused by Bram", timeout=SEEN
            )
        await expect(prompt.locator("button.option").first).to_be_disabled()
        await console.locator('.gm-room button[data-key="refuse_pause"]').click()
        for face in everyone:
            await expect(face.page.locator(".pause-banner")).to_have_count(0, timeout=SEEN)
            await expect(face.page.locator(".ring .time")).to_contain_text("s left")

        # Ayla dodges from her prompt, and lets the counter go with Esc.
        await prompt.locator('button.option[data-key="dodge"]').click()
        for face in everyone:
            await expect(face.page.locator(".log")).to_contain_text(
                "Ayla tries to dodge", timeout=SEEN
            )
        counter = ayla.page.locator('.seat.prompt[data-combatant="ayla"] button.option')
        await expect(counter.first).to_contain_text("Counter", timeout=SEEN)
        await ayla.page.keyboard.press("Escape")
        await expect(ayla.page.locator(".log")).to_contain_text("Ayla lets window", timeout=SEEN)

        # The rest of the round: whatever asks them, the GM and the players let go.
        round_helpers = [asyncio.create_task(pass_prompts(f.page)) for f in (gm, ayla, bram)]
        helpers += round_helpers
        for face in everyone:
            await expect(face.page.locator(".log")).to_contain_text("End of round 1", timeout=ROUND)
        for helper in round_helpers:
            helper.cancel()
        await asyncio.gather(*round_helpers, return_exceptions=True)
        for face in everyone:
            await expect(face.page.locator(".ring")).to_contain_text("Planning", timeout=SEEN)

        # An override: G2's health (Bram wounded it), the goblin picked on the map.
        await expect(token(watcher, "g2")).to_contain_text("wounded")
        await token(gm, "g2").click()
        health = await card(gm, "g2").locator(".stats dd").first.inner_text()
        wounded = health.split("(")[0].strip(" ♥♡")  # "7 / 12", say
        assert wounded.endswith(" / 12") and wounded != "12 / 12", health
        before_override = last_seq(gm.frames)
        await console.locator('.gm-override-list button[data-key="set_health"]').click()
        form = console.locator('form.gm-form[data-key="set_health"]')
        await form.get_by_role("button", name="Pick the combatant on the map").click()
        await gm.page.locator('svg.map .token.pickable[data-combatant="g2"]').click()
        number = form.locator('input[type="number"]')
        await expect(number).to_have_value(wounded.split(" ")[0])  # its health now
        await number.fill("4")
        await form.get_by_role("button", name="Apply").click()
        await expect(console.locator(".gm-status")).to_contain_text("done", timeout=SEEN)
        await expect(card(gm, "g2")).to_contain_text("4 / 12")
        was = wounded.split(" ")[0]
        await expect(gm.page.locator(".log")).to_contain_text(
            f"The GM sets Goblin (g2)'s health to 4 (was {was})"
        )
        for face in others:
            await expect(face.page.locator(".log")).to_contain_text(
                "The GM changes Goblin (g2)'s health: now bloodied", timeout=SEEN
            )
            await expect(token(face, "g2")).to_contain_text("bloodied", timeout=SEEN)
            await token(face, "g2").click()
            await expect(card(face, "g2")).to_contain_text("bloodied")
            assert "4 / 12" not in await card(face, "g2").inner_text()

        # The timeline: the fight before the override, previewed, then rewound to.
        await console.locator(".gm-timeline > summary").click()
        await console.locator(f'.gm-events button[data-seq="{before_override}"]').click()
        preview = gm.page.locator(".gm-preview")
        row = preview.locator('tr[data-combatant="g2"] td[data-field="health"]')
        await expect(row).to_contain_text(wounded, timeout=SEEN)
        await expect(row).to_contain_text("(now 4 / 12)")
        await preview.get_by_role("button", name="Rewind to here").click()
        await expect(preview).to_have_count(0, timeout=SEEN)
        await expect(card(gm, "g2")).to_contain_text(wounded, timeout=SEEN)
        for face in others:
            await expect(face.page.locator(".log")).to_contain_text(
                f"The GM rewinds the fight to after event {before_override}", timeout=SEEN
            )
            await expect(token(face, "g2")).to_contain_text("wounded", timeout=SEEN)
            await expect(card(face, "g2")).to_contain_text("wounded")

        # The server is killed and started again: every page comes back by itself.
        await asyncio.to_thread(server.kill)
        for face in everyone:
            await expect(face.page.locator(".badge.connection.reconnecting")).to_be_visible(
                timeout=SEEN
            )
        await asyncio.to_thread(server.start)
        for face in everyone:
            await expect(face.page.locator(".badge.connection.online")).to_be_visible(timeout=BACK)
        # The fight goes on: Ayla declares, and everyone hears of it.
        await pick_by_clicks(ayla.page, "Attack with longsword", "g2")
        await ayla.page.get_by_role("button", name="Send: Declare").click()
        await expect(ayla.page.locator(".declared-now")).to_contain_text("Goblin (g2)")
        for face in (gm, bram, watcher):
            await expect(face.page.locator(".log")).to_contain_text("Ayla declares", timeout=SEEN)
    finally:
        for helper in helpers:
            helper.cancel()
        await asyncio.gather(*helpers, return_exceptions=True)

    # What the GM's page held, no other page ever did.
    assert frames_with(gm.frames, SENTINEL)
    assert SENTINEL in await gm.page.content()
    told = "Goblin (g2)'s health to 4"  # the override as the GM's log tells it
    assert frames_with(gm.frames, told)
    for face in others:
        await assert_never_held(face.page, face.frames, GOBLINS)
        assert frames_with(face.frames, told) == []
        assert told not in await face.page.locator("body").inner_text()
    for face in everyone:
        assert not_the_connection(face.errors) == []
        # Every log line once, in order, across the restart and the rewind.
        seqs = await face.page.locator(".log .line").evaluate_all(
            "lines => lines.map(line => Number(line.dataset.seq))"
        )
        assert seqs == sorted(set(seqs)), seqs

    # Each face as the evening ends.
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, face in (("gm", gm), ("ayla", ayla), ("bram", bram), ("spectator", watcher)):
        path = SCREENSHOTS / f"game-night-{name}-desktop.png"
        await face.page.evaluate("window.scrollTo(0, 0)")
        await face.page.screenshot(path=path, animations="disabled", caret="hide")
    await within(corvin.close(), what="closing Corvin")
