"""Achievements kept in the store, given game by game and rebuilt from the stored history.

:func:`award_game` runs inside a game's finishing transaction, after its rating: for each
human of a counted game it reads his progress and what he already has, calls
:func:`bot.ratings.achievements.earn`, and writes what is new (``achievements``' key is
the player and the code, so nothing is given twice, whichever process finishes the game).
:func:`rebuild` forgets every achievement a game gives and folds every counted game again,
in the rating order, through the same function: the same set. Both are transaction
bodies (:mod:`bot.store.steps`) written once for both databases, and both hold the
ratings' lock, which orders the finishing transactions.

A game's feats (what its log says of each seat) are written by the table service with the
result (``game_players.feats``); a rebuild may be given them anew, read again from the
logs by ``python -m bot.rerate --achievements``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, Final

from bot.ratings.achievements import TOURNAMENT, Line, Progress, earn
from bot.store.dialect import Dialect
from bot.store.models import Outcome, is_private_chat, seats_from_json
from bot.store.rating_rows import _teams_rule
from bot.store.steps import Body, Fetch, Many, each

__all__ = ["award_game", "award_tournament", "rebuild"]

LINES: Final = (
    "SELECT r.seq, p.seat, p.user_id, p.players, p.durak, p.draw, p.feats, p.finished_at, "
    "g.chat_id, g.seats, g.rules, g.outcome, "
    "CASE WHEN EXISTS (SELECT 1 FROM invitations AS i WHERE i.table_id = p.table_id) "
    "THEN 1 ELSE 0 END "
    "FROM rated_games AS r "
    "JOIN game_players AS p ON p.table_id = r.table_id AND p.game_no = r.game_no "
    "JOIN games AS g ON g.table_id = r.table_id AND g.game_no = r.game_no "
    "WHERE r.counted = 1 AND p.user_id IS NOT NULL"
)
"""Each human seat of each counted game, as :func:`_lines` reads them."""
ONE_GAME: Final = f"{LINES} AND r.table_id = ? AND r.game_no = ? ORDER BY p.seat"
EVERY_GAME: Final = f"{LINES} ORDER BY r.seq, p.seat"
CHAMPIONS: Final = (
    "SELECT champion_user, MIN(finished_at) FROM tournaments "
    "WHERE status = 'done' AND champion_user IS NOT NULL GROUP BY champion_user"
)
"""Each person who won a tournament, and when he first did."""
INSERT: Final = (
    "INSERT INTO achievements (user_id, code, game_id, earned_at) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (user_id, code) DO NOTHING"
)
PROGRESS: Final = (
    "INSERT INTO achievement_progress (user_id, games, calm, firsts) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (user_id) DO UPDATE SET games = excluded.games, calm = excluded.calm, "
    "firsts = excluded.firsts"
)
FEATS: Final = "UPDATE game_players SET feats = ? WHERE table_id = ? AND game_no = ? AND seat = ?"


def _marks(n: int) -> str:
    return ",".join("?" * n)


class _Game:
    """What a game's stored row says that every seat's line needs."""

    __slots__ = ("beat_hard", "first", "quick", "team")

    def __init__(self, chat_id: int, seats: str, rules: str, outcome: str, invited: int) -> None:
        result = Outcome.from_json(outcome)
        found = seats_from_json(seats)
        self.first = result.finish_order[0] if result.finish_order else None
        self.team = _teams_rule(rules) != "none"
        self.beat_hard = any(
            0 <= s < len(found) and found[s].ai == "hard" for s in result.durak_seats
        )
        self.quick = is_private_chat(int(chat_id)) and not invited


def _lines(rows: Iterable[Sequence[Any]]) -> Iterable[tuple[int, int, float, Line]]:
    """``(seq, user id, finished at, line)`` of each :data:`LINES` row, in their order."""
    game: _Game | None = None
    seq_of_game = None
    for seq, seat, user_id, players, durak, draw, feats, at, *stored in rows:
        if game is None or seq != seq_of_game:
            game, seq_of_game = _Game(*stored), seq
        line = Line(
            players=int(players),
            durak=bool(durak),
            draw=bool(draw),
            first=game.first == int(seat),
            team=game.team,
            beat_hard=game.beat_hard,
            quick=game.quick,
            feats=int(feats),
        )
        yield int(seq), int(user_id), float(at), line


def award_game(d: Dialect, table_id: int, game_no: int) -> Body[list[tuple[int, str]]]:
    """Inside the transaction that saved the game's result and rated it: give its humans
    what it earns them (nothing if it did not count); ``(user id, code)`` of each."""
    yield from each(d.hold_ratings)
    rows = yield Fetch(ONE_GAME, (table_id, game_no))
    if not rows:
        return []
    users = sorted({int(row[2]) for row in rows})
    marks = _marks(len(users))
    progress = {
        int(u): Progress(int(g), int(c), int(f))
        for u, g, c, f in (
            yield Fetch(
                "SELECT user_id, games, calm, firsts FROM achievement_progress "
                f"WHERE user_id IN ({marks})",
                tuple(users),
            )
        )
    }
    have: dict[int, set[str]] = {}
    for user, code in (
        yield Fetch(
            f"SELECT user_id, code FROM achievements WHERE user_id IN ({marks})", tuple(users)
        )
    ):
        have.setdefault(int(user), set()).add(str(code))
    given: list[tuple[int, str]] = []
    inserts: list[tuple[Any, ...]] = []
    for seq, user, at, line in _lines(rows):
        mine = progress.setdefault(user, Progress())
        owned = have.setdefault(user, set())
        for code in earn(mine, line, owned):
            owned.add(code)
            given.append((user, code))
            inserts.append((user, code, seq, at))
    yield Many(INSERT, inserts)
    yield Many(PROGRESS, [(u, p.games, p.calm, p.firsts) for u, p in sorted(progress.items())])
    return given


def rebuild(
    d: Dialect, feats: Mapping[tuple[int, int, int], int] | None = None
) -> Body[tuple[int, int]]:
    """Inside a write transaction: forget every achievement a game gives, and every
    player's progress, and give them again game by game in the rating order; with
    ``feats`` (by table, game and seat) the seats' feats are written first. The
    tournaments' achievements are kept. (Players with an achievement, achievements.)"""
    yield from each(d.hold_ratings)
    if feats:
        yield Many(FEATS, [(f, t, g, s) for (t, g, s), f in sorted(feats.items())])
    yield Fetch("DELETE FROM achievements WHERE code <> ?", (TOURNAMENT,))
    yield Fetch("DELETE FROM achievement_progress")
    have: dict[int, set[str]] = {}
    for user, code in (yield Fetch("SELECT user_id, code FROM achievements")):
        have.setdefault(int(user), set()).add(str(code))
    progress: dict[int, Progress] = {}
    inserts: list[tuple[Any, ...]] = []
    # a champion of a tournament that ended before its achievement was given (a database
    # from before achievements) is given it as of his first tournament won
    for user, at in (yield Fetch(CHAMPIONS)):
        owned = have.setdefault(int(user), set())
        if TOURNAMENT not in owned:
            owned.add(TOURNAMENT)
            inserts.append((int(user), TOURNAMENT, None, at))
    for seq, user, at, line in _lines((yield Fetch(EVERY_GAME))):
        owned = have.setdefault(user, set())
        for code in earn(progress.setdefault(user, Progress()), line, owned):
            owned.add(code)
            inserts.append((user, code, seq, at))
    yield Many(INSERT, inserts)
    yield Many(PROGRESS, [(u, p.games, p.calm, p.firsts) for u, p in sorted(progress.items())])
    return sum(1 for codes in have.values() if codes), sum(len(c) for c in have.values())


def award_tournament(
    d: Dialect, user_ids: Collection[int], at: float, game_id: int | None = None
) -> Body[list[int]]:
    """Give the tournament's champions (``user_ids``: humans; a team's members) its
    achievement, at ``at`` (its last game's place in the rating order, ``game_id``, if
    known); the users who had not earned it before. Inside the tournament's own
    finishing transaction, or alone."""
    yield from each(d.hold_ratings)
    users = sorted(set(user_ids))
    if not users:
        return []
    had = {
        int(u)
        for (u,) in (
            yield Fetch(
                f"SELECT user_id FROM achievements WHERE code = ? AND user_id IN "
                f"({_marks(len(users))})",
                (TOURNAMENT, *users),
            )
        )
    }
    new = [u for u in users if u not in had]
    yield Many(INSERT, [(u, TOURNAMENT, game_id, at) for u in new])
    return new
