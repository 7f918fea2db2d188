"""SIGTERM hands the rooms over: the stopping process finishes what its rooms queued,
gives their leases back and closes its connections with 1001 (going away); another
process takes the room at once instead of waiting for the lease to expire."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.cluster.support import attack, cluster, hold

LEASE_TTL = 10.0  # long: a handover that waited for the lease would show


async def test_a_stopping_process_hands_its_room_over_at_once(tmp_path: Path) -> None:
    async with cluster(tmp_path, 2, lease_ttl=LEASE_TTL) as fight:
        loop = asyncio.get_running_loop()
        gm = await fight.join(1, "GM")
        ayla = await fight.join(0, "ayla")
        await gm.acked({"type": "StartCombat"})
        await ayla.acked(hold("ayla"))
        assert await fight.runner() == 0

        stopping = loop.time()
        code = await asyncio.to_thread(fight.servers[0].stop)
        assert code == 0
        assert await ayla.closed() == 1001  # going away: reconnect elsewhere

        ack = await gm.acked(attack("g1", "ayla", "scimitar"))
        handed_over = loop.time() - stopping
        print(f"\nhandover on SIGTERM: the next command was acked {handed_over:.2f}s after it")
        assert handed_over < 3.0 < LEASE_TTL
        assert await fight.runs_room(1)
        back = await fight.join(1, "ayla", resume_from_seq=ayla.last_seq)
        await back.until_seq(ack.last_seq)
        assert ayla.seqs + back.seqs == list(range(1, ack.last_seq + 1))
