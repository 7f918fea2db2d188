"""Clients of the combat server: an async Python library and the `combat` program.

* `client.Client`: connect with a token, follow the fight as the server draws it for
  this audience (protocol 2: the table in `table.HeldTable`, patched by each update,
  with its log lines and the seat's choices; the window countdown in
  `countdown.WindowClock`), send commands and wait for their answers, resume after a
  drop. The raw events come only when asked (`events=True`, kept with `keep_events`):
  the client reads none of them.
* `encounters.read_encounter`: an encounter file with its sheet files inlined, ready
  for `Client.create`; `verse_sheets.verse_combatant`: a sheet file as the record the
  GM's `add` sends (`AddCombatant`).
* `commands.parse`: a typed line as an engine command (pure), read against the choices
  the server offers (`matching.py`), or a numbered choice (`picking.py`);
  `console.Console` and `cli.main`: the terminal program, which prints the server's log
  lines and draws its table and choices (`table_screen.py`). What a rule system adds
  is a few words (`<name>_words.py`: aliases for options, the GM commands the server
  offers no option for), found by the room's ruleset in `rulesets.RULESETS`; nothing
  here reads a rule system's grammar, narrates an event or applies a rule
  (`tests/clients/test_thin.py`).

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
