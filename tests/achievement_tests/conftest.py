"""A database file's place for the tests that run on each backend (the ``database``
fixture of tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "durak.sqlite3"
