"""What the server prints at a start: the demo's join commands, or how to create a fight."""

from __future__ import annotations

from pathlib import Path

from server.app import create_instructions, join_instructions

URL = "ws://127.0.0.1:8765/ws"
TOKENS = {
    "room": "goblin-ambush-abc123",
    "gm": "gm-token",
    "players": {"ayla": "a-token", "bram": "b-token"},
    "spectator": "s-token",
}


def test_the_demos_gm_line_names_the_goblins_the_gm_plays() -> None:
    lines = join_instructions(URL, TOKENS, Path("combat-data")).splitlines()  # type: ignore[arg-type]
    assert lines[2] == f"  GM:        combat gm --server {URL} --token gm-token --plays g1,g2"
    assert lines[3] == f"  ayla:      combat play --server {URL} --token a-token"
    assert lines[-1] == create_instructions(URL, Path("combat-data"))


def test_a_start_without_the_demo_says_how_to_create_a_fight() -> None:
    assert create_instructions(URL, Path("combat-data")) == (
        "Create your own encounter: combat create ENCOUNTER.toml "
        f"--server {URL} --token-file combat-data/host-token"
    )
