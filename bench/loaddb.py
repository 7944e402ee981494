"""The bot's database under ``bench/load.py``: its SQLite file, or a PostgreSQL database made
for the run and dropped after it; what the benchmark reads of it, what PostgreSQL itself
spends per move, and how many bytes a stored move and a finished game take.

``--database auto`` uses the tests' server when ``$DURAK_TEST_DATABASE_URL`` names one, or
starts a throwaway one as the tests do (``scripts/_postgres.sh``), but with production's
durability (``fsync``, full page writes) and ``pg_stat_statements``; ``--database URL`` uses
the server of URL (its user must be allowed to create databases). Either way the bot gets a
database of its own, ``durak_load_<pid>``, dropped at the end; nothing else is touched.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sqlite3
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
from ship.process import children

from bot.store.config import mask_url

ROOT = Path(__file__).resolve().parent.parent
BENCH_APP = "durak-load"
"""The application_name of the benchmark's own connection (the bot's is durak-bot)."""
SERVER_OPTIONS = (
    "-c fsync=on -c full_page_writes=on -c synchronous_commit=on "
    "-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"
)
"""What a throwaway server of the benchmark runs with, after the tests' own options: the
commits durable, as in production, and every statement counted."""


def _cpu(pid: int) -> tuple[float, float] | None:
    """(own, reaped children's) CPU seconds of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick


@dataclass
class Costs:
    """Where the database stood at one moment (what its server spent so far)."""

    cpu: float | None = None
    """CPU seconds of the PostgreSQL server's processes, the benchmark's backend not counted
    (None: not a server on this machine, or SQLite)."""
    statements: int | None = None
    """Statements the bot's connections ran (pg_stat_statements; None without it)."""
    transactions: int | None = None
    """Commits in the bot's database, the benchmark's own reads not counted."""
    wal: int | None = None
    """Bytes of write-ahead log written so far, the whole server."""
    rows: dict[str, int] = field(default_factory=dict)
    """Rows inserted, updated and deleted in the database (pg_stat_database)."""
    top: dict[str, int] = field(default_factory=dict)
    """Calls of each of the bot's statements (normalised text), the most called first."""


class BenchDatabase:
    """The bot's database as the benchmark sees it. Queries take ``?`` placeholders."""

    kind = ""
    env: dict[str, str]
    """The settings that point the bot at it."""
    about = ""
    """A line on where it is and how durable."""

    async def value(self, sql: str, *args: Any) -> Any:
        row = await self.row(sql, *args)
        return None if row is None else row[0]

    async def row(self, sql: str, *args: Any) -> tuple[Any, ...] | None:
        raise NotImplementedError

    async def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    async def costs(self) -> Costs:
        return Costs()

    async def sizes(self) -> dict[str, tuple[int, int]]:
        """Bytes on disk (with indexes) and rows, of the tables that grow with play."""
        raise NotImplementedError

    async def close(self) -> None:
        pass


GROWING = ("actions", "games", "game_players", "tables", "inbox", "tallies")
"""The tables that grow as games are played."""


class SqliteDatabase(BenchDatabase):
    kind = "SQLite"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.env = {"DURAK_DB_PATH": str(path)}
        self.about = f"SQLite {path}"
        self._con: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._con is None:
            self._con = sqlite3.connect(self.path, timeout=10)
        return self._con

    async def row(self, sql: str, *args: Any) -> tuple[Any, ...] | None:
        found: tuple[Any, ...] | None = self._connection().execute(sql, args).fetchone()
        return found

    async def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        return list(self._connection().execute(sql, args).fetchall())

    async def sizes(self) -> dict[str, tuple[int, int]]:
        con = self._connection()
        names = {name for (name,) in con.execute("SELECT name FROM sqlite_schema")}
        found = {}
        for table in GROWING:
            if table not in names:
                continue
            # the table and its indexes (an index of a table is named after it here, or is
            # an automatic sqlite_autoindex_<table>_N)
            indexes = [
                name
                for (name,) in con.execute(
                    "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?",
                    (table,),
                )
            ]
            size = sum(
                int(
                    con.execute(
                        "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = ?", (n,)
                    ).fetchone()[0]
                )
                for n in (table, *indexes)
            )
            found[table] = (size, int(con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]))
        return found

    async def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None


