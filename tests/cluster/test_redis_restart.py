"""Redis is killed mid-fight and started again (its append-only file on): the server
processes keep their websockets open, refuse the commands that arrive meanwhile with
`unavailable` (retryable: nothing was applied), reconnect, subscribe again, catch up
from the Stream, and the fight goes on with every acknowledged command.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

from protocol.messages import Ack, Refused
from tests.cluster.support import attack, close_windows_until_the_round_ends, cluster, hold
from tests.server.wire import Wire

LEASE_TTL = 2.0
FORWARD_TIMEOUT = 4.0  # server.cluster.node.settings_for(LEASE_TTL)


async def answer(wire: Wire, command: dict[str, object], cid: str, timeout: float) -> Ack | Refused:
    await wire.send({"type": "send", "cid": cid, "command": command})
    found = await wire.expect(lambda m: isinstance(m, Ack | Refused) and m.cid == cid, timeout)
    assert isinstance(found, Ack | Refused)
    return found


async def test_the_fight_goes_on_after_redis_comes_back(tmp_path: Path) -> None:
    async with cluster(tmp_path, 2, lease_ttl=LEASE_TTL) as fight:
        loop = asyncio.get_running_loop()
        gm = await fight.join(1, "GM")
        ayla = await fight.join(0, "ayla")  # on the runner
        bram = await fight.join(1, "bram")  # forwarded to the runner
        watcher = await fight.join(1, "spectator")
        await gm.acked({"type": "StartCombat"})
        await ayla.acked(attack("ayla", "g1", "longsword"), cid="ayla-declares")

        fight.redis.kill()
        sent = loop.time()
        # meanwhile: a command on the runner's process and one forwarded, both refused
        # as retryable once they waited their time; nothing is applied
        refusals = await asyncio.gather(
            answer(bram, hold("bram"), "bram-declares", FORWARD_TIMEOUT + 5),
            answer(gm, attack("g1", "ayla", "scimitar"), "g1-declares", FORWARD_TIMEOUT + 5),
        )
        waited = loop.time() - sent
        for refused in refusals:
            assert isinstance(refused, Refused) and refused.code == "unavailable", refused
        for wire in (gm, ayla, bram, watcher):  # nobody was disconnected
            await wire.ping(1)

        await asyncio.to_thread(fight.redis.start)
        back = loop.time()
        # the same commands, sent again with the same cids, are applied once Redis is back
        again: Ack | Refused | None = None
        while loop.time() - back < 20:
            again = await answer(bram, hold("bram"), "bram-declares", FORWARD_TIMEOUT + 5)
            if isinstance(again, Ack):
                break
            assert again.code == "unavailable", again
            await asyncio.sleep(0.2)
        assert isinstance(again, Ack), again
        recovered = loop.time() - back
        await gm.acked(attack("g1", "ayla", "scimitar"), cid="g1-declares")
        await gm.acked(attack("g2", "bram", "scimitar"), cid="g2-declares")
        corvin = await fight.join(0, "corvin")
        await corvin.acked(hold("corvin"))
        await close_windows_until_the_round_ends(gm)
        last = gm.last_seq

        stream = await fight.stream()
        assert [seq for seq, _, _ in stream] == list(range(1, last + 1))
        declared = Counter(
            e["combatant"] for _, e in gm.sequenced if e["$type"] == "DeclarationMade"
        )
        assert declared == {"ayla": 1, "bram": 1, "corvin": 1, "g1": 1, "g2": 1}
        for wire in (gm, ayla, bram, watcher):  # the same connections, every event once
            await wire.until_seq(last)
            assert wire.seqs == list(range(1, last + 1))
        print(
            f"\nRedis down: commands refused with {refusals[0].code!r} after {waited:.1f}s "
            f"({refusals[0].message!r}); connections stayed open; after Redis came back "
            f"the retried command was acked within {recovered:.1f}s"
        )
