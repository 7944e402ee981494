"""Storage: chats, users, tables, games in progress, the action log, series tallies, ratings.

Program against :class:`Store`; :func:`open_store` opens the configured implementation:
:class:`SqliteStore` (the default, one process) or, given a ``postgresql://`` URL,
:class:`~bot.store.postgres.PostgresStore`::

    async with open_store(settings.db_path, url=settings.postgres_url) as store:
        tables = await store.running_tables()

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
    "ActionRow",
    "ChatRow",
    "GameRecord",
    "KeptUpdate",
    "Opening",
    "Outcome",
    "PartnerRow",
    "PlayerGame",
    "RatingPoint",
    "RatingRow",
    "Saved",
    "SchemaTooNewError",
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
    "Unset",
    "UserRow",
    "WrongStatusError",
    "mask_url",
    "open_store",
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
