"""Fixtures of the store tests: each runs on a fresh SQLite file and on a fresh PostgreSQL
database (``database``, ``store``), with a fake clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from store_backends import BACKENDS, Database, PostgresDatabase, SqliteDatabase
from store_helpers import FakeClock

from bot.store import Store


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "durak.sqlite3"


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def database(backend: str, db_path: Path, request: pytest.FixtureRequest) -> Database:
    """A database of the test's backend with no data (PostgreSQL's already has its schema:
    copied from a template, it is quicker to make)."""
    if backend == "sqlite":
        return SqliteDatabase(db_path)
    return PostgresDatabase(request.getfixturevalue("postgres_store_url"))


@pytest.fixture
async def store(database: Database, clock: FakeClock) -> AsyncIterator[Store]:
    async with database.open(clock=clock) as opened:
        yield opened
