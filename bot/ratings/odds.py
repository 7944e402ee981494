"""What the lobby and a table's first message show of the players' ratings: each seat's
rating, and each player's (or team's) chance not to be the durak."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.ratings.model import (
    NEWCOMER,
    OVERALL,
    PROVISIONAL_GAMES,
    VS_COMPUTER,
    Skill,
    computer_skill,
    durak_chances,
    shown,
    sides_of,
)

__all__ = ["Odds", "RatingLike", "SeatLike", "SeatRating", "odds_for", "scope_for"]


class SeatLike(Protocol):
    """A seat (``bot.store.Seat`` fits)."""

    @property
    def user_id(self) -> int | None: ...
    @property
    def ai(self) -> str | None: ...


class RatingLike(Protocol):
    """A stored rating (``bot.store.RatingRow`` fits)."""

    @property
    def mu(self) -> float: ...
    @property
    def sigma(self) -> float: ...
    @property
    def games(self) -> int: ...


@dataclass(frozen=True, slots=True)
class SeatRating:
    """A seat's rating as shown: the number, and whether it is still provisional."""

    rating: int
    provisional: bool = False


@dataclass(frozen=True, slots=True)
class Odds:
    """The seats' ratings and their chances not to be the durak."""

    seats: tuple[SeatRating, ...]
    chances: tuple[float, ...]
    """Each seat's chance not to be the durak (in a team game, his team's)."""
    teams: tuple[float, ...] | None = None
    """In a team game: each team's chance not to lose, by team."""
    against_computer: bool = False
    """The ratings are those against the computer (a computer player is seated)."""


def scope_for(seats: Sequence[SeatLike]) -> int:
    """The ratings a table's odds come from: those against the computer if a computer
    player sits there, else the overall ones. (The overall rating rests on all of a
    player's games in groups, so it knows him best: bench/ratings.py finds its odds
    better than those of the group's own ratings.)"""
    return VS_COMPUTER if any(s.user_id is None for s in seats) else OVERALL


def odds_for(
    seats: Sequence[SeatLike], ratings: Mapping[int, RatingLike], teams: str = "none"
) -> Odds | None:
    """The odds of a table (None with fewer than two seats). ``ratings``: the humans'
    ratings in the table's scope, by user id (a newcomer's where missing)."""
    if len(seats) < 2:
        return None
    skills: list[Skill] = []
    shown_seats: list[SeatRating] = []
    for seat in seats:
        if seat.user_id is None:
            skill = computer_skill(seat.ai)
            shown_seats.append(SeatRating(shown(skill)))
        else:
            found = ratings.get(seat.user_id)
            skill = Skill(found.mu, found.sigma) if found is not None else NEWCOMER
            games = found.games if found is not None else 0
            shown_seats.append(SeatRating(shown(skill), games < PROVISIONAL_GAMES))
        skills.append(skill)
    side_of = sides_of(teams, len(seats))
    order = sorted(set(side_of))
    losing = durak_chances(
        [[skills[s] for s in range(len(seats)) if side_of[s] == side] for side in order]
    )
    by_side = {side: 1.0 - losing[i] for i, side in enumerate(order)}
    return Odds(
        seats=tuple(shown_seats),
        chances=tuple(by_side[side_of[s]] for s in range(len(seats))),
        teams=tuple(by_side[side] for side in order) if len(order) < len(seats) else None,
        against_computer=any(s.user_id is None for s in seats),
    )
