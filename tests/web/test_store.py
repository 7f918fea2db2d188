"""The page's store and connection (clients/web/js/store.js, connection.js), in the
browser, against a websocket the test plays the server of.

A stand-in `WebSocket` records what the page sends and lets the test deliver the
server's messages and close codes, so the protocol's rules are checked one by one:
the hello, an update that does not follow the table held (the page resumes from its
seq), a command's answer found by its cid and sent again with the same cid after a
reconnection, lines already held skipped, the countdown dropped with its window, and
the close codes after which trying again cannot help.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser, Page

from server.web import WebApp
from tests.support.waiting import within

pytestmark = pytest.mark.timeout(60)

FAKE_SOCKET = """() => {
window.sockets = [];
class FakeSocket {
  static OPEN = 1;
  constructor(url, protocols) {
    this.url = url;
    this.protocols = protocols;
    this.sent = [];
    this.readyState = 0;
    window.sockets.push(this);
    setTimeout(() => { this.readyState = 1; this.onopen && this.onopen(); }, 0);
  }
  send(text) { this.sent.push(JSON.parse(text)); }
  close(code) { this.readyState = 3; this.closedWith = code; }
  deliver(message) { this.onmessage && this.onmessage({ data: JSON.stringify(message) }); }
  drop(code, reason) {
    this.readyState = 3;
    this.onclose && this.onclose({ code, reason: reason || "" });
  }
}
window.WebSocket = FakeSocket;
}"""

WELCOME = {
    "type": "welcome",
    "protocol": 2,
    "room": "r",
    "ruleset": "verse",
    "role": "player",
    "seat": "ayla",
    "controls": ["ayla"],
    "seq": 5,
}
VIEW = {"round": 1, "window": {"id": 3, "kind": "reaction"}, "combatants": {"g1": {"hp": 1}}}


@pytest.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    """A page of the web app with a stand-in WebSocket and `window.store` made by
    the page's own `createStore`, started."""
    web = await WebApp(ws_port=1).serve("127.0.0.1", 0)
    try:
        port = next(iter(web.sockets)).getsockname()[1]
        context = await browser.new_context()
        opened = await context.new_page()
        await opened.goto(f"http://127.0.0.1:{port}/vendor/README.md")
        await opened.evaluate(FAKE_SOCKET)
        await opened.evaluate(
            """async () => {
                const { createStore } = await import('/js/store.js');
                window.store = createStore({ url: 'ws://server/ws', token: 'CODE' });
                window.store.start();
            }"""
        )
        await opened.wait_for_function(
            "() => window.sockets.length === 1 && window.sockets[0].sent.length === 1"
        )
        yield opened
        await context.close()
    finally:
        web.close()
        await within(web.wait_closed(), what="the web app to stop")


async def deliver(page: Page, *messages: dict[str, Any], socket: int = -1) -> None:
    await page.evaluate(
        "([i, ms]) => ms.forEach((m) => window.sockets.at(i).deliver(m))", [socket, messages]
    )


async def state(page: Page, field: str) -> Any:
    return await page.evaluate(f"window.store.state.{field}")


async def test_hello_then_an_update_that_does_not_follow_resumes_from_the_seq_held(
    page: Page,
) -> None:
    hello = await page.evaluate("window.sockets[0].sent[0]")
    assert hello == {
        "type": "hello",
        "protocol": 2,
        "token": "CODE",
        "resume_from_seq": None,
        "client": "combat-web/1",
    }
    assert await page.evaluate("window.sockets[0].protocols") == ["verse.json.v2"]
    await deliver(
        page,
        WELCOME,
        {"type": "table", "seq": 5, "view": VIEW},
        {
            "type": "update",
            "from_seq": 5,
            "seq": 6,
            "patch": [{"op": "replace", "path": "/round", "value": 2}],
            "log": [{"seq": 6, "kind": "RoundStarted", "text": "Round 2", "rolls": []}],
        },
    )
    assert await state(page, "seq") == 6
    assert await state(page, "table.round") == 2
    assert await state(page, "status") == "online"

    # seq 7 is missed: the update from 7 does not follow; the page resumes from 6.
    await deliver(page, {"type": "update", "from_seq": 7, "seq": 8, "patch": [], "log": []})
    await page.wait_for_function(
        "() => window.sockets.length === 2 && window.sockets[1].sent.length"
    )
    assert await page.evaluate("window.sockets[0].closedWith") == 1000
    assert await page.evaluate("window.sockets[1].sent[0].resume_from_seq") == 6
    assert await state(page, "seq") == 6  # the patch that did not follow was not applied


