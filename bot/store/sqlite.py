"""The SQLite store: one file, one connection, one writer, WAL.

The queries are :mod:`bot.store.core`'s; this module is what is SQLite's own: its
:data:`SQLITE` dialect, its schema version (``PRAGMA user_version``) and how a call
reaches the database.

Durability. The database runs in WAL mode with ``synchronous=NORMAL`` by default: a
commit has been written into the WAL file (the operating system's page cache) before
``COMMIT`` returns, so it survives any crash of the bot's process — an exception, an OOM
kill, ``SIGKILL``, a container restart. Only a crash of the whole machine (power loss,
kernel panic) can roll back the last transactions since the OS last flushed the WAL;
even then the database stays consistent (the WAL is checksummed), never half-written.
We choose NORMAL because the costly fsync on every move buys protection only against
power loss and costs an order of magnitude in throughput on ordinary disks; an operator
who wants every move on the platter passes ``synchronous="FULL"`` (``DURAK_DB_SYNCHRONOUS
=FULL``), and every guarantee below still holds.

Where a call runs. Under NORMAL a commit only writes into the page cache: it never waits
for the disk, and a short call (the hot path: saving a move is one statement, whose
triggers append the log line and mark its update done, SQLite running the statement and
its triggers as one atomic transaction) runs on the event loop itself, as one
synchronous call to sqlite3 — no thread, no hop, no await in the middle, so a cancelled
caller can never leave it half done. What may wait for the disk or take long runs on the
database's own thread, the whole call (a transaction's body from ``BEGIN IMMEDIATE`` to
``COMMIT``) in one hop: every write under FULL (each commit waits for an fsync), the
calls that read or rate many rows, and a call that met the database locked by another
connection (it waits there, up to the busy timeout, while the loop goes on). The loop's
connection never checkpoints: a thread of its own copies the WAL back into the database
(and waits for that fsync) once the WAL has grown past :data:`CHECKPOINT_BYTES`, beside the
writes, which it never blocks; should a steady stream of writes keep the WAL from starting
again, a checkpoint runs on the database's thread, the writes (not the loop) waiting for
it. One ``asyncio.Lock`` is held by a call on the thread; a call
on the loop runs only while nobody holds it, so the connection is never used by two at
once, and a call on the thread runs to its end (or is rolled back whole) even if the
awaiting coroutine is cancelled.
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path
from typing import Any, Final, TypeVar

from bot.store.config import Synchronous
from bot.store.core import SqlStore
from bot.store.dialect import Dialect, Trigger, as_is
from bot.store.errors import SchemaTooNewError, StoreError
from bot.store.migrations import LATEST_VERSION, MIGRATIONS
from bot.store.opening import Opening
from bot.store.ratings import _own_move
from bot.store.steps import Body, run_sync

T = TypeVar("T")

log = logging.getLogger(__name__)

CHECKPOINT_BYTES: Final = 4 << 20
"""The WAL's size past which it is copied back into the database (SQLite's own default
is 1,000 pages of 4 KiB)."""
CHECKPOINT_EVERY: Final = 16
"""Writes between two looks at the WAL's size (a ``stat`` of its file)."""

_INDENT: Final = " " * 12


def _trigger(t: Trigger) -> tuple[str, ...]:
    """SQLite's trigger, laid out as the databases made by earlier versions hold it."""
    body = t.body.replace("\n", "\n" + _INDENT + "    ")
    return (
        f"\n{_INDENT}CREATE TRIGGER {t.name} AFTER {t.event} ON {t.table}\n"
        f"{_INDENT}WHEN {t.when}\n{_INDENT}BEGIN\n{_INDENT}    {body};\n{_INDENT}END\n{_INDENT}",
    )


def _json_text(column: str, path: tuple[str, ...]) -> str:
    return f"CAST(json_extract({column}, '$.{'.'.join(path)}') AS TEXT)"


SQLITE: Final = Dialect(
    name="sqlite",
    prepare=as_is,
    types={
        "id": "INTEGER",
        "real": "REAL",
        "serial": "INTEGER PRIMARY KEY AUTOINCREMENT",
        "without_rowid": " WITHOUT ROWID",
        "unlogged": "",
    },
    trigger=_trigger,
    same="IS",
    # SQLite's max() of several values is NULL if any is: each stands in for the other
    greatest=lambda a, b: f"max(coalesce({a}, {b}), coalesce({b}, {a}))",
    bytewise="",  # SQLite compares text by its bytes unless told otherwise
    json_text=_json_text,
    counts_moves=_own_move,
)


