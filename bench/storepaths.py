"""CPU time per move's store calls through several ways to reach the database, to choose
one: the update kept in the inbox, then the compare-and-set ``UPDATE`` of the table row
(whose triggers append the log line and mark the update done).

    .venv/bin/python bench/storepaths.py aiosqlite onehop inline [sa-sqlite]
    PG=postgresql://... .venv/bin/python bench/storepaths.py pg-asyncpg [pg-sa]

``aiosqlite``: each statement a round trip to aiosqlite's thread (how the SQLite store
reached its file before; ``pip install aiosqlite`` first, it is no longer a dependency);
``onehop``: each call one ``run_in_executor`` hop to a thread of its own; ``inline``: sqlite3
on the event loop; ``sa-*``: SQLAlchemy Core (2.0, its async engine over aiosqlite or
asyncpg; ``pip install 'sqlalchemy>=2,<2.1'`` first, it is not a dependency);
``pg-asyncpg``: asyncpg's pool, as the store uses it. ``N`` (3000) moves a round, ``ROUNDS``
(3) rounds, interleaved. Prints the process's CPU time (every thread) per move; asserts
nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.store import Seat, SqliteStore

N = int(os.environ.get("N", "3000"))
GAME = json.dumps({"x": "y" * 1500})  # a state of about a real game's size
ACTION = '{"type":"throw","seat":0,"card":"10H"}'
BODY = json.dumps({"update_id": 1, "callback_query": {"data": "x" * 60, "from": {"id": 5}}})
KEEP = (
    "INSERT INTO inbox (update_id, body, received_at, shard) VALUES (?, ?, ?, 0) "
    "ON CONFLICT (update_id) DO NOTHING RETURNING update_id"
)
SAVE = (
    "UPDATE tables SET game = ?, version = version + 1, moves = moves + 1, last_seat = ?, "
    "last_action = ?, deadline = ?, updated_at = ?, last_update = ? "
    "WHERE table_id = ? AND version = ? AND status = 'playing' RETURNING version, moves"
)
Run = Callable[[int, int], Awaitable[float]]
"""(table id, version) -> CPU seconds for N moves."""


def keep_params(i: int) -> tuple[Any, ...]:
    return (1000 + i, BODY, time.time())


def save_params(i: int, table_id: int, version: int) -> tuple[Any, ...]:
    now = time.time()
    return (GAME, 0, ACTION, now + 30, now, 1000 + i, table_id, version)


async def via_aiosqlite(path: Path, table_id: int, version: int) -> float:
    import aiosqlite  # not a dependency of the bot: pip install aiosqlite to run this

    conn = await aiosqlite.connect(path, isolation_level=None)
    await conn.execute_fetchall("PRAGMA synchronous = NORMAL")
    lock = asyncio.Lock()
    start = time.process_time()
    for i in range(N):
        async with lock:
            await conn.execute_fetchall(KEEP, keep_params(i))
        async with lock:
            rows = list(await conn.execute_fetchall(SAVE, save_params(i, table_id, version)))
        version = rows[0][0]
    cpu = time.process_time() - start
    await conn.close()
    return cpu


async def via_thread(path: Path, table_id: int, version: int, hop: bool) -> float:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA synchronous = NORMAL")
    thread = ThreadPoolExecutor(1)
    loop = asyncio.get_running_loop()
    lock = asyncio.Lock()

    def rows(sql: str, params: tuple[Any, ...]) -> list[Any]:
        return conn.execute(sql, params).fetchall()

    async def call(sql: str, params: tuple[Any, ...]) -> list[Any]:
        async with lock:
            if hop:
                return await loop.run_in_executor(thread, rows, sql, params)
            return rows(sql, params)

    start = time.process_time()
    for i in range(N):
        await call(KEEP, keep_params(i))
        version = (await call(SAVE, save_params(i, table_id, version)))[0][0]
        await asyncio.sleep(0)
    cpu = time.process_time() - start
    thread.shutdown()
    conn.close()
    return cpu


async def via_sqlalchemy(url: str, table_id: int, version: int, **engine: Any) -> float:
    import sqlalchemy as sa
    from sqlalchemy.dialects.postgresql import insert as pg_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert
    from sqlalchemy.ext.asyncio import create_async_engine

    md = sa.MetaData()
    tables = sa.Table(
        "tables",
        md,
        sa.Column("table_id", sa.BigInteger, primary_key=True),
        *(sa.Column(name, sa.Integer) for name in ("version", "moves", "last_seat")),
        *(sa.Column(name, sa.BigInteger) for name in ("last_update",)),
        *(sa.Column(name, sa.Float) for name in ("deadline", "updated_at")),
        *(sa.Column(name, sa.Text) for name in ("game", "last_action", "status")),
    )
    inbox = sa.Table(
        "inbox",
        md,
        sa.Column("update_id", sa.BigInteger, primary_key=True),
        sa.Column("body", sa.Text),
        sa.Column("received_at", sa.Float),
        sa.Column("shard", sa.Integer),
    )
    insert = sqlite_insert if url.startswith("sqlite") else pg_insert
    keep = (
        insert(inbox)
        .values(update_id=sa.bindparam("u"), body=sa.bindparam("b"), received_at=sa.bindparam("r"))
        .values(shard=0)
        .on_conflict_do_nothing(index_elements=["update_id"])
        .returning(inbox.c.update_id)
    )
    c = tables.c
    save = (
        sa.update(tables)
        .where(c.table_id == sa.bindparam("t"), c.version == sa.bindparam("v"))
        .where(c.status == "playing")
        .values(version=c.version + 1, moves=c.moves + 1, game=sa.bindparam("g"))
        .values(last_seat=sa.bindparam("s"), last_action=sa.bindparam("a"))
        .values(deadline=sa.bindparam("d"), updated_at=sa.bindparam("n"))
        .values(last_update=sa.bindparam("lu"))
        .returning(c.version, c.moves)
    )
    db = create_async_engine(url, **engine)
    async with db.begin() as conn:
        await conn.execute(sa.text("SELECT 1"))
    start = time.process_time()
    for i in range(N):
        u, b, r = keep_params(i)
        async with db.begin() as conn:
            (await conn.execute(keep, {"u": u, "b": b, "r": r})).fetchall()
        g, s, a, d, n, lu, t, v = save_params(i, table_id, version)
        params = {"g": g, "s": s, "a": a, "d": d, "n": n, "lu": lu, "t": t, "v": v}
        async with db.begin() as conn:
            version = (await conn.execute(save, params)).fetchall()[0][0]
    cpu = time.process_time() - start
    await db.dispose()
    return cpu


async def via_asyncpg(url: str, table_id: int, version: int) -> float:
    import asyncpg

    from bot.store.dialect import numbered

    pool = await asyncpg.create_pool(url, min_size=1, max_size=4)
    keep, save = numbered(KEEP), numbered(SAVE)
    start = time.process_time()
    for i in range(N):
        await pool.fetch(keep, *keep_params(i))
        version = (await pool.fetch(save, *save_params(i, table_id, version)))[0][0]
    cpu = time.process_time() - start
    await pool.close()
    return cpu


async def table_in(store: SqliteStore | Any) -> tuple[int, int]:
    seats = [Seat.human(1, "a"), Seat.human(2, "b")]
    lobby = await store.create_table(-1, rules="{}", seats=seats)
    table = await store.start_game(lobby.table_id, 0, seed=1, game="{}")
    return table.table_id, table.version


async def sqlite_table(path: Path) -> tuple[int, int]:
    async with SqliteStore.open(path) as store:
        return await table_in(store)


async def pg_table(url: str) -> tuple[str, int, int]:
    """A new schema ``paths`` holding one playing table; the URL that reaches it."""
    import asyncpg

    from bot.store.postgres import PostgresStore

    conn = await asyncpg.connect(url)
    await conn.execute("DROP SCHEMA IF EXISTS paths CASCADE; CREATE SCHEMA paths")
    await conn.close()
    there = url + ("&" if "?" in url else "?") + "search_path=paths"
    async with PostgresStore.open(there) as store:
        return there, *(await table_in(store))


async def run(name: str, folder: Path, n: int) -> float:
    if name.startswith("pg-"):
        url, table_id, version = await pg_table(os.environ["PG"])
        if name == "pg-asyncpg":
            return await via_asyncpg(url, table_id, version)
        settings = {"server_settings": {"search_path": "paths"}}
        plain = url.replace("&search_path=paths", "").replace("?search_path=paths", "")
        sa_url = plain.replace("postgresql://", "postgresql+asyncpg://")
        return await via_sqlalchemy(sa_url, table_id, version, connect_args=settings)
    path = folder / f"{name}-{n}.sqlite3"
    table_id, version = await sqlite_table(path)
    if name == "aiosqlite":
        return await via_aiosqlite(path, table_id, version)
    if name in ("onehop", "inline"):
        return await via_thread(path, table_id, version, hop=name == "onehop")
    return await via_sqlalchemy(f"sqlite+aiosqlite:///{path}", table_id, version)


async def main(names: list[str]) -> None:
    folder = Path(tempfile.mkdtemp(prefix="durak-paths-"))
    for n in range(int(os.environ.get("ROUNDS", "3"))):
        for name in names:
            cpu = await run(name, folder, n)
            print(f"round {n} {name:12s} {cpu / N * 1e6:7.1f} us CPU a move", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:] or ["aiosqlite", "onehop", "inline"]))
