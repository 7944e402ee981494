"""The PostgreSQL store: the :class:`~bot.store.base.Store` of :mod:`bot.store.sqlite`, on a
PostgreSQL server through a pool of asyncpg connections.

Same tables, same rows, same guarantees. Durability: every write is committed before its
method returns, and PostgreSQL's ``COMMIT`` (with the server's default
``synchronous_commit = on``) returns once the commit is flushed to the server's WAL on
disk. Atomicity: a write of several statements is one transaction, rolled back on any
error, that runs to its end even if the awaiting coroutine is cancelled; a write of one
statement is a transaction of its own, and the hot path — saving an action — is one such
statement, a compare-and-set ``UPDATE`` whose ``log_action`` trigger appends the log line
and whose ``inbox_done`` trigger marks the update it handles done.
Compare-and-set: two writers of one table queue on its row lock, and the second finds the
version moved on and writes nothing (PostgreSQL re-checks the ``WHERE`` on the row it waited
for), exactly as the SQLite store's single writer refuses it.

The chat and user rows are cached as in the SQLite store. Several processes may write
them, so each write tells the others on :data:`ROWS_CHANNEL`, in the statement that writes
it, and a process that listens (:mod:`bot.cluster`) drops its copy when told.

A query that cannot reach the server (it restarts, the connection broke) raises
:class:`~bot.store.errors.StoreUnavailable`; asyncpg's pool connects again on the next
query.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from dataclasses import replace
from types import TracebackType
from typing import Any, Final, TypeVar

import asyncpg

from bot.ratings.model import OVERALL, VS_COMPUTER
from bot.store import pg_ratings
from bot.store.config import mask_url
from bot.store.errors import (
    SchemaTooNewError,
    StaleVersionError,
    StoreError,
    StoreUnavailable,
    TableNotFoundError,
    WrongStatusError,
)
from bot.store.models import (
    DAY,
    UNSET,
    ActionRow,
    ChatRow,
    GameRecord,
    KeptUpdate,
    Outcome,
    PartnerRow,
    PlayerGame,
    RatingPoint,
    RatingRow,
    Saved,
    Seat,
    StatsOrder,
    TableRow,
    TableStatus,
    TallyRow,
    Unset,
    UserRow,
    seats_from_json,
    seats_to_json,
    shard_sql,
)
from bot.store.opening import Opening
from bot.store.pg_migrations import PG_LATEST_VERSION, migrate, schema_version
from bot.store.sqlite import (
    _BOARD_ORDER,
    _GAME_COLUMNS,
    _RATING_COLUMNS,
    _TABLE_COLUMNS,
    _TALLY_COLUMNS,
    _check_outcome,
    _game_record,
    _rating_row,
    _retrieve,
    _RowCache,
    _table_row,
    _tally_row,
)

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


# SQLite sorts NULL first and text by its bytes; PostgreSQL, unless told, NULL last (first
# when descending) and text by the database's locale: told, both sort alike.
_STATS_ORDER: Final[dict[str, str]] = {
    "points": 't.points DESC, t.durak ASC, t.games DESC, t.player COLLATE "C"',
    "durak": 't.durak DESC, t.pogony DESC, t.games DESC, t.player COLLATE "C"',
    "games": 't.games DESC, t.points DESC, t.player COLLATE "C"',
    "recent": 't.last_played DESC NULLS LAST, t.player COLLATE "C"',
}


class PostgresStore:
    """Everything the bot keeps, in a PostgreSQL database. Open with :meth:`open`."""

    def __init__(self, pool: asyncpg.Pool, url: str, clock: Callable[[], float]) -> None:
        """Use :meth:`open`; this only wraps a pool that is already set up."""
        self._pool = pool
        self._url = url
        self._clock = clock
        self._closed = False
        self._writes: set[asyncio.Future[Any]] = set()
        self._chats: _RowCache[ChatRow] = _RowCache()
        self._users: _RowCache[UserRow] = _RowCache()
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

    async def __aenter__(self) -> PostgresStore:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

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

    # ------------------------------------------------------------------ plumbing

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

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the store is closed")

    async def _fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """One read."""
        self._check_open()
        try:
            return list(await self._pool.fetch(sql, *params))
        except UNAVAILABLE as exc:
            raise _unavailable(exc) from exc

    async def _write(self, body: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
        """Run ``body`` in one transaction, committed before this returns.

        The transaction runs in its own task: cancelling the caller does not cut it
        short, and :meth:`close` waits for it.
        """
        self._check_open()
        task = asyncio.ensure_future(self._transaction(body))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)
        task.add_done_callback(_retrieve)
        return await asyncio.shield(task)

    async def _transaction(self, body: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                return await body(conn)
        except UNAVAILABLE as exc:
            raise _unavailable(exc) from exc

    async def _fetch_written(self, sql: str, params: Sequence[Any]) -> list[Any]:
        try:
            return list(await self._pool.fetch(sql, *params))
        except UNAVAILABLE as exc:
            raise _unavailable(exc) from exc

    async def _write_one(
        self,
        sql: str,
        params: Sequence[Any] = (),
        *,
        told: str | None = None,
        returning: str = "1",
    ) -> list[Any]:
        """One write statement, a transaction of its own: one round trip to the server.
        ``told``: the row it writes, told on :data:`ROWS_CHANNEL` in the same statement;
        its rows are then those of ``returning``."""
        self._check_open()
        if told is not None:
            n = len(params)
            sql = (
                f"WITH written AS ({sql} RETURNING {returning}) "
                f"SELECT written.*, pg_notify(${n + 1}, ${n + 2}) FROM written"
            )
            params = (*params, ROWS_CHANNEL, self._told(told))
        task = asyncio.ensure_future(self._fetch_written(sql, params))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)
        task.add_done_callback(_retrieve)
        return list(await asyncio.shield(task))

    async def _cas_one(
        self,
        sql: str,
        args: Sequence[Any],
        table_id: int,
        expected: int,
        wanted: tuple[TableStatus, ...],
    ) -> Any:
        """Run a single-statement compare-and-set ``UPDATE … RETURNING``; its first row,
        or the reason it matched nothing, raised."""
        rows = await self._write_one(sql, args)
        if not rows:
            try:
                async with self._pool.acquire() as conn:
                    refusal = await self._refusal(conn, table_id, expected, wanted)
            except UNAVAILABLE as exc:
                raise _unavailable(exc) from exc
            raise refusal
        return rows[0]

    @staticmethod
    async def _refusal(
        conn: asyncpg.Connection, table_id: int, expected: int, wanted: tuple[TableStatus, ...]
    ) -> StoreError:
        """Why a compare-and-set update matched no row."""
        row = await conn.fetchrow(
            "SELECT version, status FROM tables WHERE table_id = $1", table_id
        )
        if row is None:
            return TableNotFoundError(table_id)
        version, status = row
        if version != expected:
            return StaleVersionError(table_id, expected, version)
        return WrongStatusError(table_id, status, tuple(s.value for s in wanted))

    # ------------------------------------------------------------------ chats and users

    async def get_chat(self, chat_id: int) -> ChatRow | None:
        """The chat's settings, or None if the bot never saved any."""
        found, row = self._chats.get(chat_id)
        if found:
            return row
        generation = self._chats.generation
        rows = await self._fetch(
            "SELECT chat_id, language, default_rules, thread_id FROM chats WHERE chat_id = $1",
            (chat_id,),
        )
        row = ChatRow(*rows[0]) if rows else None
        self._chats.put(chat_id, row, generation)
        return row

    async def save_chat(self, chat: ChatRow) -> None:
        """Insert or replace the chat's settings."""
        await self._write_one(
            "INSERT INTO chats (chat_id, language, default_rules, thread_id, updated_at) "
            "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (chat_id) DO UPDATE SET "
            "language = excluded.language, default_rules = excluded.default_rules, "
            "thread_id = excluded.thread_id, updated_at = excluded.updated_at",
            (chat.chat_id, chat.language, chat.default_rules, chat.thread_id, self._clock()),
            told=f"c:{chat.chat_id}",
        )
        self._chats.wrote(chat.chat_id, chat)

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        """Move everything of a group to its new id (a group upgraded to a supergroup).

        Tables, games and history follow; tallies are added to any the new id already
        has; the new id's own settings win over the old ones. One transaction.
        """
        if old_chat_id == new_chat_id:
            return
        now = self._clock()
        old, new = old_chat_id, new_chat_id

        async def body(db: asyncpg.Connection) -> None:
            await db.execute(
                "INSERT INTO chats (chat_id, language, default_rules, thread_id, updated_at) "
                "SELECT $1, language, default_rules, thread_id, $2 FROM chats "
                "WHERE chat_id = $3 ON CONFLICT (chat_id) DO UPDATE SET "
                "language = coalesce(chats.language, excluded.language), "
                "default_rules = coalesce(chats.default_rules, excluded.default_rules), "
                "thread_id = coalesce(chats.thread_id, excluded.thread_id), "
                "updated_at = excluded.updated_at",
                new,
                now,
                old,
            )
            await db.execute("DELETE FROM chats WHERE chat_id = $1", old)
            # the old group's messages stay there: a table is drawn anew in the supergroup
            await db.execute(
                "UPDATE tables SET chat_id = $1, group_message_id = NULL, thread_id = NULL "
                "WHERE chat_id = $2",
                new,
                old,
            )
            for table in ("games", "game_players"):
                await db.execute(f"UPDATE {table} SET chat_id = $1 WHERE chat_id = $2", new, old)
            await db.execute(
                "INSERT INTO tallies (chat_id, player, user_id, name, games, durak, pogony, "
                "draws, points, last_played) "
                "SELECT $1, player, user_id, name, games, durak, pogony, draws, points, "
                "last_played FROM tallies WHERE chat_id = $2 "
                "ON CONFLICT (chat_id, player) DO UPDATE SET "
                "games = tallies.games + excluded.games, "
                "durak = tallies.durak + excluded.durak, "
                "pogony = tallies.pogony + excluded.pogony, "
                "draws = tallies.draws + excluded.draws, "
                "points = tallies.points + excluded.points, "
                "last_played = greatest(tallies.last_played, excluded.last_played)",
                new,
                old,
            )
            await db.execute("DELETE FROM tallies WHERE chat_id = $1", old)
            # the group's ratings follow its games: rated again under the new id, in order
            await pg_ratings.hold_order(db)
            await db.execute("DELETE FROM ratings WHERE scope = $1", old)
            await db.execute("DELETE FROM rating_history WHERE scope = $1", old)
            await pg_ratings.rebuild(db, chat_id=new)
            for chat in (old, new):
                await db.execute("SELECT pg_notify($1, $2)", ROWS_CHANNEL, self._told(f"c:{chat}"))

        try:
            await self._write(body)
        finally:
            self._chats.drop(old)
            self._chats.drop(new)

    async def leave_topic(self, chat_id: int, thread_id: int) -> None:
        """Move the tables of a deleted forum topic to the group's general chat, for good:
        their messages there are gone with the topic (bookkeeping, not versioned)."""
        await self._write_one(
            "UPDATE tables SET thread_id = NULL, group_message_id = NULL, updated_at = $1 "
            "WHERE chat_id = $2 AND thread_id = $3",
            (self._clock(), chat_id, thread_id),
        )

    async def get_user(self, user_id: int, *, fresh: bool = False) -> UserRow | None:
        """The user, or None if never seen; ``fresh``: read from the database."""
        found, row = self._users.get(user_id)
        if found and not fresh:
            return row
        generation = self._users.generation
        rows = await self._fetch(
            "SELECT user_id, name, language, can_message FROM users WHERE user_id = $1",
            (user_id,),
        )
        row = UserRow(rows[0][0], rows[0][1], rows[0][2], bool(rows[0][3])) if rows else None
        self._users.put(user_id, row, generation)
        return row

    async def get_users(self, user_ids: Iterable[int]) -> dict[int, UserRow]:
        """The known users among ``user_ids``, by id."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        rows = await self._fetch(
            "SELECT user_id, name, language, can_message FROM users "
            "WHERE user_id = ANY($1::bigint[])",
            (ids,),
        )
        return {r[0]: UserRow(r[0], r[1], r[2], bool(r[3])) for r in rows}

    async def save_user(self, user: UserRow, *, keep_can_message: bool = False) -> UserRow:
        """Insert or replace the user; the row as stored, told to the other processes.
        ``keep_can_message``: a known user's ``can_message`` is left as it is."""
        can = "users.can_message" if keep_can_message else "excluded.can_message"
        rows = await self._write_one(
            "INSERT INTO users (user_id, name, language, can_message, updated_at) "
            "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (user_id) DO UPDATE SET "
            "name = excluded.name, language = excluded.language, "
            f"can_message = {can}, updated_at = excluded.updated_at",
            (user.user_id, user.name, user.language, int(user.can_message), self._clock()),
            told=f"u:{user.user_id}",
            returning="can_message",
        )
        stored = replace(user, can_message=bool(rows[0][0])) if rows else user
        self._users.wrote(user.user_id, stored)
        return stored

    async def set_can_message(self, user_id: int, can_message: bool) -> None:
        """Record whether the bot may message the user (e.g. after /start, or a 403)."""
        try:
            rows = await self._write_one(
                "UPDATE users SET can_message = $1, updated_at = $2 WHERE user_id = $3",
                (int(can_message), self._clock(), user_id),
                told=f"u:{user_id}",
            )
        finally:
            self._users.drop(user_id)
        if not rows:
            raise StoreError(f"user {user_id} is unknown; save_user first")

    # ------------------------------------------------------------------ tables

    async def create_table(
        self,
        chat_id: int,
        *,
        rules: str,
        thread_id: int | None = None,
        creator_id: int | None = None,
        seats: Sequence[Seat] = (),
    ) -> TableRow:
        """Open a lobby (version 0) and return it with its new id."""
        now = self._clock()
        rows = await self._write_one(
            "INSERT INTO tables (chat_id, thread_id, status, creator_id, seats, rules, "
            "created_at, updated_at) VALUES ($1, $2, 'lobby', $3, $4, $5, $6, $7) "
            f"RETURNING {_TABLE_COLUMNS}",
            (chat_id, thread_id, creator_id, seats_to_json(seats), rules, now, now),
        )
        return _table_row(rows[0])

    async def get_table(self, table_id: int) -> TableRow | None:
        """The table, or None."""
        rows = await self._fetch(
            f"SELECT {_TABLE_COLUMNS} FROM tables WHERE table_id = $1", (table_id,)
        )
        return _table_row(rows[0]) if rows else None

    async def table_chat(self, table_id: int) -> int | None:
        """The chat of a table (None: no such table), read alone."""
        rows = await self._fetch("SELECT chat_id FROM tables WHERE table_id = $1", (table_id,))
        return int(rows[0][0]) if rows else None

    async def playing_tables_of(self, user_id: int) -> list[tuple[int, int]]:
        """(table id, chat id) of every table where ``user_id`` is seated at a running game,
        by table id."""
        rows = await self._fetch(
            "SELECT table_id, chat_id FROM tables WHERE status = 'playing' AND seats LIKE $1 "
            "ORDER BY table_id",
            (f'%"user_id":{int(user_id)},%',),
        )
        return [(int(r[0]), int(r[1])) for r in rows]

    async def running_tables(self, shards: Collection[int] | None = None) -> list[TableRow]:
        """Every table with a game in progress (in ``shards`` only, if given), by id: what
        start-up loads."""
        if shards is None:
            rows = await self._fetch(
                f"SELECT {_TABLE_COLUMNS} FROM tables WHERE status = 'playing' ORDER BY table_id"
            )
        else:
            rows = await self._fetch(
                f"SELECT {_TABLE_COLUMNS} FROM tables WHERE status = 'playing' "
                f"AND {shard_sql('chat_id')} = ANY($1::int[]) ORDER BY table_id",
                (sorted(set(shards)),),
            )
        return [_table_row(r) for r in rows]

    async def chat_tables(
        self,
        chat_id: int,
        statuses: Iterable[TableStatus] = (TableStatus.LOBBY, TableStatus.PLAYING),
    ) -> list[TableRow]:
        """The chat's tables in the given statuses (default: open lobbies and games), by id."""
        wanted = [TableStatus(s).value for s in statuses]
        if not wanted:
            return []
        rows = await self._fetch(
            f"SELECT {_TABLE_COLUMNS} FROM tables WHERE chat_id = $1 "
            "AND status = ANY($2::text[]) ORDER BY table_id",
            (chat_id, wanted),
        )
        return [_table_row(r) for r in rows]

    async def latest_table(self, chat_id: int, thread_id: int | None) -> int | None:
        """The id of the chat's (or topic's) newest table, whatever its status."""
        found = await self._fetch(
            "SELECT max(table_id) FROM tables "
            "WHERE chat_id = $1 AND thread_id IS NOT DISTINCT FROM $2",
            (chat_id, thread_id),
        )
        return int(found[0][0]) if found and found[0][0] is not None else None

    async def update_lobby(
        self,
        table_id: int,
        expected_version: int,
        *,
        seats: Sequence[Seat] | Unset = UNSET,
        rules: str | Unset = UNSET,
        thread_id: int | Unset | None = UNSET,
        creator_id: int | Unset | None = UNSET,
        reopen: bool = False,
    ) -> int:
        """Change a lobby's (or a finished table's) seats, rules or creator, compare-and-set;
        ``reopen`` turns a finished table back into a lobby (a rematch).

        Returns the new version; raises :class:`StaleVersionError` if the table is not
        at ``expected_version``.
        """
        params: list[Any] = [self._clock()]
        sets = ["version = version + 1", "updated_at = $1"]

        def put(column: str, value: Any) -> None:
            params.append(value)
            sets.append(f"{column} = ${len(params)}")

        if not isinstance(seats, Unset):
            put("seats", seats_to_json(seats))
        if not isinstance(rules, Unset):
            put("rules", rules)
        if not isinstance(thread_id, Unset):
            put("thread_id", thread_id)
        if not isinstance(creator_id, Unset):
            put("creator_id", creator_id)
        if reopen:
            # a rematch: a lobby again, drawn in a new message below the last game's end
            sets += ["status = 'lobby'", "group_message_id = NULL", "hand_message_ids = '[]'"]
        n = len(params)
        row = await self._cas_one(
            f"UPDATE tables SET {', '.join(sets)} WHERE table_id = ${n + 1} "
            f"AND version = ${n + 2} AND status IN ('lobby', 'finished') RETURNING version",
            (*params, table_id, expected_version),
            table_id,
            expected_version,
            (TableStatus.LOBBY, TableStatus.FINISHED),
        )
        return int(row[0])

    async def start_game(
        self,
        table_id: int,
        expected_version: int,
        *,
        seed: int,
        game: str,
        deadline: float | None = None,
        update_id: int | None = None,
    ) -> TableRow:
        """Start the table's next game from a lobby or a finished table, compare-and-set.

        Records the game (its seed, rules and seats, so that it can be replayed) and
        returns the table, now ``playing`` with ``game_no`` one higher and no moves.
        ``update_id``: the update it handles, done in the same transaction.
        """
        now = self._clock()
        wanted = (TableStatus.LOBBY, TableStatus.FINISHED)

        async def body(db: asyncpg.Connection) -> TableRow:
            found = await db.fetchrow(
                "UPDATE tables SET status = 'playing', game_no = game_no + 1, seed = $1, "
                "game = $2, version = version + 1, moves = 0, deadline = $3, updated_at = $4, "
                "last_update = $5 "
                "WHERE table_id = $6 AND version = $7 AND status IN ('lobby', 'finished') "
                f"RETURNING {_TABLE_COLUMNS}",
                seed,
                game,
                deadline,
                now,
                update_id,
                table_id,
                expected_version,
            )
            if found is None:
                raise await self._refusal(db, table_id, expected_version, wanted)
            table = _table_row(found)
            await db.execute(
                "INSERT INTO games (table_id, game_no, chat_id, seed, rules, seats, started_at) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7)",
                table_id,
                table.game_no,
                table.chat_id,
                seed,
                table.rules,
                seats_to_json(table.seats),
                now,
            )
            return table

        return await self._write(body)

    async def save_action(
        self,
        table_id: int,
        expected_version: int,
        *,
        game: str,
        action: str,
        seat: int | None,
        deadline: float | None = None,
        outcome: Outcome | None = None,
        update_id: int | None = None,
    ) -> Saved:
        """Save one applied action: the new state and its log line, in one transaction.

        Compare-and-set: the table must be ``playing`` at ``expected_version``, else
        nothing is written and :class:`StaleVersionError` (or :class:`WrongStatusError`,
        :class:`TableNotFoundError`) is raised. ``deadline`` replaces the table's timer.
        With an ``outcome`` the game ends in the same transaction: the table becomes
        ``finished``, the game's result and final state are kept, and every seat's series
        tally is counted — so a finished game is never without its tally, nor counted
        twice. ``update_id``: the update the action comes from, done in the same
        transaction (the ``inbox_done`` trigger), so that it is never applied twice.
        """
        now = self._clock()
        wanted = (TableStatus.PLAYING,)
        if outcome is None:
            # The hot path: one statement; the log_action trigger appends the log line.
            row = await self._cas_one(
                "UPDATE tables SET game = $1, version = version + 1, moves = moves + 1, "
                "last_seat = $2, last_action = $3, deadline = $4, updated_at = $5, "
                "last_update = $6 "
                "WHERE table_id = $7 AND version = $8 AND status = 'playing' "
                "RETURNING version, moves",
                (game, seat, action, deadline, now, update_id, table_id, expected_version),
                table_id,
                expected_version,
                wanted,
            )
            return Saved(row[0], row[1])

        done = outcome

        async def finish(db: asyncpg.Connection) -> Saved:
            found = await db.fetchrow(
                "UPDATE tables SET game = $1, version = version + 1, moves = moves + 1, "
                "last_seat = $2, last_action = $3, status = 'finished', deadline = NULL, "
                "updated_at = $4, last_update = $5 "
                "WHERE table_id = $6 AND version = $7 AND status = 'playing' "
                "RETURNING version, moves, game_no, chat_id, seats",
                game,
                seat,
                action,
                now,
                update_id,
                table_id,
                expected_version,
            )
            if found is None:
                raise await self._refusal(db, table_id, expected_version, wanted)
            version, seq, game_no, chat_id, seats_json = found
            await self._count_result(
                db, table_id, game_no, chat_id, seats_from_json(seats_json), done, game, now
            )
            return Saved(version, seq)

        return await self._write(finish)

    @staticmethod
    async def _count_result(
        db: asyncpg.Connection,
        table_id: int,
        game_no: int,
        chat_id: int,
        seats: tuple[Seat, ...],
        outcome: Outcome,
        final_game: str,
        now: float,
    ) -> None:
        """Inside a finishing transaction: keep the result, each seat's line of history,
        and add the game to each seat's series tally."""
        _check_outcome(outcome, len(seats))
        await db.execute(
            "UPDATE games SET finished_at = $1, outcome = $2, final_game = $3 "
            "WHERE table_id = $4 AND game_no = $5",
            now,
            outcome.to_json(),
            final_game,
            table_id,
            game_no,
        )
        lines = []
        for i, s in enumerate(seats):
            lost = i in outcome.durak_seats
            counts = (int(lost), int(lost and outcome.pogony), int(outcome.draw), outcome.points[i])
            lines.append((i, s, counts))
        await db.executemany(
            "INSERT INTO game_players (table_id, game_no, seat, chat_id, player, user_id, "
            "players, durak, pogony, draw, points, finished_at) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            [
                (table_id, game_no, i, chat_id, s.player, s.user_id, len(seats), *counts, now)
                for i, s, counts in lines
            ],
        )
        await db.executemany(
            "INSERT INTO tallies (chat_id, player, user_id, name, games, durak, pogony, "
            "draws, points, last_played) VALUES ($1, $2, $3, $4, 1, $5, $6, $7, $8, $9) "
            "ON CONFLICT (chat_id, player) DO UPDATE SET "
            "user_id = excluded.user_id, name = excluded.name, games = tallies.games + 1, "
            "durak = tallies.durak + excluded.durak, "
            "pogony = tallies.pogony + excluded.pogony, "
            "draws = tallies.draws + excluded.draws, "
            "points = tallies.points + excluded.points, "
            # two games of a group ending at once may commit in either order
            "last_played = greatest(tallies.last_played, excluded.last_played)",
            [(chat_id, s.player, s.user_id, s.name, *counts, now) for _, s, counts in lines],
        )
        # The ratings move in the same transaction. A failure there must not cost the game
        # its result: the rating is rolled back alone (a savepoint), and --rebuild puts it
        # right.
        try:
            async with db.transaction():
                await pg_ratings.rate_game(db, table_id, game_no)
        except Exception:
            log.exception("table %s: game %s could not be rated", table_id, game_no)

    async def cancel_table(self, table_id: int, expected_version: int) -> int:
        """Close a lobby or stop a running game without a result; compare-and-set.

        No tally is counted. Returns the new version.
        """
        now = self._clock()
        wanted = (TableStatus.LOBBY, TableStatus.PLAYING)

        async def body(db: asyncpg.Connection) -> int:
            found = await db.fetchrow(
                "UPDATE tables SET status = 'cancelled', version = version + 1, "
                "deadline = NULL, updated_at = $1 "
                "WHERE table_id = $2 AND version = $3 AND status IN ('lobby', 'playing') "
                "RETURNING version, game_no, game",
                now,
                table_id,
                expected_version,
            )
            if found is None:
                raise await self._refusal(db, table_id, expected_version, wanted)
            version, game_no, game = found
            await db.execute(
                "UPDATE games SET finished_at = $1, final_game = $2 "
                "WHERE table_id = $3 AND game_no = $4 AND finished_at IS NULL",
                now,
                game,
                table_id,
                game_no,
            )
            return int(version)

        return await self._write(body)

    async def set_messages(
        self,
        table_id: int,
        *,
        group_message_id: int | Unset | None = UNSET,
        hand_message_ids: Sequence[int | None] | Unset = UNSET,
    ) -> None:
        """Record the table's group message and the hand message of each seat.

        Not versioned: message ids are bookkeeping, not game state.
        """
        sets = ["updated_at = $1"]
        params: list[Any] = [self._clock()]
        if not isinstance(group_message_id, Unset):
            params.append(group_message_id)
            sets.append(f"group_message_id = ${len(params)}")
        if not isinstance(hand_message_ids, Unset):
            params.append(json.dumps(list(hand_message_ids)))
            sets.append(f"hand_message_ids = ${len(params)}")
        await self._update_unversioned(table_id, sets, params)

    async def set_deadline(self, table_id: int, deadline: float | None) -> None:
        """Set (or clear, with None) the table's timer. Not versioned."""
        await self._update_unversioned(
            table_id, ["deadline = $1", "updated_at = $2"], [deadline, self._clock()]
        )

    async def _update_unversioned(self, table_id: int, sets: list[str], params: list[Any]) -> None:
        rows = await self._write_one(
            f"UPDATE tables SET {', '.join(sets)} WHERE table_id = ${len(params) + 1} "
            "RETURNING table_id",
            (*params, table_id),
        )
        if not rows:
            raise TableNotFoundError(table_id)

    async def purge_stale_lobbies(self, max_age: float = DAY) -> list[TableRow]:
        """Remove lobbies opened more than ``max_age`` seconds ago and never started (a
        rematch lobby left that long is closed, its table finished again).

        Returns the removed tables (so their lobby messages can be edited).
        """
        cutoff = self._clock() - max_age

        async def body(db: asyncpg.Connection) -> list[Any]:
            removed = await db.fetch(
                "DELETE FROM tables WHERE status = 'lobby' AND game_no = 0 "
                f"AND created_at < $1 RETURNING {_TABLE_COLUMNS}",
                cutoff,
            )
            # a rematch lobby nobody started: the table keeps its games, finished again
            closed = await db.fetch(
                "UPDATE tables SET status = 'finished', version = version + 1 "
                "WHERE status = 'lobby' AND game_no > 0 AND updated_at < $1 "
                f"RETURNING {_TABLE_COLUMNS}",
                cutoff,
            )
            return [*removed, *closed]

        rows = await self._write(body)
        return sorted((_table_row(r) for r in rows), key=lambda t: t.table_id)

    # ------------------------------------------------------------------ games and history

    async def game_log(self, table_id: int, game_no: int) -> list[ActionRow]:
        """The game's actions in order (sequence 1, 2, ...)."""
        rows = await self._fetch(
            "SELECT table_id, game_no, seq, seat, action, at FROM actions "
            "WHERE table_id = $1 AND game_no = $2 ORDER BY seq",
            (table_id, game_no),
        )
        return [ActionRow(*r) for r in rows]

    async def game_record(self, table_id: int, game_no: int) -> GameRecord | None:
        """One game of a table: seed, rules, seats and (once over) outcome and final state."""
        rows = await self._fetch(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE table_id = $1 AND game_no = $2",
            (table_id, game_no),
        )
        return _game_record(rows[0]) if rows else None

    async def chat_games(self, chat_id: int, *, finished_only: bool = True) -> list[GameRecord]:
        """The chat's games (by default only those with a result), oldest first."""
        where = " AND outcome IS NOT NULL" if finished_only else ""
        rows = await self._fetch(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE chat_id = $1{where} "
            "ORDER BY started_at, table_id, game_no",
            (chat_id,),
        )
        return [_game_record(r) for r in rows]

    async def chat_stats(self, chat_id: int, by: StatsOrder = "points") -> list[TallyRow]:
        """The chat's series, one row per player, sorted ``by`` points (most first),
        durak (most first), games or recent play."""
        order = _STATS_ORDER[by]
        rows = await self._fetch(
            f"SELECT {_TALLY_COLUMNS} FROM tallies AS t LEFT JOIN users AS u "
            f"ON u.user_id = t.user_id WHERE t.chat_id = $1 ORDER BY {order}",
            (chat_id,),
        )
        return [_tally_row(r) for r in rows]

    async def player_tallies(self, user_id: int) -> list[TallyRow]:
        """The user's series in every chat, most recently played first."""
        rows = await self._fetch(
            f"SELECT {_TALLY_COLUMNS} FROM tallies AS t LEFT JOIN users AS u "
            "ON u.user_id = t.user_id WHERE t.player = $1 "
            "ORDER BY t.last_played DESC NULLS LAST, t.chat_id",
            (f"u:{user_id}",),
        )
        return [_tally_row(r) for r in rows]

    async def player_history(self, user_id: int, limit: int = 20) -> list[PlayerGame]:
        """The user's last ``limit`` finished games across all chats, newest first."""
        rows = await self._fetch(
            "SELECT chat_id, table_id, game_no, seat, players, durak, pogony, draw, points, "
            "finished_at FROM game_players WHERE user_id = $1 "
            "ORDER BY finished_at DESC, table_id DESC, game_no DESC LIMIT $2",
            (user_id, limit),
        )
        return [
            PlayerGame(r[0], r[1], r[2], r[3], r[4], bool(r[5]), bool(r[6]), bool(r[7]), r[8], r[9])
            for r in rows
        ]

    # ------------------------------------------------------------------ ratings

    async def ratings_of(self, scope: int, user_ids: Iterable[int]) -> dict[int, RatingRow]:
        """The ratings of these users in one scope (a group's chat id, 0 overall, 1
        against the computer), by user id; users with no counted game there are missing."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        rows = await self._fetch(
            f"SELECT {_RATING_COLUMNS} FROM ratings AS r LEFT JOIN users AS u "
            "ON u.user_id = r.user_id WHERE r.scope = $1 AND r.user_id = ANY($2::bigint[])",
            (scope, ids),
        )
        return {row.user_id: row for row in map(_rating_row, rows)}

    async def rating_board(self, scope: int, limit: int = 10) -> list[RatingRow]:
        """The best ``limit`` ratings of a scope, best first."""
        rows = await self._fetch(
            f"SELECT {_RATING_COLUMNS} FROM ratings AS r LEFT JOIN users AS u "
            f"ON u.user_id = r.user_id WHERE r.scope = $1 ORDER BY {_BOARD_ORDER} LIMIT $2",
            (scope, limit),
        )
        return [_rating_row(r) for r in rows]

    async def rating_place(self, scope: int, user_id: int) -> int | None:
        """A user's place on a scope's board (1 is the best), or None if he has no rating
        there."""
        rows = await self._fetch(
            "SELECT 1 + (SELECT count(*) FROM ratings AS o WHERE o.scope = r.scope AND ("
            "(o.mu - 3 * o.sigma) > (r.mu - 3 * r.sigma) OR ((o.mu - 3 * o.sigma) = "
            "(r.mu - 3 * r.sigma) AND (o.games > r.games OR (o.games = r.games AND "
            "o.user_id < r.user_id))))) FROM ratings AS r WHERE r.scope = $1 AND r.user_id = $2",
            (scope, user_id),
        )
        return int(rows[0][0]) if rows else None

    async def player_ratings(self, user_id: int) -> list[RatingRow]:
        """A user's ratings in every scope, most recently moved first."""
        rows = await self._fetch(
            f"SELECT {_RATING_COLUMNS} FROM ratings AS r LEFT JOIN users AS u "
            "ON u.user_id = r.user_id WHERE r.user_id = $1 ORDER BY r.updated_at DESC, r.scope",
            (user_id,),
        )
        return [_rating_row(r) for r in rows]

    async def rating_history(self, user_id: int, scopes: Iterable[int]) -> list[RatingPoint]:
        """A user's rating after each of his counted games in these scopes, in the order
        the games were rated."""
        wanted = sorted(set(scopes))
        if not wanted:
            return []
        rows = await self._fetch(
            "SELECT scope, seq, at, mu, sigma FROM rating_history "
            "WHERE user_id = $1 AND scope = ANY($2::bigint[]) ORDER BY seq, scope",
            (user_id, wanted),
        )
        return [RatingPoint(*r) for r in rows]

    async def partners(self, user_id: int) -> list[PartnerRow]:
        """The players who sat on a user's team in his counted team games (overall and
        against the computer), with the games they played together and won, most games
        first."""
        rows = await self._fetch(
            "SELECT b.user_id, coalesce(min(u.name), (SELECT name FROM ratings AS r "
            "WHERE r.user_id = b.user_id ORDER BY r.updated_at DESC LIMIT 1), '?'), "
            "count(*), sum(1 - a.lost) FROM rating_history AS a JOIN rating_history AS b "
            "ON b.table_id = a.table_id AND b.game_no = a.game_no AND b.scope = a.scope "
            "AND b.side = a.side AND b.user_id != a.user_id "
            "LEFT JOIN users AS u ON u.user_id = b.user_id "
            "WHERE a.user_id = $1 AND a.scope IN ($2, $3) AND a.side IS NOT NULL "
            "GROUP BY b.user_id ORDER BY count(*) DESC, b.user_id",
            (user_id, OVERALL, VS_COMPUTER),
        )
        return [PartnerRow(int(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in rows]

    async def rebuild_ratings(self) -> tuple[int, int]:
        """Forget every rating and rate every finished game again, in the order they were
        rated (one transaction); (games that counted, games finished)."""

        async def body(db: asyncpg.Connection) -> tuple[int, int]:
            return await pg_ratings.rebuild(db)

        return await self._write(body)

    # ------------------------------------------------------------------ the coach

    async def get_review(self, table_id: int, game_no: int, user_id: int) -> str | None:
        """The coach's review of game ``game_no`` of ``table_id`` for ``user_id``, if made."""
        rows = await self._fetch(
            "SELECT review FROM reviews WHERE table_id = $1 AND game_no = $2 AND user_id = $3",
            (table_id, game_no, user_id),
        )
        return str(rows[0][0]) if rows else None

    async def save_review(
        self, table_id: int, game_no: int, user_id: int, seat: int, review: str
    ) -> None:
        """Keep a review; a second one for the same game and viewer is ignored (the
        analysis is deterministic, so both say the same)."""
        await self._write_one(
            "INSERT INTO reviews (table_id, game_no, user_id, seat, review, created_at) "
            "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
            (table_id, game_no, user_id, seat, review, self._clock()),
        )

    # ------------------------------------------------------------------ the bot itself

    async def get_state(self, key: str) -> str | None:
        """The value kept under ``key``, or None."""
        rows = await self._fetch("SELECT value FROM bot_state WHERE key = $1", (key,))
        return str(rows[0][0]) if rows else None

    async def set_state(self, key: str, value: str) -> None:
        """Keep ``value`` under ``key``, replacing what was kept there."""
        await self._write_one(
            "INSERT INTO bot_state (key, value, updated_at) VALUES ($1, $2, $3) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
            "updated_at = excluded.updated_at",
            (key, value, self._clock()),
        )

    # ------------------------------------------------------------------ the inbox

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

    async def pending_updates(self, shards: Collection[int] | None = None) -> list[KeptUpdate]:
        """The kept updates not done yet (of ``shards`` only, if given), by update id."""
        if shards is None:
            rows = await self._fetch(
                "SELECT update_id, body, shard FROM inbox WHERE done_at IS NULL ORDER BY update_id"
            )
        else:
            rows = await self._fetch(
                "SELECT update_id, body, shard FROM inbox WHERE done_at IS NULL "
                "AND shard = ANY($1::int[]) ORDER BY update_id",
                (sorted(set(shards)),),
            )
        return [KeptUpdate(int(r[0]), str(r[1]), int(r[2])) for r in rows]

    async def earlier_private_update(self, user_id: int, update_id: int) -> bool:
        """Whether an update of the user's private chat older than ``update_id`` is kept
        and not done yet (the pending updates are few: read by their partial index)."""
        rows = await self._fetch(
            "SELECT 1 FROM inbox WHERE done_at IS NULL AND update_id > 0 AND update_id < $1 "
            "AND coalesce(body::jsonb #>> '{message,chat,id}', "
            "body::jsonb #>> '{my_chat_member,chat,id}') = $2::text LIMIT 1",
            (update_id, str(user_id)),
        )
        return bool(rows)

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

    async def finish_update(self, update_id: int) -> None:
        """Mark an update done (if it is kept and not done already)."""
        await self._write_one(
            "UPDATE inbox SET done_at = $1 WHERE update_id = $2 AND done_at IS NULL",
            (self._clock(), update_id),
        )

    async def prune_updates(self, max_age: float = DAY) -> int:
        """Delete the updates done more than ``max_age`` seconds ago; how many."""
        rows = await self._write_one(
            "DELETE FROM inbox WHERE done_at < $1 RETURNING update_id", (self._clock() - max_age,)
        )
        return len(rows)
