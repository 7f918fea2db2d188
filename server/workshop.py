"""The host's workshop: heavy requests, worked out where they cannot hold up the event
loop.

Reading the sheet a GM sends (`read_sheet`), building the encounter a host uploads
(`create`) and replaying a room's log (the GM's `peek`, a `Rewind`) each cost tens to
hundreds of milliseconds of CPU for one 64 KiB frame. On the event loop that time is
taken from every room of the process: a GM pipelining 20 sheets of 60 KB a second,
within the command rate, held a spectator's `ping` in another room for up to 0.4 s
(tests/server/test_heavy_requests.py). So they are worked out here:

* **in a bounded pool**: `workers` worker processes (one by default: on a small
  machine the event loop keeps a core of its own). A job is a plain function of
  plain inputs (text, data, records), sent to a worker and its answer sent back
  pickled; the loop only waits. Why processes and not threads: docs/architecture.md,
  "Heavy requests off the loop".
* **one job at a time per lane**. A lane is whose work it is: `HOST_LANE` for every
  upload (any host token is the operator's), `room_lane(room)` for a room's sheets,
  peeks and rewinds, whichever of its GM's connections asks. A host or a GM with many
  connections has one job in the pool at a time, and the pool takes jobs in the
  order they came: anyone else's job waits behind at most one job of each busy lane,
  never behind a pipeline.
* **bounded**: what a job reads is bounded before it is sent here, by the frame (64
  KiB: a sheet, an upload's files) and by `server.encounter_files.MAX_SHEETS_TEXT`
  (the sheets an uploaded encounter builds, counted for each combatant).

A worker that dies (killed, out of memory) fails the job it had with
`BrokenProcessPool` (the request's connection gets `internal_error`) and the next job
starts a fresh pool. A worker imports the main module of the program that serves, as
`multiprocessing` does: a program that runs a server guards its start with
`if __name__ == "__main__"` (`python -m server` and `combat-server` do).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import logging
import multiprocessing
import signal
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, ParamSpec, TypeVar

from server.engine.core import RULESETS, Event, replay
from server.engine.state import Encounter
from server.engine.views import GM_AUDIENCE
from server.table.view import table_view

logger = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

JOB_MODULES = (__name__, "server.encounter_files", "server.sheet_files")
"""The modules of the jobs the host sends here, imported by the workers before the
first job."""
HOST_LANE = "host"
"""The lane of every upload (`create`)."""


def room_lane(room_id: str) -> str:
    """The lane of room `room_id`'s sheets, peeks and rewinds."""
    return f"room:{room_id}"


class _Lane:
    """A lane's turn (`lock`), and how many wait for it or hold it (`users`): a lane
    nobody uses is forgotten, so rooms come and go without leaving one behind."""

    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


class Turn:
    """A lane's turn, held: jobs run in the pool one after another."""

    def __init__(self, workshop: Workshop) -> None:
        self._workshop = workshop

    async def run(self, job: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._workshop._work(functools.partial(job, *args, **kwargs))


class Workshop:
    """The pool and its lanes (the module's docstring). The pool starts with the
    first job, or at `start`."""

    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise ValueError("a workshop needs a worker")
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._rules: tuple[str, ...] = ()  # the rule modules its workers imported
        self._lanes: dict[str, _Lane] = {}

    async def start(self) -> None:
        """Start the pool's workers now, so that the first request does not wait for a
        worker process to start and import the rules."""
        await self._work(_nothing)

    async def run(self, lane: str, job: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`job(*args, **kwargs)` in the pool, in `lane`'s turn."""
        async with self.lane(lane) as turn:
            return await turn.run(job, *args, **kwargs)

    @contextlib.asynccontextmanager
    async def lane(self, name: str) -> AsyncIterator[Turn]:
        """Wait for lane `name`'s turn and hold it: for a request whose job needs
        reading first (a peek reads the log), so a lane's reading waits its turn too."""
        lane = self._lanes.get(name)
        if lane is None:
            lane = self._lanes[name] = _Lane()
        lane.users += 1
        try:
            async with lane.lock:
                yield Turn(self)
        finally:
            lane.users -= 1
            if not lane.users:
                del self._lanes[name]

    @property
    def lanes(self) -> int:
        """Lanes with a job running or waiting."""
        return len(self._lanes)

    async def _work(self, job: Callable[[], T]) -> T:
        pool = self._pool
        rules = rule_modules()
        if pool is not None and rules != self._rules:  # a ruleset registered since
            self._pool = None
            pool.shutdown(wait=False)
            pool = None
        if pool is None:
            pool = self._pool = self._new_pool(rules)
            self._rules = rules
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, job)
        except BrokenProcessPool:
            logger.error("a workshop worker died: the next job starts a fresh one")
            if self._pool is pool:
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
            raise

    def _new_pool(self, rules: tuple[str, ...]) -> ProcessPoolExecutor:
        # Not forked from this process, whose threads (the log's) may hold locks: each
        # worker is forked from a server process started for it, which has imported
        # this module (and so the built-in rules) once; a worker then imports the
        # modules of every ruleset registered here, so a plug-in's rules are its too.
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(JOB_MODULES))
        return ProcessPoolExecutor(
            self.workers, mp_context=context, initializer=_worker_start, initargs=(rules,)
        )

    async def close(self) -> None:
        """Stop the workers: the job running finishes, those waiting are dropped."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)


def _nothing() -> None:
    """A job that does nothing: it starts a worker."""


def rule_modules() -> tuple[str, ...]:
    """The modules that define the rules of every ruleset registered in this process:
    a ruleset registers itself when its module is imported (a plug-in's too), so a
    worker that imports them knows the same rulesets."""
    return tuple(
        sorted(
            {
                rule.__module__
                for ruleset in RULESETS.values()
                for rule in (*ruleset.deciders.values(), *ruleset.appliers.values())
            }
        )
    )


def _worker_start(rules: Sequence[str]) -> None:
    """In each worker, first: Ctrl-C in a terminal interrupts the whole process group,
    and the server stops its workers itself once its connections are closed; a worker
    interrupted first would only print a traceback and fail the job it had. Then the
    rules of every ruleset the server has registered (`rule_modules`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for module in rules:
        importlib.import_module(module)


# -- jobs: plain functions of plain inputs, run in a worker ---------------------------


def replayed(start: Encounter, events: Sequence[Event]) -> Encounter:
    """The fight after `events` from `start` (a `Rewind`)."""
    return replay(start, list(events))


def gm_table_after(start: Encounter, events: Sequence[Event]) -> Mapping[str, Any]:
    """The GM's table after `events` from `start` (a `peek`): the table, smaller than
    the state, is what comes back."""
    return table_view(replay(start, list(events)), GM_AUDIENCE)
