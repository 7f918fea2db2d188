"""The GM's `read_sheet`: a sheet file's text read as the room's ruleset reads sheets,
answered with the combatant `AddCombatant` takes, or refused with every problem.

docs/protocol.md, `read_sheet` and `sheet_read`: only the GM may ask; nothing changes;
a file that cannot be parsed, nests too deep or breaks the sheet rules is refused with
`invalid_command`, its problems in words.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from protocol.messages import Created, Refused, SheetRead, Table, Update
from server.app import DEMO_ENCOUNTER
from tests.server.wire import Wire, new_cid
from tests.support.server import Served, served

GOBLIN = DEMO_ENCOUNTER.parents[1] / "goblin.toml"


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Served]:
    async with served(tmp_path) as running:
        yield running


async def join(server: Served, token: str) -> Wire:
    wire = await Wire.join(server.url, token, events=False)
    await wire.expect(lambda m: isinstance(m, Table))
    return wire


async def read_sheet(wire: Wire, file: str, text: str) -> SheetRead | Refused:
    cid = new_cid("sheet")
    await wire.send({"type": "read_sheet", "cid": cid, "file": file, "text": text})
    answer = await wire.expect(lambda m: isinstance(m, SheetRead | Refused) and m.cid == cid)
    assert isinstance(answer, SheetRead | Refused)
    return answer


def placed(combatant: dict[str, Any], id: str, x: int, y: int) -> dict[str, Any]:
    """The answer's combatant as the browser sends it: its id, side and cell set."""
    return {**combatant, "id": id, "side": "gm", "position": {"$type": "Cell", "x": x, "y": y}}


async def test_a_toml_sheet_reads_back_as_a_combatant_the_gm_can_add(server: Served) -> None:
    assert server.demo is not None
    gm = await join(server, server.demo["gm"])

    answer = await read_sheet(gm, "goblin.toml", GOBLIN.read_text())

    assert isinstance(answer, SheetRead), answer
    combatant = answer.combatant
    assert combatant["$type"] == "VerseCombatant"
    assert combatant["sheet"]["name"] == "Goblin"
    assert combatant["health"] == tomllib.loads(GOBLIN.read_text())["health"]
    assert (combatant["id"], combatant["side"]) == ("", "")
    await gm.acked({"type": "AddCombatant", "combatant": placed(combatant, "g9", 9, 1)})
    _, view = await gm_table(server)
    assert view["combatants"]["g9"]["name"] == "Goblin"
    assert view["combatants"]["g9"]["position"] == [9, 1]


async def gm_table(server: Served) -> tuple[int, dict[str, Any]]:
    assert server.demo is not None
    wire = await Wire.join(server.url, server.demo["gm"], events=False)
    try:
        table = await wire.expect(lambda m: isinstance(m, Table))
        assert isinstance(table, Table)
        return table.seq, table.model_dump()["view"]
    finally:
        await wire.close()


async def test_a_json_sheet_reads_back_the_same(server: Served) -> None:
    assert server.demo is not None
    gm = await join(server, server.demo["gm"])
    text = json.dumps(tomllib.loads(GOBLIN.read_text()))

    from_json = await read_sheet(gm, "Goblin.JSON", text)
    from_toml = await read_sheet(gm, "goblin.toml", GOBLIN.read_text())

    assert isinstance(from_json, SheetRead), from_json
    assert isinstance(from_toml, SheetRead), from_toml
    assert from_json.combatant == from_toml.combatant


async def test_a_broken_sheet_is_refused_with_every_problem_and_nothing_changes(
    server: Served,
) -> None:
    assert server.demo is not None
    gm = await join(server, server.demo["gm"])
    seq, before = await gm_table(server)
    broken = GOBLIN.read_text().replace("health = 12", 'health = "lots"')
    broken = broken.replace('name = "Goblin"', 'name = ""', 1)
    assert broken.count('"lots"') == 1

    answer = await read_sheet(gm, "goblin.toml", broken)

    assert isinstance(answer, Refused), answer
    assert answer.code == "invalid_command"
    assert "goblin.toml: health:" in answer.message
    assert "goblin.toml: name:" in answer.message
    bad_toml = await read_sheet(gm, "goblin.toml", "health = = 3")
    assert isinstance(bad_toml, Refused)
    assert bad_toml.code == "invalid_command"
    assert bad_toml.message.startswith("goblin.toml: not valid TOML:")
    assert await gm_table(server) == (seq, before)
    await gm.drain()
    assert not [m for m in gm.pending if isinstance(m, Update)]


async def test_a_file_nested_too_deep_is_refused(server: Served) -> None:
    assert server.demo is not None
    gm = await join(server, server.demo["gm"])

    for name, text in (
        ("deep.json", '{"a": ' + "[" * 40 + "]" * 40 + "}"),
        ("deep.toml", "a = " + "[" * 40 + "]" * 40),
        ("brackets.json", "[" * 20_000),  # the parser runs out of stack
    ):
        answer = await read_sheet(gm, name, text)
        assert isinstance(answer, Refused), name
        assert answer.code == "invalid_command"
        assert "nested more than 32 levels deep" in answer.message, answer.message


async def test_a_player_or_a_spectator_may_not_read_sheets(server: Served) -> None:
    assert server.demo is not None
    for token in (server.demo["players"]["ayla"], server.demo["spectator"]):
        wire = await join(server, token)
        answer = await read_sheet(wire, "goblin.toml", GOBLIN.read_text())
        assert isinstance(answer, Refused)
        assert answer.code == "forbidden"
        assert answer.message == "only the GM may add combatants from sheet files"
        await wire.close()


async def test_a_host_may_not_read_sheets(server: Served) -> None:
    host = await Wire.join(server.url, server.host_token, events=False)
    answer = await read_sheet(host, "goblin.toml", GOBLIN.read_text())
    assert isinstance(answer, Refused)
    assert answer.code == "forbidden"


async def test_a_tael_room_which_takes_no_newcomer_reads_no_sheet(server: Served) -> None:
    """World of Tael has no `AddCombatant`: a sheet read there could never be added."""
    samples = DEMO_ENCOUNTER.parents[1]
    ambush = samples / "encounters" / "tael-ambush.toml"
    files = {"tael-ambush.toml": ambush.read_text()}
    files.update({path.name: path.read_text() for path in (samples / "tael").glob("*.toml")})
    host = await Wire.join(server.url, server.host_token, events=False)
    await host.send({"type": "create", "cid": "tael", "files": files, "file": "tael-ambush.toml"})
    created = await host.expect(lambda m: isinstance(m, Created))
    assert isinstance(created, Created)
    await host.close()
    gm = await join(server, created.gm)

    bandit = samples / "tael" / "bandit.toml"
    answer = await read_sheet(gm, "bandit.toml", bandit.read_text())

    assert isinstance(answer, Refused), answer
    assert answer.code == "unknown_command"
    assert answer.message == "a tael room takes no combatant during the fight (no AddCombatant)"
    refused = await gm.command({"type": "AddCombatant", "combatant": {"$type": "TaelCombatant"}})
    assert isinstance(refused, Refused) and refused.code == "unknown_command"
