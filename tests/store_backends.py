"""The two databases the store tests run on: a SQLite file and a PostgreSQL database.

Each gives the same three things: open a store on it, run a raw query on it (with ``?``
placeholders, as an operator would look at it), and where it is.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import asyncpg

from bot.store import Opening, SqliteStore, Store
from bot.store.postgres import PostgresStore

BACKENDS = ("sqlite", "postgresql")


class Database:
    """Where a store test's data lives."""

    backend: str

    def open(self, *, clock: Callable[[], float] = time.time) -> Opening[Store]:
        """Open a store on this database (creating or upgrading its schema)."""
        raise NotImplementedError

    async def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement outside the store; the rows it returns, as tuples."""
        raise NotImplementedError


class SqliteDatabase(Database):
    backend = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path

    def open(self, *, clock: Callable[[], float] = time.time) -> Opening[Store]:
        return SqliteStore.open(self.path, clock=clock)

    async def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        con = sqlite3.connect(self.path, isolation_level=None)
        try:
            return [tuple(r) for r in con.execute(sql, tuple(params)).fetchall()]
        finally:
            con.close()

    def __repr__(self) -> str:
        return f"SqliteDatabase({str(self.path)!r})"


class PostgresDatabase(Database):
    backend = "postgresql"

    def __init__(self, url: str) -> None:
        self.url = url

    def open(self, *, clock: Callable[[], float] = time.time) -> Opening[Store]:
        return PostgresStore.open(self.url, connections=4, clock=clock)

    async def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        conn = await asyncpg.connect(self.url)
        try:
            return [tuple(r) for r in await conn.fetch(dollars(sql), *params)]
        finally:
            await conn.close()

    def __repr__(self) -> str:
        return f"PostgresDatabase({self.url!r})"


def dollars(sql: str) -> str:
    """``?`` placeholders numbered as PostgreSQL wants them (``$1``, ``$2``...)."""
    numbers = iter(range(1, 1000))
    return re.sub(r"\?", lambda _: f"${next(numbers)}", sql)