def with_database(url: str, name: str) -> str:
    """``url`` naming database ``name`` instead of its own."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


class PostgresDatabase(BenchDatabase):
    kind = "PostgreSQL"

    def __init__(self, url: str, conn: asyncpg.Connection, about: str) -> None:
        self.url = url
        self.env = {"DURAK_DATABASE_URL": url}
        self.about = about
        self._conn = conn
        self._lock = asyncio.Lock()
        self._own = 0  # statements the benchmark ran
        self._server: int | None = None  # the postmaster, if it runs on this machine
        self._backend = 0
        self._statements = False  # pg_stat_statements is there
        self._untracked = False  # and does not count the benchmark's own statements

    @classmethod
    async def create(cls, server: str, where: str) -> PostgresDatabase:
        admin = await asyncpg.connect(server, timeout=10)
        name = f"durak_load_{os.getpid()}"
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
            await admin.execute(f'CREATE DATABASE "{name}"')
            fsync = await admin.fetchval("SHOW fsync")
            commit = await admin.fetchval("SHOW synchronous_commit")
            version = await admin.fetchval("SHOW server_version")
        finally:
            await admin.close()
        url = with_database(server, name)
        conn = await asyncpg.connect(
            url, timeout=10, server_settings={"application_name": BENCH_APP}
        )
        about = (
            f"PostgreSQL {version} ({where}), database {name} made for the run: "
            f"fsync {fsync}, synchronous_commit {commit}"
        )
        db = cls(url, conn, about)
        with contextlib.suppress(asyncpg.PostgresError):
            await db.row("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            await db.row("SELECT count(*) FROM pg_stat_statements")
            db._statements = True
        with contextlib.suppress(asyncpg.PostgresError):
            # a superuser's own statements can go uncounted; anyone else's are taken off
            await db.row("SET pg_stat_statements.track = 'none'")
            db._untracked = True
        db._backend = int(await db.value("SELECT pg_backend_pid()"))
        try:
            with open(f"/proc/{db._backend}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{parent}/cmdline", "rb") as f:
                if b"postgres" in f.read():
                    db._server = parent
        except (OSError, ValueError):
            pass
        return db

    @staticmethod
    def _sql(sql: str) -> str:
        count = 0

        def number(_: re.Match[str]) -> str:
            nonlocal count
            count += 1
            return f"${count}"

        return re.sub(r"\?", number, sql)

    async def row(self, sql: str, *args: Any) -> tuple[Any, ...] | None:
        async with self._lock:  # one connection, one statement at a time
            self._own += 1
            found = await self._conn.fetchrow(self._sql(sql), *args)
        return None if found is None else tuple(found)

    async def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        async with self._lock:
            self._own += 1
            return [tuple(r) for r in await self._conn.fetch(self._sql(sql), *args)]

    async def costs(self) -> Costs:
        costs = Costs()
        if self._server is not None:
            total = 0.0
            for pid in (self._server, *(c.pid for c in children(self._server))):
                got = _cpu(pid)
                if got is not None and pid != self._backend:
                    total += got[0] + (got[1] if pid == self._server else 0.0)
            costs.cpu = total
        own = self._own  # each of the benchmark's statements committed on its own
        stats = await self.row(
            "SELECT xact_commit, tup_inserted, tup_updated, tup_deleted "
            "FROM pg_stat_database WHERE datname = current_database()"
        )
        assert stats is not None
        costs.transactions = int(stats[0]) - own
        costs.rows = {"inserted": int(stats[1]), "updated": int(stats[2]), "deleted": int(stats[3])}
        costs.wal = int(await self.value("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')"))
        if self._statements:
            own = 0 if self._untracked else self._own
            found = await self.rows(
                "SELECT query, calls FROM pg_stat_statements "
                "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
            )
            costs.top = dict(sorted(((str(q), int(n)) for q, n in found), key=lambda x: -x[1]))
            costs.statements = sum(costs.top.values()) - own
        return costs

    async def sizes(self) -> dict[str, tuple[int, int]]:
        found = {}
        for table in GROWING:
            if await self.value("SELECT to_regclass(?)::text", table) is None:
                continue
            size = int(await self.value("SELECT pg_total_relation_size(?::regclass)", table))
            count = int(await self.value(f"SELECT count(*) FROM {table}"))
            found[table] = (size, count)
        return found

    async def close(self) -> None:
        await self._conn.close()


@contextlib.asynccontextmanager
async def bench_database(choice: str, folder: Path) -> AsyncIterator[BenchDatabase]:
    """The bot's database for one run: SQLite in ``folder`` when ``choice`` is empty,
    else PostgreSQL (``auto`` or a server's URL), its database dropped at the end."""
    if not choice:
        db = SqliteDatabase(folder / "load.sqlite3")
        try:
            yield db
        finally:
            await db.close()
        return
    started: str | None = None
    if choice == "auto":
        server = os.environ.get("DURAK_TEST_DATABASE_URL", "")
        where = "the tests' server, $DURAK_TEST_DATABASE_URL"
        if not server:
            made = subprocess.run(
                ["bash", str(ROOT / "scripts" / "_postgres.sh"), "start", SERVER_OPTIONS],
                capture_output=True,
                text=True,
                check=False,
            )
            if made.returncode != 0:
                raise SystemExit(f"bench: {made.stderr.strip().splitlines()[-1]}")
            server = started = made.stdout.strip()
            where = "a throwaway server on this machine"
    else:
        server, where = choice, mask_url(choice)
    try:
        db = await PostgresDatabase.create(server, where)
        try:
            yield db
        finally:
            await db.close()
            admin = await asyncpg.connect(server, timeout=10)
            try:
                await admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = $1 AND pid <> pg_backend_pid()",
                    urlsplit(db.url).path.lstrip("/"),
                )
                await admin.execute(
                    f'DROP DATABASE IF EXISTS "{urlsplit(db.url).path.lstrip("/")}"'
                )
            finally:
                await admin.close()
    finally:
        if started is not None:
            subprocess.run(
                ["bash", str(ROOT / "scripts" / "_postgres.sh"), "stop", started],
                capture_output=True,
                check=False,
            )
