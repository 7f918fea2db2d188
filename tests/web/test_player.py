"""The player's seat in a real browser: a Live Combat round of the demo cast.

The server runs as a child process with the web app on its own port; Ayla and Bram
each open their invite link in a browser context of their own, a spectator opens the
spectator's, and the GM (and Corvin, who passes) play through the client library.
With fixed dice (seed 20) the goblin G1 goes first and attacks Ayla:

* both players declare by clicks: an action from their choices, its target on the map;
* Bram pauses from his page while the reaction window waits on Ayla: every page shows
  the pause and a frozen countdown; the GM refuses the pause and the window runs on;
* Ayla dodges from the prompt (one tap), and lets the counter go with Esc;
* the round ends, and no page of a player or the spectator ever held a GM-only value:
  not in its text, not in any frame its websocket received.

Screenshots of the player's face (planning, a prompt) at desktop and phone sizes.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from playwright.async_api import Page, expect

from clients.client import Client
from tests.support.server import ServerProcess
from tests.support.waiting import within
from tests.web.conftest import Faces, Shoot
from tests.web.rooms import (
    GOBLINS,
    ROUND,
    SEEN,
    SENTINEL,
    assert_never_held,
    create_room,
    encounter,
    link,
    pass_prompts,
    pass_when_asked,
    pick_by_clicks,
)

pytestmark = pytest.mark.timeout(120)


def attack(actor: str, target: str, weapon: str) -> dict[str, Any]:
    return {"$type": "Attack", "actor": actor, "target": target, "weapon": weapon}


def declare(actor: str, *actions: dict[str, Any]) -> dict[str, Any]:
    return {"type": "Declare", "actor": actor, "actions": list(actions), "turn": 0}


async def test_a_live_round_played_by_clicks(
    server: ServerProcess, faces: Faces, screenshot: Shoot
) -> None:
    fight = encounter(
        "demo.toml", 20, "goblins", planning_seconds=90, reaction_seconds=40, adapt_seconds=20
    )
    room = await create_room(server, fight)
    gm = await Client.connect(server.url, room.gm)
    corvin = await Client.connect(server.url, room.players["corvin"])
    ayla = await faces.open(link(server, room.codes.players["ayla"]))
    bram = await faces.open(link(server, room.codes.players["bram"]), phone=True)
    watcher = await faces.open(link(server, room.codes.spectator))
    for face in (ayla, bram, watcher):
        await expect(face.page.locator(".badge.connection.online")).to_be_visible()
    helpers = [
        asyncio.create_task(pass_when_asked(gm, GOBLINS, planning=False)),
        asyncio.create_task(pass_when_asked(corvin, {"corvin"}, planning=True)),
    ]
    try:
        await gm.send({"type": "StartCombat"})
        for face in (ayla, bram, watcher):
            await expect(face.page.locator(".ring")).to_contain_text("Planning", timeout=SEEN)

        # Everyone declares at once: the GM for its goblins, the players by clicks.
        await gm.send(declare("g1", attack("g1", "ayla", "scimitar")))
        await gm.send(declare("g2", attack("g2", "bram", "scimitar")))
        await pick_by_clicks(ayla.page, "Attack with longsword", "g1")
        await expect(ayla.page.locator(".compose .parts li")).to_contain_text("Goblin (g1)")
        await screenshot(ayla.page, "player-planning")
        await ayla.page.get_by_role("button", name="Send: Declare").click()
        await expect(ayla.page.locator(".declared-now")).to_contain_text("Goblin (g1)")
        # She may change it until the window closes: withdraw it, then declare again.
        await ayla.page.get_by_role("button", name="Withdraw the declaration").click()
        await expect(ayla.page.locator(".log")).to_contain_text("Ayla withdraws a declaration")
        await expect(ayla.page.locator(".declared-now")).to_have_count(0)
        await pick_by_clicks(ayla.page, "Attack with longsword", "g1")
        await ayla.page.get_by_role("button", name="Send: Declare").click()
        await expect(ayla.page.locator(".declared-now")).to_contain_text("Goblin (g1)")
        # Each side sees that the other declared, never what (until revealed).
        await expect(watcher.page.locator(".log")).to_contain_text(
            "Ayla declares (hidden until revealed)"
        )
        await expect(watcher.page.locator(".rail li:has(.declared)")).to_have_count(5)
        await pick_by_clicks(bram.page, "Attack with quarterstaff", "g2", on="rail")
        await expect(bram.page.locator(".compose .parts li")).to_contain_text("Goblin (g2)")
        await bram.page.get_by_role("button", name="Send: Declare").click()
        await expect(bram.page.locator(".log")).to_contain_text(
            "Bram declares: attack Goblin (g2) with quarterstaff"
        )

        # G1 goes first and attacks Ayla: a reaction window asks her, with a beep.
        prompt = ayla.page.locator('.seat.prompt[data-combatant="ayla"]')
        await expect(prompt).to_be_visible(timeout=SEEN)
        await expect(prompt.locator("button.option")).to_contain_text(["Dodge"])
        assert int(await ayla.page.evaluate("document.body.dataset.alerts || '0'")) >= 1
        spoken = ayla.page.locator('.choices [aria-live="assertive"]')
        await expect(spoken).to_have_text("Ayla: answer now")
        await expect(ayla.page.locator(".ring")).to_contain_text("waiting on: Ayla")
        await screenshot(ayla.page, "player-prompt")

        # Bram pauses from his page: every page shows it, every countdown stops.
        await bram.page.locator("button.pause").click()
        for face in (ayla, bram, watcher):
            await expect(face.page.locator(".pause-banner")).to_contain_text(
                "Paused by Bram", timeout=SEEN
            )
        frozen = await ayla.page.locator(".ring .time").inner_text()
        assert frozen.startswith("Paused: frozen at")
        await expect(prompt.locator("button.option").first).to_be_disabled()
        await screenshot(watcher.page, "spectator-paused")
        await asyncio.sleep(1.2)  # bounded: time passes, the frozen countdown does not move
        assert await ayla.page.locator(".ring .time").inner_text() == frozen

        # The GM refuses the pause: the window runs on.
        answer = await gm.send({"type": "RefusePause"})
        assert answer.type == "ack", answer
        for face in (ayla, bram, watcher):
            await expect(face.page.locator(".pause-banner")).to_have_count(0, timeout=SEEN)
        await expect(ayla.page.locator(".ring .time")).to_contain_text("s left")

        # Ayla dodges with one tap, then lets the counter go with Esc.
        await prompt.locator('button.option[data-key="dodge"]').click()
        await expect(ayla.page.locator(".log")).to_contain_text("Ayla tries to dodge", timeout=SEEN)
        counter = ayla.page.locator('.seat.prompt[data-combatant="ayla"] button.option')
        await expect(counter.first).to_contain_text("Counter", timeout=SEEN)
        await ayla.page.keyboard.press("Escape")
        await expect(ayla.page.locator(".log")).to_contain_text("Ayla lets window", timeout=SEEN)

        # The rest of the round: whatever else asks them, the players pass.
        helpers += [
            asyncio.create_task(pass_prompts(ayla.page)),
            asyncio.create_task(pass_prompts(bram.page)),
        ]
        for face in (ayla, bram, watcher):
            await expect(face.page.locator(".log")).to_contain_text("End of round 1", timeout=ROUND)
    finally:
        for helper in helpers:
            helper.cancel()
        await asyncio.gather(*helpers, return_exceptions=True)

    # What the GM's table held, no other page ever did.
    assert gm.table is not None
    assert SENTINEL in json.dumps(gm.table.view)
    for face in (ayla, bram, watcher):
        await assert_never_held(face.page, face.frames, GOBLINS)
        assert face.errors == []
    await within(gm.close(), what="closing the GM")
    await within(corvin.close(), what="closing Corvin")


async def take_a_turn_by_clicks(page: Page, name: str, action: str, target: str, said: str) -> None:
    """On `name`'s turn: `action` on `target` by clicks (a token, or the first cell the
    map offers when `target` is ""), which the log then tells as `said`, and the turn
    ended from its button."""
    prompt = page.locator(".seat.prompt")
    await expect(prompt.locator("h2")).to_have_text(f"{name}: your turn", timeout=ROUND)
    if target:
        await pick_by_clicks(page, action, target)
    else:
        await page.get_by_role("button", name=action, exact=True).click()
        await page.locator("svg.map .pick-cell").first.click()
    await expect(page.locator(".log")).to_contain_text(said, timeout=SEEN)
    await expect(prompt.locator("h2")).to_have_text(f"{name}: your turn", timeout=SEEN)
    await prompt.locator('button.option[data-key="end_turn"]').click()
    await expect(page.locator(".log")).to_contain_text(f"{name} ends the turn", timeout=SEEN)


async def test_a_world_of_tael_round_played_by_clicks(
    server: ServerProcess, faces: Faces, screenshot: Shoot
) -> None:
    """Turn by turn (Tael plays turn-based only): Kaelen attacks the bandit by clicks,
    Mira moves by a click on a cell of the map; the GM's outlaws and Tobin end theirs."""
    outlaws = {"bandit", "cultist"}
    room = await create_room(server, encounter("tael-ambush.toml", 5, "outlaws"))
    gm = await Client.connect(server.url, room.gm)
    tobin = await Client.connect(server.url, room.players["tobin"])
    kaelen = await faces.open(link(server, room.codes.players["kaelen"]))
    mira = await faces.open(link(server, room.codes.players["mira"]), phone=True)
    for face in (kaelen, mira):
        await expect(face.page.locator(".badge.connection.online")).to_be_visible()
    helpers = [
        asyncio.create_task(pass_when_asked(gm, outlaws, planning=False)),
        asyncio.create_task(pass_when_asked(tobin, {"tobin"}, planning=False)),
    ]
    try:
        await gm.send({"type": "StartCombat"})
        await expect(kaelen.page.locator(".rail .phase")).to_have_text("turn based")
        await pick_by_clicks(kaelen.page, "Attack with longsword", "bandit")
        await expect(kaelen.page.locator(".log")).to_contain_text(
            "Kaelen attacks Bandit with longsword", timeout=SEEN
        )
        await screenshot(kaelen.page, "tael-player")
        await kaelen.page.locator('.seat.prompt button.option[data-key="end_turn"]').click()
        await take_a_turn_by_clicks(mira.page, "Mira", "Move", "", "Mira moves 1 tile")
        for face in (kaelen, mira):
            await expect(face.page.locator(".log")).to_contain_text("End of round 1", timeout=ROUND)
    finally:
        for helper in helpers:
            helper.cancel()
        await asyncio.gather(*helpers, return_exceptions=True)
    assert gm.table is not None and SENTINEL in json.dumps(gm.table.view)
    for face in (kaelen, mira):
        await assert_never_held(face.page, face.frames, outlaws)
        assert face.errors == []
    await within(gm.close(), what="closing the GM")
    await within(tobin.close(), what="closing Tobin")


