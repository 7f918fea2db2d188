"""The GM adds a combatant from a sheet file in a real browser (js/gm_add.js).

The page cannot read TOML: it sends the file's text in `read_sheet`, and the server
answers with the combatant the sheet makes, or with every problem in it.

* Mid-fight, the GM uploads a sample sheet file, keeps the id the page offers from its name,
  picks a free cell on the map and a facing, and adds it: the new token stands there,
  with the sheet's health, and the rail names it.
* A broken sheet, pasted, shows its problems in the form, and nothing is added.
"""

from __future__ import annotations

import json

import pytest
from playwright.async_api import Page, expect

from server.app import DEMO_ENCOUNTER
from tests.support.server import ServerProcess
from tests.web.conftest import Faces
from tests.web.rooms import SEEN, create_room, encounter, gm_in_planning, link

pytestmark = pytest.mark.timeout(120)

GOBLIN = DEMO_ENCOUNTER.parents[1] / "goblin.toml"


async def open_form(page: Page) -> None:
    console = page.locator(".gm-console")
    await expect(console).to_be_visible(timeout=SEEN)
    await console.locator(".gm-add-sheet > summary").click()
    await expect(console.locator("form.gm-add")).to_be_visible()


def sent(frames: list[str], kind: str) -> list[dict[str, object]]:
    """The messages of type `kind` among `frames`."""
    found = []
    for frame in frames:
        message = json.loads(frame)
        if message.get("type") == kind:
            found.append(message)
    return found


async def test_the_gm_adds_a_combatant_from_an_uploaded_sheet_file(
    server: ServerProcess, faces: Faces
) -> None:
    gm = await gm_in_planning(server, faces)
    page = gm.page
    await open_form(page)
    form = page.locator("form.gm-add")
    for control in await page.locator(
        ".gm-add-sheet > summary, form.gm-add :is(input, select, textarea, button)"
    ).all():
        box = await control.bounding_box()
        assert box is not None and box["height"] >= 44, await control.evaluate("e => e.outerHTML")

    await form.locator("#gm-add-upload").set_input_files(str(GOBLIN))
    await expect(form.locator("#gm-add-file")).to_have_value("goblin.toml")
    await expect(form.locator("#gm-add-id")).to_have_value("goblin")  # fresh: no "goblin" yet
    await expect(form.locator("#gm-add-text")).to_have_value(GOBLIN.read_text())
    await form.locator("#gm-add-side").fill("goblins")
    await form.get_by_role("button", name="Pick the newcomer's cell on the map").click()
    await expect(page.locator('svg.map .pick-cell[data-cell="1,0"]')).to_have_count(0)  # g1's
    await page.locator('svg.map .pick-cell[data-cell="3,2"]').click()
    await expect(form.locator("#gm-add-x")).to_have_value("3")
    await expect(form.locator("#gm-add-y")).to_have_value("2")
    await form.locator("#gm-add-facing").select_option("4")
    await form.get_by_role("button", name="Add", exact=True).click()

    status = page.locator(".gm-console .gm-status")
    await expect(status).to_have_text("Add Goblin (goblin): done.", timeout=SEEN)
    token = page.locator('svg.map .token[data-combatant="goblin"]')
    await expect(token).to_be_visible(timeout=SEEN)
    await token.click()
    card = page.locator('section.sheet[data-combatant="goblin"]')
    await expect(card).to_contain_text("(3, 2)")
    await expect(card).to_contain_text("12 / 12")
    await expect(page.locator(".rail")).to_contain_text("Goblin (goblin)")
    tables = sent(gm.frames, "update") + sent(gm.frames, "table")
    assert any("goblin" in json.dumps(m) and '"facing": 4' in json.dumps(m) for m in tables)
    await expect(form.locator("#gm-add-id")).to_have_value("goblin-2")  # ready for another
    assert gm.errors == []


async def test_a_broken_sheet_shows_its_problems_and_adds_nothing(
    server: ServerProcess, faces: Faces
) -> None:
    room = await create_room(server, encounter("demo.toml", 20, "goblins", planning_seconds=120))
    gm = await faces.open(link(server, room.codes.gm))
    page = gm.page
    await open_form(page)
    form = page.locator("form.gm-add")
    tokens = page.locator("svg.map .token")
    await expect(tokens).to_have_count(5, timeout=SEEN)
    broken = GOBLIN.read_text().replace("health = 12", 'health = "lots"')
    broken = broken.replace('damage = "1d6"', 'damage = "1x6"', 1)
    assert broken.count('"lots"') == 1 and broken.count('"1x6"') == 1

    await form.locator("#gm-add-file").fill("skrix.toml")
    await form.locator("#gm-add-text").fill(broken)
    await form.locator("#gm-add-id").fill("skrix")
    await form.locator("#gm-add-id").press("Enter")  # the keyboard sends the form

    problems = form.locator(".gm-add-problems")
    await expect(problems).to_be_visible(timeout=SEEN)
    await expect(problems).to_have_attribute("role", "alert")
    await expect(problems.locator("li")).to_have_text(
        [
            "skrix.toml: health: must be a whole number, got 'lots'",
            "skrix.toml: weapons[0].damage: cannot read dice expression '1x6' at 'x6'",
        ]
    )
    assert sent(gm.frames, "ack") == []  # no command went out
    await expect(tokens).to_have_count(5)
    await expect(page.locator('svg.map .token[data-combatant="skrix"]')).to_have_count(0)
    assert gm.errors == []
