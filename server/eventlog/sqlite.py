"""The event log in a SQLite file: the embedded default, so a restart loses nothing.

Tables (schema version 5, in `PRAGMA user_version`):

- `events(room_id, seq, type, data, ends_batch, command_key, batch_first)`, primary key
  `(room_id, seq)`: one row per event, `data` the JSON of `records.to_data(event)` and
  `type` its record name (for people reading the file; decoding uses `data` alone). The
  last row of a batch appended with a command key (who sent the command and its client
  id) holds that key and the batch's first seq (schema 5; schema 3 and 4 kept them in a
  table `commands` of their own, moved into these rows when such a file is opened).
  In the row, the key costs no page of its own: the batch's rows are written anyway,
  in their room's last page, where a table of keys took two more pages a command (the
  key's and its index's), about 40% of what an append cost the writer
  (`bench.log_append`, bench/RESULTS.md);
- `rooms(room_id, initial)`: each room's initial encounter, written once;
- `snapshots(room_id, seq, state)`: each room's latest snapshot;
- `invites(code, room_id, role, seat, controls, revoked)`: the invite codes, in the
  order they were added (by rowid), a revoked one kept so that it is never given again;
  `cards(room_id, card)`: what the host said of each room (schema 4).

Optimistic concurrency (ARCHITECTURE, convention 5) is one transaction per append:
`BEGIN IMMEDIATE` takes the database's write lock, the version is read under it, the
rows are inserted and committed, or nothing is. (When the caller expects the version
this log itself last committed for the room, it is not read again: should another
writer have appended since, the primary key refuses the first row, and that refusal is
the `VersionConflict`.) Two `SqliteEventLog` objects (or two
processes) on one file are therefore safe: the second writer waits for the lock (up
to `busy_timeout` seconds, then `sqlite3.OperationalError`), sees the first writer's
rows and raises `VersionConflict`. The primary key would refuse a duplicate sequence
number even if that check were wrong.

Durability: WAL journal with `synchronous=FULL`. The room acknowledges a command only
after `append` returns, and `append` returns only after COMMIT, which under FULL
syncs the WAL file to disk (fsync) before it returns. So nothing acknowledged is ever
lost: not to a crash of the process (a killed server; the WAL is replayed when the
file is next opened) and not to a crash of the machine or a power cut, as far as the
disk honours fsync. The cost is one fsync per commit (and per initial encounter or
snapshot saved): an append's latency includes the disk's sync latency, and all rooms
share one writer thread, whose commits take every append waiting at the time (group
commit, below).
`synchronous=NORMAL` would skip that fsync in WAL mode and stay safe against a killed
process, but a power cut could lose the last commits — commands already acknowledged
— which is the one thing this log promises not to do. WAL (rather than a rollback
journal) lets readers of other connections go on while a write commits, and needs one
sync per commit rather than several.

Group commit: appends that arrive while the worker is busy are committed together, in
one transaction and one fsync, in the order they arrived; each keeps its own version
check (a savepoint per append), so a conflicting append fails alone and the others
commit. No append is acknowledged before the commit that holds it, so the promise
above is unchanged; what changes is that a hundred rooms acting at once pay for a few
fsyncs instead of a hundred.

The asyncio loop never waits on SQLite: one dedicated worker thread owns the
connection (a sqlite3 connection belongs to the thread that made it) and runs every
statement, one at a time, in submission order. Events and states are turned into
plain data (`to_data`) on the caller's side before the call, so what is stored is
the value at the time of the call, and a value that cannot be stored raises before
anything is written; JSON text and decoding happen in the worker.

An append whose caller is cancelled while it runs may still commit (the worker cannot
be interrupted); the log's `version` tells. Call `close()` (or use `async with`) when
done: it waits for the calls already submitted, then closes the file.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from os import PathLike
from typing import Any, Concatenate, ParamSpec, TypeVar

from server.engine.core import Event
from server.engine.records import from_data, to_data
from server.engine.state import Encounter
from server.eventlog import (
    Applied,
    Entry,
    Invite,
    InviteTaken,
    RoomCard,
    RoomExists,
    Snapshot,
    VersionConflict,
    card_from_data,
    card_to_data,
    encounter_from_data,
)

P = ParamSpec("P")
T = TypeVar("T")

SCHEMA_VERSION = 5
_LAST_SEQ = 2**63 - 1  # a read with no `until_seq` reads to the end
_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    room_id TEXT NOT NULL,
    seq INTEGER NOT NULL CHECK (seq >= 1),
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    ends_batch INTEGER NOT NULL DEFAULT 1,
    command_key TEXT,
    batch_first INTEGER,
    PRIMARY KEY (room_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rooms (
    room_id TEXT NOT NULL PRIMARY KEY,
    initial TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    room_id TEXT NOT NULL PRIMARY KEY,
    seq INTEGER NOT NULL CHECK (seq >= 0),
    state TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS invites (
    code TEXT NOT NULL PRIMARY KEY,
    room_id TEXT NOT NULL,
    role TEXT NOT NULL,
    seat TEXT NOT NULL,
    controls TEXT NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS invites_by_room ON invites (room_id);
CREATE TABLE IF NOT EXISTS cards (
    room_id TEXT NOT NULL PRIMARY KEY,
    card TEXT NOT NULL
) WITHOUT ROWID;
"""


