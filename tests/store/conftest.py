"""Fixtures of the store tests: each runs on a fresh SQLite file and on a fresh PostgreSQL
database (``database``, from tests/conftest.py; ``store``), with a fake clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from store_backends import Database
from store_helpers import FakeClock

from bot.store import Store


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "durak.sqlite3"


@pytest.fixture
async def store(database: Database, clock: FakeClock) -> AsyncIterator[Store]:
    async with database.open(clock=clock) as opened:
        yield opened
