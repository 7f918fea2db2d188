"""Whether this process may acknowledge what it wrote to Redis behind Sentinel: the
primary it writes to is the one a majority of the sentinels vouch for, recently enough
that no failover can have begun since.

Why. A process cut off from the rest of the cluster together with its primary goes on
writing to it, while the sentinels on the other side promote a replica; when the
partition heals, the old primary becomes the new one's replica and drops everything it
took meanwhile. Redis's own documentation says as much (Sentinel with asynchronous
replication can lose acknowledged writes in a partition; `WAIT` does not make it
strongly consistent), and a lease kept in Redis cannot stop it: each side reads its
own Redis. What can is the rule a failover obeys. The sentinels begin one only once
`quorum` of them find the primary down, and a sentinel finds it down only
`down-after-milliseconds` after sending it a ping still unanswered (Redis's
`sentinelCheckSubjectivelyDown`). So a sentinel that names our primary (by its run id,
which a restart or another server cannot share), finds it up and connected, and says
its oldest unanswered ping went out `p` ms ago (`last-ping-sent`; or, should the link
drop, its last good answer came then: `last-ok-ping-reply`, so `p` is the larger)
cannot find it down before `down_after - p` ms from the moment we asked. A sentinel
whose failover is under way vouches for nothing. With enough such vouches (a majority of
the sentinels, and so many that those who did not vouch are fewer than the quorum), no
failover can start before the earliest moment enough of the vouchers could find the
primary down: until then, what this process writes to its primary is the cluster's log.
Past it, appends are refused as unconfirmed (`Unconfirmed`), so a process cut off with
its primary stops acknowledging before the other side can promote anyone, and two
processes never acknowledge one room's commands at once.

A lease on primacy, renewed by asking every sentinel at once every `EVERY` seconds (or
more often: `LOOKS`); `MARGIN` of the down-after time is kept back for the drift
between our clock and the sentinels', and for the time between the look and the
acknowledgement. A manual `SENTINEL FAILOVER` by an operator is not covered: it begins
at once.

It also counts the replicas the vouching sentinels see up and those the primary has
attached, for `--redis-durability every-replica` (server/eventlog/redis.py): an append
acknowledged once every one of them has it is on whichever replica a failover
promotes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from server.redis_clients import RedisSettings, find_the_primary_again, text

logger = logging.getLogger(__name__)

EVERY = 0.5
"""Seconds between two looks at most (a look costs two small commands per sentinel);
more often when the sentinels' down-after time is short (`LOOKS`)."""
LOOKS = 6
"""Looks within one down-after time at the least: a look or two delayed on a busy
machine does not let the lease lapse."""
MARGIN = 0.2
"""The share of the down-after time kept back (1 s of the usual 5 s)."""
RUN_ID = """
local info = redis.call('INFO', 'server', 'replication')
local run_id = string.match(info, 'run_id:(%w+)')
return {run_id, tonumber(string.match(info, 'connected_slaves:(%d+)'))}
"""
"""The run id of the Redis running it, and the replicas attached to it: which server a
pipeline's writes went to (server/eventlog/redis.py runs it after every batch)."""
REFIND = 2.0
"""Seconds between two times every connection is made to find the primary again."""
ASK_TIMEOUT = 1.0
"""Seconds a look waits for the sentinels: one that has not answered by then vouches
for nothing this time."""


DOWN = frozenset({"s_down", "o_down", "disconnected"})
"""The flags of an instance a sentinel cannot vouch for or promote."""


