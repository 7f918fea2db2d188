"""What the player and spectator tests share: a room with fixed dice and a sentinel
in the GM's notes, people who pass what asks them, picking by clicks, and the check
that a page never held a GM-only value."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.async_api import Page, expect

from clients.client import Client
from clients.encounters import read_encounter
from protocol.messages import Choices, Created, Window
from tests.support.server import ServerProcess
from tests.web.conftest import Face, Faces

ROOT = Path(__file__).resolve().parents[2]
ENCOUNTERS = ROOT / "server" / "samples" / "encounters"
SENTINEL = "GM-ONLY-5e7a"
"""Written into the GM's notes of the other side's sheets: the GM's table shows it,
nobody else's may."""
SEEN = 10_000
"""Milliseconds a page may take to show what the server told it."""
ROUND = 60_000
"""Milliseconds a page may take to show a whole round played out."""


def encounter(file: str, seed: int, gm_side: str, **settings: Any) -> dict[str, Any]:
    """A sample encounter with fixed dice, the given settings, and the sentinel in the
    GM's notes of every sheet of `gm_side`."""
    found = read_encounter(ENCOUNTERS / file)
    found["seed"] = seed
    found["settings"] = {**found.get("settings", {}), **settings}
    for combatant in found["combatants"]:
        if combatant["side"] == gm_side:
            combatant["sheet"] = {**combatant["sheet"], "notes": f"{SENTINEL}: the cellar key"}
    return found


async def create_room(server: ServerProcess, fight: dict[str, Any]) -> Created:
    """The room of `fight` on `server`, created with the host token."""
    async with await Client.connect(server.url, server.host_token) as host:
        created = await host.create(fight, timeout=10)
    assert isinstance(created, Created), created
    return created


def link(server: ServerProcess, code: str, *extra: str) -> str:
    """The page's link for an invite code: `#join=CODE`, then `&overlay` and the like."""
    return server.web_url + "#" + "&".join([f"join={code}", *extra])


async def pass_when_asked(client: Client, combatants: set[str], planning: bool) -> None:
    """Pass every window that asks one of `combatants` (planning ones too when
    `planning`) and end each of their turns (turn-based) with the command the server's
    choices offer, as a player with nothing to do would. The only reader of `client`'s
    messages: two would each miss what the other took."""
    passed: set[tuple[int, str]] = set()
    ended: set[tuple[str, int]] = set()
    async for message in client:
        if isinstance(message, Choices):
            for seat in message.seats:
                key = (seat.combatant, message.seq)
                if seat.combatant not in combatants or seat.window is not None or key in ended:
                    continue
                for option in seat.options:
                    if option.key == "end_turn" and option.command is not None and not option.holes:
                        ended.add(key)
                        await client.send(option.command)
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
        await prompt.first.wait_for(state="visible", timeout=ROUND)
        window = await prompt.first.get_attribute("data-window")
        await page.keyboard.press("Escape")
        gone = page.locator(f'.seat.prompt[data-window="{window}"]')
        await gone.first.wait_for(state="detached", timeout=SEEN)


async def pick_by_clicks(page: Page, action: str, target: str, on: str = "map") -> None:
    """Pick `action` from the choices and its target on the map (`on="rail"`: on the
    turn order; `on="keys"`: the token reached by Tab and taken with Enter): the
    declaration (or the command) gathers it."""
    await page.get_by_role("button", name=action, exact=True).click()
    token = page.locator(f'svg.map .token[data-combatant="{target}"]')
    await expect(token).to_have_class(re.compile(r"\bpickable\b"))  # selected or not
    if on == "rail":
        await page.locator(".rail button.pick", has_text=target).first.click()
    elif on == "keys":
        await token.focus()
        await page.keyboard.press("Enter")
    else:
        await token.click()


def frames_with(frames: list[str], words: str) -> list[str]:
    return [frame for frame in frames if words in frame]


async def assert_never_held(page: Page, frames: list[str], other_side: set[str]) -> None:
    """The page never held a GM-only value: the sentinel is in none of the frames it
    received nor in its text, and no frame gave a number of `other_side`'s (health,
    mana, sheet rows, a roll's total or modifiers)."""
    assert frames, "the page received no frame"
    assert frames_with(frames, SENTINEL) == []
    assert SENTINEL not in await page.locator("body").inner_text()
    assert SENTINEL not in await page.content()
    for frame in frames:
        message = json.loads(frame)
        if message["type"] == "table":
            for cid in other_side:
                card = message["view"]["combatants"][cid]
                assert card["health"] is None and card["mana"] is None, card
                assert card["details"] == [], card
        if message["type"] == "update":
            for op in message["patch"]:
                path = op["path"].split("/")
                if len(path) < 3 or path[1] != "combatants" or path[2] not in other_side:
                    continue
                if len(path) == 3 and isinstance(op.get("value"), dict):
                    card = op["value"]
                    assert card["health"] is None and card["mana"] is None, card
                    assert card["details"] == [], card
                if len(path) > 3:
                    assert path[3] not in ("health", "mana", "details") or not op.get("value")
        lines = message.get("log", []) if message["type"] == "update" else message.get("lines", [])
        for line in lines:
            for roll in line["rolls"]:
                if roll["by"] in other_side:
                    assert roll["total"] is None and roll["modifiers"] is None, roll


GOBLINS = {"g1", "g2"}
"""The demo's goblins: the GM's combatants in the rooms these tests make."""


async def gm_in_planning(server: ServerProcess, faces: Faces, phone: bool = False) -> Face:
    """The GM's page of a fresh demo room (seed 20, the GM playing the goblins, 120 s
    of planning), the fight started from its console: the planning window open."""
    room = await create_room(server, encounter("demo.toml", 20, "goblins", planning_seconds=120))
    gm = await faces.open(link(server, room.codes.gm), phone=phone)
    await gm.page.locator('.gm-console .gm-room button[data-key="start"]').click()
    await expect(gm.page.locator(".ring")).to_contain_text("Planning", timeout=SEEN)
    return gm


def last_seq(frames: list[str]) -> int:
    """The seq of the last table or update among the frames a page received."""
    seq = -1
    for frame in frames:
        message = json.loads(frame)
        if message.get("type") in ("table", "update"):
            seq = message["seq"]
    return seq