async def test_a_turn_based_round_on_hexagons_played_by_clicks(
    server: ServerProcess, faces: Faces, screenshot: Shoot
) -> None:
    """The demo cast in Turn Based Combat on a hexagon grid: Bram moves by a click on a
    cell; Ayla pauses and resumes with key P, attacks G1 by keyboard; each ends the
    turn from its button."""
    fight = encounter("demo.toml", 20, "goblins", reaction_seconds=30, adapt_seconds=20)
    fight["mode"] = "turn_based"
    fight["grid"] = "hex"
    room = await create_room(server, fight)
    gm = await Client.connect(server.url, room.gm)
    corvin = await Client.connect(server.url, room.players["corvin"])
    ayla = await faces.open(link(server, room.codes.players["ayla"]))
    bram = await faces.open(link(server, room.codes.players["bram"]))
    helpers = [
        asyncio.create_task(pass_when_asked(gm, GOBLINS, planning=False)),
        asyncio.create_task(pass_when_asked(corvin, {"corvin"}, planning=False)),
    ]
    try:
        await expect(ayla.page.locator("svg.map.hex")).to_be_visible()
        await gm.send({"type": "StartCombat"})
        await take_a_turn_by_clicks(bram.page, "Bram", "Move", "", "Bram moves 5 ft")
        helpers.append(asyncio.create_task(pass_prompts(bram.page)))
        prompt = ayla.page.locator(".seat.prompt")
        await expect(prompt.locator("h2")).to_have_text("Ayla: your turn", timeout=ROUND)
        # Key P pauses the fight, and P again resumes it: she paused it herself.
        await ayla.page.keyboard.press("p")
        await expect(bram.page.locator(".pause-banner")).to_contain_text("Paused by Ayla")
        await expect(ayla.page.locator("button.pause")).to_contain_text("Resume")
        await ayla.page.keyboard.press("p")
        await expect(bram.page.locator(".pause-banner")).to_have_count(0)
        await pick_by_clicks(ayla.page, "Attack with longsword", "g1", on="keys")
        await expect(ayla.page.locator(".log")).to_contain_text(
            "Ayla attacks Goblin (g1) with longsword", timeout=SEEN
        )
        await screenshot(ayla.page, "player-turn-hex")
        await prompt.locator('button.option[data-key="end_turn"]').click()
        helpers.append(asyncio.create_task(pass_prompts(ayla.page)))
        for face in (ayla, bram):
            await expect(face.page.locator(".log")).to_contain_text("End of round 1", timeout=ROUND)
    finally:
        for helper in helpers:
            helper.cancel()
        await asyncio.gather(*helpers, return_exceptions=True)
    for face in (ayla, bram):
        await assert_never_held(face.page, face.frames, GOBLINS)
        assert face.errors == []
    await within(gm.close(), what="closing the GM")
    await within(corvin.close(), what="closing Corvin")


