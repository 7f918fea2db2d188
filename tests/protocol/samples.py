"""One filled-in example of every wire message, shared by the protocol tests."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from protocol.messages import (
    Ack,
    Asked,
    Create,
    Created,
    Error,
    Events,
    Hello,
    Ping,
    Pong,
    Refused,
    Renew,
    Send,
    Sequenced,
    Snapshot,
    Welcome,
    Window,
)

ROLL: dict[str, Any] = {
    "$type": "Roll",
    "dice": [{"$type": "DiceResult", "sides": 20, "faces": [10], "negative": False}],
    "modifiers": [["Dexterity", 2], ["Training", 1]],
    "total": 13,
    "multiplier": 1,
    "dice_used": 1,
}
ATTACK_ROLLED: dict[str, Any] = {
    "$type": "AttackRolled",
    "attacker": "g1",
    "target": "ayla",
    "weapon": "shortbow",
    "kind": "ranged",
    "action": "standard",
    "roll": ROLL,
    "defence_name": "PD",
    "defence": 12,
    "outcome": "hit",
}

CLIENT_SAMPLES: list[BaseModel] = [
    Hello(token="tok.sig", resume_from_seq=57, client="tests/1"),
    Hello(token="tok.sig"),
    Send(
        cid="c-1",
        command={
            "type": "Declare",
            "actor": "ayla",
            "actions": [{"$type": "Attack", "actor": "ayla", "target": "g1", "weapon": ""}],
            "turn": 0,
        },
    ),
    Send(cid="c-2", command={"type": "SetSetting", "name": "reaction_seconds", "value": 10.5}),
    Send(cid="c-3", command={"type": "SetPosition", "combatant": "g1", "ascension": None}),
    Create(
        cid="new-1",
        encounter={
            "name": "Goblin ambush",
            "ruleset": "verse",
            "combatants": [{"id": "g1", "side": "goblins", "sheet": {"name": "Goblin"}}],
        },
    ),
    Renew(cid="renew-1", room="goblin-ambush-4f1c2a", seats={"ayla": ["ayla"]}),
    Ping(nonce=7),
    Ping(),
]

SERVER_SAMPLES: list[BaseModel] = [
    Welcome(
        room="r-7f3a",
        ruleset="verse",
        role="player",
        seat="seat-1",
        controls=["ayla", "horse"],
        seq=57,
    ),
    Welcome(room="r-7f3a", ruleset="verse", role="spectator", seq=0),
    Ack(cid="c-1", first_seq=58, last_seq=66),
    Refused(cid="c-2", code="not_your_turn", message="it is g1's turn"),
    Error(code="invalid_message", message="cid: Input should be a valid string"),
    Events(
        events=[
            Sequenced(seq=58, event=ATTACK_ROLLED),
            Sequenced(seq=59, event={"$type": "DeclarationMade", "combatant": "g1", "actions": []}),
        ]
    ),
    Events(events=[]),
    Snapshot(seq=57, view={"$type": "Encounter", "id": "r-7f3a", "round": 1, "window": None}),
    Window(
        seq=66,
        window=8,
        kind="reaction",
        about="g1",
        asked=[Asked(combatant="ayla", options=["dodge", "block"])],
        answered=["bram"],
        total_ms=8000,
        remaining_ms=6400,
        running=False,
    ),
    Created(
        cid="new-1",
        room="goblin-ambush-4f1c2a",
        name="Goblin ambush",
        ruleset="verse",
        gm="gm-token",
        players={"ayla": "ayla-token"},
        spectator="spectator-token",
        expires_at=1_800_000_000,
    ),
    Welcome(room="", ruleset="", role="host", seq=0),
    Pong(nonce=7),
    Pong(),
]
