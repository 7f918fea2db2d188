"""A runner frozen past its lease (SIGSTOP: a long pause, a frozen machine) wakes up
believing it still runs the room. By then another process has taken the lease with a
newer fencing token, and Redis refuses every append naming the old one: zero writes of
the old runner land, whatever it tries (its countdown fired while it slept, a command
reached it), and it stops running the room the moment it finds out.
"""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from pathlib import Path

from protocol.messages import Ack
from server.leases import fence_number
from tests.cluster.support import cluster
from tests.support.server import wait_for

LEASE_TTL = 2.0


async def test_a_runner_woken_after_losing_its_lease_writes_nothing(tmp_path: Path) -> None:
    async with cluster(tmp_path, 2, lease_ttl=LEASE_TTL) as fight:
        old = fight.servers[0]
        gm = await fight.join(1, "GM")
        ayla = await fight.join(0, "ayla")  # on the process about to freeze
        await gm.acked({"type": "SetSetting", "name": "planning_seconds", "value": 1.5})
        await gm.acked({"type": "StartCombat"})  # window 1: its countdown runs on process 0

        old.signal(signal.SIGSTOP)
        try:
            # the frozen runner's countdown runs out while it sleeps; a command reaches it
            await ayla.send(
                {"type": "send", "cid": "ayla-pause", "command": {"type": "Pause", "by": "ayla"}}
            )
            # meanwhile process 1 takes the lease once it expires and runs the room: the
            # planning window gets its full 1.5 s again and closes
            await gm.expect(
                lambda m: (
                    m.type in ("events", "update")
                    and any(
                        i.event["$type"] == "WindowClosed" and i.event["window"] == 1
                        for i in m.events or ()
                    )
                ),
                timeout=LEASE_TTL + 6,
            )
            assert await fight.runs_room(1)
            await asyncio.sleep(1.0)
        finally:
            old.signal(signal.SIGCONT)

        # the woken runner finds out and lets go; Ayla's pause is applied once, by the
        # new runner
        paused = await ayla.expect(
            lambda m: m.type in ("ack", "refused") and m.cid == "ayla-pause", timeout=10
        )
        assert isinstance(paused, Ack), paused
        await wait_for(
            lambda: any(
                line["message"].startswith("room ") and "stopped here" in line["message"]
                for line in old.log_lines()
            ),
            timeout=5,
        )
        assert not await fight.runs_room(0)
        assert await fight.runs_room(1)

        stream = await fight.stream()
        tokens = [fence_number(token) for _, _, token in stream]
        taken_over = tokens.index(max(tokens))
        assert min(tokens) < max(tokens)  # both runners wrote...
        assert all(t == max(tokens) for t in tokens[taken_over:])  # ...the old one never after
        kinds = Counter(kind for _, kind, _ in stream)
        assert kinds["WindowClosed"] == len(
            [1 for _, e in gm.sequenced if e["$type"] == "WindowClosed"]
        )
        assert kinds["Paused"] == 1
        await gm.until_seq(len(stream))
        assert gm.seqs == list(range(1, len(stream) + 1))
        closed_1 = [e for _, e in gm.sequenced if e["$type"] == "WindowClosed" and e["window"] == 1]
        assert len(closed_1) == 1
        print("\nthe woken runner logged:")
        for line in old.log_lines():
            if line["level"] != "info" or "room" in line["message"]:
                print("  ", line["level"], line["message"][:160])
