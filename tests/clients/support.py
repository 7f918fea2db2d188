"""Shared by the client tests and the end-to-end round: a seeded demo encounter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clients.client import Client
from clients.encounters import read_encounter
from protocol.messages import Created

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "server" / "samples" / "encounters" / "demo.toml"


def demo_encounter(seed: int = 7, **settings: Any) -> dict[str, Any]:
    """The demo's cast with fixed dice; `settings` override the room's settings."""
    encounter = read_encounter(DEMO)
    encounter["seed"] = seed
    encounter["settings"] = {**encounter.get("settings", {}), **settings}
    return encounter


async def create(url: str, host_token: str, encounter: dict[str, Any]) -> Created:
    async with await Client.connect(url, host_token) as host:
        created = await host.create(encounter, timeout=10)
    assert isinstance(created, Created), created
    return created


def seqs(client: Client) -> list[int]:
    return [seq for seq, _ in client.view.events]


def events_of(client: Client, kind: str) -> list[dict[str, Any]]:
    return [event for _, event in client.view.events if event["$type"] == kind]


def attack(actor: str, target: str, weapon: str) -> dict[str, Any]:
    return {"$type": "Attack", "actor": actor, "target": target, "weapon": weapon}


def declare(actor: str, *actions: dict[str, Any], turn: int = 0) -> dict[str, Any]:
    return {"type": "Declare", "actor": actor, "actions": list(actions), "turn": turn}
