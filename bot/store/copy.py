"""Copy the bot's database exactly, SQLite to PostgreSQL or back::

    python -m bot.store.copy --from sqlite:///durak.sqlite3 --to postgresql://u:p@db/durak

Every table, row for row, ids kept (but those of the processes that ran on the source:
their heartbeats, leases and pacing), and each id sequence where it was, so that no id is
ever handed out twice. The source is first brought up to this bot's schema (as starting
the bot on it would), then read in one snapshot; the target gets the same schema and all
rows in one transaction, so a failed copy leaves it empty. A target that holds any row is
refused: this copies into a new database, it never merges. ``sqlite:///name`` is a file
relative to the working directory, ``sqlite:////srv/name`` an absolute one (a bare path
works too). Refusals and errors print one line and exit with status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import asyncpg

from bot.store.config import POSTGRES_SCHEMES, check_database_url, mask_url
from bot.store.errors import StoreError
from bot.store.migrations import EPHEMERAL_TABLES
from bot.store.pg_migrations import VERSION_TABLE
from bot.store.postgres import CONNECT_ERRORS, PostgresStore
from bot.store.sqlite import SqliteStore

PROGRAM: Final = "durak-bot copy"
BATCH: Final = 5_000
"""Rows read and written at a time: a big action log never sits in memory whole."""


class CopyError(StoreError):
    """The copy was refused, or cannot be made: nothing was written to the target."""


@dataclass(frozen=True, slots=True)
class Table:
    """A table as both databases have it: its columns in order, and its primary key (the
    order rows are read in)."""

    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class Side:
    """One end of a copy."""

    shown: str

    async def open_store(self) -> None:
        """Create or upgrade the schema, as the bot does when it starts."""
        raise NotImplementedError

    async def connect(self, *, writing: bool) -> None:
        """Open the connection and the transaction the copy reads or writes in."""
        raise NotImplementedError

    async def finish(self, *, commit: bool) -> None:
        raise NotImplementedError

    async def tables(self) -> dict[str, Table]:
        raise NotImplementedError

    async def count(self, table: str) -> int:
        raise NotImplementedError

    def rows(self, table: Table) -> AsyncIterator[list[tuple[Any, ...]]]:
        """The table's rows in key order, a batch at a time."""
        raise NotImplementedError

    async def insert(self, table: Table, rows: list[tuple[Any, ...]]) -> None:
        raise NotImplementedError

    async def last_ids(self) -> dict[str, int]:
        """For each table with a sequence: the last id it handed out (0 for none)."""
        raise NotImplementedError

    async def set_last_ids(self, last: dict[str, int]) -> None:
        """Make each sequence hand out ``last[table] + 1`` next."""
        raise NotImplementedError

    async def sequenced(self) -> set[str]:
        """The tables whose ids a sequence hands out (SQLite's AUTOINCREMENT, an identity)."""
        raise NotImplementedError

    async def holds_rows(self) -> str | None:
        """Before any schema is made: the name of a table that holds a row, if any."""
        raise NotImplementedError


class SqliteSide(Side):
    def __init__(self, path: Path) -> None:
        self.path = path
        self.shown = f"sqlite:///{path}"
        self._db: sqlite3.Connection | None = None

    @property
    def db(self) -> sqlite3.Connection:
        assert self._db is not None
        return self._db

    async def open_store(self) -> None:
        await (await SqliteStore.open(self.path)).close()

    async def connect(self, *, writing: bool) -> None:
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=10)
        # one snapshot to read from; the one writer's lock to write with
        self._db.execute("BEGIN IMMEDIATE" if writing else "BEGIN")

    async def finish(self, *, commit: bool) -> None:
        if self._db is None:
            return
        try:
            self._db.execute("COMMIT" if commit else "ROLLBACK")
        finally:
            self._db.close()
            self._db = None

    async def tables(self) -> dict[str, Table]:
        found = {}
        for (name,) in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        ).fetchall():
            info = self.db.execute(f"PRAGMA table_info({_quote(name)})").fetchall()
            columns = tuple(c[1] for c in info)
            key = tuple(c[1] for c in sorted(info, key=lambda c: c[5]) if c[5])
            found[name] = Table(name, columns, key or columns)
        return found

    async def count(self, table: str) -> int:
        return int(self.db.execute(f"SELECT count(*) FROM {_quote(table)}").fetchone()[0])

    async def rows(self, table: Table) -> AsyncIterator[list[tuple[Any, ...]]]:
        cursor = self.db.execute(
            f"SELECT {', '.join(map(_quote, table.columns))} FROM {_quote(table.name)} "
            f"ORDER BY {', '.join(map(_quote, table.key))}"
        )
        while batch := cursor.fetchmany(BATCH):
            yield batch

    async def insert(self, table: Table, rows: list[tuple[Any, ...]]) -> None:
        marks = ", ".join("?" * len(table.columns))
        self.db.executemany(
            f"INSERT INTO {_quote(table.name)} ({', '.join(map(_quote, table.columns))}) "
            f"VALUES ({marks})",
            rows,
        )

    async def last_ids(self) -> dict[str, int]:
        last = {}
        for name, seq in self.db.execute("SELECT name, seq FROM sqlite_sequence").fetchall():
            last[name] = int(seq or 0)
        for table in (await self.tables()).values():
            if table.name in last:
                top = self.db.execute(
                    f"SELECT max({_quote(table.key[0])}) FROM {_quote(table.name)}"
                ).fetchone()[0]
                last[table.name] = max(last[table.name], int(top or 0))
        return last

    async def set_last_ids(self, last: dict[str, int]) -> None:
        for name, value in last.items():
            self.db.execute("DELETE FROM sqlite_sequence WHERE name = ?", (name,))
            if value:
                self.db.execute(
                    "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (name, value)
                )

    async def sequenced(self) -> set[str]:
        """The tables whose ids SQLite hands out from sqlite_sequence (AUTOINCREMENT)."""
        return {
            name
            for (name,) in self.db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%AUTOINCREMENT%'"
            ).fetchall()
        }

    async def holds_rows(self) -> str | None:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return None
        db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
        try:
            for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            ).fetchall():
                if name in EPHEMERAL_TABLES:
                    continue
                if db.execute(f"SELECT 1 FROM {_quote(name)} LIMIT 1").fetchone():
                    return str(name)
        finally:
            db.close()
        return None


