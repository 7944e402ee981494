"""The PostgreSQL schema: the twin of SQLite's at every version (the one list of migrations,
in each database's words), migrated one step at a time in one transaction each, and never
backwards."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from test_store_migrations import SEEDERS, check_inbox_after_upgrade, check_upgraded

from bot.store import LATEST_VERSION, MIGRATIONS, SchemaTooNewError, SqliteStore
from bot.store import sqlite as sqlite_store
from bot.store.migrations import Trigger
from bot.store.pg_dialect import POSTGRES
from bot.store.pg_migrations import PG_LATEST_VERSION, migrate, schema_version
from bot.store.postgres import PostgresStore, probe
from bot.store.sqlite import SQLITE

# SQLite's declared type -> the PostgreSQL types that may stand for it
TWIN_TYPES = {
    "INTEGER": {"bigint", "integer"},
    "REAL": {"double precision"},
    "TEXT": {"text"},
}


def sqlite_schema(path: Path) -> dict[str, Any]:
    """Tables (columns in order: name, type, not null, default; primary key; unique
    constraints), indexes and triggers of a SQLite file."""
    db = sqlite3.connect(path)
    try:
        tables: dict[str, Any] = {}
        for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite_%' ORDER BY name"
        ):
            info = db.execute(f"PRAGMA table_info({name})").fetchall()
            tables[name] = {
                "columns": [(c[1], c[2], bool(c[3] or c[5]), c[4]) for c in info],
                "key": [c[1] for c in sorted(info, key=lambda c: c[5]) if c[5]],
                "unique": sorted(
                    [c[2] for c in db.execute(f"PRAGMA index_info({index[1]})")]
                    for index in db.execute(f"PRAGMA index_list({name})")
                    if index[3] == "u"
                ),
            }
        indexes = {
            name: (table, [c[2] for c in db.execute(f"PRAGMA index_info({name})")])
            for name, table in db.execute(
                "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
            )
        }
        triggers = {
            name: table
            for name, table in db.execute(
                "SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'"
            )
        }
    finally:
        db.close()
    return {"tables": tables, "indexes": indexes, "triggers": triggers}


async def pg_schema(url: str) -> dict[str, Any]:
    """The same description of a PostgreSQL database (its ``schema_version`` table apart)."""
    conn = await asyncpg.connect(url)
    try:
        tables: dict[str, Any] = {}
        unique: dict[tuple[str, str], list[str]] = {}
        for row in await conn.fetch(
            "SELECT table_name, column_name, data_type, is_nullable, column_default "
            "FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name <> 'schema_version' ORDER BY table_name, ordinal_position"
        ):
            default = row["column_default"]
            if default is not None:
                default = re.sub(r"::text$", "", default)
            table = tables.setdefault(row["table_name"], {"columns": [], "key": [], "unique": []})
            table["columns"].append(
                (row["column_name"], row["data_type"], row["is_nullable"] == "NO", default)
            )
        for row in await conn.fetch(
            "SELECT t.relname AS table_name, a.attname AS column_name, i.indisprimary, "
            "c.relname AS index_name, k.ord, "
            "EXISTS (SELECT 1 FROM pg_constraint AS u WHERE u.conindid = i.indexrelid "
            "AND u.contype = 'u') AS unique_constraint "
            "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "JOIN pg_class t ON t.oid = i.indrelid "
            "JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema() "
            "CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) "
            "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
            "WHERE t.relname <> 'schema_version' ORDER BY c.relname, k.ord"
        ):
            if row["indisprimary"]:
                tables[row["table_name"]]["key"].append(row["column_name"])
            elif row["unique_constraint"]:
                unique.setdefault((row["table_name"], row["index_name"]), []).append(
                    row["column_name"]
                )
        for (name, _), columns in unique.items():
            tables[name]["unique"].append(columns)
        for table in tables.values():
            table["unique"].sort()
        indexes: dict[str, Any] = {}
        for row in await conn.fetch(
            "SELECT c.relname AS index_name, t.relname AS table_name, a.attname, k.ord "
            "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "JOIN pg_class t ON t.oid = i.indrelid "
            "JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema() "
            "CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) "
            "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
            "WHERE NOT i.indisprimary AND NOT EXISTS (SELECT 1 FROM pg_constraint AS u "
            "WHERE u.conindid = i.indexrelid AND u.contype = 'u') ORDER BY c.relname, k.ord"
        ):
            name = row["index_name"]
            indexes.setdefault(name, (row["table_name"], []))[1].append(row["attname"])
        triggers = {
            r["trigger_name"]: r["event_object_table"]
            for r in await conn.fetch(
                "SELECT DISTINCT trigger_name, event_object_table FROM information_schema.triggers "
                "WHERE trigger_schema = current_schema()"
            )
        }
    finally:
        await conn.close()
    return {"tables": tables, "indexes": indexes, "triggers": triggers}


async def build(url: str, version: int) -> None:
    """A PostgreSQL database at schema ``version``, holding that version's sample data (the
    SQL the SQLite migration tests write, run as it is)."""
    script = Script()
    SEEDERS[version](script)  # type: ignore[arg-type]
    conn = await asyncpg.connect(url)
    try:
        assert await migrate(conn, "test", target=version) == version
        for sql in script.sql:
            await conn.execute(sql)
    finally:
        await conn.close()


class Script:
    """Stands in for the sqlite3 connection the seeders write to: keeps their SQL."""

    def __init__(self) -> None:
        self.sql: list[str] = []

    def executescript(self, sql: str) -> None:
        self.sql.append(sql)

    def execute(self, sql: str) -> None:
        self.sql.append(sql)


async def functions(url: str) -> dict[str, str]:
    """The database's own functions (the triggers') and their source."""
    rows = await execute(
        url,
        "SELECT p.proname, p.prosrc FROM pg_proc AS p JOIN pg_namespace AS n "
        "ON n.oid = p.pronamespace WHERE n.nspname = current_schema()",
    )
    return {r[0]: r[1] for r in rows}


async def execute(url: str, sql: str, *args: object) -> Any:
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetch(sql, *args)
    finally:
        await conn.close()


def test_each_migration_is_written_once_and_said_in_both_databases_words() -> None:
    assert PG_LATEST_VERSION == LATEST_VERSION
    for migration in MIGRATIONS:
        lite, pg = migration.sql(SQLITE), migration.sql(POSTGRES)
        triggers = sum(isinstance(s, Trigger) for s in migration.statements)
        # a trigger is one statement on SQLite, a function and a trigger on PostgreSQL
        assert len(pg) == len(lite) + triggers, migration.version
        for text in lite + pg:
            assert "{" not in text.replace("'{", "").replace("{}", ""), text
        assert not any("BIGINT" in t or "DOUBLE" in t or "UNLOGGED" in t for t in lite)
        assert not any("AUTOINCREMENT" in t or "WITHOUT ROWID" in t for t in pg)


@pytest.mark.parametrize("version", range(LATEST_VERSION + 1))
async def test_the_schemas_are_twins_at_every_version(
    tmp_path: Path, postgres_url: str, version: int
) -> None:
    path = tmp_path / "twin.sqlite3"
    lite_conn = sqlite3.connect(path, isolation_level=None)
    try:
        sqlite_store.migrate(lite_conn, str(path), target=version)
    finally:
        lite_conn.close()
    conn_pg = await asyncpg.connect(postgres_url)
    try:
        await migrate(conn_pg, "test", target=version)
    finally:
        await conn_pg.close()
    lite, pg = sqlite_schema(path), await pg_schema(postgres_url)
    assert sorted(pg["tables"]) == sorted(lite["tables"])
    for name, table in lite["tables"].items():
        twin = pg["tables"][name]
        assert [c[0] for c in twin["columns"]] == [c[0] for c in table["columns"]], name
        for (column, kind, not_null, default), (_, pg_kind, pg_not_null, pg_default) in zip(
            table["columns"], twin["columns"], strict=True
        ):
            where = f"{name}.{column}"
            assert pg_kind in TWIN_TYPES[kind], where
            assert pg_not_null == not_null, where
            assert pg_default == default, where
        assert twin["key"] == table["key"], name
        assert twin["unique"] == table["unique"], name
    assert pg["indexes"] == lite["indexes"]
    assert pg["triggers"] == lite["triggers"]


async def test_an_empty_database_gets_the_latest_schema(postgres_url: str) -> None:
    assert await probe(postgres_url) == 0
    async with PostgresStore.open(postgres_url) as store:
        assert await store.schema_version() == LATEST_VERSION
        assert await store.running_tables() == []
    assert await probe(postgres_url) == LATEST_VERSION
    rows = await execute(postgres_url, "SELECT version FROM schema_version")
    assert [tuple(r) for r in rows] == [(LATEST_VERSION,)]


@pytest.mark.parametrize("version", range(LATEST_VERSION))
async def test_upgrade_from_every_earlier_version(
    postgres_url: str, postgres_store_url: str, tmp_path: Path, version: int
) -> None:
    await build(postgres_url, version)
    async with PostgresStore.open(postgres_url) as store:
        assert await store.schema_version() == LATEST_VERSION
        await check_upgraded(store, version)
    fresh = tmp_path / "fresh.sqlite3"
    async with SqliteStore.open(fresh):
        pass
    upgraded = await pg_schema(postgres_url)
    assert sorted(upgraded["tables"]) == sorted(sqlite_schema(fresh)["tables"])
    # the same schema as a database made new at the latest version
    assert upgraded == await pg_schema(postgres_store_url)
    assert await functions(postgres_url) == await functions(postgres_store_url)
    # Opening an up-to-date database again changes nothing.
    async with PostgresStore.open(postgres_url) as store:
        assert await store.schema_version() == LATEST_VERSION
    assert await pg_schema(postgres_url) == upgraded


async def test_an_upgraded_database_keeps_updates_and_a_move_marks_its_own_done(
    postgres_url: str,
) -> None:
    await build(postgres_url, 3)
    async with PostgresStore.open(postgres_url) as store:
        await check_inbox_after_upgrade(store)
    assert await probe(postgres_url) == LATEST_VERSION
    columns = await execute(
        postgres_url,
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'tables'",
    )
    assert "last_update" in {r[0] for r in columns}


async def test_a_newer_schema_is_refused_untouched(postgres_url: str) -> None:
    async with PostgresStore.open(postgres_url):
        pass
    await execute(postgres_url, "UPDATE schema_version SET version = $1", LATEST_VERSION + 1)
    before = await pg_schema(postgres_url)
    with pytest.raises(SchemaTooNewError) as refused:
        await PostgresStore.open(postgres_url)
    message = str(refused.value)
    assert f"schema version {LATEST_VERSION + 1}" in message and "newer bot" in message
    assert (refused.value.found, refused.value.known) == (LATEST_VERSION + 1, LATEST_VERSION)
    assert await pg_schema(postgres_url) == before
    assert await probe(postgres_url) == LATEST_VERSION + 1


async def test_a_refused_password_never_shows(postgres_url: str) -> None:
    async with PostgresStore.open(postgres_url):
        pass
    await execute(postgres_url, "UPDATE schema_version SET version = $1", LATEST_VERSION + 1)
    secret = postgres_url.replace("postgres@", "postgres:Sekr3tPw@", 1)
    with pytest.raises(SchemaTooNewError) as refused:
        await PostgresStore.open(secret)
    assert "Sekr3tPw" not in str(refused.value) and "postgres:***@" in str(refused.value)


async def test_a_failing_migration_leaves_the_old_version_whole(postgres_url: str) -> None:
    await build(postgres_url, 1)
    # Someone added an index by hand whose name migration 2 needs: step 2 fails midway.
    await execute(postgres_url, "CREATE INDEX tables_by_status ON tables (chat_id)")
    with pytest.raises(asyncpg.DuplicateTableError, match="already exists"):
        await PostgresStore.open(postgres_url)
    assert await probe(postgres_url) == 1
    columns = await execute(
        postgres_url,
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'tallies'",
    )
    assert "last_played" not in {r[0] for r in columns}


async def test_migrate_refuses_an_unknown_target(postgres_url: str) -> None:
    conn = await asyncpg.connect(postgres_url)
    try:
        with pytest.raises(ValueError, match="no schema version"):
            await migrate(conn, "test", target=LATEST_VERSION + 1)
        assert await schema_version(conn) == 0
        assert await migrate(conn, "test", target=1) == 1
        assert await migrate(conn, "test") == LATEST_VERSION
    finally:
        await conn.close()


async def test_processes_starting_together_migrate_once(postgres_url: str) -> None:
    # Several bots started at once on an empty database: each step runs exactly once.
    opened = await asyncio.gather(*(PostgresStore.open(postgres_url) for _ in range(4)))
    try:
        for store in opened:
            assert await store.schema_version() == LATEST_VERSION
    finally:
        for store in opened:
            await store.close()
    rows = await execute(postgres_url, "SELECT version FROM schema_version")
    assert [tuple(r) for r in rows] == [(LATEST_VERSION,)]