# ---------------------------------------------------------------------- the schema version


def schema_version(conn: sqlite3.Connection) -> int:
    """The database's schema version (0 for a new, empty file)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, path: str, target: int | None = None) -> int:
    """Bring the schema up to ``target`` (default: the latest), one migration at a time.

    ``conn`` must be in autocommit mode (``isolation_level=None``). Each step runs in its
    own ``BEGIN IMMEDIATE`` transaction that also sets ``user_version``, so a crash
    leaves a whole version. Raises :class:`SchemaTooNewError` if the file is newer than
    this code. Returns the version reached.
    """
    goal = LATEST_VERSION if target is None else target
    if not 0 <= goal <= LATEST_VERSION:
        raise ValueError(f"no schema version {goal}; known: 0..{LATEST_VERSION}")
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            current = schema_version(conn)
            if current > LATEST_VERSION:
                raise SchemaTooNewError(path, current, LATEST_VERSION)
            if current >= goal:
                conn.execute("COMMIT")
                return current
            step = MIGRATIONS[current]
            for statement in step.sql(SQLITE):
                conn.execute(statement)
            if step.step is not None:
                run_sync(conn, step.step(SQLITE))
            conn.execute(f"PRAGMA user_version = {step.version:d}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


# ---------------------------------------------------------------------- running a call


def _busy(exc: sqlite3.Error) -> bool:
    """Whether another connection holds the lock the call needed (nothing was done)."""
    return getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _transaction(conn: sqlite3.Connection, body: Body[T]) -> T:
    """Run ``body`` in one ``BEGIN IMMEDIATE … COMMIT``, rolled back on any error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = run_sync(conn, body)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            with suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise
    return result


def _rows(sql: str, params: Sequence[Any]) -> Callable[[sqlite3.Connection], list[Any]]:
    return lambda conn: conn.execute(sql, params).fetchall()


class _Checkpointer:
    """Copies the WAL back into the database on a thread and a connection of its own, once
    it has grown past :data:`CHECKPOINT_BYTES`: the wait for the disk never falls on the
    event loop, and a passive checkpoint never blocks a write.

    A checkpoint beside the writes copies the frames written before it began; the WAL
    starts again from its beginning only at a write that finds every frame copied. Under
    a steady stream of writes that may not happen for a while: once the WAL has grown to
    twice :data:`CHECKPOINT_BYTES`, the next checkpoint is run by the store on the
    database's thread, under its lock, with no write beside it (:meth:`wrote` says so),
    and the write after it starts the WAL again."""

    def __init__(self, path: str, busy_ms: int) -> None:
        self._path = path
        self._wal = path + "-wal"
        self._busy_ms = busy_ms
        self._writes = 0
        self._conn: sqlite3.Connection | None = None
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="durak-sqlite-checkpoint")
        self._running: Future[None] | None = None

    def wrote(self) -> bool:
        """A write committed: now and then, look at the WAL's size. Whether the store
        should now checkpoint it under its lock (the checkpoints beside the writes have not
        let it start again)."""
        self._writes += 1
        if self._writes < CHECKPOINT_EVERY:
            return False
        self._writes = 0
        if self._running is not None and not self._running.done():
            return False
        try:
            size = os.stat(self._wal).st_size
        except OSError:
            return False
        if size < CHECKPOINT_BYTES:
            return False
        if size >= 2 * CHECKPOINT_BYTES:
            return True
        self._running = self._thread.submit(self._checkpoint)
        self._running.add_done_callback(_report)
        return False

    def _checkpoint(self) -> None:
        if self._conn is None:
            self._conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
            self._conn.execute(f"PRAGMA busy_timeout = {self._busy_ms:d}")
        self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    async def close(self) -> None:
        """Wait for a checkpoint under way, then close the connection."""
        await asyncio.wrap_future(self._thread.submit(self._close))
        self._thread.shutdown()


def _report(done: Future[None]) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.warning("the WAL could not be checkpointed: %s", done.exception())


