"""A client given every process of a cluster: the process it is on (which also runs the
room) is killed, and the client reconnects to the live one by itself, resumes by seq
without a gap or a repeat, and its command waiting for an answer is applied once."""

from __future__ import annotations

from pathlib import Path

from clients.client import Client
from tests.cluster.support import cluster, hold
from tests.support.waiting import until, within

LEASE_TTL = 3.0


async def test_the_client_moves_to_the_live_process_when_its_own_dies(tmp_path: Path) -> None:
    async with cluster(tmp_path, 2, lease_ttl=LEASE_TTL) as fight:
        urls = [fight.url(0), fight.url(1)]
        gm = await Client.connect(urls, fight.tokens["GM"], auto_reconnect=True, keep_events=True)
        bram = await Client.connect(
            urls, fight.tokens["bram"], auto_reconnect=True, keep_events=True
        )
        async with gm, bram:
            assert (gm.url, bram.url) == (urls[0], urls[0])
            assert await fight.runner() == 0  # the room runs where they are
            started = await gm.send({"type": "StartCombat"}, timeout=10)
            assert started.type == "ack"

            fight.servers[0].kill()
            declared = await within(
                bram.send(hold("bram"), timeout=4 * LEASE_TTL + 10),
                4 * LEASE_TTL + 15,
                "Bram's declaration, sent on as the room moves",
            )

            assert declared.type == "ack", declared
            await until(
                lambda: gm.seq == bram.seq == declared.last_seq, 10, "the GM and Bram following"
            )
            for client in (gm, bram):
                assert client.url == urls[1]
                assert [seq for seq, _ in client.events] == list(range(1, declared.last_seq + 1))
                assert (client.gaps, client.repeats) == (0, 0)
            assert await fight.runner([1]) == 1
            bram_declared = [
                event
                for _, event in gm.events
                if event["$type"] == "DeclarationMade" and event["combatant"] == "bram"
            ]
            assert len(bram_declared) == 1  # applied once
