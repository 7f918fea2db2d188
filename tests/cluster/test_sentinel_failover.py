"""The Redis primary is killed (SIGKILL) while bots play a fight through two server
processes that find Redis through Sentinel (`redis+sentinel://`), with
`--redis-durability replicated`. The sentinels promote a replica; the servers'
connections, their subscriptions included, follow it; the fight goes on.

The Redis side is a primary with two replicas and three sentinels: with `replicated`
an append needs a replica, and after the failover the promoted primary still has one
(with a single replica, appends wait until the old primary is back as a replica:
docs/deploy.md).

Checked at the end, against the log the new primary holds:

* every command any bot got an ack for is there, under its own ack's sequence numbers
  (nothing acknowledged was lost with the old primary), and no command is there twice
  (each declaration lies inside one acked command's events; no two acks overlap);
* the log's sequence numbers run 1..N, and no bot saw a gap or a repeat;
* every command sent was answered.

Printed: how long the sentinels took to promote a replica, and the pause the players
saw (from the kill to the first command acked after it, and the longest any command
waited for its answer).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from pathlib import Path

from protocol.messages import Ack, Refused
from tests.cluster.support import cluster
from tests.reliability.support import (
    Bot,
    answer_counts,
    bounded,
    create_room,
    endless_fight,
    stream_problems,
    table,
)
from tests.support.redis import SentinelGroup

SEED = 20261202
LEASE_TTL = 2.0  # a command waits at most 4 s for its room: within a bot's 5 s patience
BEFORE = 20  # commands the bots send before the kill
AFTER = 30  # commands acked after the kill before the bots stop


class Sends:
    """Counts the commands the bots send; `reached` is set at `target`."""

    def __init__(self) -> None:
        self.sent = 0
        self.target = 0
        self.reached = asyncio.Event()

    def arm(self, more: int) -> None:
        self.target = self.sent + more
        self.reached.clear()

    def __call__(self) -> None:
        self.sent += 1
        if self.sent >= self.target:
            self.reached.set()


def acked_after(bots: list[Bot], moment: float) -> int:
    return sum(
        1
        for bot in bots
        for sent in bot.sent
        for answer, at in zip(sent.answers, sent.answered_at, strict=True)
        if isinstance(answer, Ack) and at >= moment
    )


async def test_the_fight_goes_on_when_sentinel_promotes_a_replica(tmp_path: Path) -> None:
    group = SentinelGroup(tmp_path / "redis", replicas=2)
    options = ["--redis-durability", "replicated"]
    async with cluster(tmp_path, 2, lease_ttl=LEASE_TTL, redis=group, options=options) as fight:
        created = await create_room(
            fight.url(0), fight.servers[0].host_token, endless_fight("Failover", SEED)
        )
        bots = table(fight.url(0), created, SEED, think=(0.0, 0.05))
        for bot, index in zip(bots, (0, 1, 0, 1), strict=True):  # GM, ayla, bram, corvin
            bot.url = fight.url(index)
        counter = Sends()
        for bot in bots:
            bot.on_send = counter
        gm = bots[0]
        await gm.connect()
        started = await gm.command({"type": "StartCombat"})
        assert isinstance(started, Ack), started
        stop = asyncio.Event()
        playing = [asyncio.create_task(bot.play(stop, seconds=100)) for bot in bots]
        try:
            counter.arm(BEFORE)
            await bounded(counter.reached.wait(), 30, "the bots to play before the kill")
            acked_before = {cid: ack for bot in bots for cid, ack in bot.acks.items()}

            old = await asyncio.to_thread(group.primary)
            old.kill()
            killed_at = time.monotonic()
            new = await asyncio.to_thread(group.wait_for_failover, old, 30)
            promoted = time.monotonic() - killed_at
            assert new is not old

            for _ in range(600):
                if acked_after(bots, killed_at) >= AFTER:
                    break
                for task in playing:
                    if task.done():
                        task.result()  # a bot that gave up says why
                await asyncio.sleep(0.1)
            assert acked_after(bots, killed_at) >= AFTER, "the fight did not go on"
        finally:
            stop.set()
            await bounded(asyncio.gather(*playing), 30, "the bots to stop")
        for bot in bots:
            await bot.close()

        # the log as the new primary holds it
        entries = await fight.entries(created.room)
        seqs = [int(entry_id.split(b"-")[0]) for entry_id, _ in entries]
        assert seqs == list(range(1, len(seqs) + 1)), "the log has a gap"
        logged = await fight.commands(created.room)
        by_cid = {key.rsplit("\x1f", 1)[1]: span for key, span in logged.items()}
        acked = {cid: ack for bot in bots for cid, ack in bot.acks.items()}
        for cid, ack in acked.items():  # nothing acknowledged was lost, nor moved
            assert by_cid.get(cid) == (ack.first_seq, ack.last_seq), (cid, ack, by_cid.get(cid))
        assert set(acked_before) <= set(acked)
        ours = {sent.cid for bot in bots for sent in bot.sent}
        unacked = sorted(cid for cid in by_cid if cid in ours and cid not in acked)
        assert not unacked, f"in the log but never acked: {unacked}"
        spans = sorted(
            (a.first_seq, a.last_seq) for a in acked.values() if a.last_seq >= a.first_seq
        )
        for (_, last), (first, _) in itertools.pairwise(spans):
            assert first > last, "two acks name the same events"
        declarations = [
            seq
            for seq, (_, fields) in zip(seqs, entries, strict=True)
            if fields[b"type"] == b"DeclarationMade"
        ]
        for seq in declarations:  # each declaration is one acked command's: none doubled
            assert any(first <= seq <= last for first, last in spans), seq
        problems = stream_problems(bots)
        assert not problems, problems
        unanswered = [s.cid for b in bots for s in b.sent if s.tries and not s.answers]
        assert not unanswered, f"never answered: {unanswered}"
        for bot in bots:
            for seq, event in bot.stream.events.items():
                assert event["$type"] == json.loads(entries[seq - 1][1][b"data"])["$type"]

        first_ack = min(
            at
            for bot in bots
            for sent in bot.sent
            for answer, at in zip(sent.answers, sent.answered_at, strict=True)
            if isinstance(answer, Ack) and at >= killed_at
        )
        longest = max(seconds for bot in bots for seconds in bot.latencies)
        refused = sum(
            1
            for bot in bots
            for sent in bot.sent
            for answer in sent.answers
            if isinstance(answer, Refused) and answer.code == "unavailable"
        )
        counts = answer_counts(bots)
        print(
            f"\nprimary killed: the sentinels promoted a replica {promoted:.2f}s later; the "
            f"first command acked after the kill came {first_ack - killed_at:.2f}s after it; "
            f"the longest wait for an answer was {longest:.2f}s; answers refused "
            f"'unavailable' and sent again with their cid: {refused}; "
            f"{len(acked)} commands acked ({len(acked_before)} before the kill), "
            f"{len(seqs)} events in the log; answers: "
            + ", ".join(f"{n} {what}" for what, n in counts.most_common())
        )
