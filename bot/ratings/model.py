"""The rating rules and the model behind them: pure functions, no I/O.

Which games count, and how (the store calls :func:`rate` for every finished game, in the
order the games finished):

- A game counts once it has a result (a cancelled game has none) and every human at it
  made at least :data:`MIN_MOVES` moves of his own: a lead, a throw-in, a cover, Take,
  Pass, a transfer, a trump shown or swapped. The bot's clock acting for him (a Timeout,
  even one that leads or takes in his place) and leaving the game (Resign) are not moves
  he made, so a game left at once with /leave, or lost on time without a move, rates
  nobody: ratings cannot be farmed by walking out.
- Two players alone with each other count at most :data:`SAME_PAIR_PER_DAY` games in any
  24 hours: the tenth game of the same pair in a day moves no rating (farming with a
  second account that loses on purpose takes many games).
- Free-for-all: everyone who is not the durak ties first and the durak is last; a draw ties
  everyone. A player who left the game with /leave or ran out of time is its durak (the
  engine's result says so), so he loses it.
- Teams: team against team; the durak's team is last and the other teams tie first.
- A game with a computer player at it is a game against the computer: it moves only the
  humans' **vs computer** rating, never a group's or the overall one. The computer levels
  are opponents with fixed ratings (:data:`COMPUTER_SKILLS`).
- A game of humans only moves each player's rating in its group and his overall rating.

The model is openskill's Weng-Lin PlackettLuce: each rating is a skill ``mu`` with an
uncertainty ``sigma``. A game is given to it as what happened: one player (one team) was
picked out as the durak, and the others are left tied. Plackett-Luce ranks by picking the
first place out of everyone, then the next out of those left, so the game is ranked from
the durak's end, on the skill at losing (``-mu``): the durak first, everyone else tied
second. Ranked the other way round (everyone tied first, the durak last), openskill folds
the tie of the n - 1 winners into the first pick, which then says only that one of the
winners came first: the durak of six equals lost 0.5 of mu instead of 2.5, so the games
of many players, most of a group's, hardly moved anyone, and the ratings ordered players
far worse than the tally of their results did (bench/ratings.py, README "Benchmarks").
With two players, or two teams, both ways are the same. The model's settings are
openskill's own (``beta`` 25/6, a newcomer's ``sigma`` 25/3, ``tau`` 25/300): other ones
changed the order found after 30 games by less than seeds do (README "Benchmarks").

A rating is shown as one number on an Elo-like scale, the conservative estimate
``mu - 3 sigma`` (openskill's ordinal) mapped by :func:`shown`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Final

from openskill.models import PlackettLuce, PlackettLuceRating

__all__ = [
    "COMPUTER_SKILLS",
    "MIN_MOVES",
    "NEWCOMER",
    "NOT_MOVES",
    "OVERALL",
    "PRIVATE_TABLES",
    "PROVISIONAL_GAMES",
    "SAME_PAIR_PER_DAY",
    "VS_COMPUTER",
    "Change",
    "FinishedGame",
    "RatedSeat",
    "Skill",
    "durak_chances",
    "game_scopes",
    "is_group_chat",
    "not_counted",
    "rate",
    "shown",
    "sides_of",
]

OVERALL: Final = 0
"""The scope of a player's overall rating (all his games of humans only, in groups and at
private tables); a group's own scope is its chat id, which Telegram makes negative."""
PRIVATE_TABLES: Final = -(2**52)
"""Chat ids at or below this are no Telegram chat's (Telegram's have at most 52 significant
bits): each names a private table, a table with no group whose players see it in their
private chats (:func:`bot.store.models.private_chat`)."""
VS_COMPUTER: Final = 1
"""The scope of a player's rating against the computer."""

MIN_MOVES: Final = 3
"""Moves of his own every human must have made for a game to count."""
SAME_PAIR_PER_DAY: Final = 9
"""Games of two players alone with each other that count in any 24 hours: from the tenth
on, the same two move no rating (a second account that loses on purpose farms a rating
this way)."""
NOT_MOVES: Final = ("timeout", "resign")
"""Logged action types that are not a move the player made: the clock, and leaving."""
PROVISIONAL_GAMES: Final = 10
"""A rating is provisional until it rests on this many games."""

MU: Final = 25.0
SIGMA: Final = MU / 3
BETA: Final = MU / 6
"""The spread of one game's performance around a player's skill (openskill's default)."""