class _DatabaseThread:
    """The database's own thread: runs one call at a time, each handed over and answered
    with one wake-up of each side (a queue's put, the loop's ``call_soon_threadsafe``)."""

    def __init__(self) -> None:
        self._calls: queue.SimpleQueue[tuple[Any, ...] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="durak-sqlite", daemon=True)
        self._thread.start()

    def run(self, call: Callable[[], T], then: Callable[[], None]) -> asyncio.Future[T]:
        """Run ``call`` on the thread; its result, or its error, as a future of the loop.
        ``then`` runs on the loop once the call has ended, even if the future was
        cancelled meanwhile (the call itself runs to its end)."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[T] = loop.create_future()
        self._calls.put((loop, answer, call, then))
        return answer

    def _serve(self) -> None:
        while (item := self._calls.get()) is not None:
            loop, answer, call, then = item
            try:
                result = call()
            except BaseException as exc:  # handed to the caller, as the call's own
                loop.call_soon_threadsafe(_settle, answer, then, None, exc)
            else:
                loop.call_soon_threadsafe(_settle, answer, then, result, None)

    def stop(self) -> None:
        """End the thread once the calls handed over are done."""
        self._calls.put(None)
        self._thread.join()


def _nothing() -> None:
    pass


def _settle(
    answer: asyncio.Future[Any], then: Callable[[], None], result: Any, error: BaseException | None
) -> None:
    then()
    if answer.cancelled():
        return
    if error is not None:
        answer.set_exception(error)
    else:
        answer.set_result(result)


class SqliteStore(SqlStore):
    """Everything the bot keeps, in one SQLite file. Open with :meth:`open`."""

    dialect = SQLITE

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: str,
        clock: Callable[[], float],
        *,
        busy_ms: int = 5_000,
        writes_on_loop: bool = True,
    ) -> None:
        """Use :meth:`open`; this only wraps a connection that is already set up (with no
        busy timeout of its own: calls on the loop never wait)."""
        super().__init__(clock)
        self._db = conn
        self._path = path
        self._busy_ms = busy_ms
        self._writes_on_loop = writes_on_loop
        self._lock = asyncio.Lock()
        self._thread = _DatabaseThread()
        self._checkpointer = _Checkpointer(path, busy_ms) if writes_on_loop else None
        self._catching_up: asyncio.Future[None] | None = None

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        synchronous: Synchronous = "NORMAL",
        busy_timeout: float = 5.0,
        clock: Callable[[], float] = time.time,
    ) -> Opening[SqliteStore]:
        """Open (creating or upgrading) the database at ``path``.

        Sets WAL and ``synchronous``; a call that meets the database locked by another
        connection waits up to ``busy_timeout`` seconds (on the database's thread). Then
        runs the pending migrations. Raises :class:`SchemaTooNewError` for a database from
        a newer bot. ``clock`` gives Unix time (tests pass a fake one).
        """

        async def opener() -> SqliteStore:
            return await cls._open(Path(path), synchronous, busy_timeout, clock)

        return Opening(opener)

    @classmethod
    async def _open(
        cls,
        path: Path,
        synchronous: Synchronous,
        busy_timeout: float,
        clock: Callable[[], float],
    ) -> SqliteStore:
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError(f"synchronous must be NORMAL or FULL, not {synchronous!r}")
        busy_ms = int(busy_timeout * 1000)
        loop = asyncio.get_running_loop()
        conn = await loop.run_in_executor(None, cls._connect, path, synchronous, busy_ms)
        return cls(conn, str(path), clock, busy_ms=busy_ms, writes_on_loop=synchronous == "NORMAL")

    @staticmethod
    def _connect(path: Path, synchronous: Synchronous, busy_ms: int) -> sqlite3.Connection:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout = {busy_ms:d}")
            # Refuse a newer schema before changing anything in the file.
            found = schema_version(conn)
            if found > LATEST_VERSION:
                raise SchemaTooNewError(str(path), found, LATEST_VERSION)
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"cannot put {str(path)!r} in WAL mode (got {mode!r})")
            conn.execute(f"PRAGMA synchronous = {synchronous}")
            migrate(conn, str(path))
            if synchronous == "NORMAL":
                conn.execute("PRAGMA wal_autocheckpoint = 0")  # the checkpointer's work
                # a WAL started again from its beginning is cut back to half the size that
                # calls for a checkpoint: its file's size then tells how much it holds
                conn.execute(f"PRAGMA journal_size_limit = {CHECKPOINT_BYTES // 2:d}")
                conn.execute("PRAGMA busy_timeout = 0")  # a call on the loop never waits
        except BaseException:
            conn.close()
            raise
        return conn

    async def close(self) -> None:
        """Wait for the running calls, then close the connection. Idempotent."""
        if self._closed:
            return
        async with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._checkpointer is not None:
                await self._checkpointer.close()
            await self._thread.run(self._close, _nothing)
        self._thread.stop()

    def _close(self) -> None:
        with suppress(sqlite3.Error):
            self._db.execute("PRAGMA optimize")
        self._db.close()

    @property
    def path(self) -> str:
        """The database file."""
        return self._path

    @property
    def busy_timeout(self) -> float:
        """Seconds a call waits for a lock another connection holds."""
        return self._busy_ms / 1000

    async def schema_version(self) -> int:
        """The schema version of the open database."""
        return int((await self._fetch("PRAGMA user_version"))[0][0])

    # ------------------------------------------------------------------ reaching the database

    def _on_loop(self) -> bool:
        """Whether a call may run on the event loop now: nobody uses the connection."""
        self._check_open()
        return not self._lock.locked()

    async def _fetch(
        self, sql: str, params: Sequence[Any] = (), *, long: bool = False
    ) -> list[Any]:
        """One read (one that may return many rows: on the database's thread)."""
        if not long and self._on_loop():
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.OperationalError as exc:
                if not _busy(exc):
                    raise
        return await self._on_thread(_rows(sql, params))

    async def _write_one(
        self,
        sql: str,
        params: Sequence[Any] = (),
        *,
        told: str | None = None,
        returning: str | None = None,
    ) -> list[Any]:
        """One write statement, which SQLite runs (with its triggers) as one atomic
        transaction of its own. (No other process is told of a row: there is none.)"""
        if returning is not None:
            sql = f"{sql} RETURNING {returning}"
        if self._writes_on_loop and self._on_loop():
            try:
                rows = self._db.execute(sql, params).fetchall()
            except sqlite3.OperationalError as exc:
                if not _busy(exc):
                    raise
            else:
                self._wrote()
                return rows
        rows = await self._on_thread(_rows(sql, params))
        self._wrote()
        return rows

    async def _write(self, body: Callable[[], Body[T]], *, long: bool = False) -> T:
        """Run the body in one ``BEGIN IMMEDIATE … COMMIT``: on the loop if it is short and
        commits need no disk, else on the database's thread, in one hop."""
        if self._writes_on_loop and not long and self._on_loop():
            try:
                result = _transaction(self._db, body())
            except sqlite3.OperationalError as exc:
                if not _busy(exc) or self._db.in_transaction:
                    raise
            else:
                self._wrote()
                return result
        result = await self._on_thread(lambda conn: _transaction(conn, body()))
        self._wrote()
        return result

    def _wrote(self) -> None:
        if self._checkpointer is None or not self._checkpointer.wrote() or self._catching_up:
            return
        self._catching_up = asyncio.ensure_future(self._catch_up())

    async def _catch_up(self) -> None:
        """Checkpoint the WAL on the database's thread, under the lock: the writes wait
        for it (the loop does not), and it copies every frame."""
        try:
            await self._on_thread(_rows("PRAGMA wal_checkpoint(PASSIVE)", ()))
        except StoreError:
            pass  # closed meanwhile: closing checkpoints the WAL
        except sqlite3.Error as exc:
            log.warning("the WAL could not be checkpointed: %s", exc)
        finally:
            self._catching_up = None

    async def _on_thread(self, call: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``call`` on the database's thread, under the lock, waiting up to the busy
        timeout for a lock another connection holds. The lock is let go when the call has
        ended on the thread, not when its caller stops waiting: a cancelled caller does not
        cut the call short, nor lets another use the connection meanwhile, and
        :meth:`close` (which takes the lock) waits for it."""
        self._check_open()
        await self._lock.acquire()
        try:
            self._check_open()
        except BaseException:
            self._lock.release()
            raise
        return await self._thread.run(lambda: self._patiently(call), self._lock.release)

    def _patiently(self, call: Callable[[sqlite3.Connection], T]) -> T:
        """Under FULL the connection always waits (only reads, which a lock never holds
        up in WAL mode, run on the loop); under NORMAL only while on the thread."""
        conn = self._db
        if not self._writes_on_loop:
            return call(conn)
        conn.execute(f"PRAGMA busy_timeout = {self._busy_ms:d}")
        try:
            return call(conn)
        finally:
            conn.execute("PRAGMA busy_timeout = 0")
