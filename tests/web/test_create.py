"""Creating a fight in a real browser, from the host's link a first start prints.

A bad upload shows every problem at once, each with its file, and creates nothing; a
good one (the encounter pasted, its sheets uploaded) gives a link per seat, the GM's
and the spectators', and the links join as what they say.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from server.app import DEMO_ENCOUNTER
from tests.web.conftest import Demo, Faces, Shoot
from tests.web.rooms import SEEN

pytestmark = pytest.mark.timeout(120)

SAMPLES = DEMO_ENCOUNTER.parents[1]
SHEETS = ("ayla.toml", "bram.toml", "corvin.toml", "goblin.toml")


def upload(name: str, text: str) -> dict[str, object]:
    return {"name": name, "mimeType": "text/plain", "buffer": text.encode()}


def sample(name: str) -> str:
    return (SAMPLES / name).read_text()


async def open_create(faces: Faces, demo: Demo, *, phone: bool = False) -> Page:
    face = await faces.open(demo.create, phone=phone)
    await expect(face.page.locator(".create-page .badge.connection.online")).to_be_visible(
        timeout=SEEN
    )
    return face.page


async def test_a_bad_upload_shows_every_problem_and_creates_nothing(
    demo: Demo, faces: Faces, screenshot: Shoot
) -> None:
    page = await open_create(faces, demo)
    encounter = (
        DEMO_ENCOUNTER.read_text()
        .replace('sheet = "../bram.toml"', 'sheet = "../bramm.toml"')
        .replace("at = [1, 2]", "at = [1, 0]")
    )
    files = [upload("demo.toml", encounter)]
    files += [upload(name, sample(name)) for name in SHEETS]
    files[1] = upload("ayla.toml", sample("ayla.toml").replace("level = ", "level == ", 1))
    files[4] = upload("goblin.toml", sample("goblin.toml").replace("health = 12", "health = -3"))
    await page.set_input_files("#create-upload", files=files)  # type: ignore[arg-type]
    await expect(page.locator(".create-files li")).to_have_count(5)
    await expect(page.locator("#create-main")).to_have_value("demo.toml")

    await page.get_by_role("button", name="Create the fight").click()

    problems = page.locator(".create-problems li.problem")
    await expect(problems.first).to_be_visible(timeout=SEEN)
    texts = await problems.all_inner_texts()
    assert any(t.startswith("ayla.toml: not valid TOML") for t in texts), texts
    assert any("bramm.toml" in t and t.startswith("demo.toml:") for t in texts), texts
    assert any("is g1's cell too" in t for t in texts), texts
    assert any("(goblin.toml): health" in t for t in texts), texts
    await expect(page.locator(".create-problems h2")).to_contain_text("nothing was created")
    await expect(page.locator(".create-links")).to_have_count(0)
    await screenshot(page, "create-problems")


async def test_a_good_upload_gives_links_that_join(
    demo: Demo, faces: Faces, screenshot: Shoot
) -> None:
    page = await open_create(faces, demo, phone=True)
    await page.locator("#create-paste-name").fill("goblin-ambush.toml")
    await page.locator("#create-paste-text").fill(DEMO_ENCOUNTER.read_text())
    await page.get_by_role("button", name="Add this file").click()
    await page.set_input_files(
        "#create-upload",
        files=[upload(name, sample(name)) for name in SHEETS],  # type: ignore[arg-type]
    )
    await expect(page.locator(".create-files li")).to_have_count(5)
    await expect(page.locator("#create-main")).to_have_value("goblin-ambush.toml")

    await page.get_by_role("button", name="Create the fight").click()

    links = page.locator(".create-links")
    await expect(links).to_contain_text("Created: Goblin ambush", timeout=SEEN)
    rows = links.locator("tbody tr")
    await expect(rows).to_have_count(5)  # the GM, three seats, the spectators
    await screenshot(page, "create-links")
    for who, header, consoles in (("gm", "GM", 1), ("ayla", "Player: Ayla", 0)):
        async with page.context.expect_page() as opening:
            await links.locator(f'tr[data-who="{who}"] a.join-link').click()
        joined = await opening.value
        await expect(joined.locator(".badge.connection.online")).to_be_visible(timeout=SEEN)
        await expect(joined.locator("header .role")).to_have_text(header)
        await expect(joined.locator('svg.map .token[data-combatant="g2"]')).to_be_visible()
        await expect(joined.locator(".gm-console")).to_have_count(consoles, timeout=SEEN)
        await joined.close()