DISPLAY_BASE: Final = 1000.0
DISPLAY_SCALE: Final = 24.0
"""The shown rating is ``1000 + 24 × (mu − 3 sigma)``, openskill's ordinal with ``alpha =
200 / sigma`` of a newcomer (his uncertainty of one sigma is 200 points, as on Elo-like
scales) and ``target = 1000``: a newcomer (mu 25, sigma 25/3) shows 1000, and a rating
climbs as its sigma shrinks (an average player shows about 1350 after 100 games,
bench/ratings.py finds, and 1492 once his sigma is down to 1.5)."""


@dataclass(frozen=True, slots=True)
class Skill:
    """A rating in the model: the skill ``mu`` and its uncertainty ``sigma``."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative estimate ``mu − 3 sigma`` (openskill's ordinal): the skill is
        higher than this with 99.7% certainty. Boards are ordered by it."""
        return self.mu - 3.0 * self.sigma

    @property
    def shown(self) -> int:
        """The rating as players see it (see :func:`shown`)."""
        return shown(self)


NEWCOMER: Final = Skill(MU, SIGMA)
"""Everyone's rating before his first counted game in a scope."""

COMPUTER_SKILLS: Final[Mapping[str, Skill]] = {
    # Calibrated by bench/ratings.py (--only calibrate --calibrate-games 240): the three
    # levels played 240 seeded podkidnoy games against each other, every lineup of two or
    # three different levels with the seats rotated (the hard level searching to the end),
    # each level rated as one player by this model from a newcomer's rating. Each level's
    # mu at the end, shifted by -2.42 so that `normal` sits at a newcomer's mu (a player
    # new to the bot is taken to be as good as the normal computer), and the sigma it
    # ended with. In those games easy was durak in 88% of its seats, normal in 36%, hard
    # in 6%.
    "easy": Skill(10.54, 2.82),
    "normal": Skill(25.0, 2.31),
    "hard": Skill(32.59, 2.48),
}
"""The fixed ratings of the computer levels: opponents in games against the computer,
which never change."""


def shown(skill: Skill) -> int:
    """The Elo-like number a rating is shown as: 1000 for a newcomer, about 1500 for an
    average player known well."""
    return round(DISPLAY_BASE + DISPLAY_SCALE * skill.ordinal)


@cache
def _model() -> PlackettLuce:
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA)


@dataclass(frozen=True, slots=True)
class RatedSeat:
    """Who sat at a seat: a user, or a computer player of level ``ai``."""

    user_id: int | None
    ai: str | None = None
    name: str = ""

    @property
    def human(self) -> bool:
        """Whether a person sat here."""
        return self.user_id is not None


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What the rating reads of one finished game."""

    chat_id: int
    seats: tuple[RatedSeat, ...]
    durak_seats: tuple[int, ...]
    """The durak's seat, or every seat of the losing team; empty for a draw."""
    draw: bool
    teams: str = "none"
    """The ``teams`` rule: ``none``, ``pairs`` or ``triples``."""
    moves: Mapping[int, int] = field(default_factory=dict)
    """Moves each seat made himself (see :data:`NOT_MOVES`)."""
    pair_before: int = 0
    """A game of two humans alone: the games the same two finished together in the 24
    hours before it (see :data:`SAME_PAIR_PER_DAY`)."""

    @property
    def against_computer(self) -> bool:
        """Whether a computer player sat at the game."""
        return any(not s.human for s in self.seats)


@dataclass(frozen=True, slots=True)
class Change:
    """One human's rating in one scope after a game."""

    scope: int
    user_id: int
    seat: int
    side: int | None
    """His team in a team game, None in free-for-all."""
    lost: bool
    before: Skill
    after: Skill


def sides_of(teams: str, players: int) -> tuple[int, ...]:
    """The side of each seat: its team (seat ``s`` plays for team ``s mod teams``, as the
    engine deals them), or its own seat in free-for-all."""
    count = players
    if teams == "pairs" and players % 2 == 0 and players >= 4:
        count = players // 2
    elif teams == "triples" and players % 3 == 0 and players >= 6:
        count = players // 3
    return tuple(s % count for s in range(players))


