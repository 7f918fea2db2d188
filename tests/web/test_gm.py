"""The GM's console in a real browser: run the fight, override, rewind, see as others.

The GM opens its invite link; Ayla plays through the client library. With fixed dice:

* the GM starts the Live round from the console, and refuses the pause Ayla asks for;
* the GM sets a goblin's health from an override form, picking the goblin on the map;
* from the timeline the GM looks at the fight as it was before that (the preview shows
  the goblin's health then, beside what it is now) and rewinds there: the table shows
  the health of before;
* "see as" opens the spectators' page in a tab of its own, which never holds a GM-only
  value, while the GM's own page plays on.

Screenshots of the console (desktop and phone) and of the rewind's preview.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Page, WebSocket, expect

from clients.client import Client
from tests.support.server import ServerProcess
from tests.support.waiting import within
from tests.web.conftest import SCREENSHOTS, SIZES, Faces, Shoot
from tests.web.rooms import (
    GOBLINS,
    SEEN,
    SENTINEL,
    assert_never_held,
    create_room,
    encounter,
    gm_in_planning,
    last_seq,
    link,
)

pytestmark = pytest.mark.timeout(120)


async def card_text(page: Page, combatant: str) -> str:
    """What the page's card of `combatant` says (selected on the map to show it)."""
    card = page.locator(f'section.sheet[data-combatant="{combatant}"]')
    if not await card.count():
        await page.locator(f'svg.map .token[data-combatant="{combatant}"]').click()
    return await card.inner_text()


async def shoot_console(page: Page, name: str) -> None:
    """The page at each size with the console's top in view (below the sticky header),
    as the screenshot helper writes them: docs/screenshots/NAME-SIZE.png."""
    before = page.viewport_size
    for size, (width, height) in SIZES.items():
        await page.set_viewport_size({"width": width, "height": height})
        await page.locator(".gm-console").evaluate(
            "console => { console.scrollIntoView({block: 'start'});"
            " window.scrollBy(0, -document.querySelector('header.top').offsetHeight - 8); }"
        )
        path = SCREENSHOTS / f"{name}-{size}.png"
        await page.screenshot(path=path, animations="disabled", caret="hide")
    if before is not None:
        await page.set_viewport_size(before)


async def test_the_gm_runs_overrides_and_rewinds_from_the_browser(
    server: ServerProcess, faces: Faces, screenshot: Shoot
) -> None:
    fight = encounter("demo.toml", 20, "goblins", planning_seconds=120, reaction_seconds=40)
    room = await create_room(server, fight)
    ayla = await Client.connect(server.url, room.players["ayla"])
    gm = await faces.open(link(server, room.codes.gm))
    page = gm.page
    console = page.locator(".gm-console")
    await expect(console).to_be_visible(timeout=SEEN)

    # Start, from the console.
    await console.locator('.gm-room button[data-key="start"]').click()
    await expect(page.locator(".ring")).to_contain_text("Planning", timeout=SEEN)
    await expect(console.locator(".gm-status")).to_have_text("Start the fight: done.")

    # Ayla pauses; the GM refuses the pause from the console.
    paused = await ayla.send({"type": "Pause", "by": "ayla"})
    assert paused.type == "ack", paused
    await expect(page.locator(".pause-banner")).to_contain_text("Paused by Ayla", timeout=SEEN)
    await console.locator('.gm-room button[data-key="refuse_pause"]').click()
    await expect(page.locator(".pause-banner")).to_have_count(0, timeout=SEEN)
    await expect(console.locator('.gm-room button[data-key="refuse_pause"]')).to_have_count(0)
    await expect(page.locator(".log")).to_contain_text("refuse", timeout=SEEN)

    # An override: the goblin's health, the goblin picked on the map.
    await expect(page.locator(".pause-banner")).to_have_count(0)
    before_override = last_seq(gm.frames)
    health_before = await card_text(page, "g1")
    assert "12 / 12" in health_before, health_before
    await console.locator('.gm-override-list button[data-key="set_health"]').click()
    form = console.locator('form.gm-form[data-key="set_health"]')
    await form.get_by_role("button", name="Pick the combatant on the map").click()
    await page.locator('svg.map .token.pickable[data-combatant="g1"]').click()
    await expect(form.locator("select")).to_have_value("g1")
    await expect(form.locator('input[type="number"]')).to_have_value("12")  # its health now
    await form.locator('input[type="number"]').fill("3")
    await shoot_console(page, "gm-console")
    await form.get_by_role("button", name="Apply").click()
    await expect(console.locator(".gm-status")).to_contain_text("done", timeout=SEEN)
    await expect(page.locator('section.sheet[data-combatant="g1"]')).to_contain_text("3 / 12")

    # The timeline: the fight before the override, previewed, then rewound to.
    await console.locator(".gm-timeline > summary").click()
    event = console.locator(f'.gm-events button[data-seq="{before_override}"]')
    await expect(event).to_contain_text("◆")  # the end of a command's events
    await event.click()
    preview = page.locator(".gm-preview")
    await expect(preview).to_be_visible()
    row = preview.locator('tr[data-combatant="g1"] td[data-field="health"]')
    await expect(row).to_contain_text("12 / 12", timeout=SEEN)
    await expect(row).to_contain_text("(now 3 / 12)")
    await screenshot(page, "gm-rewind-preview")
    for _ in range(12):  # a modal dialog: the focus goes round inside it
        await page.keyboard.press("Tab")
        inside = "document.activeElement.closest('.gm-preview') !== null"
        assert await page.evaluate(inside)
    assert "3 / 12" in await card_text(page, "g1")  # a look changes nothing
    await preview.get_by_role("button", name="Rewind to here").click()
    await expect(preview).to_have_count(0, timeout=SEEN)
    await expect(console.locator(".gm-timeline .gm-status")).to_contain_text(
        f"Rewound to after event {before_override}"
    )
    await expect(page.locator('section.sheet[data-combatant="g1"]')).to_contain_text(
        "12 / 12", timeout=SEEN
    )

    # The rewind is a new event: the GM's page keeps playing on from it.
    await expect(page.locator(".log")).to_contain_text("ewind", timeout=SEEN)

    # See as the spectators: a tab of its own, never a GM-only value in it.
    assert SENTINEL in await page.content()  # the GM's own page shows the notes
    seen: list[str] = []

    def keep(ws: WebSocket) -> None:
        ws.on("framereceived", lambda payload: seen.append(str(payload)))

    gm.context.on("page", lambda opened: opened.on("websocket", keep))
    await console.locator(".gm-see-as > summary").click()
    spectators = console.locator('a.see-as[data-seat="spectator"]')
    await expect(spectators).to_be_visible(timeout=SEEN)
    async with gm.context.expect_page() as opening:
        await spectators.click()
    watcher = await opening.value
    await expect(watcher.locator(".badge.connection.online")).to_be_visible(timeout=SEEN)
    await expect(watcher.locator("header .role")).to_have_text("Spectator")
    await expect(watcher.locator('svg.map .token[data-combatant="g1"]')).to_be_visible()
    await expect(watcher.locator(".gm-console")).to_have_count(0)
    await assert_never_held(watcher, seen, GOBLINS)
    await expect(page.locator(".badge.connection.online")).to_be_visible()  # the GM's plays on
    assert gm.errors == []
    await within(ayla.close(), what="closing Ayla")


