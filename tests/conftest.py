"""A real PostgreSQL server for the tests that need one, and a fresh database for each.

``./scripts/test.sh`` starts one throwaway server for the whole run (scripts/_postgres.sh)
and exports its URL as ``DURAK_TEST_DATABASE_URL``, or, when it could not, the reason as
``DURAK_TEST_DATABASE_ERROR``. Run without it (``pytest tests/store``), the first test that
asks starts a server of its own with the same script, stopped when pytest ends. A test
that cannot get its PostgreSQL fails with the one-line reason; it never skips.

A test that asks for ``database`` runs twice: on a fresh SQLite file (the ``db_path`` of
its folder) and on a fresh PostgreSQL database (tests/store_backends.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest
from store_backends import BACKENDS, Database, PostgresDatabase, SqliteDatabase

from bot.transport.pacing import use_timedelta_periods

ROOT = Path(__file__).resolve().parent.parent
SERVER_SCRIPT = ROOT / "scripts" / "_postgres.sh"
URL_ENV = "DURAK_TEST_DATABASE_URL"
ERROR_ENV = "DURAK_TEST_DATABASE_ERROR"

# The bot opts in to PTB's timedelta periods when it builds its Application; tests that
# make PTB objects without one (a RetryAfter in the pacing tests, a bare Bot against the
# fake server) run the same way.
use_timedelta_periods()

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


@pytest.fixture(scope="session")
def postgres_template(postgres_server: str) -> Iterator[str]:
    """A database of this test process at the latest schema, to copy new ones from."""
    name = f"durak_template_{os.getpid()}"

    async def make() -> None:
        from bot.store.postgres import PostgresStore

        async with _admin(postgres_server) as admin:
            await _recreate(admin, name)
        await (await PostgresStore.open(with_database(postgres_server, name))).close()

    async def drop() -> None:
        async with _admin(postgres_server) as admin:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    asyncio.run(make())
    yield name
    asyncio.run(drop())


@pytest.fixture
async def postgres_url(postgres_server: str) -> AsyncIterator[str]:
    """A new, empty database on the test server (dropped afterwards): its URL."""
    async with _fresh_database(postgres_server) as url:
        yield url


@pytest.fixture
async def postgres_store_url(postgres_server: str, postgres_template: str) -> AsyncIterator[str]:
    """A new database at the latest schema, without data (dropped afterwards): its URL."""
    async with _fresh_database(postgres_server, postgres_template) as url:
        yield url


@contextlib.asynccontextmanager
async def _admin(server: str) -> AsyncIterator[asyncpg.Connection]:
    try:
        admin = await asyncpg.connect(server, timeout=30)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
        pytest.fail(f"cannot reach the test PostgreSQL at {server}: {exc}", pytrace=False)
    try:
        yield admin
    finally:
        await admin.close()


async def _recreate(admin: asyncpg.Connection, name: str, template: str | None = None) -> None:
    await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    # copying the template's files is several times quicker than logging each block
    strategy = " STRATEGY = FILE_COPY" if admin.get_server_version().major >= 15 else ""
    source = f' TEMPLATE "{template}"' if template else ""
    await admin.execute(f'CREATE DATABASE "{name}"{source}{strategy}')


@contextlib.asynccontextmanager
async def _fresh_database(server: str, template: str | None = None) -> AsyncIterator[str]:
    name = f"durak_test_{os.getpid()}_{next(_names)}"
    async with _admin(server) as admin:
        await _recreate(admin, name, template)
    try:
        yield with_database(server, name)
    finally:
        async with _admin(server) as admin:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


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
