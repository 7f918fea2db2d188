"""The page's JSON Patch (clients/web/js/patch.js), run in the browser that runs it.

The module is loaded as the page loads it, from the web app's own port, and each case
is an RFC 6902 patch on a table: what it gives, that the table given is left as it
was, and that what a patch did not touch is the same object as before (the map draws
again only the tokens whose card is another object).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser, Page

from server.web import WebApp
from tests.support.waiting import within

pytestmark = pytest.mark.timeout(60)

TABLE: dict[str, Any] = {
    "round": 1,
    "order": [{"combatant": "ayla"}, {"combatant": "g1"}],
    "combatants": {
        "ayla": {"id": "ayla", "health": {"now": 18, "max": 20}, "conditions": []},
        "g1": {"id": "g1", "health": None, "health_word": "unhurt", "conditions": []},
        "a/b~c": {"id": "a/b~c"},
    },
    "version": 30,
}


@pytest.fixture
async def patcher(browser: Browser) -> AsyncIterator[Page]:
    """A page of the web app with `window.patch` holding the module's exports."""
    web = await WebApp(ws_port=1).serve("127.0.0.1", 0)
    try:
        port = next(iter(web.sockets)).getsockname()[1]
        context = await browser.new_context()
        page = await context.new_page()
        await page.goto(f"http://127.0.0.1:{port}/vendor/README.md")
        await page.evaluate("async () => { window.patch = await import('/js/patch.js'); }")
        yield page
        await context.close()
    finally:
        web.close()
        await within(web.wait_closed(), what="the web app to stop")


async def apply(page: Page, doc: Any, patch: list[dict[str, Any]]) -> Any:
    return await page.evaluate(
        "([doc, patch]) => window.patch.applyPatch(doc, patch)", [doc, patch]
    )


async def refused(page: Page, doc: Any, patch: list[dict[str, Any]]) -> str:
    """The error the patch raises: its class name and message."""
    return str(
        await page.evaluate(
            """([doc, patch]) => {
                try { window.patch.applyPatch(doc, patch); return "applied"; }
                catch (e) { return `${e.constructor.name}: ${e.message}`; }
            }""",
            [doc, patch],
        )
    )


async def test_patches_as_the_server_sends_them(patcher: Page) -> None:
    # Maps: replace, add, remove.
    after = await apply(
        patcher,
        TABLE,
        [
            {"op": "replace", "path": "/combatants/g1/health_word", "value": "wounded"},
            {"op": "add", "path": "/combatants/g2", "value": {"id": "g2"}},
            {"op": "remove", "path": "/combatants/ayla/conditions"},
            {"op": "replace", "path": "/version", "value": 31},
        ],
    )
    assert after["combatants"]["g1"]["health_word"] == "wounded"
    assert after["combatants"]["g2"] == {"id": "g2"}
    assert "conditions" not in after["combatants"]["ayla"]
    assert after["version"] == 31
    assert after["order"] == TABLE["order"]

    # Escaped keys: ~1 is "/", ~0 is "~".
    after = await apply(
        patcher, TABLE, [{"op": "add", "path": "/combatants/a~1b~0c/x", "value": 1}]
    )
    assert after["combatants"]["a/b~c"] == {"id": "a/b~c", "x": 1}

    # Lists: replaced whole, as the server does, or by index and "-", as RFC 6902 allows.
    whole = [{"op": "replace", "path": "/order", "value": [{"combatant": "g1"}]}]
    assert (await apply(patcher, TABLE, whole))["order"] == [{"combatant": "g1"}]
    by_index = [
        {"op": "add", "path": "/order/-", "value": {"combatant": "bram"}},
        {"op": "add", "path": "/order/0", "value": {"combatant": "corvin"}},
        {"op": "remove", "path": "/order/1"},
        {"op": "replace", "path": "/order/1", "value": {"combatant": "g2"}},
    ]
    after = await apply(patcher, TABLE, by_index)
    assert [slot["combatant"] for slot in after["order"]] == ["corvin", "g2", "bram"]

    # The whole document.
    whole_doc = [{"op": "replace", "path": "", "value": {"a": 1}}]
    assert await apply(patcher, TABLE, whole_doc) == {"a": 1}


async def test_the_table_given_is_left_as_it_was_and_untouched_branches_are_kept(
    patcher: Page,
) -> None:
    kept = await patcher.evaluate(
        """(table) => {
            const before = JSON.stringify(table);
            const after = window.patch.applyPatch(table, [
                {op: "replace", path: "/combatants/g1/health_word", value: "down"},
            ]);
            return {
                unchanged: JSON.stringify(table) === before,
                sameAyla: after.combatants.ayla === table.combatants.ayla,
                sameOrder: after.order === table.order,
                newG1: after.combatants.g1 !== table.combatants.g1,
                newRoot: after !== table,
            };
        }""",
        TABLE,
    )
    assert kept == {
        "unchanged": True,
        "sameAyla": True,
        "sameOrder": True,
        "newG1": True,
        "newRoot": True,
    }

    # A hole of a choice is filled at its pointer, the choice left as it was.
    part = {"$type": "Attack", "actor": "ayla", "target": None, "weapon": "longsword"}
    filled = await patcher.evaluate(
        "([part]) => [window.patch.setAt(part, '/target', 'g1'), part]", [part]
    )
    assert filled == [{**part, "target": "g1"}, part]
    assert await patcher.evaluate("() => window.patch.getAt({a: {b: [1, 2]}}, '/a/b/1')") == 2


REFUSED = [
    ([{"op": "replace", "path": "/combatants/g9/health", "value": 1}], "g9 is missing"),
    ([{"op": "remove", "path": "/nothing"}], "no /nothing to remove"),
    ([{"op": "replace", "path": "/round/x", "value": 1}], "round is a value"),
    ([{"op": "add", "path": "/order/5", "value": {}}], "index 5 is out of the list"),
    ([{"op": "move", "path": "/round", "from": "/version"}], "unknown operation move"),
    ([{"op": "add", "path": "round", "value": 1}], "not a JSON Pointer"),
]


async def test_a_patch_that_does_not_fit_is_refused(patcher: Page) -> None:
    """The store then asks the server for a fresh table (resuming from its seq)."""
    for patch, error in REFUSED:
        said = await refused(patcher, TABLE, patch)
        assert said.startswith("PatchError: ") and error in said, (patch, said)
