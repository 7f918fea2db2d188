"""The host's workshop (`server/workshop.py`): jobs run in a worker process, one at a
time per lane, and a job of another lane waits behind one job of a busy lane, never
behind its whole pipeline."""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from collections.abc import AsyncIterator
from concurrent.futures.process import BrokenProcessPool

import pytest

from server.encounters import EncounterError
from server.engine.errors import CommandRefused
from server.workshop import Workshop
from tests.support.waiting import within

WORK = 0.1  # seconds each timed job works: long beside a task's first step


def worked(name: str) -> tuple[str, float, int]:
    """A job: `name`, when it started (the system's monotonic clock, the same in every
    process) and in which process."""
    started = time.monotonic()
    time.sleep(WORK)
    return name, started, os.getpid()


def refuse(problems: list[str]) -> None:
    raise EncounterError(problems)


def refuse_command(code: str, message: str) -> None:
    raise CommandRefused(code, message)


def die() -> None:
    os._exit(3)


@pytest.fixture
async def workshop() -> AsyncIterator[Workshop]:
    shop = Workshop()
    try:
        yield shop
    finally:
        await within(shop.close(), 30, "closing the workshop")


async def test_jobs_run_in_another_process(workshop: Workshop) -> None:
    _, _, pid = await within(workshop.run("a", worked, "one"), 30)
    assert pid != os.getpid()


async def test_a_lane_s_jobs_take_turns_with_another_lane_s(workshop: Workshop) -> None:
    """Three jobs of lane `a`, then one of lane `b`, asked at once: `b`'s runs second,
    after the one job of `a` already in the pool, not after all three."""
    await within(workshop.start(), 30)
    jobs = [workshop.run("a", worked, f"a{n}") for n in range(3)]
    jobs.append(workshop.run("b", worked, "b0"))
    done = await within(asyncio.gather(*jobs), 30)
    order = [name for name, _, _ in sorted(done, key=lambda job: job[1])]
    assert order == ["a0", "b0", "a1", "a2"]
    assert workshop.lanes == 0  # lanes nobody uses are forgotten


async def test_a_lane_runs_one_job_at_a_time_however_many_workers() -> None:
    workshop = Workshop(workers=2)
    try:
        done = await within(
            asyncio.gather(*(workshop.run("a", worked, f"a{n}") for n in range(3))), 30
        )
    finally:
        await within(workshop.close(), 30)
    starts = sorted(started for _, started, _ in done)
    assert all(later - earlier >= WORK for earlier, later in itertools.pairwise(starts))


async def test_a_refusal_comes_back_whole(workshop: Workshop) -> None:
    with pytest.raises(EncounterError) as refused:
        await within(workshop.run("a", refuse, ["one: bad", "two: worse"]), 30)
    assert refused.value.problems == ["one: bad", "two: worse"]
    with pytest.raises(CommandRefused) as command:
        await within(workshop.run("a", refuse_command, "invalid_command", "no"), 30)
    assert (command.value.code, command.value.message) == ("invalid_command", "no")


async def test_a_dead_worker_fails_its_job_and_the_next_job_gets_a_fresh_one(
    workshop: Workshop,
) -> None:
    _, _, first = await within(workshop.run("a", worked, "before"), 30)
    with pytest.raises(BrokenProcessPool):
        await within(workshop.run("a", die), 30)
    _, _, second = await within(workshop.run("a", worked, "after"), 30)
    assert second != first