async def test_the_end_waits_for_a_confirmation(server: ServerProcess, faces: Faces) -> None:
    gm = await gm_in_planning(server, faces, phone=True)
    console = gm.page.locator(".gm-console")

    ask = console.locator('.gm-end button[data-key="end"]')
    await ask.click()
    confirm = console.locator(".gm-confirm")
    await expect(confirm).to_be_visible()
    await expect(confirm.get_by_role("button", name="No, keep playing")).to_be_focused()
    await gm.page.keyboard.press("Escape")  # by keyboard: nothing ended
    await expect(confirm).to_have_count(0)
    await expect(gm.page.locator(".ring")).to_contain_text("Planning")

    await ask.focus()
    await gm.page.keyboard.press("Enter")
    await confirm.get_by_role("button", name="Yes: end the fight").click()
    await expect(gm.page.locator(".log")).to_contain_text("ends", timeout=SEEN)
    await expect(console.locator(".gm-status")).to_have_text("End the fight: done.")
    assert gm.errors == []


async def test_an_override_by_keyboard_alone(server: ServerProcess, faces: Faces) -> None:
    room = await create_room(server, encounter("demo.toml", 20, "goblins", planning_seconds=120))
    gm = await faces.open(link(server, room.codes.gm))
    page = gm.page
    console = page.locator(".gm-console")
    await console.locator('.gm-room button[data-key="start"]').focus()
    await page.keyboard.press("Enter")
    await expect(page.locator(".ring")).to_contain_text("Planning", timeout=SEEN)

    await console.locator('.gm-override-list button[data-key="set_mana"]').focus()
    await page.keyboard.press("Enter")
    form = console.locator('form.gm-form[data-key="set_mana"]')
    await expect(form.locator("select")).to_be_focused()  # the form takes the focus
    await page.keyboard.press("ArrowDown")  # Ayla, then Bram
    await expect(form.locator("select")).to_have_value("bram")
    await expect(form.locator('input[type="number"]')).to_have_value("20")  # Bram's mana
    await page.keyboard.press("Tab")  # past "Map", to the number
    await page.keyboard.press("Tab")
    await expect(form.locator('input[type="number"]')).to_be_focused()
    await page.keyboard.press("Control+A")
    await page.keyboard.type("7")
    await page.keyboard.press("Enter")

    await expect(console.locator(".gm-status")).to_have_text("Set mana: Bram: done.", timeout=SEEN)
    await expect(form).to_have_count(0)
    assert "7 / 20" in await card_text(page, "bram")

    await console.locator('.gm-override-list button[data-key="set_health"]').focus()
    await page.keyboard.press("Enter")
    health = console.locator('form.gm-form[data-key="set_health"]')
    await expect(health.locator("select")).to_be_focused()  # as the form opens
    await page.keyboard.press("Escape")  # closes the form, sends nothing
    await expect(console.locator("form.gm-form[data-key]")).to_have_count(0)
    assert gm.errors == []


