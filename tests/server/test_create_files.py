"""`create` with the files' text: an encounter and its sheets as uploaded, read by the
server as `combat create` reads them from disk, every problem reported at once with
its file and place, and nothing created while there is one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from protocol.messages import Choices, Created, Listing, Refused, Table
from server.app import DEMO_ENCOUNTER
from server.encounter_files import MAX_SHEETS_TEXT
from tests.server.wire import Wire, new_cid
from tests.support.heavy import sheet_text
from tests.support.server import Served, served

SAMPLES = DEMO_ENCOUNTER.parents[1]
SHEETS = ("ayla.toml", "bram.toml", "corvin.toml", "goblin.toml")


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Served]:
    async with served(tmp_path, demo=False) as running:
        yield running


def demo_files(encounter_name: str) -> dict[str, str]:
    files = {encounter_name: DEMO_ENCOUNTER.read_text()}
    files.update({name: (SAMPLES / name).read_text() for name in SHEETS})
    return files


async def create(server: Served, **fields: Any) -> Created | Refused:
    host = await Wire.join(server.url, server.host_token, events=False)
    try:
        cid = new_cid("new")
        await host.send({"type": "create", "cid": cid, **fields})
        answer = await host.expect(lambda m: isinstance(m, Created | Refused) and m.cid == cid)
        assert isinstance(answer, Created | Refused)
        return answer
    finally:
        await host.close()


async def rooms(server: Served) -> int:
    host = await Wire.join(server.url, server.host_token, events=False)
    await host.send({"type": "rooms", "cid": "rooms"})
    listing = await host.expect(lambda m: isinstance(m, Listing))
    await host.close()
    assert isinstance(listing, Listing)
    return len(listing.rooms)


@pytest.mark.parametrize("name", ["encounters/demo.toml", "demo.toml"])
async def test_the_demo_files_as_text_make_the_demo_fight(server: Served, name: str) -> None:
    """`sheet = "../ayla.toml"` finds `ayla.toml` beside `encounters/`, as on disk, and
    among files uploaded without their folders too."""
    created = await create(server, files=demo_files(name), file=name)

    assert isinstance(created, Created), created
    assert created.name == "Goblin ambush"
    assert set(created.codes.players) == {"ayla", "bram", "corvin"}
    gm = await Wire.join(server.url, created.codes.gm, events=False)
    table = await gm.expect(lambda m: isinstance(m, Table))
    assert isinstance(table, Table)
    assert set(table.view.combatants) == {"ayla", "bram", "corvin", "g1", "g2"}
    assert table.view.combatants["g1"].health is not None
    assert table.view.combatants["g1"].health.max == 12  # goblin.toml's, read from its text
    await gm.close()


async def test_every_problem_is_listed_with_its_file_and_place(server: Served) -> None:
    files = demo_files("demo.toml")
    files["demo.toml"] = (
        files["demo.toml"]
        .replace('sheet = "../bram.toml"', 'sheet = "../bramm.toml"')
        .replace("at = [1, 2]", "at = [1, 0]")
    )
    files["ayla.toml"] = files["ayla.toml"].replace("level = ", "level == ", 1)
    files["goblin.toml"] = files["goblin.toml"].replace("health = 12", "health = -3")

    refused = await create(server, files=files, file="demo.toml")

    assert isinstance(refused, Refused) and refused.code == "invalid_encounter", refused
    problems = refused.message.split("; ")
    assert any(p.startswith("ayla.toml: not valid TOML") and "line" in p for p in problems)
    assert "demo.toml: combatants[1].sheet: no file '../bramm.toml' among the files sent" in (
        problems
    )
    assert any(p.startswith("demo.toml: combatants[4].at: [1, 0] is g1's cell") for p in problems)
    assert any(
        p.startswith("demo.toml: combatants[3].sheet (goblin.toml): health") for p in problems
    ), problems
    assert not any("combatants[0].sheet" in p for p in problems)  # ayla's: said once, above
    assert await rooms(server) == 0  # nothing was created


async def test_a_create_names_its_encounter_one_way(server: Served) -> None:
    files = demo_files("demo.toml")
    unnamed = await create(server, files=files)
    missing = await create(server, files=files, file="duel.toml")
    both = await create(server, files=files, file="demo.toml", encounter={"name": "x"})

    assert isinstance(unnamed, Refused) and "name the encounter file" in unnamed.message
    assert isinstance(missing, Refused) and "no file named 'duel.toml'" in missing.message
    assert isinstance(both, Refused) and "not both" in both.message
    assert {a.code for a in (unnamed, missing, both)} == {"invalid_encounter"}
    assert await rooms(server) == 0


async def test_a_conditions_table_named_by_path_is_read_from_its_file(server: Served) -> None:
    files = demo_files("encounters/demo.toml")
    files["encounters/demo.toml"] = files["encounters/demo.toml"].replace(
        '# conditions = "../conditions/verse.toml"', 'conditions = "../conditions/verse.toml"'
    )
    files["conditions/verse.toml"] = (SAMPLES / "conditions" / "verse.toml").read_text() + (
        '\n[Dazzled]\ntext = "A house rule: only this table knows it."\n'
    )
    created = await create(server, files=files, file="encounters/demo.toml")
    assert isinstance(created, Created), created
    gm = await Wire.join(server.url, created.codes.gm, events=False)
    choices = await gm.expect(lambda m: isinstance(m, Choices) and bool(m.seats))
    assert isinstance(choices, Choices)
    [console] = [seat for seat in choices.seats if seat.combatant == "gm"]
    condition = next(o for o in console.options if o.key == "set_condition")
    assert "Dazzled" in {o.value for o in condition.holes[1].options}  # the table's own
    await gm.close()

    files["conditions/verse.toml"] = "[Prone\n"
    refused = await create(server, files=files, file="encounters/demo.toml")
    assert isinstance(refused, Refused), refused
    assert refused.message.startswith("conditions/verse.toml: not valid TOML"), refused.message
    assert "; " not in refused.message  # said once: its place in the encounter is not repeated


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.json", "[" * 30_000 + "]" * 30_000),  # deeper than the parser can go
        ("deep.toml", "a = " + "[" * 40 + "]" * 40),  # parsed, then measured
    ],
)
async def test_a_file_nested_too_deep_is_refused_in_words(
    server: Served, name: str, text: str
) -> None:
    files = demo_files("demo.toml") | {name: text}

    refused = await create(server, files=files, file="demo.toml")

    assert isinstance(refused, Refused) and refused.code == "invalid_encounter", refused
    assert f"{name}: nested more than 32 levels deep" in refused.message.split("; ")
    assert await rooms(server) == 0


def sharing(combatants: int, sheet: str) -> dict[str, str]:
    """An encounter of `combatants` combatants that all name one sheet file."""
    lines = ['name = "Crowd"']
    for n in range(combatants):
        lines += ["[[combatants]]", f'id = "c{n}"', 'side = "s"', 'sheet = "big.toml"']
        lines.append(f"at = [{n}, 0]")
    return {"crowd.toml": "\n".join(lines) + "\n", "big.toml": sheet}


async def test_the_sheets_an_encounter_builds_are_bounded_counted_for_each_combatant(
    server: Served,
) -> None:
    """One sheet file of 60 KB is built once for each combatant that names it: four
    make an encounter, five make more than `MAX_SHEETS_TEXT` and are refused before
    anything is built (a frame of 64 KiB made 27 MB of state in 4 s before)."""
    sheet = sheet_text()
    assert 4 * len(sheet) <= MAX_SHEETS_TEXT < 5 * len(sheet)

    refused = await create(server, files=sharing(5, sheet), file="crowd.toml")

    assert isinstance(refused, Refused) and refused.code == "invalid_encounter", refused
    assert refused.message == (
        "crowd.toml: combatants: their sheet files hold 292 KiB, counted for each"
        " combatant that names one; at most 256 KiB"
    )
    assert await rooms(server) == 0
    created = await create(server, files=sharing(4, sheet), file="crowd.toml")
    assert isinstance(created, Created), created
    assert await rooms(server) == 1
