"""What both stores write for the ratings, as a function of the stored facts they load.

:mod:`bot.store.ratings` loads a finished game's seats, rules, result and the moves of each
seat and hands them here; this decides whether the game counts, calls
:func:`bot.ratings.model.rate`, and gives back the rows to write. The statements are
written with ``?`` placeholders, once for both databases.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

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
from bot.store.models import DAY, Outcome, seats_from_json

PLACE: Final = (
    "INSERT INTO rated_games (seq, table_id, game_no) "
    "SELECT coalesce(max(seq), 0) + 1, ?, ? FROM rated_games WHERE true "
    "ON CONFLICT (table_id, game_no) DO NOTHING RETURNING seq"
)
"""Give a game the next place in the rating order (no row back if it has one). The place is
written, not handed out by the database: both databases count alike, and the rating is
held (:attr:`~bot.store.dialect.Dialect.hold_ratings`) while it is taken."""
PLACE_ALL: Final = (
    "INSERT INTO rated_games (seq, table_id, game_no) "
    "SELECT (SELECT coalesce(max(seq), 0) FROM rated_games) "
    "+ row_number() OVER (ORDER BY finished_at, table_id, game_no), table_id, game_no "
    "FROM games WHERE outcome IS NOT NULL AND NOT EXISTS (SELECT 1 FROM rated_games AS r "
    "WHERE r.table_id = games.table_id AND r.game_no = games.game_no)"
)
"""Give every finished game without a place one, in the order they finished."""
FINISHED: Final = (
    "SELECT chat_id, seats, rules, outcome, finished_at FROM games "
    "WHERE table_id = ? AND game_no = ? AND outcome IS NOT NULL"
)
UPSERT: Final = (
    "INSERT INTO ratings (scope, user_id, name, mu, sigma, games, durak, updated_at) "
    "VALUES (?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT (scope, user_id) DO UPDATE SET "
    "name = excluded.name, mu = excluded.mu, sigma = excluded.sigma, "
    "games = ratings.games + 1, durak = ratings.durak + excluded.durak, "
    "updated_at = excluded.updated_at"
)
INSERT_RATING: Final = (
    "INSERT INTO ratings (scope, user_id, name, mu, sigma, games, durak, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
HISTORY: Final = (
    "INSERT INTO rating_history (user_id, scope, seq, table_id, game_no, side, lost, mu, "
    "sigma, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
MARK: Final = "UPDATE rated_games SET counted = ?, reason = ? WHERE seq = ?"


def forget(one_chat: bool) -> tuple[str, str]:
    """The statements that forget every rating (of one scope: one ``?``)."""
    where = " WHERE scope = ?" if one_chat else ""
    return f"DELETE FROM ratings{where}", f"DELETE FROM rating_history{where}"


def games_sql(one_chat: bool) -> str:
    """Every placed game (of one chat: one ``?``) in the rating order, as :func:`replay`
    reads them."""
    where = "WHERE g.chat_id = ? " if one_chat else ""
    return (
        "SELECT r.seq, g.table_id, g.game_no, g.chat_id, g.seats, g.rules, g.outcome, "
        "g.finished_at FROM rated_games AS r JOIN games AS g "
        f"ON g.table_id = r.table_id AND g.game_no = r.game_no {where}ORDER BY r.seq"
    )


def _no_constant(name: str) -> Any:
    raise ValueError(f"not JSON: {name}")


def own_move(action: str) -> bool:
    """Whether a logged action (its JSON) is a move its seat made; a line that is not an
    action object counts as one (as SQLite's ``json_valid``/``json_extract`` read it)."""
    try:
        data = json.loads(action, parse_constant=_no_constant)
    except ValueError:
        return True
    kind = data.get("type") if isinstance(data, dict) else None
    return kind not in NOT_MOVES


def _teams_rule(rules: str) -> str:
    """The ``teams`` rule of a stored rules JSON (``none`` if it cannot be read)."""
    try:
        data = json.loads(rules)
    except ValueError:
        return "none"
    teams = data.get("teams", "none") if isinstance(data, dict) else "none"
    return teams if isinstance(teams, str) else "none"


def finished_game(
    chat_id: int,
    seats: str,
    rules: str,
    outcome: str,
    moves: Mapping[int, int],
    pair_before: int = 0,
) -> FinishedGame:
    """A stored game (its seats, rules and outcome JSON, the moves of each seat; a game of
    two humans, how many the same two finished together in the day before) as the rating
    reads it."""
    result = Outcome.from_json(outcome)
    return FinishedGame(
        pair_before=pair_before,
        chat_id=chat_id,
        seats=tuple(RatedSeat(s.user_id, s.ai, s.name) for s in seats_from_json(seats)),
        durak_seats=tuple(result.durak_seats),
        draw=result.draw,
        teams=_teams_rule(rules),
        moves=dict(moves),
    )


def judge(
    found: Sequence[Any] | None, moves: Mapping[int, int], pair_before: int = 0
) -> tuple[FinishedGame, float] | str:
    """A game's row (:data:`FINISHED`; None if it has no result), its seats' moves and
    (:func:`pair_of`) the games its pair played in the day before: the game to rate and
    when it finished, or why it does not count."""
    if found is None:
        return "no_result"
    chat_id, seats, rules, outcome, finished_at = found
    game = finished_game(chat_id, seats, rules, outcome, moves, pair_before)
    reason = not_counted(game)
    return reason if reason is not None else (game, finished_at)


PAIR_BEFORE: Final = (
    "SELECT count(*) FROM game_players AS a JOIN game_players AS b "
    "ON b.table_id = a.table_id AND b.game_no = a.game_no AND b.seat <> a.seat "
    "JOIN rated_games AS r ON r.table_id = a.table_id AND r.game_no = a.game_no "
    "WHERE a.user_id = ? AND b.user_id = ? AND a.players = 2 AND r.seq < ? "
    "AND a.finished_at > ?"
)
"""The games two players played alone with each other before a game's place in the rating
order (one ``?``), finished after a time (the day before it)."""


def pair_of(seats: str) -> tuple[int, int] | None:
    """The two humans of a game of two humans alone (its seats JSON), else None."""
    found = seats_from_json(seats)
    users = [s.user_id for s in found if s.user_id is not None and s.ai is None]
    if len(found) != 2 or len(users) != 2:
        return None
    return users[0], users[1]


def scopes_and_users(game: FinishedGame) -> tuple[tuple[int, ...], list[int]]:
    """The scopes a counted game rates and its human players: the ratings to load."""
    return game_scopes(game), sorted({s.user_id for s in game.seats if s.user_id is not None})


def skills_of(rows: Iterable[Sequence[Any]]) -> dict[tuple[int, int], Skill]:
    """Loaded ``(scope, user_id, mu, sigma)`` rows by scope and user."""
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


def rated_lines(
    game: FinishedGame,
    skills: Mapping[tuple[int, int], Skill],
    seq: int,
    table_id: int,
    game_no: int,
    finished_at: float,
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Rate one counted game from the loaded ratings: the :data:`UPSERT` rows and the
    :data:`HISTORY` rows."""
    changes = rate(game, skills)
    names = {s.user_id: s.name for s in game.seats if s.user_id is not None}
    upserts: list[tuple[Any, ...]] = [
        (c.scope, c.user_id, names[c.user_id], c.after.mu, c.after.sigma, int(c.lost), finished_at)
        for c in changes
    ]
    return upserts, [_history(c, seq, table_id, game_no, finished_at) for c in changes]


@dataclass(slots=True)
class _Line:
    """A rating being rebuilt in memory."""

    name: str
    skill: Skill
    games: int = 0
    durak: int = 0
    updated_at: float = 0.0


@dataclass(slots=True)
class Replayed:
    """Every rating rated again: the rows to write and how many games counted."""

    ratings: list[tuple[Any, ...]] = field(default_factory=list)
    """:data:`INSERT_RATING` rows."""
    history: list[tuple[Any, ...]] = field(default_factory=list)
    marks: list[tuple[int, str | None, int]] = field(default_factory=list)
    """:data:`MARK` rows."""
    counted: int = 0


def replay(
    games: Iterable[Sequence[Any]],
    moves: Mapping[tuple[int, int], Mapping[int, int]],
    chat_id: int | None,
) -> Replayed:
    """Rate the games (:func:`games_sql` rows, in the rating order) from nothing; with
    ``chat_id`` only that chat's own scope (its games' place marks are kept)."""
    lines: dict[tuple[int, int], _Line] = {}
    skills: dict[tuple[int, int], Skill] = {}
    pairs: dict[frozenset[int], list[float]] = {}
    """When each pair's games (in the rating order) finished."""
    done = Replayed()
    for seq, table_id, game_no, game_chat, seats, rules, outcome, finished_at in games:
        found = None if outcome is None else (game_chat, seats, rules, outcome, finished_at)
        pair = pair_of(seats) if outcome is not None else None
        before = 0
        if pair is not None:
            played = pairs.setdefault(frozenset(pair), [])
            before = sum(1 for at in played if at > finished_at - DAY)
            played.append(finished_at)
        judged = judge(found, moves.get((table_id, game_no), {}), before)
        if isinstance(judged, str):
            if chat_id is None or outcome is None:
                done.marks.append((0, judged, seq))
            continue
        game, _ = judged
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
            done.history.append(_history(c, seq, table_id, game_no, finished_at))
        if chat_id is None:
            done.marks.append((1, None, seq))
        done.counted += 1
    done.ratings = [
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
    ]
    return done
