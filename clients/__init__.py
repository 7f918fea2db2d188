"""Clients of the combat server: an async Python library and the `combat` program.

* `client.Client`: connect with a token, follow the fight (view, events, the window
  countdown), send commands and wait for their answers, resume after a drop.
* `view.View`: the fight as this audience sees it now, every event folded into the
  last snapshot (`folding.py`; each rule system's folds in `<name>_folding.py`), with
  what it cannot know marked as doubts.
* `encounters.read_encounter`: an encounter file with its sheet files inlined, ready
  for `Client.create`; `verse_sheets.verse_combatant`: a sheet file as the record the
  GM's `add` sends (`AddCombatant`).
* `commands.parse`: a typed line as an engine command (pure); `console.Console` and
  `cli.main`: the terminal program. Each rule system's words are in its own modules,
  found by the room's ruleset in `rulesets.RULESETS`.

Clients speak only the wire protocol (`protocol`); they never import the server
(import-linter), so they run against any server that keeps `docs/protocol.md`.
"""

from clients.client import Client, ClientClosed, ConnectionLost, GapFound, JoinError
from clients.countdown import WindowClock

__all__ = [
    "Client",
    "ClientClosed",
    "ConnectionLost",
    "GapFound",
    "JoinError",
    "WindowClock",
]
