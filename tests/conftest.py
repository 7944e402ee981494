"""A real PostgreSQL server for the tests that need one, and a fresh database for each.

``./scripts/test.sh`` starts one throwaway server for the whole run (scripts/_postgres.sh)
and exports its URL as ``DURAK_TEST_DATABASE_URL``, or, when it could not, the reason as
``DURAK_TEST_DATABASE_ERROR``. Run without it (``pytest tests/store``), the first test that
asks starts a server of its own with the same script, stopped when pytest ends. A test
that cannot get its PostgreSQL fails with the one-line reason; it never skips.
"""

from __future__ import annotations

import itertools
import os
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

ROOT = Path(__file__).resolve().parent.parent
SERVER_SCRIPT = ROOT / "scripts" / "_postgres.sh"
URL_ENV = "DURAK_TEST_DATABASE_URL"
ERROR_ENV = "DURAK_TEST_DATABASE_ERROR"

_names = itertools.count()


def with_database(url: str, name: str) -> str:
    """``url`` pointing at the database ``name`` of the same server."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server's maintenance database, for this test run."""
    problem = os.environ.get(ERROR_ENV, "").strip()
    if problem:
        pytest.fail(problem, pytrace=False)
    url = os.environ.get(URL_ENV, "").strip()
    if url:
        yield url
        return
    started = subprocess.run(
        ["bash", str(SERVER_SCRIPT), "start"],
        capture_output=True,
        text=True,
        check=False,
    )
    if started.returncode != 0:
        lines = started.stderr.strip().splitlines() or ["scripts/_postgres.sh start failed"]
        pytest.fail(lines[-1], pytrace=False)
    url = started.stdout.strip().splitlines()[-1]
    try:
        yield url
    finally:
        subprocess.run(["bash", str(SERVER_SCRIPT), "stop", url], check=False)


@pytest.fixture
async def postgres_url(postgres_server: str) -> AsyncIterator[str]:
    """A new, empty database on the test server (dropped afterwards): its URL."""
    name = f"durak_test_{os.getpid()}_{next(_names)}"
    try:
        admin = await asyncpg.connect(postgres_server, timeout=30)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
        pytest.fail(f"cannot reach the test PostgreSQL at {postgres_server}: {exc}", pytrace=False)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield with_database(postgres_server, name)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()
