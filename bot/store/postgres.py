"""The PostgreSQL store: the queries of :mod:`bot.store.core` on a PostgreSQL server,
through a pool of asyncpg connections.

Same tables, same rows, same guarantees as SQLite's. This module is what is PostgreSQL's
own: its pool, and the parts only several processes need —
the notifications on :data:`INBOX_CHANNEL`, :data:`TABLES_CHANNEL` and
:data:`ROWS_CHANNEL`, the pool that :mod:`bot.cluster` runs its leases and budgets on.
(Its dialect: :mod:`bot.store.pg_dialect`; the schema version and the migrations' lock:
:mod:`bot.store.pg_migrations`.)

Durability: every write is committed before its method returns, and PostgreSQL's
``COMMIT`` (with the server's default ``synchronous_commit = on``) returns once the commit
is flushed to the server's WAL on disk. Atomicity: a write of several statements is one
transaction, rolled back on any error, that runs to its end even if the awaiting coroutine
is cancelled; a write of one statement is a transaction of its own, and the hot path —
saving an action — is one such statement, a compare-and-set ``UPDATE`` whose
``log_action`` trigger appends the log line and whose ``inbox_done`` trigger marks the
update it handles done. Compare-and-set: two writers of one table queue on its row lock,
and the second finds the version moved on and writes nothing (PostgreSQL re-checks the
``WHERE`` on the row it waited for), exactly as SQLite's single writer refuses it.

The chat and user rows are cached as in the SQLite store. Several processes may write
them, so each write tells the others on :data:`ROWS_CHANNEL`, in the statement that writes
it, and a process that listens (:mod:`bot.cluster`) drops its copy when told.

A query that cannot reach the server (it restarts, the connection broke) raises
:class:`~bot.store.errors.StoreUnavailable`; asyncpg's pool connects again on the next
query.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

import asyncpg

from bot.store.config import mask_url
from bot.store.core import SqlStore
from bot.store.dialect import numbered
from bot.store.errors import SchemaTooNewError, StoreUnavailable
from bot.store.models import KeptUpdate
from bot.store.opening import Opening
from bot.store.pg_dialect import POSTGRES
from bot.store.pg_migrations import PG_LATEST_VERSION, migrate, schema_version
from bot.store.steps import Body, Fetch, Step, run_async

T = TypeVar("T")

log = logging.getLogger(__name__)

CONNECT_ERRORS: Final[tuple[type[BaseException], ...]] = (
    asyncpg.PostgresError,  # refused: a wrong password, no such database...
    asyncpg.InterfaceError,  # a URL asyncpg cannot use
    OSError,  # no such host, nobody listening
    TimeoutError,
)
"""What connecting to an unusable ``DURAK_DATABASE_URL`` raises."""


UNAVAILABLE: Final[tuple[type[BaseException], ...]] = (
    OSError,  # the server went away (a reset connection, nobody listening any more)
    TimeoutError,
    asyncpg.InterfaceError,  # the connection was closed under a query
    asyncpg.PostgresConnectionError,  # class 08: the connection failed
    asyncpg.exceptions.OperatorInterventionError,  # class 57: the server shuts down, starts
    # a connection the server ended in the middle of a query, met by the next query on it:
    # "cannot switch to state 12; another operation (2) is in progress" (asyncpg issue
    # #1069; sqlalchemy #13241 shows it from sessions terminated mid-transaction)
    asyncpg.exceptions.InternalClientError,
)
"""What a query raises while the server cannot be reached: a
:class:`~bot.store.errors.StoreUnavailable` to the store's callers."""

INBOX_CHANNEL: Final = "durak_inbox"
"""Told the shards of updates kept or handed over, and which store kept them
(``3,17:<tag>``): their holders look at once (:meth:`PostgresStore.told_by_me`)."""
TABLES_CHANNEL: Final = "durak_tables"
"""Told a shard whose running tables changed hands between chats (a group became a
supergroup of another shard): its holder loads those it has not."""
ROWS_CHANNEL: Final = "durak_rows"
"""Told each chat (``c:<id>``) and user (``u:<id>``) row written: every process's cache of
it is out of date (:meth:`PostgresStore.row_changed`)."""


async def _as_it_is(conn: asyncpg.Connection) -> None:
    """A connection goes back to the pool as it is: the store leaves no session state on one
    (no ``SET`` outside a transaction, no ``LISTEN``, advisory locks released), so asyncpg's
    reset query, a round trip after every query, is not needed. (An open transaction is
    still rolled back by the pool itself.)"""


