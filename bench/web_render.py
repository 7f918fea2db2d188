"""The table in a browser with 60 combatants: how long the page takes to draw it.

    .venv/bin/python -m bench.web_render [--combatants 60] [--updates 40] [--loads 5]

Issue "The table in a browser": the page stays smooth with 60 combatants on the map.
The page loads in under a second from a local server. A server in this process
serves the web app; a fight of the demo cast and goblins up
to `--combatants` is created, and Debian's chromium (/usr/bin/chromium, driven by
Playwright) opens the spectator's link. Timed inside the page, from the moment its
websocket delivered a message to the moment the page's DOM showed it (a
MutationObserver), so the network and the server are left out:

- **load**: the link opened in a new page to its load event, and to the whole fight
  drawn (medians of `--loads` loads);
- **join**: the `table` message to every token in the page (the first render, htm's
  templates read for the first time included), and to the first frame painted with
  them (headless chromium paints in software);
- **update**: a GM override on one combatant (`SetHealth`, its health word changes)
  to that token redrawn, over `--updates` updates, one every 100 ms; with how many
  tokens each update touched (1 when only the changed token is drawn again).

A frame at 60 Hz is 16.7 ms: an update drawn well within it leaves the page smooth.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright

from clients.client import Client
from clients.encounters import read_encounter
from protocol.messages import Created
from server.app import App, Options

CHROMIUM = "/usr/bin/chromium"
DEMO = Path(__file__).resolve().parents[1] / "server" / "samples" / "encounters" / "demo.toml"
FRAME_MS = 1000 / 60

ARRIVALS = """
(() => {
  const Original = window.WebSocket;
  window.arrivals = [];
  window.WebSocket = function (url, protocols) {
    const ws = new Original(url, protocols);
    ws.addEventListener("message", (m) => {
      const type = JSON.parse(m.data).type;
      window.arrivals.push({ type, at: performance.now() });
    });
    return ws;
  };
  Object.assign(window.WebSocket, { OPEN: 1, CLOSED: 3 });
  window.WebSocket.prototype = Original.prototype;
  window.drawnAt = null;
  new MutationObserver(() => {
    if (window.drawnAt === null && document.querySelectorAll("svg.map .token").length >= COUNT) {
      window.drawnAt = performance.now();
    }
  }).observe(document, { subtree: true, childList: true });
})();
"""

OBSERVE = """() => {
  window.touches = [];
  const tokens = document.querySelector("svg.map .tokens");
  new MutationObserver((records) => {
    const at = performance.now();
    const touched = new Set();
    for (const record of records) {
      const node = record.target.nodeType === 1 ? record.target : record.target.parentElement;
      const token = node.closest(".token");
      touched.add(token ? token.dataset.combatant : "(layer)");
    }
    window.touches.push({ at, touched: [...touched] });
  }).observe(tokens, { subtree: true, childList: true, attributes: true, characterData: true });
}"""


MEASURE = """([before, target]) => {
  const update = window.arrivals.slice(before).find((a) => a.type === "update");
  const after = window.touches.filter((t) => t.at >= update.at);
  const mine = after.find((t) => t.touched.includes(target));
  window.touches = [];
  return [update.at, { at: mine.at, touched: [...new Set(after.flatMap((t) => t.touched))] }];
}"""


def fight(combatants: int) -> dict[str, Any]:
    encounter = read_encounter(DEMO)
    encounter["seed"] = 7
    encounter["settings"] = {**encounter.get("settings", {}), "planning_seconds": 600}
    goblin = next(c for c in encounter["combatants"] if c["id"] == "g1")
    for n in range(3, combatants - 2):
        x, y = 3 + (n - 3) % 11, (n - 3) // 11
        encounter["combatants"].append({**goblin, "id": f"g{n}", "at": [x, y]})
    return encounter


LOAD_END = "performance.getEntriesByType('navigation')[0].loadEventEnd"


async def run(combatants: int, updates: int, loads_wanted: int) -> None:
    with tempfile.TemporaryDirectory() as data:
        app = App(Options(port=0, web_port=0, data_dir=Path(data), demo=False))
        await app.start()
        try:
            async with await Client.connect(app.url, app.host_token) as host:
                room = await host.create(fight(combatants), timeout=10)
            assert isinstance(room, Created), room
            gm = await Client.connect(app.url, room.gm)
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=CHROMIUM)
                loads, shown = [], []
                for _ in range(loads_wanted):  # the link opened afresh, a new page each time
                    fresh = await browser.new_page(viewport={"width": 1280, "height": 800})
                    await fresh.goto(f"{app.web_url}#join={room.codes.spectator}")
                    done = await fresh.wait_for_function(
                        f"""() => document.querySelectorAll('svg.map .token').length
                            === {combatants} && performance.now()""",
                        polling="raf",
                    )
                    shown.append(await done.json_value())
                    loads.append(await fresh.evaluate(LOAD_END))
                    await fresh.close()
                page = await browser.new_page(viewport={"width": 1280, "height": 800})
                await page.add_init_script(ARRIVALS.replace("COUNT", str(combatants)))
                await page.goto(f"{app.web_url}#join={room.codes.spectator}")
                # Polled on each animation frame: the first frame with every token drawn.
                drawn = await page.wait_for_function(
                    f"""() => document.querySelectorAll('svg.map .token').length === {combatants}
                        && performance.now()""",
                    polling="raf",
                )
                table_at = await page.evaluate("window.arrivals.find((a) => a.type === 'table').at")
                join_ms = await drawn.json_value() - table_at
                dom_ms = await page.evaluate("window.drawnAt") - table_at
                await gm.send({"type": "StartCombat"})
                await page.wait_for_selector(".ring")
                await page.evaluate(OBSERVE)
                times, touched = [], []
                for i in range(updates):
                    target = f"g{3 + i % (combatants - 5)}"
                    before = await page.evaluate("window.arrivals.length")
                    # Each goblin in turn is bloodied, then made whole on the next pass.
                    health = 1 if (i // (combatants - 5)) % 2 == 0 else 12
                    await gm.send({"type": "SetHealth", "combatant": target, "health": health})
                    word = "bloodied" if health == 1 else "unhurt"
                    await (
                        page.locator(f'svg.map .token[data-combatant="{target}"]')
                        .filter(has_text=word)
                        .wait_for()
                    )
                    arrival, touch = await page.evaluate(MEASURE, [before, target])
                    times.append(touch["at"] - arrival)
                    touched.append(len(touch["touched"]))
                    await asyncio.sleep(0.1)
                await browser.close()
            await gm.close()
            print(f"{combatants} combatants on the map, {updates} updates (chromium, headless)")
            print(
                f"  load: the link opened to the page's load event: median"
                f" {statistics.median(loads):.0f} ms, to the whole fight drawn:"
                f" {statistics.median(shown):.0f} ms ({len(loads)} loads; target 1,000 ms)"
            )
            print(
                f"  join: table message to every token in the page: {dom_ms:.1f} ms,"
                f" to the first frame painted with them: {join_ms:.1f} ms"
            )
            print(
                f"  update: message to its token redrawn: median {statistics.median(times):.2f} ms,"
                f" max {max(times):.2f} ms (a frame is {FRAME_MS:.1f} ms)"
            )
            print(f"  tokens touched per update: {sorted(set(touched))}")
        finally:
            await app.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--combatants", type=int, default=60)
    parser.add_argument("--updates", type=int, default=40)
    parser.add_argument("--loads", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(run(args.combatants, args.updates, args.loads))


if __name__ == "__main__":
    main()