async def test_the_gm_face_shows_everything_and_plays_its_goblins(
    server: ServerProcess, faces: Faces, screenshot: Shoot
) -> None:
    """The GM's page: every number the table gives the GM (the goblins' health, their
    notes), and the prompts of the combatants it plays, answered by clicks."""
    room = await create_room(server, encounter("demo.toml", 20, "goblins", planning_seconds=120))
    gm = await Client.connect(server.url, room.gm)
    face = await faces.open(link(server, room.codes.gm))
    page = face.page
    await expect(page.locator("header")).to_contain_text("GM")
    await expect(page.locator('svg.map .token[data-combatant="g1"] .health-bar')).to_be_visible()
    await page.locator('svg.map .token[data-combatant="g1"]').click()
    await expect(page.locator('.sheet[data-combatant="g1"]')).to_contain_text(SENTINEL)
    await expect(page.locator(".console")).to_be_visible()

    await gm.send({"type": "StartCombat"})
    await expect(page.locator(".seat.planning")).to_have_count(2, timeout=SEEN)
    goblin = page.locator('.seat.planning[data-combatant="g1"]')
    await goblin.get_by_role("button", name="Attack with scimitar", exact=True).click()
    await page.locator('svg.map .token[data-combatant="ayla"]').click()
    await goblin.get_by_role("button", name="Send: Declare").click()
    await expect(page.locator(".log")).to_contain_text(
        "Goblin (g1) declares: attack Ayla with scimitar", timeout=SEEN
    )
    await screenshot(page, "gm-prompts")
    assert face.errors == []
    await within(gm.close(), what="closing the GM")


