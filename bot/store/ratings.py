"""Ratings kept in SQLite, as a function of the stored results in the order they finished.

Every finished game gets a line in ``rated_games`` when its result is saved; the line's
``seq`` is the order the ratings follow. :func:`rate_game` rates one game inside its
finishing transaction; :func:`rebuild` forgets every rating and rates every finished game
again in that order (the migration that introduced ratings, ``python -m bot.ratings
--rebuild``, and a group moved to a new id). Both read the same stored facts — the game's
seats, rules, result and action log — and call the same :func:`bot.ratings.model.rate`,
so they give the same numbers.

The rules of rating live in :mod:`bot.ratings.model`; this module only loads and saves.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import aiosqlite

from bot.ratings.model import (
    NOT_MOVES,
    Change,
    FinishedGame,
    RatedSeat,
    Skill,
    game_scopes,
    not_counted,
    rate,
)
from bot.store.models import Outcome, seats_from_json

__all__ = ["finished_game", "rate_game", "rebuild"]


def _own_move(column: str) -> str:
    """SQL: whether a logged action (the JSON in ``column``) is a move its seat made. A
    line that is not an action object counts as one."""
    kind = f"CASE WHEN json_valid({column}) THEN json_extract({column}, '$.type') END"
    not_moves = ", ".join(f"'{k}'" for k in NOT_MOVES)
    return f"coalesce({kind}, '') NOT IN ({not_moves})"


_GAME_MOVES: Final = (
    "SELECT seat, count(*) FROM actions WHERE table_id = ? AND game_no = ? "
    f"AND seat IS NOT NULL AND {_own_move('action')} GROUP BY seat"
)
_UPSERT: Final = (
    "INSERT INTO ratings (scope, user_id, name, mu, sigma, games, durak, updated_at) "
    "VALUES (?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT (scope, user_id) DO UPDATE SET "
    "name = excluded.name, mu = excluded.mu, sigma = excluded.sigma, games = games + 1, "
    "durak = durak + excluded.durak, updated_at = excluded.updated_at"
)
_HISTORY: Final = (
    "INSERT INTO rating_history (user_id, scope, seq, table_id, game_no, side, lost, mu, "
    "sigma, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _teams_rule(rules: str) -> str:
    """The ``teams`` rule of a stored rules JSON (``none`` if it cannot be read)."""
    try:
        data = json.loads(rules)
    except ValueError:
        return "none"
    teams = data.get("teams", "none") if isinstance(data, dict) else "none"
    return teams if isinstance(teams, str) else "none"


def finished_game(
    chat_id: int, seats: str, rules: str, outcome: str, moves: Mapping[int, int]
) -> FinishedGame:
    """A stored game (its seats, rules and outcome JSON, the moves of each seat) as the
    rating reads it."""
    result = Outcome.from_json(outcome)
    return FinishedGame(
        chat_id=chat_id,
        seats=tuple(RatedSeat(s.user_id, s.ai, s.name) for s in seats_from_json(seats)),
        durak_seats=tuple(result.durak_seats),
        draw=result.draw,
        teams=_teams_rule(rules),
        moves=dict(moves),
    )


@dataclass(slots=True)
class _Line:
    """A rating being rebuilt in memory."""

    name: str
    skill: Skill
    games: int = 0
    durak: int = 0
    updated_at: float = 0.0


async def rate_game(db: aiosqlite.Connection, table_id: int, game_no: int) -> bool:
    """Inside the transaction that saves the game's result: give the game its place in
    the rating order and rate it. Whether it counted (False also if it was rated before)."""
    rows = list(
        await db.execute_fetchall(
            "INSERT INTO rated_games (table_id, game_no) VALUES (?, ?) "
            "ON CONFLICT (table_id, game_no) DO NOTHING RETURNING seq",
            (table_id, game_no),
        )
    )
    if not rows:
        return False
    seq = int(rows[0][0])
    found = list(
        await db.execute_fetchall(
            "SELECT chat_id, seats, rules, outcome, finished_at FROM games "
            "WHERE table_id = ? AND game_no = ? AND outcome IS NOT NULL",
            (table_id, game_no),
        )
    )
    if not found:
        await _mark(db, [(0, "no_result", seq)])
        return False
    chat_id, seats, rules, outcome, finished_at = found[0]
    moves = {int(s): int(n) for s, n in await db.execute_fetchall(_GAME_MOVES, (table_id, game_no))}
    game = finished_game(chat_id, seats, rules, outcome, moves)
    reason = not_counted(game)
    if reason is not None:
        await _mark(db, [(0, reason, seq)])
        return False
    users = sorted({s.user_id for s in game.seats if s.user_id is not None})
    scopes = game_scopes(game)
    skills = await _skills(db, scopes, users)
    changes = rate(game, skills)
    names = {s.user_id: s.name for s in game.seats if s.user_id is not None}
    await db.executemany(
        _UPSERT,
        [
            (
                c.scope,
                c.user_id,
                names[c.user_id],
                c.after.mu,
                c.after.sigma,
                int(c.lost),
                finished_at,
            )
            for c in changes
        ],
    )
    await db.executemany(
        _HISTORY, [_history(c, seq, table_id, game_no, finished_at) for c in changes]
    )
    await _mark(db, [(1, None, seq)])
    return True


async def _skills(
    db: aiosqlite.Connection, scopes: Sequence[int], users: Sequence[int]
) -> dict[tuple[int, int], Skill]:
    scope_marks = ",".join("?" * len(scopes))
    user_marks = ",".join("?" * len(users))
    rows = await db.execute_fetchall(
        f"SELECT scope, user_id, mu, sigma FROM ratings WHERE scope IN ({scope_marks}) "
        f"AND user_id IN ({user_marks})",
        (*scopes, *users),
    )
    return {(int(r[0]), int(r[1])): Skill(float(r[2]), float(r[3])) for r in rows}


def _history(
    c: Change, seq: int, table_id: int, game_no: int, at: float
) -> tuple[int, int, int, int, int, int | None, int, float, float, float]:
    return (
        c.user_id,
        c.scope,
        seq,
        table_id,
        game_no,
        c.side,
        int(c.lost),
        c.after.mu,
        c.after.sigma,
        at,
    )


async def _mark(db: aiosqlite.Connection, marks: Iterable[tuple[int, str | None, int]]) -> None:
    await db.executemany("UPDATE rated_games SET counted = ?, reason = ? WHERE seq = ?", marks)


async def rebuild(db: aiosqlite.Connection, *, chat_id: int | None = None) -> tuple[int, int]:
    """Inside a write transaction: forget the ratings and rate every finished game again,
    in the rating order; (games that counted, games finished).

    A finished game that has no place in the order yet (one saved before ratings existed)
    gets one first, in the order the games finished. With ``chat_id`` only that group's
    own ratings are rebuilt (its games, after it moved to a new id)."""
    await db.execute_fetchall(
        "INSERT INTO rated_games (table_id, game_no) SELECT table_id, game_no FROM games "
        "WHERE outcome IS NOT NULL AND NOT EXISTS (SELECT 1 FROM rated_games AS r "
        "WHERE r.table_id = games.table_id AND r.game_no = games.game_no) "
        "ORDER BY finished_at, table_id, game_no"
    )
    where, params = ("WHERE g.chat_id = ?", (chat_id,)) if chat_id is not None else ("", ())
    if chat_id is None:
        await db.execute_fetchall("DELETE FROM ratings")
        await db.execute_fetchall("DELETE FROM rating_history")
    else:
        await db.execute_fetchall("DELETE FROM ratings WHERE scope = ?", (chat_id,))
        await db.execute_fetchall("DELETE FROM rating_history WHERE scope = ?", (chat_id,))
    games = list(
        await db.execute_fetchall(
            "SELECT r.seq, g.table_id, g.game_no, g.chat_id, g.seats, g.rules, g.outcome, "
            "g.finished_at FROM rated_games AS r JOIN games AS g "
            f"ON g.table_id = r.table_id AND g.game_no = r.game_no {where} ORDER BY r.seq",
            params,
        )
    )
    moves = await _all_moves(db, chat_id)
    lines: dict[tuple[int, int], _Line] = {}
    skills: dict[tuple[int, int], Skill] = {}
    history: list[tuple[Any, ...]] = []
    marks: list[tuple[int, str | None, int]] = []
    counted = 0
    for seq, table_id, game_no, game_chat, seats, rules, outcome, finished_at in games:
        if outcome is None:
            marks.append((0, "no_result", seq))
            continue
        game = finished_game(game_chat, seats, rules, outcome, moves.get((table_id, game_no), {}))
        reason = not_counted(game)
        if reason is not None:
            if chat_id is None:
                marks.append((0, reason, seq))
            continue
        changes = [c for c in rate(game, skills) if chat_id is None or c.scope == chat_id]
        names = {s.user_id: s.name for s in game.seats if s.user_id is not None}
        for c in changes:
            line = lines.get((c.scope, c.user_id))
            if line is None:
                line = lines[(c.scope, c.user_id)] = _Line(names[c.user_id], c.after)
            line.name = names[c.user_id]
            line.skill = skills[(c.scope, c.user_id)] = c.after
            line.games += 1
            line.durak += int(c.lost)
            line.updated_at = finished_at
            history.append(_history(c, seq, table_id, game_no, finished_at))
        if chat_id is None:
            marks.append((1, None, seq))
        counted += 1
    await db.executemany(
        "INSERT INTO ratings (scope, user_id, name, mu, sigma, games, durak, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                scope,
                user,
                line.name,
                line.skill.mu,
                line.skill.sigma,
                line.games,
                line.durak,
                line.updated_at,
            )
            for (scope, user), line in lines.items()
        ],
    )
    await db.executemany(_HISTORY, history)
    await _mark(db, marks)
    return counted, len(games)


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
