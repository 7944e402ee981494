"""Storage: chats, users, tables, games in progress, the action log, series tallies, ratings.

Program against :class:`Store`; :func:`open_store` opens the SQLite implementation::

    async with open_store(settings.db_path) as store:
        tables = await store.running_tables()
"""

from __future__ import annotations

import os

from bot.store.base import Store
from bot.store.config import DEFAULT_FILENAME, PATH_ENV, SYNC_ENV, resolve_path, resolve_synchronous
from bot.store.errors import (
    SchemaTooNewError,
    StaleVersionError,
    StoreError,
    TableNotFoundError,
    WrongStatusError,
)
from bot.store.migrations import LATEST_VERSION, MIGRATIONS
from bot.store.models import (
    DAY,
    UNSET,
    ActionRow,
    ChatRow,
    GameRecord,
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
)
from bot.store.sqlite import Opening, SqliteStore

__all__ = [
    "DAY",
    "DEFAULT_FILENAME",
    "LATEST_VERSION",
    "MIGRATIONS",
    "PATH_ENV",
    "SYNC_ENV",
    "UNSET",
    "ActionRow",
    "ChatRow",
    "GameRecord",
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
    "TableNotFoundError",
    "TableRow",
    "TableStatus",
    "TallyRow",
    "Unset",
    "UserRow",
    "WrongStatusError",
    "open_store",
    "resolve_path",
    "resolve_synchronous",
]


def open_store(
    path: str | os.PathLike[str] | None = None, *, synchronous: str | None = None
) -> Opening:
    """Open the configured store: ``path`` (or ``$DURAK_DB_PATH``, or ``./durak.sqlite3``),
    with ``synchronous`` (or ``$DURAK_DB_SYNCHRONOUS``, or NORMAL). Await it, or use it as
    ``async with``."""
    return SqliteStore.open(resolve_path(path), synchronous=resolve_synchronous(synchronous))


def _conforms(store: SqliteStore) -> Store:
    """Let mypy check that :class:`SqliteStore` implements :class:`Store`."""
    return store
