"""The encounter the load generator creates, and the command its players repeat.

Each encounter is the demo's table grown to four player seats: Ayla, Bram, Corvin and
Dara (Ayla's sheet under another name) against one goblin the GM plays, in Live
Combat (V20). The GM starts the fight, which opens round 1's planning window; the
goblin never declares, so the window stays open (for `planning_seconds`, an hour, the
most an encounter allows) and every player may declare again and again: a new
`Declare` for the same turn replaces the last one (V20, "declarations are secret
until the planning window closes").

That is the player's "act" the benchmark repeats: it always succeeds while the window
is open, it is what players really send most in Live Combat, it goes through the
whole path (authority, engine, log, bus, feed) and its event is redacted differently
for each audience (the GM and the players' side see the declared attack, spectators
see `"actions": []`), so fan-out builds more than one view per command.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

SAMPLES = Path(__file__).resolve().parents[1] / "server" / "samples"
PLANNING_SECONDS = 3600  # the longest window an encounter may set (server/encounters.py)
GOBLIN = "g1"
SEATS: dict[str, str] = {  # seat and combatant id -> its sample sheet
    "ayla": "ayla.toml",
    "bram": "bram.toml",
    "corvin": "corvin.toml",
    "dara": "ayla.toml",
}


def _sheet(file: str, name: str | None = None) -> dict[str, Any]:
    sheet = tomllib.loads((SAMPLES / file).read_text(encoding="utf-8"))
    if name is not None:
        sheet["name"] = name
    return sheet


def encounter(index: int) -> dict[str, Any]:
    """Encounter number `index`, as a `create` message carries it (sheets inline)."""
    combatants: list[dict[str, Any]] = []
    for row, (seat, file) in enumerate(SEATS.items()):
        combatants.append(
            {
                "id": seat,
                "side": "pc",
                "seat": seat,
                "sheet": _sheet(file, seat.title()),
                "source": file,
                "at": [0, row],
            }
        )
    combatants.append(
        {
            "id": GOBLIN,
            "side": "goblins",
            "sheet": _sheet("goblin.toml"),
            "source": "goblin.toml",
            "at": [1, 1],
            "facing": 4,
        }
    )
    return {
        "name": f"Load {index}",
        "ruleset": "verse",
        "mode": "live",
        "seed": index,
        "settings": {"planning_seconds": PLANNING_SECONDS},
        "combatants": combatants,
    }


def weapons() -> dict[str, str]:
    """Each seat's first weapon: the one its declared attack names."""
    found: dict[str, str] = {}
    for seat, file in SEATS.items():
        listed = _sheet(file).get("weapons", [])
        found[seat] = listed[0]["name"] if listed else ""
    return found


def declare(actor: str, weapon: str) -> dict[str, Any]:
    """`actor` declares, for its first turn, an attack on the goblin (V20)."""
    return {
        "type": "Declare",
        "actor": actor,
        "actions": [{"$type": "Attack", "actor": actor, "target": GOBLIN, "weapon": weapon}],
        "turn": 0,
    }