def not_counted(game: FinishedGame) -> str | None:
    """Why the game does not count (None if it does): ``no_humans``, ``few_moves`` (a
    human made fewer than :data:`MIN_MOVES` moves), ``same_pair`` (two players alone with
    each other, past :data:`SAME_PAIR_PER_DAY` games in a day) or ``bad_result``."""
    n = len(game.seats)
    if n < 2 or any(not 0 <= s < n for s in game.durak_seats):
        return "bad_result"
    if game.draw == bool(game.durak_seats):
        return "bad_result"
    if not any(s.human for s in game.seats):
        return "no_humans"
    if any(s.human and game.moves.get(i, 0) < MIN_MOVES for i, s in enumerate(game.seats)):
        return "few_moves"
    if n == 2 and game.pair_before >= SAME_PAIR_PER_DAY:
        return "same_pair"
    return None


def game_scopes(game: FinishedGame) -> tuple[int, ...]:
    """The ratings the game moves: vs computer, or the group's and the overall one."""
    if game.against_computer:
        return (VS_COMPUTER,)
    if is_group_chat(game.chat_id):
        return (game.chat_id, OVERALL)
    return (OVERALL,)


def is_group_chat(chat_id: int) -> bool:
    """Whether ``chat_id`` is a Telegram group's (negative, and not a private table's)."""
    return PRIVATE_TABLES < chat_id < 0


def _rating(skill: Skill) -> PlackettLuceRating:
    return PlackettLuceRating(skill.mu, skill.sigma)


def _loser_rating(skill: Skill) -> PlackettLuceRating:
    """The rating as the model's ranking from the durak's end sees it: the skill at losing,
    ``-mu`` (the uncertainty is the same)."""
    return PlackettLuceRating(-skill.mu, skill.sigma)


def computer_skill(level: str | None) -> Skill:
    """The fixed rating of a computer level (an unknown level plays as ``normal``)."""
    return COMPUTER_SKILLS.get(level or "", COMPUTER_SKILLS["normal"])


def rate(game: FinishedGame, skills: Mapping[tuple[int, int], Skill]) -> list[Change]:
    """Every human's rating after ``game``, in each scope it moves, from ``skills`` (by
    ``(scope, user id)``; a newcomer's if missing). Empty if the game does not count."""
    if not_counted(game) is not None:
        return []
    n = len(game.seats)
    side_of = sides_of(game.teams, n)
    order = sorted(set(side_of))
    members = {side: [s for s in range(n) if side_of[s] == side] for side in order}
    lost = {side: any(s in game.durak_seats for s in members[side]) for side in order}
    # read from the durak's end: his side is picked first, the others tie behind it
    ranks = [0.0 if lost[side] and not game.draw else 1.0 for side in order]
    teamed = len(order) < n
    changes: list[Change] = []
    for scope in game_scopes(game):

        def before(seat: int, scope: int = scope) -> Skill:
            who = game.seats[seat]
            if who.user_id is None:
                return computer_skill(who.ai)
            return skills.get((scope, who.user_id), NEWCOMER)

        teams = [[_loser_rating(before(s)) for s in members[side]] for side in order]
        rated = _model().rate(teams, ranks=list(ranks))
        for t, side in enumerate(order):
            for k, seat in enumerate(members[side]):
                user = game.seats[seat].user_id
                if user is None:
                    continue  # a computer level's rating is fixed
                after = rated[t][k]
                changes.append(
                    Change(
                        scope=scope,
                        user_id=user,
                        seat=seat,
                        side=side if teamed else None,
                        lost=lost[side] and not game.draw,
                        before=before(seat),
                        after=Skill(-after.mu, after.sigma),
                    )
                )
    return changes


def durak_chances(sides: Sequence[Sequence[Skill]]) -> list[float]:
    """Each side's chance to be the durak (a team's: to be the losing team).

    From the model's ``predict_win``: a side's chance to win is the share of the pairwise
    chances it wins, ``2 w / n`` where ``w`` is its mean pairwise chance; losing is the
    mirror image, ``2 (1 − w) / n``, which is ``2 / n − predict_win``. The chances add up
    to 1; with two sides they are ``1 − predict_win``."""
    n = len(sides)
    if n < 2 or any(not side for side in sides):
        return [1.0 / n] * n if n else []
    wins = _model().predict_win([[_rating(s) for s in side] for side in sides])
    losses = [max(0.0, 2.0 / n - w) for w in wins]
    total = sum(losses)
    if not math.isfinite(total) or total <= 0:
        return [1.0 / n] * n
    return [x / total for x in losses]
