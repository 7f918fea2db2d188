"""When the server sends a `window` message: whenever what it shows changes.

docs/protocol.md: a `window` message comes when a window opens, when its answers
change, when a pause freezes it or a resume restarts it, after a rewind, and once after
the handshake. A combatant the GM adds during planning is asked to declare too (V20):
that changes who the window waits for, so it must be told as well (it was not: the
screens kept showing the old list until the next answer).
"""

from __future__ import annotations

from pathlib import Path

from protocol.messages import Window
from tests.server.test_limits import gm_token, goblin_with_notes
from tests.server.wire import Wire
from tests.support.server import served


async def test_a_combatant_added_in_planning_is_told_as_awaited(tmp_path: Path) -> None:
    async with served(tmp_path) as server:
        gm = await Wire.join(server.url, gm_token(server))
        await gm.acked({"type": "StartCombat"})
        opened = await gm.expect(lambda m: isinstance(m, Window))
        assert isinstance(opened, Window) and "g9" not in {a.combatant for a in opened.asked}
        await gm.acked({"type": "AddCombatant", "combatant": goblin_with_notes("g9", 10)})
        told = await gm.expect(lambda m: isinstance(m, Window))
        assert isinstance(told, Window) and told.window == opened.window
        assert "g9" in {a.combatant for a in told.asked}
        await gm.close()
