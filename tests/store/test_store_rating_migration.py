"""The migration that introduced ratings rates the games finished before it, in order, on
either backend."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from store_backends import Database, PostgresDatabase, SqliteDatabase
from store_helpers import ALICE, BORIS, VERA

from bot.ratings.model import NEWCOMER, OVERALL, VS_COMPUTER
from bot.store import MIGRATIONS, Outcome, Seat, SqliteStore, pg_migrations
from bot.store import sqlite as sqlite_store
from bot.store.models import seats_to_json
from bot.store.postgres import PostgresStore

RATINGS = next(
    m.version for m in MIGRATIONS if any("TABLE ratings" in s for s in m.sql(sqlite_store.SQLITE))
)
"""The version that brought ratings (found by what it creates, not by its number)."""
BOT = Seat.computer("Bot", "easy")


@pytest.fixture
def old_database(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Database:
    """A database of the test's backend with no schema yet."""
    if backend == "sqlite":
        return SqliteDatabase(tmp_path / "old.sqlite3")
    return PostgresDatabase(request.getfixturevalue("postgres_url"))


async def before_ratings(db: Database) -> None:
    """Bring ``db``'s schema to the version before ratings."""
    if isinstance(db, SqliteDatabase):
        lite = sqlite3.connect(db.path, isolation_level=None)
        try:
            sqlite_store.migrate(lite, str(db.path), target=RATINGS - 1)
        finally:
            lite.close()
        return
    assert isinstance(db, PostgresDatabase)
    conn = await asyncpg.connect(db.url)
    try:
        await pg_migrations.migrate(conn, "test", target=RATINGS - 1)
    finally:
        await conn.close()


async def game_rows(
    db: Database,
    table_id: int,
    seats: tuple[Seat, ...],
    outcome: Outcome | None,
    finished_at: float,
    moves: int = 3,
) -> None:
    """A table with one game as the bot wrote it before ratings: seats, rules, the
    action log (``moves`` passes per seat), the result."""
    await db.query(
        "INSERT INTO tables (table_id, chat_id, status, seats, rules, game_no, created_at, "
        "updated_at) VALUES (?, -100, ?, ?, '{}', 1, 1.0, ?)",
        (table_id, "finished" if outcome else "cancelled", seats_to_json(seats), finished_at),
    )
    await db.query(
        "INSERT INTO games VALUES (?, 1, -100, 7, ?, ?, 1.0, ?, ?, ?)",
        (
            table_id,
            '{"teams": "none"}',
            seats_to_json(seats),
            finished_at,
            outcome.to_json() if outcome else None,
            "end",
        ),
    )
    lines = [(seat, "pass") for _ in range(moves) for seat in range(len(seats))]
    for i, (seat, kind) in enumerate(lines):
        line: tuple[Any, ...] = (i + 1, seat, json.dumps({"type": kind, "seat": seat}))
        await db.query(
            "INSERT INTO actions VALUES (?, 1, ?, ?, ?, ?)", (table_id, *line, finished_at)
        )


def lost(durak: int, players: int) -> Outcome:
    points = tuple(0 if i == durak else 2 for i in range(players))
    return Outcome((durak,), False, False, points)


async def test_the_games_already_played_are_rated(old_database: Database) -> None:
    db = old_database
    await before_ratings(db)
    # finished out of table order: the later table ended first
    await game_rows(db, 2, (ALICE, BORIS, VERA), lost(1, 3), finished_at=50.0)
    await game_rows(db, 1, (ALICE, BORIS), lost(0, 2), finished_at=90.0)
    await game_rows(db, 3, (ALICE, BORIS), lost(1, 2), finished_at=95.0, moves=1)  # too short
    await game_rows(db, 4, (ALICE, BOT), lost(1, 2), finished_at=99.0)
    await game_rows(db, 5, (ALICE, BORIS), None, finished_at=99.5)  # cancelled

    async with db.open() as store:
        assert isinstance(store, SqliteStore | PostgresStore)
        assert await store.schema_version() >= RATINGS
        group = await store.ratings_of(-100, [1, 2, 3])
        assert {u: (r.games, r.durak) for u, r in group.items()} == {
            1: (2, 1),
            2: (2, 1),
            3: (1, 0),
        }
        assert group[3].mu > NEWCOMER.mu
        assert sorted(await store.ratings_of(OVERALL, [1, 2, 3])) == [1, 2, 3]
        assert (await store.ratings_of(VS_COMPUTER, [1]))[1].games == 1
        # in the order they finished: table 2's game first
        history = await store.rating_history(2, [-100])
        assert len(history) == 2 and history[0].mu < NEWCOMER.mu < history[1].mu
        order = await db.query(
            "SELECT seq, table_id, counted, reason FROM rated_games ORDER BY seq"
        )
        assert order == [(1, 2, 1, None), (2, 1, 1, None), (3, 3, 0, "few_moves"), (4, 4, 1, None)]
        tables = ("ratings", "rating_history")
        before = [await db.query(f"SELECT * FROM {t} ORDER BY 1, 2, 3") for t in tables]
        assert await store.rebuild_ratings() == (3, 4)
        after = [await db.query(f"SELECT * FROM {t} ORDER BY 1, 2, 3") for t in tables]
        assert after == before
