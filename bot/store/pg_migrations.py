"""PostgreSQL's schema version: :mod:`bot.store.migrations`' one list, run on PostgreSQL.

The version lives in the one-row table ``schema_version`` (SQLite keeps it in ``PRAGMA
user_version``). Each step runs in one transaction with the new version, under an advisory
lock, so processes that start together migrate one after another and a crash leaves a
whole version.
"""

from __future__ import annotations

from typing import Final

import asyncpg

from bot.store.dialect import numbered
from bot.store.errors import SchemaTooNewError
from bot.store.migrations import LATEST_VERSION, MIGRATIONS
from bot.store.pg_dialect import POSTGRES
from bot.store.steps import run_async

PG_LATEST_VERSION: Final = LATEST_VERSION
"""The latest schema version: the same number on both databases."""

VERSION_TABLE: Final = "schema_version"
"""The table holding the schema version: the one table SQLite has no twin of."""

_LOCK: Final = 0x64_75_72_61_6B  # "durak": the advisory lock that migrating processes queue on


async def schema_version(conn: asyncpg.Connection) -> int:
    """The database's schema version (0 for a new, empty database); changes nothing."""
    exists = await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", VERSION_TABLE)
    if not exists:
        return 0
    found = await conn.fetchval(f"SELECT max(version) FROM {VERSION_TABLE}")
    return int(found or 0)


async def migrate(conn: asyncpg.Connection, where: str, target: int | None = None) -> int:
    """Bring the schema up to ``target`` (default: the latest), one migration at a time.

    Each step is one transaction that also records the new version, under an advisory
    lock held for the whole run, so that two processes never run the same step. Raises
    :class:`SchemaTooNewError` if the database is newer than this code (``where`` names it,
    without its password). Returns the version reached.
    """
    goal = LATEST_VERSION if target is None else target
    if not 0 <= goal <= LATEST_VERSION:
        raise ValueError(f"no schema version {goal}; known: 0..{LATEST_VERSION}")
    # A session lock, taken outside the transactions: each step's transaction then starts
    # after the lock, so it sees the catalog as the previous holder left it.
    await conn.execute("SELECT pg_advisory_lock($1)", _LOCK)
    try:
        while True:
            async with conn.transaction():
                current = await schema_version(conn)
                if current > LATEST_VERSION:
                    raise SchemaTooNewError(where, current, LATEST_VERSION)
                if current >= goal:
                    return current
                if current == 0:
                    await conn.execute(f"CREATE TABLE {VERSION_TABLE} (version INTEGER NOT NULL)")
                    await conn.execute(f"INSERT INTO {VERSION_TABLE} VALUES (0)")
                step = MIGRATIONS[current]
                for statement in step.sql(POSTGRES):
                    await conn.execute(statement)
                if step.step is not None:
                    await run_async(conn, step.step(POSTGRES), numbered)
                await conn.execute(f"UPDATE {VERSION_TABLE} SET version = $1", step.version)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", _LOCK)