@dataclass(frozen=True, slots=True)
class Vouch:
    """What one sentinel says of the primary it watches (`SENTINEL MASTER`)."""

    run_id: str
    down: bool  # the sentinel finds it down or unlinked, or a failover is under way
    pending_ms: int  # since the sentinel's clock towards "down" started (below)
    down_after_ms: int
    quorum: int
    sentinels: int  # the sentinels this one knows, itself included

    @classmethod
    def of(cls, state: dict[str, Any]) -> Vouch:
        return cls(
            run_id=str(state.get("runid", "")),
            down=bool(_flags(state) & {*DOWN, "failover_in_progress"}),
            # the ping it waits for went out `last-ping-sent` ago; a link that drops
            # counts from the last good answer instead: the larger bounds both
            pending_ms=max(
                int(state.get("last-ping-sent", 0)), int(state.get("last-ok-ping-reply", 0))
            ),
            down_after_ms=int(state.get("down-after-milliseconds", 0)),
            quorum=int(state.get("quorum", 1)),
            sentinels=int(state.get("num-other-sentinels", 0)) + 1,
        )


def vouched_until(
    asked_at: float, run_id: str, vouches: Sequence[Vouch | None], configured: int
) -> float | None:
    """Until when (on the clock `asked_at` was read from, just before asking) no
    failover can have replaced the primary whose run id is `run_id`, or None when the
    sentinels do not vouch for it: fewer than a majority name it and find it up, or
    those who do not are enough to find it down by themselves. `vouches`: one per
    sentinel asked, None where it did not answer; `configured`: the sentinels this
    process was given (a sentinel that knows more raises the count)."""
    count = max([configured, *(vouch.sentinels for vouch in vouches if vouch is not None)])
    vouching = [v for v in vouches if v is not None and v.run_id == run_id and not v.down]
    if not run_id or len(vouching) < count // 2 + 1:
        return None
    quorum = min(vouch.quorum for vouch in vouches if vouch is not None)
    need = quorum - (count - len(vouching))
    if need <= 0 or need > len(vouching):  # the others alone could begin a failover
        return None
    deadlines = sorted(
        asked_at + ((1 - MARGIN) * v.down_after_ms - v.pending_ms) / 1000 for v in vouching
    )
    return deadlines[need - 1]


def replicas_up(listings: Sequence[Sequence[dict[str, Any]] | None]) -> int:
    """The replicas some vouching sentinel lists and finds up: the ones a failover
    could promote."""
    up = {
        (str(replica.get("ip")), int(replica.get("port", 0)))
        for listing in listings
        for replica in listing or ()
        if not _flags(replica) & DOWN
    }
    return len(up)


def _flags(state: dict[str, Any]) -> set[str]:
    """An instance's flags as a sentinel gives them (a string with RESP2, a set with
    RESP3)."""
    flags = state.get("flags", "")
    return set(flags.split(",")) if isinstance(flags, str) else set(flags)


