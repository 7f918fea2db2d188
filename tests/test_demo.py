"""The demo fight (`make demo`): readable, deterministic per seed, and its log replays."""

from __future__ import annotations

import re

import pytest

from server.demo import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_the_demo_tells_every_round_and_roll_and_checks_the_replay(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = run(capsys, "--seed", "3")
    lines = out.splitlines()
    assert lines[0] == "Verse demo fight: Ayla vs Goblin (seed 3, square grid, adjacent)"
    assert "Initiative:" in lines
    assert re.search(r"^  Ayla: d20 \d+ \+ Dexterity 4 = \d+$", out, re.M)
    assert "Round 1" in lines and "  Ayla's turn" in lines
    assert re.search(
        r"Ayla attacks Goblin with longsword: d20 \d+ \+ Strength 3 \+ Training 2 = \d+ "
        r"vs PD 13: (critical )?hit",
        out,
    )
    damage = r"Goblin takes .* = \d+; \d+ damage vs PR 1: \d+ to health, \d+ to armour"
    assert re.search(damage, out)
    assert re.search(r"^final state hash: [0-9a-f]{64} \(\d+ events\)$", out, re.M)
    assert lines[-1] == "replay: state hash matches"


def test_the_demo_tells_the_fight_as_the_gms_log_reads_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each line is the GM's log line of its event, what every client shows; a hit that
    took health ends with the health the GM's table card shows after it."""
    lines = run(capsys, "--seed", "7").splitlines()
    assert lines[1:5] == [
        "Initiative:",
        "  Ayla: d20 4 + Dexterity 4 = 8",
        "  Goblin: d20 17 + Dexterity 3 = 20",
        "Turn order: Goblin 20, Ayla 8",
    ]
    assert lines[10:13] == [
        "    Ayla attacks Goblin with longsword: "
        "d20 8 + Strength 3 + Training 2 = 13 vs PD 13: hit",
        "    Goblin takes d8 2 + Training 2 = 4; 4 damage vs PR 1: 3 to health, 1 to armour "
        "[Goblin: health 9/12]",
        "    Ayla ends the turn",
    ]
    # A hit that only wore the armour leaves health as it was: nothing to add.
    worn = "    Ayla takes d6 1 + Training 1 = 2; 2 damage vs PR 2: 0 to health, 2 to armour"
    assert worn in lines
    assert lines[-5:-3] == [
        "    Goblin takes d8 5 + Training 2 = 7; 7 damage vs PR 1: 6 to health, 1 to armour "
        "[Goblin: health 0/12]",
        "    Goblin dies (health 0)",
    ]


def test_the_same_seed_tells_the_same_fight(capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "--seed", "3")
    assert run(capsys, "--seed", "3") == first
    assert run(capsys, "--seed", "4") != first


def test_the_fight_ends_when_one_side_is_down(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "--seed", "3")
    assert re.search(r"^    (Ayla|Goblin) dies \(health 0\)$", out, re.M)
    assert re.search(r"^The fight is over: (Ayla|Goblin) still standing\.$", out, re.M)


def test_the_round_limit_stops_the_fight(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "--seed", "3", "--rounds", "1")
    assert "Round 1" in out and "Round 2" not in out
    assert "No winner after 1 round." in out
    assert out.endswith("replay: state hash matches\n")


def test_other_samples_can_fight(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "--seed", "1", "--pc", "corvin", "--foe", "bram")
    assert "Corvin vs Bram" in out.splitlines()[0]
    assert re.search(r"Corvin: d20 \d+ \+ Dexterity 3 = \d+\n  Corvin: d20", out)  # 60 ft: V16


def test_a_bad_sheet_is_reported_not_raised(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--foe", "no-such-sample"]) == 2
    assert "no-such-sample.toml: cannot read the file" in capsys.readouterr().err
