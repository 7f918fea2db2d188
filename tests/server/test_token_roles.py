"""Who a connection is comes from its token alone, and tokens outlive an evening.

* No combatant or seat may be named after a role (`gm`, `room`, `spectator`, `host`):
  a player seated on a combatant called `gm` could otherwise speak as the GM and lift
  the GM's pause (V24).
* Join tokens last 30 days, and a host token renews them for an existing room, so a
  fight prepared the evening before opens at the table, even for its GM.
* An expired host token is told `token_expired` (4002), as docs/protocol.md promises
  for a genuine token past its expiry, not `unauthorized`."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from protocol.messages import Created, Hello, Refused
from server.app import DEMO_ENCOUNTER
from server.encounters import read_file
from server.gateway.tokens import SECRET_FILE_NAME, TokenIssuer, load_or_create_secret
from tests.server.wire import Wire, open_socket
from tests.support.server import served


def encounter_with_a_combatant_named_gm() -> dict[str, Any]:
    """The demo fight, its first goblin renamed `gm` and played by the seat `mallory`."""
    data = read_file(DEMO_ENCOUNTER)
    goblin = next(entry for entry in data["combatants"] if entry["id"] == "g1")
    goblin["id"], goblin["seat"] = "gm", "mallory"
    return data


async def test_no_player_can_lift_the_gm_s_pause(tmp_path: Path) -> None:
    async with served(tmp_path, demo=False) as server:
        host = await Wire.join(server.url, server.host_token)
        encounter = encounter_with_a_combatant_named_gm()
        await host.send({"type": "create", "cid": "c", "encounter": encounter})
        created = await host.expect(lambda m: isinstance(m, Created | Refused))
        if isinstance(created, Refused):  # refusing the name at creation closes the crack too
            assert created.code == "invalid_encounter"
            return
        assert isinstance(created, Created)
        gm = await Wire.join(server.url, created.gm)
        mallory = await Wire.join(server.url, created.players["mallory"])
        await gm.acked({"type": "Pause", "by": "gm"})

        answer = await mallory.command({"type": "Resume", "by": "gm"})

        assert isinstance(answer, Refused), "a player lifted the GM's pause"


async def test_an_expired_host_token_is_told_it_expired(tmp_path: Path) -> None:
    async with served(tmp_path, demo=False) as server:
        expired = server.app.issuer.host_token(ttl_seconds=-60)  # genuine, a minute stale
        ws = await open_socket(server.url)
        wire = Wire(ws)
        await wire.send(Hello(token=expired))

        assert await wire.closed() == 4002
        assert [error.code for error in wire.errors] == ["token_expired"]


DAY = 24 * 60 * 60


async def test_the_gm_of_a_fight_prepared_the_day_before_can_still_join_it(
    tmp_path: Path,
) -> None:
    async with served(tmp_path, demo=False) as server:
        host = await Wire.join(server.url, server.host_token)
        await host.send({"type": "create", "cid": "prep", "encounter": read_file(DEMO_ENCOUNTER)})
        created = await host.expect(lambda m: isinstance(m, Created | Refused))
        assert isinstance(created, Created), created

        # The next evening: the same server and secret, its clock a day and an hour on.
        secret = load_or_create_secret(tmp_path / SECRET_FILE_NAME)
        later = TokenIssuer(secret, clock=lambda: time.time() + DAY + 3600)
        server.app.host.issuer = later

        gm = await Wire.join(server.url, created.gm)  # today: no welcome, closed 4002
        assert gm.welcome is not None and gm.welcome.role == "gm"
