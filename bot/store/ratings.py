"""Ratings kept in the store, as a function of the stored results in the order they finished.

Every finished game gets a line in ``rated_games`` when its result is saved; the line's
``seq`` is the order the ratings follow. :func:`rate_game` rates one game inside its
finishing transaction; :func:`rebuild` forgets every rating and rates every finished game
again in that order (the migration that introduced ratings, ``python -m bot.rerate
--rebuild``, and a group moved to a new id). Both read the same stored facts — the game's
seats, rules, result and action log — and call the same :func:`bot.ratings.model.rate`,
so they give the same numbers, on either database: each is a transaction body
(:mod:`bot.store.steps`) written once, given the database's
:class:`~bot.store.dialect.Dialect`.

The rules of rating live in :mod:`bot.ratings.model`, the rows they make in
:mod:`bot.store.rating_rows`; this module only loads and saves. A seat's moves are
counted in SQL where the database can tell a JSON text from another without failing
(SQLite's ``json_valid``), else in Python (:func:`~bot.store.rating_rows.own_move`, which
counts the same lines).
"""

from __future__ import annotations

from typing import Final

from bot.ratings.model import NOT_MOVES
from bot.store.dialect import Dialect
from bot.store.models import DAY
from bot.store.rating_rows import (
    FINISHED,
    HISTORY,
    INSERT_RATING,
    MARK,
    PAIR_BEFORE,
    PLACE,
    PLACE_ALL,
    UPSERT,
    finished_game,
    forget,
    games_sql,
    judge,
    own_move,
    pair_of,
    rated_lines,
    replay,
    scopes_and_users,
    skills_of,
)
from bot.store.steps import Body, Fetch, Many, each

__all__ = ["finished_game", "rate_game", "rebuild"]

PAGE: Final = 5_000
"""Log lines read at a time when they are counted in Python: the whole log never sits in
memory, only the counts."""


def _own_move(column: str) -> str:
    """SQL (SQLite's): whether a logged action (the JSON in ``column``) is a move its seat
    made. A line that is not an action object counts as one
    (:func:`bot.store.rating_rows.own_move` in Python)."""
    kind = f"CASE WHEN json_valid({column}) THEN json_extract({column}, '$.type') END"
    not_moves = ", ".join(f"'{k}'" for k in NOT_MOVES)
    return f"coalesce({kind}, '') NOT IN ({not_moves})"


def _marks(n: int) -> str:
    return ",".join("?" * n)


def rate_game(d: Dialect, table_id: int, game_no: int) -> Body[bool]:
    """Inside the transaction that saves the game's result: give the game its place in
    the rating order and rate it. Whether it counted (False also if it was rated before)."""
    yield from each(d.hold_ratings)
    rows = yield Fetch(PLACE, (table_id, game_no))
    if not rows:
        return False
    seq = int(rows[0][0])
    found = yield Fetch(FINISHED, (table_id, game_no))
    moves = yield from _game_moves(d, table_id, game_no)
    pair = pair_of(found[0][1]) if found else None
    before = 0
    if found and pair is not None:
        counted = yield Fetch(PAIR_BEFORE, (*pair, seq, float(found[0][4]) - DAY))
        before = int(counted[0][0])
    judged = judge(found[0] if found else None, moves, before)
    if isinstance(judged, str):
        yield Many(MARK, [(0, judged, seq)])
        return False
    game, finished_at = judged
    scopes, users = scopes_and_users(game)
    rows = yield Fetch(
        "SELECT scope, user_id, mu, sigma FROM ratings "
        f"WHERE scope IN ({_marks(len(scopes))}) AND user_id IN ({_marks(len(users))})",
        (*scopes, *users),
    )
    upserts, history = rated_lines(game, skills_of(rows), seq, table_id, game_no, finished_at)
    yield Many(UPSERT, upserts)
    yield Many(HISTORY, history)
    yield Many(MARK, [(1, None, seq)])
    return True


def _game_moves(d: Dialect, table_id: int, game_no: int) -> Body[dict[int, int]]:
    """The moves each seat of one game made."""
    where = "WHERE table_id = ? AND game_no = ? AND seat IS NOT NULL"
    if d.counts_moves is not None:
        rows = yield Fetch(
            f"SELECT seat, count(*) FROM actions {where} AND {d.counts_moves('action')} "
            "GROUP BY seat",
            (table_id, game_no),
        )
        return {int(s): int(n) for s, n in rows}
    moves: dict[int, int] = {}
    for seat, action in (
        yield Fetch(f"SELECT seat, action FROM actions {where}", (table_id, game_no))
    ):
        if own_move(action):
            moves[seat] = moves.get(seat, 0) + 1
    return moves


def rebuild(d: Dialect, *, chat_id: int | None = None) -> Body[tuple[int, int]]:
    """Inside a write transaction: forget the ratings and rate every finished game again,
    in the rating order; (games that counted, games finished).

    A finished game that has no place in the order yet (one saved before ratings existed)
    gets one first, in the order the games finished. With ``chat_id`` only that group's
    own ratings are rebuilt (its games, after it moved to a new id)."""
    yield from each(d.hold_ratings)
    yield Fetch(PLACE_ALL)
    params = (chat_id,) if chat_id is not None else ()
    for sql in forget(chat_id is not None):
        yield Fetch(sql, params)
    games = yield Fetch(games_sql(chat_id is not None), params)
    moves = yield from _all_moves(d, chat_id)
    done = replay(games, moves, chat_id)
    yield Many(INSERT_RATING, done.ratings)
    yield Many(HISTORY, done.history)
    yield Many(MARK, done.marks)
    return done.counted, len(games)


def _all_moves(d: Dialect, chat_id: int | None) -> Body[dict[tuple[int, int], dict[int, int]]]:
    """The moves of every seat of every finished game (of one chat)."""
    where, params = ("AND g.chat_id = ?", (chat_id,)) if chat_id is not None else ("", ())
    joined = (
        "FROM actions AS a JOIN games AS g ON g.table_id = a.table_id "
        f"AND g.game_no = a.game_no WHERE g.outcome IS NOT NULL {where} AND a.seat IS NOT NULL"
    )
    found: dict[tuple[int, int], dict[int, int]] = {}
    if d.counts_moves is not None:
        rows = yield Fetch(
            f"SELECT a.table_id, a.game_no, a.seat, count(*) {joined} "
            f"AND {d.counts_moves('a.action')} GROUP BY a.table_id, a.game_no, a.seat",
            params,
        )
        for table_id, game_no, seat, count in rows:
            found.setdefault((int(table_id), int(game_no)), {})[int(seat)] = int(count)
        return found
    after: tuple[int, int, int] = (0, 0, 0)
    while True:  # a page at a time, by the log's key
        rows = yield Fetch(
            f"SELECT a.table_id, a.game_no, a.seq, a.seat, a.action {joined} "
            "AND (a.table_id, a.game_no, a.seq) > (?, ?, ?) "
            f"ORDER BY a.table_id, a.game_no, a.seq LIMIT {PAGE}",
            (*params, *after),
        )
        for table_id, game_no, _, seat, action in rows:
            if own_move(action):
                seats = found.setdefault((int(table_id), int(game_no)), {})
                seats[int(seat)] = seats.get(int(seat), 0) + 1
        if len(rows) < PAGE:
            return found
        after = (int(rows[-1][0]), int(rows[-1][1]), int(rows[-1][2]))
