"""Ratings kept in PostgreSQL: :mod:`bot.store.ratings`'s twin, loading through asyncpg.

The same statements (:mod:`bot.store.rating_rows`, their ``?`` numbered as ``$1``, ``$2``...)
and the same rows, so both stores give the same numbers. What differs is loading and
ordering: a seat's moves are counted in Python (:func:`~bot.store.rating_rows.own_move`), as
SQLite's ``json_valid``/``json_extract`` count them, since PostgreSQL 15 has no way to test
a text for JSON without failing the statement; a game's place in the order is written
explicitly, as SQLite hands it out; and one game is rated at a time (:func:`hold_order`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Any

import asyncpg

from bot.store.rating_rows import (
    FINISHED,
    HISTORY,
    INSERT_RATING,
    MARK,
    UPSERT,
    forget,
    games_sql,
    judge,
    own_move,
    rated_lines,
    replay,
    scopes_and_users,
    skills_of,
)

__all__ = ["hold_order", "rate_game", "rebuild"]

_ORDER_LOCK = 0x72_61_74_65  # "rate": the advisory lock that keeps the rating order

# SQLite's INTEGER PRIMARY KEY gives a new line the last seq + 1; so do these (under
# hold_order, nobody else is placing a game meanwhile).
_PLACE = (
    "INSERT INTO rated_games (seq, table_id, game_no) "
    "SELECT coalesce(max(seq), 0) + 1, $1, $2 FROM rated_games "
    "ON CONFLICT (table_id, game_no) DO NOTHING RETURNING seq"
)
_PLACE_ALL = (
    "INSERT INTO rated_games (seq, table_id, game_no) "
    "SELECT (SELECT coalesce(max(seq), 0) FROM rated_games) "
    "+ row_number() OVER (ORDER BY finished_at, table_id, game_no), table_id, game_no "
    "FROM games WHERE outcome IS NOT NULL AND NOT EXISTS (SELECT 1 FROM rated_games AS r "
    "WHERE r.table_id = games.table_id AND r.game_no = games.game_no)"
)
_SKILLS = (
    "SELECT scope, user_id, mu, sigma FROM ratings "
    "WHERE scope = ANY($1::bigint[]) AND user_id = ANY($2::bigint[])"
)
_GAME_ACTIONS = (
    "SELECT seat, action FROM actions WHERE table_id = $1 AND game_no = $2 AND seat IS NOT NULL"
)


@cache
def numbered(sql: str) -> str:
    """``sql`` with its ``?`` placeholders numbered as PostgreSQL wants them."""
    numbers = iter(range(1, 1000))
    return re.sub(r"\?", lambda _: f"${next(numbers)}", sql)


async def _many(db: asyncpg.Connection, sql: str, rows: Sequence[Sequence[Any]]) -> None:
    if rows:
        await db.executemany(numbered(sql), rows)


async def hold_order(db: asyncpg.Connection) -> None:
    """Until the transaction ends, be the only one rating: SQLite's single writer rates one
    game after another; here two games finishing at once would both read a player's
    rating before either moved it, and take their places in the order apart from their
    commits. Held, the next game's rating reads what the last one committed, and its place
    follows it. Take it before writing any rating row, so it never waits on a row held by
    one who waits on it."""
    await db.execute("SELECT pg_advisory_xact_lock($1)", _ORDER_LOCK)


async def rate_game(db: asyncpg.Connection, table_id: int, game_no: int) -> bool:
    """Inside the transaction that saves the game's result: give the game its place in
    the rating order and rate it. Whether it counted (False also if it was rated before)."""
    await hold_order(db)
    seq = await db.fetchval(_PLACE, table_id, game_no)
    if seq is None:
        return False
    found = await db.fetchrow(numbered(FINISHED), table_id, game_no)
    moves: dict[int, int] = {}
    for seat, action in await db.fetch(_GAME_ACTIONS, table_id, game_no):
        if own_move(action):
            moves[seat] = moves.get(seat, 0) + 1
    judged = judge(found, moves)
    if isinstance(judged, str):
        await _many(db, MARK, [(0, judged, seq)])
        return False
    game, finished_at = judged
    scopes, users = scopes_and_users(game)
    skills = skills_of(await db.fetch(_SKILLS, list(scopes), users))
    upserts, history = rated_lines(game, skills, seq, table_id, game_no, finished_at)
    await _many(db, UPSERT, upserts)
    await _many(db, HISTORY, history)
    await _many(db, MARK, [(1, None, seq)])
    return True


async def rebuild(db: asyncpg.Connection, *, chat_id: int | None = None) -> tuple[int, int]:
    """Inside a transaction: forget the ratings and rate every finished game again, in the
    rating order; (games that counted, games finished). As :func:`bot.store.ratings.rebuild`:
    a finished game with no place in the order gets one first, in the order the games
    finished; with ``chat_id`` only that group's own ratings are rebuilt."""
    await hold_order(db)
    await db.execute(_PLACE_ALL)
    params = (chat_id,) if chat_id is not None else ()
    for sql in forget(chat_id is not None):
        await db.execute(numbered(sql), *params)
    games = await db.fetch(numbered(games_sql(chat_id is not None)), *params)
    done = replay(games, await _all_moves(db, chat_id), chat_id)
    await _many(db, INSERT_RATING, done.ratings)
    await _many(db, HISTORY, done.history)
    await _many(db, MARK, done.marks)
    return done.counted, len(games)


async def _all_moves(
    db: asyncpg.Connection, chat_id: int | None
) -> dict[tuple[int, int], dict[int, int]]:
    """The moves of every seat of every finished game (of one chat), read through a cursor:
    the whole action log never sits in memory, only the counts."""
    where, params = ("AND g.chat_id = $1", (chat_id,)) if chat_id is not None else ("", ())
    found: dict[tuple[int, int], dict[int, int]] = {}
    async for table_id, game_no, seat, action in db.cursor(
        "SELECT a.table_id, a.game_no, a.seat, a.action FROM actions AS a JOIN games AS g "
        "ON g.table_id = a.table_id AND g.game_no = a.game_no "
        f"WHERE g.outcome IS NOT NULL {where} AND a.seat IS NOT NULL",
        *params,
        prefetch=5_000,
    ):
        if own_move(action):
            seats = found.setdefault((table_id, game_no), {})
            seats[seat] = seats.get(seat, 0) + 1
    return found
