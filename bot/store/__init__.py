"""Storage: chats, users, tables, games in progress, the action log, series tallies, ratings.

Program against :class:`Store`; :func:`open_store` opens the configured implementation:
:class:`SqliteStore` (the default, one process) or, given a ``postgresql://`` URL,
:class:`~bot.store.postgres.PostgresStore`::

    async with open_store(settings.db_path, url=settings.postgres_url) as store:
        tables = await store.running_tables()

One store, two databases. The map:

- ``base.py``: the :class:`Store` interface; ``models.py``: the rows it reads and writes;
  ``errors.py``: its errors, by cause.
- ``core.py``: the store, written once — every query and transaction, in the SQL both
  databases share, ``?`` placeholders. A transaction of several statements is a body
  (``steps.py``): a generator that yields its statements and is sent their rows, which
  SQLite's driver runs synchronously and asyncpg's asynchronously.
- ``dialect.py``: what a database says differently (placeholders, type words, triggers,
  NULL-safe equality, ``greatest``, collation, JSON paths, how a seat's moves are counted,
  the lock that orders the ratings), one :class:`~bot.store.dialect.Dialect` per backend:
  SQLite's in ``sqlite.py``, PostgreSQL's in ``pg_dialect.py``.
- ``sqlite.py``: SQLite's dialect, its schema version, and how a call reaches the file
  (on the event loop, or whole on the database's thread); ``postgres.py``: PostgreSQL's
  pool, and what only several processes need (LISTEN/NOTIFY channels, the
  pool ``bot.cluster`` runs its leases and budgets on); ``pg_migrations.py``: its schema
  version table and migration lock.
- ``migrations.py``: one numbered list for both databases, each statement written once
  with the dialect's words in braces, its data steps bodies like the store's;
  ``ratings.py`` and ``rating_rows.py``: the ratings' loading and rows, once;
  ``achievements.py``: the achievements given at a game's end and rebuilt, once.
- ``copy.py``: ``python -m bot.store.copy``, a database copied SQLite to PostgreSQL or
  back; ``config.py``: where the database is; ``opening.py``: ``await``/``async with``.

Why a thin dialect layer of our own and not SQLAlchemy Core: the CPU time of a move's
store calls (its update kept, then the compare-and-set save whose triggers log the action
and mark the update done), measured on a shared two-core machine with
``bench/storepaths.py`` (``N=2000 ROUNDS=2 PG=… bench/storepaths.py aiosqlite onehop
inline sa-sqlite pg-asyncpg pg-sa``, SQLAlchemy 2.0.58 installed for the run; two
interleaved rounds): SQLite through aiosqlite, a round trip to its thread a statement,
90-112 us; sqlite3 behind one ``run_in_executor`` hop a call, 136-149 us; sqlite3 on the
event loop, 63-71 us; SQLAlchemy Core's async engine on aiosqlite, 2,196-2,203 us;
PostgreSQL through asyncpg's pool, 200-225 us; SQLAlchemy Core on asyncpg, 907-949 us
(each call in ``engine.begin()``, as its documentation shows). SQLAlchemy would cost a
move four to twenty times the CPU it saves us in SQL text; what differs between the two
databases fits in two small dialect objects. And SQLite's calls run on the event loop
(see :mod:`bot.store.sqlite` for why a commit there never waits for the disk): through
the store (``bench/store.py``'s phases, seven interleaved runs against the store before,
on a shared two-core machine): 42-60 us of CPU a save (median 46) and 112-186 us a move's
store calls (median 119) through aiosqlite before; 31-42 us (median 36) and 87-128 us
(median 105) after. PostgreSQL's figures did not move (median 96 and 101 us a save).

May import: ``bot.ratings`` (the rating model, for every finished game). Must not import
any other layer of the bot, nor the engine: game state is opaque JSON here.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from bot.store.base import Store
from bot.store.config import (
    DEFAULT_FILENAME,
    PATH_ENV,
    SYNC_ENV,
    URL_ENV,
    mask_url,
    resolve_path,
    resolve_synchronous,
    resolve_url,
)
from bot.store.errors import (
    SchemaTooNewError,
    StaleVersionError,
    StoreError,
    StoreUnavailable,
    TableNotFoundError,
    WrongStatusError,
)
from bot.store.migrations import LATEST_VERSION, MIGRATIONS
from bot.store.models import (
    DAY,
    SHARDS,
    UNSET,
    AchievementRow,
    ActionRow,
    ChatRow,
    GameRecord,
    Invitation,
    KeptUpdate,
    NewGame,
    Outcome,
    PartnerRow,
    PlayerGame,
    QuickRound,
    RatingPoint,
    RatingRow,
    Saved,
    SeasonRow,
    Seat,
    StatsOrder,
    TableRow,
    TableStatus,
    TallyRow,
    Tourney,
    TourneyEnded,
    TourneyStatus,
    TourneyWin,
    Unset,
    UserRow,
    Waiting,
    is_private_chat,
    private_chat,
    shard_of,
)
from bot.store.opening import Opening
from bot.store.sqlite import SqliteStore

if TYPE_CHECKING:
    from bot.store.postgres import PostgresStore

__all__ = [
    "DAY",
    "DEFAULT_FILENAME",
    "LATEST_VERSION",
    "MIGRATIONS",
    "PATH_ENV",
    "SHARDS",
    "SYNC_ENV",
    "UNSET",
    "URL_ENV",
    "AchievementRow",
    "ActionRow",
    "ChatRow",
    "GameRecord",
    "Invitation",
    "KeptUpdate",
    "NewGame",
    "Opening",
    "Outcome",
    "PartnerRow",
    "PlayerGame",
    "QuickRound",
    "RatingPoint",
    "RatingRow",
    "Saved",
    "SchemaTooNewError",
    "SeasonRow",
    "Seat",
    "SqliteStore",
    "StaleVersionError",
    "StatsOrder",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "TableNotFoundError",
    "TableRow",
    "TableStatus",
    "TallyRow",
    "Tourney",
    "TourneyEnded",
    "TourneyStatus",
    "TourneyWin",
    "Unset",
    "UserRow",
    "Waiting",
    "WrongStatusError",
    "is_private_chat",
    "mask_url",
    "open_store",
    "private_chat",
    "resolve_path",
    "resolve_synchronous",
    "resolve_url",
    "shard_of",
]


def open_store(
    path: str | os.PathLike[str] | None = None,
    *,
    synchronous: str | None = None,
    url: str | None = None,
) -> Opening[Store]:
    """Open the configured store. A PostgreSQL ``url`` (or, when ``url`` is None,
    ``$DURAK_DATABASE_URL``) selects PostgreSQL; else the SQLite file ``path`` (or
    ``$DURAK_DB_PATH``, or ``./durak.sqlite3``) with ``synchronous`` (or
    ``$DURAK_DB_SYNCHRONOUS``, or NORMAL). Await it, or use it as ``async with``."""
    chosen = resolve_url(url)
    if chosen:
        from bot.store.postgres import PostgresStore

        return PostgresStore.open(chosen)
    return SqliteStore.open(resolve_path(path), synchronous=resolve_synchronous(synchronous))


def _conforms(store: SqliteStore, other: PostgresStore) -> tuple[Store, Store]:
    """Let mypy check that both stores implement :class:`Store`."""
    return store, other