class Primacy:
    """Whether what this process writes is the cluster's log (the module's docstring):
    `holds()` while the sentinels' vouches last; `replicas` the replicas they see up."""

    def __init__(
        self,
        settings: RedisSettings,
        primary: Redis,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        assert settings.sentinels, "primacy is the sentinels' to vouch for"
        self.service = settings.service
        self.clock = clock
        self.every = EVERY
        self._primary = primary
        self._sentinels = settings.sentinel_clients(timeout=ASK_TIMEOUT)
        self.until = -math.inf
        self.run_id = ""  # the primary the sentinels last vouched for
        self.replicas = 0
        self.shown_at = -math.inf  # when the vouches last held
        self._refound = -math.inf  # when connections were last made to find the primary
        self.strayed = False  # a batch ran elsewhere: find the primary again at the next look
        self._task: asyncio.Task[None] | None = None

    def holds(self) -> bool:
        return self.clock() < self.until

    def holds_for(self, run_id: str) -> bool:
        """Whether a write the Redis of `run_id` ran may be acknowledged now: it is the
        primary the sentinels vouch for, and their vouches last. A pool's connections
        may reach different servers (one opened while a sentinel still named the old
        primary), so the run id is the one the write's own connection reported; one
        that is not the vouched one has the connections find the primary again at the
        next look."""
        if run_id != self.run_id:
            self.strayed = True
        return run_id == self.run_id and self.holds()

    def why_not(self) -> str:
        """Why this process may not acknowledge now, for the refusal and the log."""
        since = self.clock() - self.shown_at
        when = "never" if math.isinf(since) else f"{since:.1f}s ago"
        return (
            "this server cannot show that its Redis is the primary a majority of the "
            f"sentinels name (last shown {when}): it may be cut off from the cluster"
        )

    async def start(self) -> None:
        """Look once (so a healthy cluster acknowledges from the first command), then
        keep looking in the background."""
        await self.look()
        self._task = asyncio.create_task(self._watch(), name="primacy")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for sentinel in self._sentinels:
            await sentinel.aclose()
        self.until = -math.inf

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.look()
            except Exception:  # a bug here must not end the watch: the lease lapses
                logger.exception("looking at the sentinels failed")

    async def look(self) -> None:
        """Ask the primary its run id and every sentinel what it thinks of the primary,
        all at once; renew the lease if they vouch for it. A look that fails leaves the
        lease to run out on its own."""
        asked_at = self.clock()
        primary, *answers = await asyncio.gather(
            self._primary_info(), *(self._ask(sentinel) for sentinel in self._sentinels)
        )
        run_id, attached = primary if primary is not None else ("", 0)
        vouches = [answer[0] if answer is not None else None for answer in answers]
        until = vouched_until(asked_at, run_id, vouches, len(self._sentinels))
        if until is None:
            await self._lost(run_id, vouches)
            return
        if self.strayed:  # a batch ran on another server than the one vouched for
            self.strayed = False
            await self._refind()
        vouching = [
            answer[1]
            for answer in answers
            if answer is not None and answer[0].run_id == run_id and not answer[0].down
        ]
        # and every replica the primary has: WAIT counts any of them
        self.replicas = max(replicas_up(vouching), attached)
        # vouches for another primary than before: this one's alone count
        self.until = max(self.until, until) if run_id == self.run_id else until
        self.run_id = run_id
        self.shown_at = asked_at
        shortest = min(v.down_after_ms for v in vouches if v is not None) / 1000
        self.every = min(EVERY, shortest / LOOKS)

    async def _lost(self, run_id: str, vouches: Sequence[Vouch | None]) -> None:
        """No vouch for what this process reaches: if a majority of the sentinels name
        one primary and it is not the one this process reaches (or that one did not
        answer), the lease ends at once and every connection finds the primary again."""
        named = [v.run_id for v in vouches if v is not None and not v.down and v.run_id]
        if not named:
            return
        most = max(set(named), key=named.count)
        if named.count(most) < len(self._sentinels) // 2 + 1 or most == run_id:
            return
        self.until = -math.inf  # they name another: what this one takes is not the log
        logger.warning("the sentinels name another primary than the one this server reaches")
        await self._refind()

    async def _refind(self) -> None:
        """Have every connection find the primary again, at most every `REFIND` s."""
        now = self.clock()
        if now - self._refound < REFIND:
            return
        self._refound = now
        await find_the_primary_again()

    async def _primary_info(self) -> tuple[str, int] | None:
        """The primary's run id and how many replicas it has attached, as the script
        the log's batches run reports them (`RUN_ID`)."""
        try:
            found: Any = await asyncio.wait_for(self._primary.eval(RUN_ID, 0), ASK_TIMEOUT)
        except (RedisError, OSError, TimeoutError):
            return None
        run_id, attached = found
        return text(run_id), int(attached)

    async def _ask(self, sentinel: Redis) -> tuple[Vouch, list[dict[str, Any]]] | None:
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                state: Any = await sentinel.sentinel_master(self.service)
                replicas: Any = await sentinel.sentinel_slaves(self.service)
        except (RedisError, OSError, TimeoutError):
            return None
        return Vouch.of(state), list(replicas)


__all__ = ["Primacy", "Vouch", "replicas_up", "vouched_until"]
