"""The spectator's page in a real browser: read-only, its overlay for streaming
software, and a reconnection after the server is killed and started again.

The GM plays through the client library; the spectator opens the spectator's invite
link, and the overlay the same link with `&overlay`. Neither page ever holds a GM-only
value (a sentinel in the goblins' GM notes, their numbers).
"""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import expect

from clients.client import Client
from tests.support.server import ServerProcess
from tests.support.waiting import within
from tests.web.conftest import Faces, Shoot
from tests.web.rooms import GOBLINS, SEEN, assert_never_held, create_room, encounter, link

pytestmark = pytest.mark.timeout(120)


def declare_attack(actor: str, target: str) -> dict[str, object]:
    attack = {"$type": "Attack", "actor": actor, "target": target, "weapon": "scimitar"}
    return {"type": "Declare", "actor": actor, "actions": [attack], "turn": 0}


async def test_the_spectator_watches_and_its_page_comes_back_after_a_restart(
    server: ServerProcess, faces: Faces, screenshot: Shoot
) -> None:
    room = await create_room(server, encounter("demo.toml", 20, "goblins", planning_seconds=120))
    gm = await Client.connect(server.url, room.gm)
    watcher = await faces.open(link(server, room.codes.spectator))
    overlay = await faces.open(link(server, room.codes.spectator, "overlay"))
    await expect(watcher.page.locator(".badge.connection.online")).to_be_visible()
    await expect(watcher.page.locator("header")).to_contain_text("Spectator")

    await gm.send({"type": "StartCombat"})
    await gm.send(declare_attack("g1", "ayla"))
    for face in (watcher, overlay):
        await expect(face.page.locator(".ring")).to_contain_text("Planning")
        await expect(face.page.locator(".log")).to_contain_text(
            "Goblin (g1) declares (hidden until revealed)"
        )
        # Read-only: nothing to choose, nothing to pause.
        await expect(face.page.locator(".seat")).to_have_count(0)
        await expect(face.page.locator("button.pause")).to_have_count(0)
    await expect(watcher.page.locator('svg.map .token[data-combatant="g1"]')).to_contain_text(
        "unhurt"
    )
    await screenshot(watcher.page, "spectator")
    # A click on the turn order shows that combatant's card, as the table shows it.
    await watcher.page.locator(".rail button.entry", has_text="Goblin (g1)").click()
    card = watcher.page.locator('.sheet[data-combatant="g1"]')
    await expect(card).to_contain_text("unhurt")
    await expect(card.locator(".details")).to_have_count(0)  # no sheet rows of the GM's

    # Motion as the reader asked: the ring moves smoothly, or not at all with reduced motion.
    transition = "getComputedStyle(document.querySelector('.ring .left')).transitionDuration"
    assert await watcher.page.evaluate(transition) == "0.2s"
    await watcher.page.emulate_media(reduced_motion="reduce")
    assert await watcher.page.evaluate(transition) == "0s"

    # The overlay: transparent, large type, no header, the map and the countdown.
    assert await overlay.page.evaluate("document.body.classList.contains('overlay')")
    background = await overlay.page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgba(0, 0, 0, 0)"
    size = await overlay.page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    assert size >= 20
    await expect(overlay.page.locator("header")).to_have_count(0)
    await expect(overlay.page.locator("svg.map .token")).to_have_count(5)
    await screenshot(overlay.page, "spectator-overlay")

    # The server is killed: the page says so, and once it is back it resumes by itself.
    await within(gm.close(), what="closing the GM")
    await asyncio.to_thread(server.kill)
    await expect(watcher.page.locator(".badge.connection.reconnecting")).to_be_visible()
    await asyncio.to_thread(server.start)
    await expect(watcher.page.locator(".badge.connection.online")).to_be_visible(timeout=SEEN * 2)
    gm = await Client.connect(server.url, room.gm)
    await gm.send(declare_attack("g2", "bram"))
    for face in (watcher, overlay):
        await expect(face.page.locator(".log")).to_contain_text(
            "Goblin (g2) declares (hidden until revealed)", timeout=SEEN * 2
        )
    seqs = [
        int(s)
        for s in await watcher.page.locator(".log .line").evaluate_all(
            "lines => lines.map(line => line.dataset.seq)"
        )
    ]
    assert seqs == sorted(set(seqs)), seqs  # every line once, in order, across the restart
    assert seqs[-1] == gm.seq

    for face in (watcher, overlay):
        await assert_never_held(face.page, face.frames, GOBLINS)
    await within(gm.close(), what="closing the GM")