def _unavailable(exc: BaseException) -> StoreUnavailable:
    return StoreUnavailable(f"the database cannot be reached: {exc.__class__.__name__}: {exc}")


async def probe(url: str, timeout: float = 10.0) -> int:
    """Connect to the database at ``url`` and read its schema version, changing nothing."""
    conn = await asyncpg.connect(url, timeout=timeout)
    try:
        return await schema_version(conn)
    finally:
        await conn.close()


class PostgresStore(SqlStore):
    """Everything the bot keeps, in a PostgreSQL database. Open with :meth:`open`."""

    dialect = POSTGRES

    def __init__(self, pool: asyncpg.Pool, url: str, clock: Callable[[], float]) -> None:
        """Use :meth:`open`; this only wraps a pool that is already set up."""
        super().__init__(clock)
        self._pool = pool
        self._url = url
        self._writes: set[asyncio.Future[Any]] = set()
        self._tag = uuid.uuid4().hex[:12]
        """Names this store's own row notifications (it need not drop what it wrote)."""

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    def open(
        cls,
        url: str,
        *,
        connections: int = 10,
        connect_timeout: float = 10.0,
        clock: Callable[[], float] = time.time,
    ) -> Opening[PostgresStore]:
        """Connect to the database at ``url`` (``postgresql://user:pass@host:5432/db``)
        and run the pending migrations, with up to ``connections`` connections.

        Raises :class:`SchemaTooNewError` for a database from a newer bot (touching
        nothing), and asyncpg's or the operating system's error when the server cannot
        be reached or refuses the login. ``clock`` gives Unix time (tests pass a fake one).
        """

        async def opener() -> PostgresStore:
            return await cls._open(url, connections, connect_timeout, clock)

        return Opening(opener)

    @classmethod
    async def _open(
        cls, url: str, connections: int, connect_timeout: float, clock: Callable[[], float]
    ) -> PostgresStore:
        pool = await asyncpg.create_pool(
            url,
            min_size=1,
            max_size=connections,
            timeout=connect_timeout,
            server_settings={"application_name": "durak-bot"},
            reset=_as_it_is,
        )
        try:
            async with pool.acquire() as conn:
                # Refuse a newer schema before changing anything in the database.
                found = await schema_version(conn)
                if found > PG_LATEST_VERSION:
                    raise SchemaTooNewError(mask_url(url), found, PG_LATEST_VERSION)
                await migrate(conn, mask_url(url))
        except BaseException:
            pool.terminate()
            raise
        return cls(pool, url, clock)

    async def close(self) -> None:
        """Wait for the running writes, then close every connection. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._writes:
            await asyncio.gather(*self._writes, return_exceptions=True)
        await self._pool.close()

    @property
    def pool(self) -> asyncpg.Pool:
        """The pool of connections (for what runs beside the store on the same database:
        :mod:`bot.cluster`)."""
        return self._pool

    async def connection(self) -> asyncpg.Connection:
        """A connection of its own to the database, outside the pool (one that listens)."""
        return await asyncpg.connect(self._url, server_settings={"application_name": "durak-bot"})

    @property
    def path(self) -> str:
        """Where the database is: its URL, the password shown as ``***``."""
        return mask_url(self._url)

    async def schema_version(self) -> int:
        """The schema version of the open database."""
        async with self._pool.acquire() as conn:
            return await schema_version(conn)

    # ------------------------------------------------------------------ other processes

    def _told(self, row: str) -> str:
        return f"{row}:{self._tag}"

    @property
    def tag(self) -> str:
        """What ends the notifications of this store's own writes."""
        return self._tag

    def told_by_me(self, payload: str) -> bool:
        """Whether a notification came from this store's own write (its tag ends it)."""
        return payload.rpartition(":")[2] == self._tag

    def row_changed(self, payload: str) -> None:
        """Another process wrote a chat or user row (a :data:`ROWS_CHANNEL` notification):
        read it again next time."""
        kind, _, rest = payload.partition(":")
        key, _, tag = rest.partition(":")
        if tag == self._tag or not key.lstrip("-").isdigit():
            return  # this store's own write, cached as written
        if kind == "c":
            self._chats.drop(int(key))
        elif kind == "u":
            self._users.drop(int(key))

    def _tell(self, *rows: str) -> list[Step]:
        """Each row told on :data:`ROWS_CHANNEL` when the transaction commits."""
        return [Fetch("SELECT pg_notify(?, ?)", (ROWS_CHANNEL, self._told(r))) for r in rows]

    # ------------------------------------------------------------------ reaching the database

    async def _fetch(
        self, sql: str, params: Sequence[Any] = (), *, long: bool = False
    ) -> list[Any]:
        """One read."""
        self._check_open()
        try:
            return list(await self._pool.fetch(numbered(sql), *params))
        except UNAVAILABLE as exc:
            raise _unavailable(exc) from exc

    async def _write(self, body: Callable[[], Body[T]], *, long: bool = False) -> T:
        """Run the body in one transaction, committed before this returns.

        The transaction runs in its own task: cancelling the caller does not cut it
        short, and :meth:`close` waits for it.
        """
        self._check_open()
        return await self._own_task(self._transaction(body))

    async def _transaction(self, body: Callable[[], Body[T]]) -> T:
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                return await run_async(conn, body(), numbered)
        except UNAVAILABLE as exc:
            raise _unavailable(exc) from exc

    async def _own_task(self, work: Any) -> Any:
        task = asyncio.ensure_future(work)
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)
        task.add_done_callback(_retrieve)
        return await asyncio.shield(task)

    async def _write_one(
        self,
        sql: str,
        params: Sequence[Any] = (),
        *,
        told: str | None = None,
        returning: str | None = None,
    ) -> list[Any]:
        """One write statement, a transaction of its own: one round trip to the server.
        ``told``: the row it writes, told on :data:`ROWS_CHANNEL` in the same statement."""
        self._check_open()
        if told is not None:
            sql = (
                f"WITH written AS ({sql} RETURNING {returning or '1'}) "
                "SELECT written.*, pg_notify(?, ?) FROM written"
            )
            params = (*params, ROWS_CHANNEL, self._told(told))
        elif returning is not None:
            sql = f"{sql} RETURNING {returning}"
        rows: list[Any] = await self._own_task(self._fetch_written(numbered(sql), params))
        return rows

    async def _fetch_written(self, sql: str, params: Sequence[Any]) -> list[Any]:
        try:
            return list(await self._pool.fetch(sql, *params))
        except UNAVAILABLE as exc:
            raise _unavailable(exc) from exc

    # ------------------------------------------------------------------ the inbox, told

    async def keep_updates(self, updates: Sequence[KeptUpdate]) -> list[int]:
        """Keep the updates of one batch in one statement (so one transaction); the ids
        that were not kept already, in order."""
        if not updates:
            return []
        # The shards given work are told (their holders wake at once rather than at their
        # next look), in the same statement: the NOTIFY goes out when the rows commit.
        rows = await self._write_one(
            "WITH kept AS (INSERT INTO inbox (update_id, body, received_at, shard) "
            "SELECT u.update_id, u.body, $3, u.shard "
            "FROM unnest($1::bigint[], $2::text[], $4::int[]) WITH ORDINALITY "
            "AS u(update_id, body, shard, n) "
            "ORDER BY u.n ON CONFLICT (update_id) DO NOTHING RETURNING update_id, shard), "
            "told AS (SELECT pg_notify($5, string_agg(DISTINCT shard::text, ',') || ':' || $6) "
            "FROM kept HAVING count(*) > 0) "
            "SELECT update_id FROM kept LEFT JOIN told ON true",
            (
                [u.update_id for u in updates],
                [u.body for u in updates],
                self._clock(),
                [u.shard for u in updates],
                INBOX_CHANNEL,
                self._tag,
            ),
        )
        return sorted(int(r[0]) for r in rows)

    async def forward_update(self, update_id: int, shard: int) -> bool:
        """Hand a kept update not done yet to another shard (whose holder is told); whether
        it was."""
        rows = await self._write_one(
            "WITH moved AS (UPDATE inbox SET shard = $1 WHERE update_id = $2 "
            "AND done_at IS NULL RETURNING update_id) "
            "SELECT update_id, pg_notify($3, $1::text || ':' || $4) FROM moved",
            (shard, update_id, INBOX_CHANNEL, self._tag),
        )
        return bool(rows)


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Mark a shielded write's exception as seen if its caller was cancelled."""
    if not task.cancelled():
        task.exception()
