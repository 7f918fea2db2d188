"""What one process tells its operators about its Redis: two lines per outage.

While Redis is out of reach every part of a cluster process finds out on its own: each
room's lease keeper, each append, each subscription and its retries. Logged one by one
that is a line per attempt (dozens a second), for one cause. Instead each of them
reports here, and an `Outage` logs:

- one WARNING when the first operation fails (what failed, and why), and
- one WARNING when Redis answers again, `quiet` seconds after the first operation that
  succeeded with no failure since, with how long it lasted, how many operations
  failed and how many commands were refused with `unavailable` meanwhile.

What happened in between goes to DEBUG. A failure within `quiet` of a success belongs
to the same outage: a Redis that answers one call in three is still out, not forty
short outages. One more WARNING is logged for each cause the operator must act on
that shows up during an outage (`explain` names it: a Redis that refuses the
password, a TLS handshake that fails, no replica confirming writes), once per outage:
a Redis restarted with another password is then told apart from one still starting.

An outage is the want of Redis (refused or dropped connections, timeouts, a Redis
refusing writes). A refusal that proves Redis answered (a fenced append, a version
conflict) is not one; those are logged where they happen.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable

from server.logs import brief

logger = logging.getLogger(__name__)


class Outage:
    """One process's view of whether its Redis answers (the module's docstring)."""

    def __init__(
        self,
        name: str = "",
        *,
        quiet: float = 1.0,
        now: Callable[[], float] | None = None,
        explain: Callable[[BaseException], str | None] | None = None,
    ) -> None:
        self.name = name
        self.quiet = quiet
        self._explain = explain or (lambda error: None)
        self._explained: set[str] = set()  # the causes told during this outage
        self._now = now or (lambda: asyncio.get_running_loop().time())
        self.last_failure = -math.inf  # when the last failure came (the loop's clock)
        self._since: float | None = None  # when the first failure of this outage came
        self._answered_at: float | None = None  # a success since the last failure
        self._ending: asyncio.TimerHandle | None = None
        self.failed_operations = 0
        self.refused_commands = 0
        self.outages = 0  # how many began so far

    @property
    def down(self) -> bool:
        """Is Redis out of reach, as far as this process knows?"""
        return self._since is not None

    def failed(self, what: str, error: BaseException) -> None:
        """`what` (an operation on Redis) failed for want of Redis, with `error`."""
        now = self._now()
        self.last_failure = now
        self._answered_at = None
        cause = self._explain(error)
        if self._since is None:
            self._since = now
            self.failed_operations = 0
            self.refused_commands = 0
            self.outages += 1
            self._explained = set() if cause is None else {cause}
            logger.warning(
                "Redis out of reach: %s failed (%s); commands are refused with "
                "'unavailable' until it answers again",
                what,
                brief(error) if cause is None else f"{cause}; the server keeps trying",
                extra={"node": self.name},
            )
        elif cause is not None and cause not in self._explained:
            self._explained.add(cause)
            logger.warning(
                "Redis still out of reach: %s failed: %s; the server keeps trying",
                what,
                cause,
                extra={"node": self.name},
            )
        self.failed_operations += 1
        logger.debug("%s failed: %s", what, brief(error), extra={"node": self.name})

    def refused(self) -> None:
        """A command was refused with `unavailable` (counted while an outage lasts)."""
        if self._since is not None:
            self.refused_commands += 1

    def reached(self) -> None:
        """An operation on Redis succeeded: the outage ends if nothing fails for a while."""
        if self._since is None or self._answered_at is not None:
            return
        self._answered_at = self._now()
        if self._ending is None:
            self._ending = asyncio.get_running_loop().call_later(self.quiet, self._end)

    def _end(self) -> None:
        self._ending = None
        answered, since = self._answered_at, self._since
        if since is None or answered is None:  # failed again since: still out
            return
        early = self.quiet - (self._now() - answered)
        if early > 0:  # a success after a failure after the success that set this timer
            self._ending = asyncio.get_running_loop().call_later(early, self._end)
            return
        self._since = self._answered_at = None
        logger.warning(
            "Redis answers again after %.1fs out of reach (failed operations: %d, "
            "commands refused with 'unavailable': %d)",
            answered - since,
            self.failed_operations,
            self.refused_commands,
            extra={
                "node": self.name,
                "seconds": round(answered - since, 3),
                "failed": self.failed_operations,
                "refused": self.refused_commands,
            },
        )
