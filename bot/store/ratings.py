"""Ratings kept in SQLite, as a function of the stored results in the order they finished.

Every finished game gets a line in ``rated_games`` when its result is saved; the line's
``seq`` is the order the ratings follow. :func:`rate_game` rates one game inside its
finishing transaction; :func:`rebuild` forgets every rating and rates every finished game
again in that order (the migration that introduced ratings, ``python -m bot.rerate
--rebuild``, and a group moved to a new id). Both read the same stored facts — the game's
seats, rules, result and action log — and call the same :func:`bot.ratings.model.rate`,
so they give the same numbers.

The rules of rating live in :mod:`bot.ratings.model`, the rows they make in
:mod:`bot.store.rating_rows` (shared with PostgreSQL's :mod:`bot.store.pg_ratings`); this
module only loads and saves.
"""

from __future__ import annotations

from typing import Final

import aiosqlite

from bot.ratings.model import NOT_MOVES
from bot.store.rating_rows import (
    FINISHED,
    HISTORY,
    INSERT_RATING,
    MARK,
    PLACE,
    PLACE_ALL,
    UPSERT,
    finished_game,
    forget,
    games_sql,
    judge,
    rated_lines,
    replay,
    scopes_and_users,
    skills_of,
)

__all__ = ["finished_game", "rate_game", "rebuild"]


def _own_move(column: str) -> str:
    """SQL: whether a logged action (the JSON in ``column``) is a move its seat made. A
    line that is not an action object counts as one (:func:`bot.store.rating_rows.own_move`
    in Python)."""
    kind = f"CASE WHEN json_valid({column}) THEN json_extract({column}, '$.type') END"
    not_moves = ", ".join(f"'{k}'" for k in NOT_MOVES)
    return f"coalesce({kind}, '') NOT IN ({not_moves})"


_GAME_MOVES: Final = (
    "SELECT seat, count(*) FROM actions WHERE table_id = ? AND game_no = ? "
    f"AND seat IS NOT NULL AND {_own_move('action')} GROUP BY seat"
)


async def rate_game(db: aiosqlite.Connection, table_id: int, game_no: int) -> bool:
    """Inside the transaction that saves the game's result: give the game its place in
    the rating order and rate it. Whether it counted (False also if it was rated before)."""
    rows = list(await db.execute_fetchall(PLACE, (table_id, game_no)))
    if not rows:
        return False
    seq = int(rows[0][0])
    found = list(await db.execute_fetchall(FINISHED, (table_id, game_no)))
    moves = {int(s): int(n) for s, n in await db.execute_fetchall(_GAME_MOVES, (table_id, game_no))}
    judged = judge(found[0] if found else None, moves)
    if isinstance(judged, str):
        await db.executemany(MARK, [(0, judged, seq)])
        return False
    game, finished_at = judged
    scopes, users = scopes_and_users(game)
    rows = list(await db.execute_fetchall(_skills_sql(len(scopes), len(users)), (*scopes, *users)))
    upserts, history = rated_lines(game, skills_of(rows), seq, table_id, game_no, finished_at)
    await db.executemany(UPSERT, upserts)
    await db.executemany(HISTORY, history)
    await db.executemany(MARK, [(1, None, seq)])
    return True


def _skills_sql(scopes: int, users: int) -> str:
    return (
        f"SELECT scope, user_id, mu, sigma FROM ratings WHERE scope IN ({','.join('?' * scopes)}) "
        f"AND user_id IN ({','.join('?' * users)})"
    )


async def rebuild(db: aiosqlite.Connection, *, chat_id: int | None = None) -> tuple[int, int]:
    """Inside a write transaction: forget the ratings and rate every finished game again,
    in the rating order; (games that counted, games finished).

    A finished game that has no place in the order yet (one saved before ratings existed)
    gets one first, in the order the games finished. With ``chat_id`` only that group's
    own ratings are rebuilt (its games, after it moved to a new id)."""
    await db.execute_fetchall(PLACE_ALL)
    params = (chat_id,) if chat_id is not None else ()
    for sql in forget(chat_id is not None):
        await db.execute_fetchall(sql, params)
    games = list(await db.execute_fetchall(games_sql(chat_id is not None), params))
    done = replay(games, await _all_moves(db, chat_id), chat_id)
    await db.executemany(INSERT_RATING, done.ratings)
    await db.executemany(HISTORY, done.history)
    await db.executemany(MARK, done.marks)
    return done.counted, len(games)


async def _all_moves(
    db: aiosqlite.Connection, chat_id: int | None
) -> dict[tuple[int, int], dict[int, int]]:
    """The moves of every seat of every finished game (of one chat)."""
    where, params = ("AND g.chat_id = ?", (chat_id,)) if chat_id is not None else ("", ())
    rows = await db.execute_fetchall(
        "SELECT a.table_id, a.game_no, a.seat, count(*) FROM actions AS a JOIN games AS g "
        "ON g.table_id = a.table_id AND g.game_no = a.game_no "
        f"WHERE g.outcome IS NOT NULL {where} AND a.seat IS NOT NULL "
        f"AND {_own_move('a.action')} "
        "GROUP BY a.table_id, a.game_no, a.seat",
        params,
    )
    found: dict[tuple[int, int], dict[int, int]] = {}
    for table_id, game_no, seat, count in rows:
        found.setdefault((int(table_id), int(game_no)), {})[int(seat)] = int(count)
    return found
