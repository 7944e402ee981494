"""Fixtures of the store tests: a fresh database file under ``tmp_path`` and a fake clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from store_helpers import FakeClock

from bot.store import SqliteStore


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "durak.sqlite3"


@pytest.fixture
async def store(db_path: Path, clock: FakeClock) -> AsyncIterator[SqliteStore]:
    async with SqliteStore.open(db_path, clock=clock) as opened:
        yield opened