async def test_a_place_is_picked_on_the_map(server: ServerProcess, faces: Faces) -> None:
    gm = await gm_in_planning(server, faces)
    page = gm.page
    console = page.locator(".gm-console")

    await console.locator('.gm-override-list button[data-key="set_position"]').click()
    form = console.locator('form.gm-form[data-key="set_position"]')
    await form.locator("select").select_option("corvin")
    await form.get_by_role("button", name="Pick the cell on the map").click()
    await page.locator('svg.map .pick-cell[data-cell="3,4"]').click()
    numbers = form.locator('input[type="number"]')
    await expect(numbers.nth(0)).to_have_value("3")
    await expect(numbers.nth(1)).to_have_value("4")
    await form.get_by_role("button", name="Apply").click()

    await expect(console.locator(".gm-status")).to_have_text("Place: Corvin: done.", timeout=SEEN)
    await expect(page.locator("svg.map .pick-cell")).to_have_count(0)
    assert "(3, 4)" in await card_text(page, "corvin")
    assert gm.errors == []


async def test_a_world_of_tael_console_takes_its_own_overrides(
    server: ServerProcess, faces: Faces
) -> None:
    """The console knows no rule: a Tael room's seat offers hit points, and the same
    form sets them."""
    room = await create_room(server, encounter("tael-ambush.toml", 5, "outlaws"))
    gm = await faces.open(link(server, room.codes.gm))
    page = gm.page
    console = page.locator(".gm-console")
    await console.locator('.gm-room button[data-key="start"]').click()
    await expect(console.locator(".gm-status")).to_have_text("Start the fight: done.", timeout=SEEN)

    await console.locator('.gm-override-list button[data-key="set_hit_points"]').click()
    form = console.locator('form.gm-form[data-key="set_hit_points"]')
    await form.locator("select").select_option("bandit")
    await expect(form.locator('input[type="number"]')).to_have_value("14")  # its hit points now
    await form.locator('input[type="number"]').fill("2")
    await form.get_by_role("button", name="Apply").click()

    await expect(console.locator(".gm-status")).to_contain_text("done", timeout=SEEN)
    assert "2 / 14" in await card_text(page, "bandit")
    # its rules take no newcomer during the fight: no sheet file form that would be refused
    await expect(console.locator(".gm-add-sheet")).to_have_count(0)
    assert gm.errors == []


async def test_another_goblin_joins_where_the_gm_clicks(
    server: ServerProcess, faces: Faces
) -> None:
    gm = await gm_in_planning(server, faces)
    page = gm.page
    console = page.locator(".gm-console")

    await console.locator('.gm-adds button[data-key="reinforce:g1"]').click()
    form = console.locator('form.gm-form[data-key="reinforce:g1"]')
    # A free cell to start from: the first of the first row nobody stands on.
    await expect(form.locator('input[type="number"]').nth(0)).to_have_value("2")
    await expect(form.locator('input[type="number"]').nth(1)).to_have_value("0")
    await form.get_by_role("button", name="Pick the cell on the map").click()
    await page.locator('svg.map .pick-cell[data-cell="2,3"]').click()
    await form.get_by_role("button", name="Apply").click()

    await expect(console.locator(".gm-status")).to_contain_text("done", timeout=SEEN)
    token = page.locator('svg.map .token[data-combatant="g3"]')
    await expect(token).to_be_visible(timeout=SEEN)
    text = await card_text(page, "g3")
    assert "(2, 3)" in text and "12 / 12" in text, text
    await expect(page.locator(".rail")).to_contain_text("Goblin (g3)")
    assert gm.errors == []


async def test_a_condition_the_rules_name_is_laid_for_some_rounds(
    server: ServerProcess, faces: Faces
) -> None:
    """The demo room has no conditions table: the console still offers the conditions
    the rule text names, and how many rounds one lasts."""
    gm = await gm_in_planning(server, faces)
    page = gm.page
    console = page.locator(".gm-console")

    await console.locator('.gm-override-list button[data-key="set_condition_rounds"]').click()
    form = console.locator('form.gm-form[data-key="set_condition_rounds"]')
    selects = form.locator("select")
    await selects.nth(0).select_option("g2")
    await selects.nth(1).select_option("Prone")
    rounds = form.locator('input[type="number"]')
    await expect(rounds).to_have_value("1")  # the least it takes
    await rounds.fill("2")
    await form.get_by_role("button", name="Apply").click()

    await expect(console.locator(".gm-status")).to_have_text(
        "Lay a condition for some rounds: Goblin (g2): done.", timeout=SEEN
    )
    assert "Prone (2)" in await card_text(page, "g2")
    await expect(
        console.locator('.gm-conditions button[data-key="remove_condition:g2:Prone"]')
    ).to_be_visible()
    assert gm.errors == []
