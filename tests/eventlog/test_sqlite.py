"""What only the SQLite log promises: the file outlives the process, and writers share it.

The contract tests (test_contract*.py) run on SQLite too; these add restarts, crashes,
two writers on one file, and the loop staying free while SQLite waits.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from server.engine.commands import Paused, Resumed
from server.engine.state import Encounter
from server.eventlog import Applied, Entry, Invite, RoomCard, Snapshot, VersionConflict
from server.eventlog.sqlite import SCHEMA_VERSION, SqliteEventLog
from tests.support.waiting import within

ROOT = Path(__file__).resolve().parents[2]
EMPTY = Encounter(id="e", ruleset="verse", combatants={})
RACE = 30.0
"""Seconds a batch of appends racing on one file may take, each synced to disk."""


def by(entry: Entry) -> str:
    """Who paused or resumed: the events these tests write."""
    assert isinstance(entry.event, (Paused, Resumed))
    return entry.event.by


@contextmanager
def write_lock(path: Path) -> Iterator[None]:
    """Hold the database's write lock from another connection, as another writer would."""
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield
        other.execute("COMMIT")
    finally:
        other.close()


async def test_everything_survives_closing_and_reopening_the_file(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite"
    async with SqliteEventLog(path) as log:
        await log.save_initial("r", EMPTY)
        await log.append("r", [Paused("ayla"), Resumed("gm")], expected_version=0)
        await log.save_snapshot("r", 2, EMPTY)

    async with SqliteEventLog(path) as restarted:
        assert await restarted.rooms() == ["r"]
        assert await restarted.load_initial("r") == EMPTY
        assert await restarted.latest_snapshot("r") == Snapshot(2, EMPTY)
        assert await restarted.read("r") == [
            Entry(1, Paused("ayla"), ends_batch=False),
            Entry(2, Resumed("gm")),
        ]
        assert await restarted.append("r", [Paused("gm")], expected_version=2) == 3


async def test_invites_and_cards_survive_a_restart_and_an_older_file_gets_their_tables(
    tmp_path: Path,
) -> None:
    path = tmp_path / "events.sqlite"
    async with SqliteEventLog(path) as log:
        await log.save_initial("r", EMPTY)
    with sqlite3.connect(path) as raw:  # as a server before invites left the file
        raw.execute("DROP TABLE invites")
        raw.execute("DROP TABLE cards")
        raw.execute("PRAGMA user_version = 3")
    invite = Invite("AYLA234567", "r", "player", "ayla", ("ayla",))

    async with SqliteEventLog(path) as upgraded:
        await upgraded.add_invites([invite, Invite("GMCODE2345", "r", "gm")])
        await upgraded.revoke_invite("r", "GMCODE2345")
        await upgraded.save_card("r", RoomCard("Duel", "verse", "live", ("ayla",)))

    async with SqliteEventLog(path) as restarted:
        assert await restarted.rooms() == ["r"]
        assert await restarted.find_invite("AYLA234567") == invite
        assert await restarted.find_invite("GMCODE2345") is None
        assert await restarted.load_card("r") == RoomCard("Duel", "verse", "live", ("ayla",))
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


async def test_an_acknowledged_append_is_readable_by_a_new_opener_without_a_close(
    tmp_path: Path,
) -> None:
    """A crash between two appends: the first log is never closed, a second opens the file."""
    path = tmp_path / "events.sqlite"
    first = SqliteEventLog(path)
    try:
        await first.append("r", [Paused("ayla")], expected_version=0)

        async with SqliteEventLog(path) as second:
            assert await second.read("r") == [Entry(1, Paused("ayla"))]
            assert await second.version("r") == 1
    finally:
        await first.close()


async def test_a_killed_process_loses_nothing_it_acknowledged(tmp_path: Path) -> None:
    """SIGKILL right after the last acknowledged append: no close, no checkpoint."""
    path = tmp_path / "events.sqlite"
    child = textwrap.dedent(
        """
        import asyncio, os, signal, sys
        from server.engine.commands import Paused
        from server.eventlog.sqlite import SqliteEventLog

        async def main() -> None:
            log = SqliteEventLog(sys.argv[1])
            for n in range(5):
                print(await log.append("r", [Paused(f"p{n}")], expected_version=n), flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

        asyncio.run(main())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", child, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == -signal.SIGKILL, done.stderr
    assert done.stdout.split() == ["1", "2", "3", "4", "5"]  # the acknowledgements
    assert (tmp_path / "events.sqlite-wal").stat().st_size > 0  # left behind, not checkpointed
    async with SqliteEventLog(path) as restarted:
        assert await restarted.read("r") == [Entry(n + 1, Paused(f"p{n}")) for n in range(5)]


async def test_two_writers_on_one_file_one_wins_the_other_gets_a_version_conflict(
    tmp_path: Path,
) -> None:
    """Both built on version 0 and waiting for the lock; the check is inside the lock."""
    path = tmp_path / "events.sqlite"
    async with SqliteEventLog(path) as one, SqliteEventLog(path) as two:
        with write_lock(path):
            appends = [
                asyncio.create_task(one.append("r", [Paused("one"), Resumed("one")], 0)),
                asyncio.create_task(two.append("r", [Paused("two")], 0)),
            ]
            await asyncio.sleep(0.2)  # both reach BEGIN IMMEDIATE and wait for the lock
            assert not any(task.done() for task in appends)
        results = await within(
            asyncio.gather(*appends, return_exceptions=True), what="both appends after the lock"
        )

        conflicts = [r for r in results if isinstance(r, VersionConflict)]
        assert len(conflicts) == 1 and conflicts[0].expected == 0
        winner = "one" if results[0] == 2 else "two"
        assert results == ([2, conflicts[0]] if winner == "one" else [conflicts[0], 1])
        entries = await one.read("r")
        assert [entry.seq for entry in entries] == list(range(1, len(entries) + 1))
        assert {by(entry) for entry in entries} == {winner}


async def test_a_writer_behind_another_on_the_same_file_gets_a_conflict_and_writes_nothing(
    tmp_path: Path,
) -> None:
    """A log does not read a room's version again when the caller expects the one it
    last committed itself; another writer's rows in between are still a conflict."""
    path = tmp_path / "events.sqlite"
    async with SqliteEventLog(path) as one, SqliteEventLog(path) as two:
        assert await one.append("r", [Paused("one")], 0, command_key="one/c-1") == 1
        assert await two.append("r", [Paused("two")], 1, command_key="two/c-1") == 2

        with pytest.raises(VersionConflict) as refused:
            await one.append("r", [Resumed("one"), Paused("one")], 1, command_key="one/c-2")
        assert (refused.value.expected, refused.value.actual) == (1, 2)
        with pytest.raises(VersionConflict):
            await one.append("r", [], 1)  # an empty batch is checked all the same
        assert await one.append("r", [Resumed("one")], 2) == 3  # built on the news

        assert [by(e) for e in await two.read("r")] == ["one", "two", "one"]
        assert [a.key for a in await two.recent_commands("r", 5)] == ["one/c-1", "two/c-1"]


async def test_two_writers_racing_with_retries_leave_a_gap_free_log(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite"

    async def write(log: SqliteEventLog, name: str, count: int) -> int:
        conflicts = 0
        for n in range(count):
            while True:
                version = await log.version("r")
                try:
                    await log.append("r", [Paused(f"{name}{n}")], expected_version=version)
                    break
                except VersionConflict:
                    conflicts += 1
        return conflicts

    async with SqliteEventLog(path) as one, SqliteEventLog(path) as two:
        await within(
            asyncio.gather(write(one, "a", 40), write(two, "b", 40)), RACE, "the two writers"
        )

        entries = await two.read("r")
    assert [entry.seq for entry in entries] == list(range(1, 81))
    names = [by(entry) for entry in entries]
    assert sorted(names) == sorted([f"a{n}" for n in range(40)] + [f"b{n}" for n in range(40)])
    assert [n for n in names if n[0] == "a"] == [f"a{n}" for n in range(40)]  # each in order


async def test_the_loop_runs_on_while_sqlite_waits_for_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite"
    async with SqliteEventLog(path) as log:
        with write_lock(path):
            append = asyncio.create_task(log.append("r", [Paused("a")], expected_version=0))
            loop = asyncio.get_running_loop()
            started = loop.time()
            await asyncio.sleep(0.05)  # would not wake before the append if it blocked the loop
            assert loop.time() - started < 1.0
            assert not append.done()
        assert await within(append, what="the append after the lock") == 1


async def test_each_event_is_one_row_with_its_type_and_its_data(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite"
    async with SqliteEventLog(path) as log:
        await log.append("r", [Paused("ayla"), Resumed("gm")], expected_version=0)

    with sqlite3.connect(path) as raw:
        rows = raw.execute("SELECT room_id, seq, type, data FROM events ORDER BY seq").fetchall()
        (journal,) = raw.execute("PRAGMA journal_mode").fetchone()
    raw.close()
    assert [row[:3] for row in rows] == [("r", 1, "Paused"), ("r", 2, "Resumed")]
    assert rows[0][3] == '{"$type":"Paused","by":"ayla"}'
    assert journal == "wal"


async def test_every_commit_is_synced_to_disk(tmp_path: Path) -> None:
    """synchronous=FULL (2) is per connection: ask the log's own connection."""
    async with SqliteEventLog(tmp_path / "events.sqlite") as log:
        (level,) = await log._run(lambda c: c.execute("PRAGMA synchronous").fetchone())
    assert level == 2


async def test_a_closed_log_refuses_calls_and_closes_once(tmp_path: Path) -> None:
    log = SqliteEventLog(tmp_path / "events.sqlite")
    await log.close()
    await log.close()

    with pytest.raises(RuntimeError, match="closed"):
        await log.version("r")


async def test_a_file_with_a_newer_schema_is_not_opened(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite"
    with sqlite3.connect(path) as raw:
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.close()

    with pytest.raises(RuntimeError, match="newer"):
        SqliteEventLog(path)


async def test_appends_made_together_commit_together_and_each_keeps_its_check(
    tmp_path: Path,
) -> None:
    """Group commit: appends queued while the writer is busy share one transaction, yet
    a conflicting one fails alone and the others commit, in the order they came."""
    async with SqliteEventLog(tmp_path / "events.sqlite") as log:
        together = asyncio.gather(
            *(
                log.append(f"room-{i}", [Paused(f"p{i}")], 0, command_key=f"k{i}")
                for i in range(40)
            ),
            log.append("room-0", [Resumed("late")], 0),  # built on a version already taken
            log.append("room-1", [Resumed("next")], 1),  # follows room-1's first append
            return_exceptions=True,
        )
        results = await within(together, RACE, "42 appends made together")

    assert results[:40] == [1] * 40
    assert isinstance(results[40], VersionConflict)
    assert results[41] == 2
    async with SqliteEventLog(tmp_path / "events.sqlite") as reopened:
        assert [by(e) for e in await reopened.read("room-0")] == ["p0"]
        assert [by(e) for e in await reopened.read("room-1")] == ["p1", "next"]
        assert (await reopened.recent_commands("room-7", 5))[0].key == "k7"


async def test_a_file_keeping_command_keys_in_a_table_of_their_own_keeps_them_when_opened(
    tmp_path: Path,
) -> None:
    """Schema 4 kept command keys in a table `commands`; schema 5 keeps each in its
    batch's last row. A server upgraded over such a file still answers a retry."""
    path = tmp_path / "events.sqlite"
    with sqlite3.connect(path) as raw:  # the tables of a schema 4 file, as it wrote them
        raw.executescript(
            """
            PRAGMA journal_mode = WAL;
            CREATE TABLE events (room_id TEXT NOT NULL, seq INTEGER NOT NULL,
                type TEXT NOT NULL, data TEXT NOT NULL,
                ends_batch INTEGER NOT NULL DEFAULT 1,
                PRIMARY KEY (room_id, seq)) WITHOUT ROWID;
            CREATE TABLE commands (room_id TEXT NOT NULL, key TEXT NOT NULL,
                first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL,
                PRIMARY KEY (room_id, key)) WITHOUT ROWID;
            CREATE INDEX commands_by_seq ON commands (room_id, last_seq);
            INSERT INTO events VALUES
                ('r', 1, 'Paused', '{"$type": "Paused", "by": "ayla"}', 0),
                ('r', 2, 'Resumed', '{"$type": "Resumed", "by": "ayla"}', 1),
                ('r', 3, 'Paused', '{"$type": "Paused", "by": "gm"}', 1);
            INSERT INTO commands VALUES ('r', 'ayla/c-1', 1, 2), ('r', 'gm/c-1', 3, 3);
            PRAGMA user_version = 4;
            """
        )

    async with SqliteEventLog(path) as upgraded:
        assert await upgraded.recent_commands("r", 10) == [
            Applied("ayla/c-1", 1, 2),
            Applied("gm/c-1", 3, 3),
        ]
        assert [by(e) for e in await upgraded.read("r")] == ["ayla", "ayla", "gm"]
        await upgraded.append("r", [Resumed("gm")], 3, command_key="ayla/c-1")  # given again
        assert await upgraded.recent_commands("r", 10) == [
            Applied("gm/c-1", 3, 3),
            Applied("ayla/c-1", 4, 4),
        ]
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        tables = {name for (name,) in raw.execute("SELECT name FROM sqlite_master")}
        assert "commands" not in tables and "commands_by_seq" not in tables