async def test_an_answer_is_found_by_its_cid_and_a_command_is_sent_again_after_a_drop(
    page: Page,
) -> None:
    await deliver(page, WELCOME, {"type": "table", "seq": 5, "view": VIEW})
    # Not awaited here: the answer comes later.
    await page.evaluate("() => { window.answer = window.store.send({type: 'Pause', by: 'ayla'}); }")
    sent = await page.evaluate("window.sockets[0].sent[1]")
    assert sent["type"] == "send" and sent["command"] == {"type": "Pause", "by": "ayla"}

    # The connection drops before the answer: a new one resumes and sends it again.
    await page.evaluate("window.sockets[0].drop(1006)")
    assert await state(page, "status") == "reconnecting"
    await page.wait_for_function("() => window.sockets.length === 2", timeout=5_000)
    await page.wait_for_function("() => window.sockets[1].sent.length === 1")
    assert await page.evaluate("window.sockets[1].sent[0].resume_from_seq") == 5
    await deliver(page, WELCOME)
    again = await page.evaluate("window.sockets[1].sent[1]")
    assert again == sent  # the same cid: the server applies it once

    await deliver(page, {"type": "ack", "cid": sent["cid"], "first_seq": 6, "last_seq": 6})
    assert await page.evaluate("window.answer") == {
        "type": "ack",
        "cid": sent["cid"],
        "first_seq": 6,
        "last_seq": 6,
    }


async def test_lines_held_are_skipped_and_the_countdown_goes_with_its_window(
    page: Page,
) -> None:
    line = {"seq": 4, "kind": "RoundStarted", "text": "Round 1", "rolls": []}
    await deliver(
        page,
        WELCOME,
        {"type": "log", "lines": [line]},
        {"type": "log", "lines": [line, {**line, "seq": 5, "text": "Window 3 opens"}]},
        {"type": "table", "seq": 5, "view": VIEW},
        {
            "type": "window",
            "seq": 5,
            "window": 3,
            "kind": "reaction",
            "about": "g1",
            "asked": [],
            "answered": [],
            "total_ms": 8000,
            "remaining_ms": 7000,
            "running": True,
        },
    )
    assert await page.evaluate("window.store.state.log.map((l) => l.seq)") == [4, 5]
    assert await state(page, "window.message.remaining_ms") == 7000
    await deliver(
        page,
        {
            "type": "update",
            "from_seq": 5,
            "seq": 6,
            "patch": [{"op": "replace", "path": "/window", "value": None}],
            "log": [],
        },
    )
    assert await state(page, "window") is None


FINAL = [(4001, "the link is not valid"), (4002, "expired"), (4004, "the fight is over")]


async def test_a_close_that_trying_again_cannot_mend_ends_the_connection(page: Page) -> None:
    """4001, 4002, 4004 (docs/protocol.md, "Close codes"): the page says why and stays
    closed; each case with a store of its own on the same page."""
    for code, said in FINAL:
        first = await page.evaluate(
            """async () => {
                const { createStore } = await import('/js/store.js');
                window.store = createStore({ url: 'ws://server/ws', token: 'CODE' });
                window.store.start();
                return window.sockets.length - 1;
            }"""
        )
        await page.wait_for_function(f"() => window.sockets[{first}].sent.length === 1")
        await page.evaluate(f"window.sockets[{first}].drop({code}, 'unauthorized')")
        assert await state(page, "status") == "closed"
        assert said in await state(page, "statusReason")
        await page.wait_for_timeout(800)  # bounded: longer than the first pause before a retry
        assert await page.evaluate("window.sockets.length") == first + 1


async def test_choices_come_whole_then_only_the_seats_that_changed(page: Page) -> None:
    def seat(combatant: str, key: str) -> dict[str, Any]:
        return {"combatant": combatant, "window": 3, "compose": None, "options": [{"key": key}]}

    await deliver(
        page,
        WELCOME,
        {"type": "table", "seq": 5, "view": VIEW},
        {
            "type": "choices",
            "seq": 5,
            "whole": True,
            "seats": [seat("gm", "pause"), seat("g1", "pass")],
        },
    )
    assert await state(page, "choices.map((s) => s.combatant)") == ["gm", "g1"]
    await deliver(
        page,
        {"type": "choices", "seq": 6, "whole": False, "seats": [seat("g1", "dodge")], "gone": []},
    )
    assert await state(page, "choices") == [seat("gm", "pause"), seat("g1", "dodge")]
    changed = {"seats": [seat("g2", "block")], "gone": ["g1"], "order": ["g2", "gm"]}
    await deliver(page, {"type": "choices", "seq": 7, "whole": False, **changed})
    assert await state(page, "choices") == [seat("g2", "block"), seat("gm", "pause")]
