"""Three server processes on one Redis play one fight: whichever process a client
joins, it sees the same events in the same order, and its commands are applied by the
process that runs the room (docs/architecture.md, "Scale-out")."""

from __future__ import annotations

from pathlib import Path

from protocol.messages import Window
from tests.cluster.support import attack, close_windows_until_the_round_ends, cluster, hold


async def test_players_spectators_and_gm_on_three_processes_see_one_fight(
    tmp_path: Path,
) -> None:
    async with cluster(tmp_path, 3) as fight:
        assert await fight.runner() == 0  # the process that created the demo runs it
        gm = await fight.join(0, "GM")
        players = {seat: await fight.join(2, seat) for seat in ("ayla", "bram", "corvin")}
        spectators = [await fight.join(1, "spectator") for _ in range(2)]

        await gm.acked({"type": "StartCombat"})
        # the players' commands travel from process 2 to process 0 and their acks back
        acks = [
            await players["ayla"].acked(attack("ayla", "g1", "longsword")),
            await players["bram"].acked(hold("bram")),
            await players["corvin"].acked(attack("corvin", "g2", "spear")),
        ]
        refused = await players["ayla"].command(hold("bram"))  # not hers: refused there
        assert refused.type == "refused" and refused.code == "forbidden"
        await gm.acked(attack("g1", "ayla", "scimitar"))
        await gm.acked(attack("g2", "corvin", "scimitar"))
        await close_windows_until_the_round_ends(gm)

        last = gm.last_seq
        everyone = [gm, *players.values(), *spectators]
        for wire in everyone:
            await wire.until_seq(last)
            await wire.drain(0.2)
        assert [a.first_seq for a in acks] == sorted(a.first_seq for a in acks)
        for wire in everyone:  # every event once, in order, on every process
            assert wire.seqs == list(range(1, last + 1))
            types = [event["$type"] for _, event in wire.sequenced]
            assert types == [event["$type"] for _, event in gm.sequenced]
        # spectators see the public view: the same frames, whichever of them
        assert spectators[0].sequenced == spectators[1].sequenced
        hidden = [e for _, e in spectators[0].sequenced if e["$type"] == "DeclarationMade"]
        assert hidden and all(e["actions"] == [] for e in hidden)
        # the countdown reaches the spectators' process too, counted from the runner's
        windows = [m for m in spectators[0].received if isinstance(m, Window)]
        assert windows and windows[0].window == 1
        assert 40_000 < windows[0].remaining_ms <= 45_000 and windows[0].running