OBSERVE_TOKENS = """() => {
    window.touched = new Set();
    const tokens = document.querySelector("svg.map .tokens");
    new MutationObserver((records) => {
        for (const record of records) {
            const token = record.target.closest ? record.target.closest(".token")
                : record.target.parentElement.closest(".token");
            window.touched.add(token ? token.dataset.combatant : "(the layer)");
        }
    }).observe(tokens, {subtree: true, childList: true, attributes: true, characterData: true});
}"""


async def test_sixty_combatants_and_a_change_to_one_redraws_one_token(
    server: ServerProcess, faces: Faces
) -> None:
    """A big fight stays smooth: the countdown ticking touches no token, and a patch
    that changes one combatant touches that token alone; the GM, who plays the
    goblins, chooses whom to act for by a tab."""
    fight = encounter("demo.toml", 20, "goblins", planning_seconds=120)
    goblin = next(c for c in fight["combatants"] if c["id"] == "g1")
    for n in range(3, 58):
        x, y = 3 + (n - 3) % 11, (n - 3) // 11
        fight["combatants"].append({**goblin, "id": f"g{n}", "at": [x, y]})
    assert len(fight["combatants"]) == 60
    room = await create_room(server, fight)
    gm = await Client.connect(server.url, room.gm)
    watcher = await faces.open(link(server, room.codes.spectator))
    await expect(watcher.page.locator("svg.map .token")).to_have_count(60)
    await gm.send({"type": "StartCombat"})
    await expect(watcher.page.locator(".ring")).to_contain_text("Planning")

    await watcher.page.evaluate(OBSERVE_TOKENS)
    await asyncio.sleep(1.2)  # bounded: the ring ticks several times meanwhile
    assert await watcher.page.evaluate("[...window.touched]") == []

    # On a phone the board is drawn with cells large enough to tap, in a frame that
    # scrolls; a button shows the whole board instead.
    phone = await faces.open(link(server, room.codes.spectator), phone=True)
    zoom = phone.page.locator(".map-frame button.zoom")
    await expect(zoom).to_have_attribute("aria-pressed", "true")
    token = phone.page.locator('svg.map .token[data-combatant="g30"]')
    box = await token.bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44, box
    await zoom.click()
    await expect(zoom).to_have_text("Larger cells")
    box = await token.bounding_box()
    assert box is not None and box["width"] < 44, box  # the whole board on a 390 px screen

    # The GM plays 57 goblins: a tab for each, one declaration open at a time.
    gm_face = await faces.open(link(server, room.codes.gm))
    await expect(gm_face.page.locator(".seat-tab")).to_have_count(57)
    await expect(gm_face.page.locator(".seat.planning")).to_have_count(1)
    await gm_face.page.locator(".seat-tab", has_text="Goblin (g30)").click()
    await expect(gm_face.page.locator(".seat.planning h2")).to_have_text("Goblin (g30): Declare")

    answer = await gm.send({"type": "SetHealth", "combatant": "g30", "health": 1})
    assert answer.type == "ack", answer
    await expect(watcher.page.locator('svg.map .token[data-combatant="g30"]')).to_contain_text(
        "bloodied"
    )
    assert await watcher.page.evaluate("[...window.touched]") == ["g30"]
    assert watcher.errors == gm_face.errors == phone.errors == []
    await within(gm.close(), what="closing the GM")


async def test_a_link_whose_code_is_wrong_says_so(server: ServerProcess, faces: Faces) -> None:
    face = await faces.open(link(server, "NOTACODE99"))
    await expect(face.page.locator(".waiting-page")).to_contain_text("Could not join the fight")
    await expect(face.page.locator(".waiting-page .error").first).to_contain_text(
        "the link is not valid"
    )
    await expect(face.page.locator(".badge.connection.closed")).to_be_visible()