class PostgresSide(Side):
    def __init__(self, url: str) -> None:
        self.url = url
        self.shown = mask_url(url)
        self._conn: asyncpg.Connection | None = None
        self._transaction: Any = None

    @property
    def conn(self) -> asyncpg.Connection:
        assert self._conn is not None
        return self._conn

    async def open_store(self) -> None:
        await (await PostgresStore.open(self.url, connections=1)).close()

    async def connect(self, *, writing: bool) -> None:
        self._conn = await asyncpg.connect(self.url, timeout=10)
        if writing:
            self._transaction = self._conn.transaction()
        else:
            self._transaction = self._conn.transaction(isolation="repeatable_read", readonly=True)
        await self._transaction.start()

    async def finish(self, *, commit: bool) -> None:
        if self._conn is None:
            return
        try:
            if commit:
                await self._transaction.commit()
            else:
                await self._transaction.rollback()
        finally:
            await self._conn.close()
            self._conn = None

    async def tables(self) -> dict[str, Table]:
        return await self._tables(self.conn)

    @staticmethod
    async def _tables(conn: asyncpg.Connection) -> dict[str, Table]:
        columns: dict[str, list[str]] = {}
        for row in await conn.fetch(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name <> $1 "
            "ORDER BY table_name, ordinal_position",
            VERSION_TABLE,
        ):
            columns.setdefault(row[0], []).append(row[1])
        keys: dict[str, list[str]] = {}
        for row in await conn.fetch(
            "SELECT t.relname, a.attname FROM pg_index i "
            "JOIN pg_class t ON t.oid = i.indrelid "
            "JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema() "
            "CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) "
            "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
            "WHERE i.indisprimary ORDER BY t.relname, k.ord"
        ):
            keys.setdefault(row[0], []).append(row[1])
        return {
            name: Table(name, tuple(cols), tuple(keys.get(name) or cols))
            for name, cols in columns.items()
        }

    async def count(self, table: str) -> int:
        return int(await self.conn.fetchval(f"SELECT count(*) FROM {_quote(table)}"))

    async def rows(self, table: Table) -> AsyncIterator[list[tuple[Any, ...]]]:
        sql = (
            f"SELECT {', '.join(map(_quote, table.columns))} FROM {_quote(table.name)} "
            f"ORDER BY {', '.join(map(_quote, table.key))}"
        )
        batch: list[tuple[Any, ...]] = []
        async for record in self.conn.cursor(sql, prefetch=BATCH):
            batch.append(tuple(record))
            if len(batch) >= BATCH:
                yield batch
                batch = []
        if batch:
            yield batch

    async def insert(self, table: Table, rows: list[tuple[Any, ...]]) -> None:
        await self.conn.copy_records_to_table(table.name, records=rows, columns=table.columns)

    async def _sequences(self) -> dict[str, tuple[str, str]]:
        """Table -> (its id column, the sequence that hands the ids out)."""
        found = {}
        for table in (await self.tables()).values():
            for column in table.key:
                sequence = await self.conn.fetchval(
                    "SELECT pg_get_serial_sequence($1, $2)", _quote(table.name), column
                )
                if sequence is not None:
                    found[table.name] = (column, sequence)
        return found

    async def last_ids(self) -> dict[str, int]:
        last = {}
        for name, (column, sequence) in (await self._sequences()).items():
            value, called = await self.conn.fetchrow(
                f"SELECT last_value, is_called FROM {sequence}"
            )
            top = await self.conn.fetchval(f"SELECT max({_quote(column)}) FROM {_quote(name)}")
            last[name] = max(int(value) if called else 0, int(top or 0))
        return last

    async def set_last_ids(self, last: dict[str, int]) -> None:
        sequences = await self._sequences()
        for name, value in last.items():
            if name not in sequences:
                raise CopyError(f"the target's table {name} hands out no ids of its own")
            _, sequence = sequences[name]
            if value:
                await self.conn.execute("SELECT setval($1, $2, true)", sequence, value)
            else:  # never used: the next id is the sequence's first
                await self.conn.execute("SELECT setval($1, 1, false)", sequence)

    async def sequenced(self) -> set[str]:
        return set(await self._sequences())

    async def holds_rows(self) -> str | None:
        conn = await asyncpg.connect(self.url, timeout=10)
        try:
            for name in await self._tables(conn):
                if name in EPHEMERAL_TABLES:
                    continue
                if await conn.fetchval(f"SELECT EXISTS (SELECT 1 FROM {_quote(name)})"):
                    return name
        finally:
            await conn.close()
        return None


