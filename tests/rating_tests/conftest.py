"""A fresh store per test, on each backend (the ``database`` fixture of tests/conftest.py),
with a clock that moves a second per call (every game finishes at its own time)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from store_backends import Database

from bot.store import Store


class Ticking:
    """Unix time that moves one second each time it is read."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "durak.sqlite3"


@pytest.fixture
async def store(database: Database) -> AsyncIterator[Store]:
    async with database.open(clock=Ticking()) as opened:
        yield opened