class SqliteEventLog:
    """The `EventLog` of the SQLite file at `path` (created if missing)."""

    def __init__(self, path: str | PathLike[str], *, busy_timeout: float = 5.0) -> None:
        """Open (and if needed create) the file; raises at once if it cannot be used.

        Opening waits for the worker thread to connect: done once at start-up.
        """
        self.path = path
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-eventlog")
        self._connection: sqlite3.Connection | None = None
        self._closed = False
        self._lock = threading.Lock()
        self._pending: list[_Append] = []  # appends waiting for the next group commit
        self._versions: dict[str, int] = {}  # the worker's: each room's last committed seq
        self._flush_queued = False  # a flush job is submitted and has not taken them yet
        try:
            self._worker.submit(self._open, busy_timeout).result()
        except BaseException:
            self._worker.shutdown(wait=True)
            raise

    # -- the EventLog protocol ---------------------------------------------------------

    async def append(
        self,
        room_id: str,
        events: Sequence[Event],
        expected_version: int,
        command_key: str | None = None,
    ) -> int:
        rows = [(type(event).__name__, to_data(event)) for event in events]  # all, before any
        if self._closed:
            raise RuntimeError(f"the event log {self.path} is closed")
        loop = asyncio.get_running_loop()
        done: asyncio.Future[int] = loop.create_future()
        with self._lock:
            self._pending.append(_Append(room_id, rows, expected_version, command_key, done, loop))
            start = not self._flush_queued
            self._flush_queued = True
        if start:
            self._worker.submit(self._flush)
        return await done

    async def recent_commands(self, room_id: str, limit: int) -> list[Applied]:
        return await self._run(_recent_commands, room_id, limit)

    async def read(
        self, room_id: str, after_seq: int = 0, until_seq: int | None = None
    ) -> list[Entry]:
        return await self._run(_read, room_id, after_seq, until_seq)

    async def version(self, room_id: str) -> int:
        return await self._run(_version, room_id)

    async def save_initial(self, room_id: str, state: Encounter) -> None:
        # Made data in the log's thread, which shares the CPU with the event loop in
        # slices: a big encounter (an upload's, `encounter_files.MAX_SHEETS_TEXT`) takes
        # tens of milliseconds, too long to hold the loop.
        await self._run(_save_initial, room_id, state)

    async def load_initial(self, room_id: str) -> Encounter | None:
        return await self._run(_load_initial, room_id)

    async def rooms(self) -> list[str]:
        return await self._run(_rooms)

    async def save_snapshot(self, room_id: str, seq: int, state: Encounter) -> None:
        await self._run(_save_snapshot, room_id, seq, to_data(state))

    async def latest_snapshot(self, room_id: str) -> Snapshot | None:
        return await self._run(_latest_snapshot, room_id)

    async def add_invites(self, invites: Sequence[Invite]) -> None:
        rows = [(i.code, i.room_id, i.role, i.seat, _json(list(i.controls))) for i in invites]
        await self._run(_add_invites, rows)

    async def find_invite(self, code: str) -> Invite | None:
        return await self._run(_find_invite, code)

    async def invites(self, room_id: str) -> list[Invite]:
        return await self._run(_invites, room_id)

    async def revoke_invite(self, room_id: str, code: str) -> Invite | None:
        return await self._run(_revoke_invite, room_id, code)

    async def save_card(self, room_id: str, card: RoomCard) -> None:
        await self._run(_save_card, room_id, _json(card_to_data(card)))

    async def load_card(self, room_id: str) -> RoomCard | None:
        return await self._run(_load_card, room_id)

    async def close(self) -> None:
        """Finish the calls already submitted, close the file and stop the worker."""
        if self._closed:
            return
        self._closed = True
        try:
            await asyncio.get_running_loop().run_in_executor(self._worker, self._close)
        finally:
            self._worker.shutdown(wait=False)  # idle now: its last job was the close

    async def __aenter__(self) -> SqliteEventLog:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- the worker thread ---------------------------------------------------------------

    async def _run(
        self,
        job: Callable[Concatenate[sqlite3.Connection, P], T],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        if self._closed:
            raise RuntimeError(f"the event log {self.path} is closed")
        call = partial(self._call, job, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._worker, call)

    def _call(
        self,
        job: Callable[Concatenate[sqlite3.Connection, P], T],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        assert self._connection is not None, "the worker runs jobs only after _open"
        return job(self._connection, *args, **kwargs)

    def _flush(self) -> None:
        """Commit every pending append in one transaction (the worker thread)."""
        with self._lock:
            batch, self._pending = self._pending, []
            self._flush_queued = False
        if not batch:
            return
        results: list[int | BaseException] = []
        try:
            assert self._connection is not None, "the worker runs jobs only after _open"
            results = _append_all(self._connection, batch, self._versions)
        except BaseException as error:  # the commit itself failed: none of them is in
            results = [error] * len(batch)
            self._versions.clear()
        # One wake-up of each event loop for the whole batch, not one per append: each
        # `call_soon_threadsafe` writes to the loop's self-pipe, a system call a piece.
        settled: dict[
            asyncio.AbstractEventLoop, list[tuple[asyncio.Future[int], int | BaseException]]
        ] = {}
        for job, result in zip(batch, results, strict=True):
            settled.setdefault(job.loop, []).append((job.done, result))
        for loop, outcomes in settled.items():
            loop.call_soon_threadsafe(_settle_all, outcomes)

    def _open(self, busy_timeout: float) -> None:
        # isolation_level=None: no implicit transactions; each method says BEGIN itself.
        connection = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None)
        try:
            (mode,) = connection.execute("PRAGMA journal_mode = WAL").fetchone()
            if mode != "wal":
                raise sqlite3.OperationalError(f"{self.path}: cannot use WAL (journal {mode})")
            connection.execute("PRAGMA synchronous = FULL")
            _migrate(connection)
        except BaseException:
            connection.close()
            raise
        self._connection = connection

    def _close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


# -- the statements: each runs in the worker thread, given the connection --------------


def _migrate(connection: sqlite3.Connection) -> None:
    with _transaction(connection):
        (found,) = connection.execute("PRAGMA user_version").fetchone()
        if found > SCHEMA_VERSION:
            raise RuntimeError(f"event log schema {found} is newer than {SCHEMA_VERSION}")
        if found == 1:  # schema 1 had no batch ends: every event counts as one
            connection.execute(
                "ALTER TABLE events ADD COLUMN ends_batch INTEGER NOT NULL DEFAULT 1"
            )
        if found:  # an older file: schema 4 and older keep no command keys in the rows
            columns = {row[1] for row in connection.execute("PRAGMA table_info(events)")}
            for column, kind in (("command_key", "TEXT"), ("batch_first", "INTEGER")):
                if column not in columns:
                    connection.execute(f"ALTER TABLE events ADD COLUMN {column} {kind}")
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                connection.execute(statement)
        if _has_table(connection, "commands"):  # schema 3 and 4
            connection.execute(
                "UPDATE events SET command_key = c.key, batch_first = c.first_seq"
                " FROM commands AS c"
                " WHERE events.room_id = c.room_id AND events.seq = c.last_seq"
            )
            connection.execute("DROP TABLE commands")  # and its index
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _has_table(connection: sqlite3.Connection, name: str) -> bool:
    found = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return found is not None


class _transaction:
    """`BEGIN IMMEDIATE` ... `COMMIT`, or `ROLLBACK` on any error."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    def __enter__(self) -> None:
        self.connection.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        try:
            if kind is None:
                self.connection.execute("COMMIT")
        finally:  # an error in the body or in COMMIT itself: leave no transaction open
            if self.connection.in_transaction:
                self.connection.execute("ROLLBACK")


def _version(connection: sqlite3.Connection, room_id: str) -> int:
    row = connection.execute(
        "SELECT coalesce(max(seq), 0) FROM events WHERE room_id = ?", (room_id,)
    ).fetchone()
    version: int = row[0]
    return version


def _insert(
    connection: sqlite3.Connection,
    room_id: str,
    rows: list[tuple[str, Any]],
    expected: int,
    command_key: str | None,
    known: int | None,
) -> int:
    """One append's rows, inside the caller's transaction.

    `known`: the room's version as this log last committed it. When the caller expects
    just that, the version is not read again (a query an append): if another writer
    appended since, the primary key refuses the first row, and that is the conflict."""
    texts = [(kind, _json(data)) for kind, data in rows]
    if known != expected or not texts:  # nothing to insert: nothing would refuse it
        actual = _version(connection, room_id)
        if actual != expected:
            raise VersionConflict(room_id, expected, actual)
    first, last = expected + 1, expected + len(texts)
    key, first_if_key = (None, None) if command_key is None else (command_key, first)
    try:
        connection.executemany(
            "INSERT INTO events"
            " (room_id, seq, type, data, ends_batch, command_key, batch_first)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (room_id, seq, kind, text, 1, key, first_if_key)
                if seq == last
                else (room_id, seq, kind, text, 0, None, None)
                for seq, (kind, text) in enumerate(texts, first)
            ],
        )
    except sqlite3.IntegrityError:  # another writer took these numbers first
        raise VersionConflict(room_id, expected, _version(connection, room_id)) from None
    return last


@dataclass(slots=True)
class _Append:
    room_id: str
    rows: list[tuple[str, Any]]
    expected: int
    command_key: str | None
    done: asyncio.Future[int]
    loop: asyncio.AbstractEventLoop


def _settle_all(outcomes: list[tuple[asyncio.Future[int], int | BaseException]]) -> None:
    for done, result in outcomes:
        _settle(done, result)


def _settle(done: asyncio.Future[int], result: int | BaseException) -> None:
    if done.done():  # its caller was cancelled; the append may still have committed
        return
    if isinstance(result, BaseException):
        done.set_exception(result)
    else:
        done.set_result(result)


def _append_all(
    connection: sqlite3.Connection, batch: list[_Append], versions: dict[str, int]
) -> list[int | BaseException]:
    """Every append of `batch` in one transaction, each under its own savepoint: an
    append that fails (a version conflict) is rolled back alone. `versions` (each
    room's last committed seq) is brought up to date once the commit is done."""
    results: list[int | BaseException] = []
    within: dict[str, int] = {}  # the versions this transaction makes
    with _transaction(connection):
        for job in batch:
            room = job.room_id
            connection.execute("SAVEPOINT one_append")
            try:
                known = within.get(room, versions.get(room))
                last = _insert(connection, room, job.rows, job.expected, job.command_key, known)
            except Exception as error:
                connection.execute("ROLLBACK TO one_append")
                results.append(error)
            else:
                within[room] = last
                results.append(last)
            connection.execute("RELEASE one_append")
    versions.update(within)
    return results


def _recent_commands(connection: sqlite3.Connection, room_id: str, limit: int) -> list[Applied]:
    """The room's keyed batches from the newest back, each key once (a key given again
    points at its later batch), until `limit` are found."""
    found: dict[str, Applied] = {}
    if limit <= 0:
        return []
    rows = connection.execute(
        "SELECT command_key, batch_first, seq FROM events"
        " WHERE room_id = ? AND command_key IS NOT NULL ORDER BY seq DESC",
        (room_id,),
    )
    for key, first, last in rows:
        if key not in found:
            found[key] = Applied(key, first, last)
            if len(found) == limit:
                break
    return list(reversed(found.values()))


def _read(
    connection: sqlite3.Connection, room_id: str, after_seq: int, until_seq: int | None
) -> list[Entry]:
    rows = connection.execute(
        "SELECT seq, data, ends_batch FROM events"
        " WHERE room_id = ? AND seq > ? AND seq <= ? ORDER BY seq",
        (room_id, after_seq, _LAST_SEQ if until_seq is None else until_seq),
    ).fetchall()
    return [Entry(seq, from_data(json.loads(text)), bool(ends)) for seq, text, ends in rows]


def _save_initial(connection: sqlite3.Connection, room_id: str, state: Encounter) -> None:
    try:
        connection.execute(
            "INSERT INTO rooms (room_id, initial) VALUES (?, ?)", (room_id, _json(to_data(state)))
        )
    except sqlite3.IntegrityError:
        raise RoomExists(room_id) from None


def _load_initial(connection: sqlite3.Connection, room_id: str) -> Encounter | None:
    row = connection.execute("SELECT initial FROM rooms WHERE room_id = ?", (room_id,)).fetchone()
    return None if row is None else encounter_from_data(json.loads(row[0]))


def _rooms(connection: sqlite3.Connection) -> list[str]:
    return [room_id for (room_id,) in connection.execute("SELECT room_id FROM rooms ORDER BY 1")]


def _save_snapshot(connection: sqlite3.Connection, room_id: str, seq: int, data: Any) -> None:
    text = _json(data)
    with _transaction(connection):
        version = _version(connection, room_id)
        if not 0 <= seq <= version:
            raise ValueError(f"no event {seq} in the log of {room_id} (version {version})")
        connection.execute(
            "INSERT INTO snapshots (room_id, seq, state) VALUES (?, ?, ?)"
            " ON CONFLICT (room_id) DO UPDATE SET seq = excluded.seq, state = excluded.state"
            " WHERE excluded.seq >= snapshots.seq",
            (room_id, seq, text),
        )


def _latest_snapshot(connection: sqlite3.Connection, room_id: str) -> Snapshot | None:
    row = connection.execute(
        "SELECT seq, state FROM snapshots WHERE room_id = ?", (room_id,)
    ).fetchone()
    return None if row is None else Snapshot(row[0], encounter_from_data(json.loads(row[1])))


_INVITE_COLUMNS = "code, room_id, role, seat, controls"


def _add_invites(connection: sqlite3.Connection, rows: Sequence[tuple[str, ...]]) -> None:
    with _transaction(connection):
        for row in rows:
            try:
                connection.execute(
                    f"INSERT INTO invites ({_INVITE_COLUMNS}) VALUES (?, ?, ?, ?, ?)", row
                )
            except sqlite3.IntegrityError:
                raise InviteTaken(row[0]) from None


def _invite_of(row: tuple[str, ...]) -> Invite:
    code, room_id, role, seat, controls = row
    return Invite(code, room_id, role, seat, tuple(json.loads(controls)))


def _find_invite(connection: sqlite3.Connection, code: str) -> Invite | None:
    row = connection.execute(
        f"SELECT {_INVITE_COLUMNS} FROM invites WHERE code = ? AND NOT revoked", (code,)
    ).fetchone()
    return None if row is None else _invite_of(row)


def _invites(connection: sqlite3.Connection, room_id: str) -> list[Invite]:
    rows = connection.execute(
        f"SELECT {_INVITE_COLUMNS} FROM invites WHERE room_id = ? AND NOT revoked ORDER BY rowid",
        (room_id,),
    ).fetchall()
    return [_invite_of(row) for row in rows]


def _revoke_invite(connection: sqlite3.Connection, room_id: str, code: str) -> Invite | None:
    with _transaction(connection):
        row = connection.execute(
            f"SELECT {_INVITE_COLUMNS} FROM invites WHERE code = ? AND room_id = ? AND NOT revoked",
            (code, room_id),
        ).fetchone()
        if row is None:
            return None
        connection.execute("UPDATE invites SET revoked = 1 WHERE code = ?", (code,))
    return _invite_of(row)


def _save_card(connection: sqlite3.Connection, room_id: str, text: str) -> None:
    connection.execute(
        "INSERT INTO cards (room_id, card) VALUES (?, ?)"
        " ON CONFLICT (room_id) DO UPDATE SET card = excluded.card",
        (room_id, text),
    )


def _load_card(connection: sqlite3.Connection, room_id: str) -> RoomCard | None:
    row = connection.execute("SELECT card FROM cards WHERE room_id = ?", (room_id,)).fetchone()
    return None if row is None else card_from_data(json.loads(row[0]))


def _json(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))