def side(location: str) -> Side:
    """The database named by ``location``: ``postgresql://…``, ``sqlite:///…`` or a path."""
    text = location.strip()
    scheme = text.partition("://")[0].lower() if "://" in text else ""
    if scheme in POSTGRES_SCHEMES:
        try:
            return PostgresSide(check_database_url(text))
        except ValueError as exc:
            raise CopyError(f"{mask_url(text)}: {exc}") from None
    if scheme == "sqlite":
        rest = text[len("sqlite://") :]
        if not rest.startswith("/") or rest == "/":
            raise CopyError(
                f"{text}: name the file as sqlite:///relative/path or sqlite:////absolute/path"
            )
        return SqliteSide(Path(rest[1:]).expanduser())
    if scheme:
        raise CopyError(f"{text}: not a postgresql:// nor a sqlite:/// address")
    if not text:
        raise CopyError("no database named")
    return SqliteSide(Path(text).expanduser())


async def copy_database(source: Side, target: Side) -> dict[str, int]:
    """Copy every row of ``source`` into the empty ``target``; rows copied, by table."""
    if isinstance(source, SqliteSide) and not source.path.is_file():
        raise CopyError(f"the source {source.shown} does not exist")
    if source.shown == target.shown:
        raise CopyError("the source and the target are the same database")
    full = await target.holds_rows()
    if full is not None:
        raise CopyError(
            f"the target {target.shown} is not empty (its table {full} holds rows): "
            "copy into a new, empty database"
        )
    await source.open_store()
    await target.open_store()
    await source.connect(writing=False)
    try:
        await target.connect(writing=True)
        try:
            copied = await _copy_rows(source, target)
        except BaseException:
            await target.finish(commit=False)
            raise
        await target.finish(commit=True)
    finally:
        await source.finish(commit=False)
    return copied


async def _copy_rows(source: Side, target: Side) -> dict[str, int]:
    mine, theirs = await source.tables(), await target.tables()
    if sorted(mine) != sorted(theirs):
        raise CopyError(f"the two schemas differ: tables {sorted(mine)} and {sorted(theirs)}")
    copied: dict[str, int] = {}
    for name in sorted(mine):
        if name in EPHEMERAL_TABLES:
            continue  # the processes of the source, not its data
        table, twin = mine[name], theirs[name]
        if table.columns != twin.columns:
            raise CopyError(
                f"the two schemas differ in table {name}: "
                f"columns {table.columns} and {twin.columns}"
            )
        if await target.count(name):
            raise CopyError(f"the target {target.shown} is not empty (its table {name} holds rows)")
        copied[name] = 0
        async for batch in source.rows(table):
            await target.insert(twin, batch)
            copied[name] += len(batch)
        if await target.count(name) != copied[name]:
            raise CopyError(f"table {name}: the target holds another number of rows than copied")
    # the next id the target hands out is the one the source would have
    last = await source.last_ids()
    await target.set_last_ids({name: last.get(name, 0) for name in await target.sequenced()})
    return copied


def main(argv: Sequence[str] | None = None) -> int:
    """Run the copy; the exit status (0 copied, 2 refused or failed)."""
    parser = argparse.ArgumentParser(
        prog="python -m bot.store.copy",
        description="Copy the bot's database exactly into a new, empty one: SQLite to "
        "PostgreSQL or back. Stop the bot first.",
    )
    parser.add_argument(
        "--from", dest="source", required=True, help="sqlite:///… or postgresql://…"
    )
    parser.add_argument("--to", dest="target", required=True, help="postgresql://… or sqlite:///…")
    args = parser.parse_args(argv)
    failures: tuple[type[BaseException], ...] = (StoreError, sqlite3.Error, *CONNECT_ERRORS)
    try:
        source, target = side(args.source), side(args.target)
        copied = asyncio.run(copy_database(source, target))
    except failures as exc:
        print(f"{PROGRAM}: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    rows = ", ".join(f"{name} {n:,}" for name, n in copied.items())
    print(
        f"{PROGRAM}: copied {source.shown} to {target.shown}: {len(copied)} tables, "
        f"{sum(copied.values()):,} rows ({rows})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