TARGETS = """() => [...document.querySelectorAll(
    "button, [role=button], summary, input"
)].filter((el) => el.getClientRects().length).map((el) => {
    const box = el.getBoundingClientRect();
    return { what: (el.getAttribute("aria-label") || el.textContent).trim().slice(0, 40),
             width: box.width, height: box.height };
})"""


async def test_the_phone_layout_is_one_column_of_targets_a_thumb_can_hit(
    server: ServerProcess, faces: Faces
) -> None:
    """On a phone's screen: the ring, the choices, the map and the rest in one column,
    no wider than the screen, and every control at least 44 x 44 px."""
    room = await create_room(server, encounter("demo.toml", 20, "goblins", planning_seconds=120))
    gm = await Client.connect(server.url, room.gm)
    ayla = await faces.open(link(server, room.codes.players["ayla"]), phone=True)
    page = ayla.page
    await gm.send({"type": "StartCombat"})
    await expect(page.locator(".seat.planning")).to_be_visible(timeout=SEEN)
    await page.get_by_role("button", name="Attack with longsword", exact=True).click()
    await expect(page.locator(".hole")).to_be_visible()

    lefts = {}
    for part in (".ring", ".seat", ".map-frame", ".rail", ".sheet", ".log"):
        box = await page.locator(part).first.bounding_box()
        assert box is not None, part
        lefts[part] = round(box["x"])
        assert box["x"] + box["width"] <= 390, (part, box)
    assert len(set(lefts.values())) == 1, lefts  # one column
    tops = [(await page.locator(p).first.bounding_box() or {"y": 0})["y"] for p in lefts]
    assert tops == sorted(tops), lefts  # in that order
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390

    targets = await page.evaluate(TARGETS)
    assert len(targets) > 20  # the options, the hole's targets, the tokens, the roll cards
    small = [t for t in targets if t["width"] < 44 or t["height"] < 44]
    assert small == [], small
    assert ayla.errors == []
    await within(gm.close(), what="closing the GM")
