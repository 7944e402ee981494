"""Tournaments: a table's games played one after another, scored by the order the players
go out, and the standings after each.

Points for one game (issue 28): with n players the first out scores n−1, the next n−2, …,
the durak 0. Players who share places share their points: the two of a draw, and the
players still holding cards when a game ends otherwise than by the last cards (a timeout,
a surrender), between those who went out and the durak. In team play each member scores
his team's place among the teams, a team's place being when its last member went out.
Shares may be halves (the mean of consecutive whole numbers), so points are kept in
halves: :attr:`Standing.halves`.

The standings come from the tournament's games as the store keeps them (their seats and
results), never from memory: a restart, or another process taking the table over, counts
the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.store import GameRecord, Outcome, Seat, Tourney
from engine import Rules

__all__ = [
    "TOURNEY_GAMES",
    "TOURNEY_PAUSE",
    "Standing",
    "game_halves",
    "standings",
    "teams_of",
]

TOURNEY_GAMES = (3, 5, 7, 10)
"""The numbers of games a tournament may have."""
DEFAULT_GAMES = 5
TOURNEY_PAUSE = 6.0
"""Seconds between a game's end and the next deal: time to read the end."""


def teams_of(rules_json: str, players: int) -> int:
    """How many teams play (0: everyone for himself) under rules saved as JSON."""
    try:
        rules = Rules.model_validate_json(rules_json)
    except ValueError:
        return 0
    if rules.teams == "none":
        return 0
    return rules.team_count(players)


def game_halves(outcome: Outcome, players: int, teams: int = 0) -> tuple[int, ...]:
    """Each seat's points for one game, in halves (2 = one point), by the finishing order.

    ``teams``: how many teams (0: none); seat ``s`` is on team ``s % teams``.
    """
    unit = [s % teams if teams else s for s in range(players)]
    units = sorted(set(unit))
    members = {u: [s for s in range(players) if unit[s] == u] for u in units}
    order = list(outcome.finish_order)
    losers = {unit[s] for s in outcome.durak_seats}
    tied: set[int] = set()
    if outcome.draw:
        if teams:
            tied = {unit[s] for s in order[-2:]}
        else:
            # the engine gives those who ran out together in the final bout a draw's point
            tied = {s for s, p in enumerate(outcome.points) if p == 1} or set(order[-2:])

    def out_at(u: int) -> int | None:
        places = [order.index(s) for s in members[u] if s in order]
        return max(places) if len(places) == len(members[u]) else None

    ranked = sorted(
        (u for u in units if u not in losers and u not in tied and out_at(u) is not None),
        key=lambda u: out_at(u) or 0,
    )
    middle = [u for u in units if u not in losers and u not in tied and out_at(u) is None]
    groups: list[list[int]] = [[u] for u in ranked]
    for shared in (sorted(tied), middle, sorted(losers)):
        if shared:
            groups.append(list(shared))
    k = len(units)
    halves_of: dict[int, int] = {}
    place = 1
    for group in groups:
        # the group takes places place .. place+len-1, worth k-place .. k-place-len+1
        worth = sum(k - p for p in range(place, place + len(group)))
        for u in group:
            halves_of[u] = 2 * worth // len(group)
        place += len(group)
    return tuple(halves_of[unit[s]] for s in range(players))


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's tournament so far."""

    player: str
    """``u:<id>`` or ``ai:<name>`` (:attr:`bot.store.Seat.player`)."""
    user_id: int | None
    name: str
    halves: int
    """Points, in halves."""
    games: int
    durak: int
    """Times he (or his team) lost."""
    last: int
    """Halves scored in the tournament's last game so far (-1: he did not play it)."""
    last_place: int
    """His place in that game's finishing order (how many went out before him; players
    after everyone who went out: the number of players)."""
    place: int = 0
    """His place in the standings (1: first)."""
    gone: bool = False
    """He left the tournament."""

    @property
    def seat(self) -> Seat:
        """The player as a seat (for the champion's row in the store)."""
        if self.user_id is not None:
            return Seat.human(self.user_id, self.name)
        return Seat.computer(self.name, self.player.removeprefix("ai:") or "normal")

    def key(self) -> tuple[int, int, int, int, str]:
        """Best first: most points, fewest times durak, the better last game."""
        return (-self.halves, self.durak, -self.last, self.last_place, self.name.casefold())


@dataclass(slots=True)
class _Sum:
    user_id: int | None
    name: str
    halves: int = 0
    games: int = 0
    durak: int = 0
    last: int = -1
    last_place: int = 99


def standings(tourney: Tourney, games: Sequence[GameRecord]) -> list[Standing]:
    """Every player's points, games and times durak over the tournament's ``games`` (with a
    result, in order), best first with their places: ties broken by fewer times durak,
    then by the last game's result."""
    sums: dict[str, _Sum] = {}
    last_game = games[-1].game_no if games else None
    for record in games:
        outcome = record.outcome
        if outcome is None:
            continue
        n = len(record.seats)
        halves = game_halves(outcome, n, teams_of(record.rules, n))
        order = list(outcome.finish_order)
        for seat_no, seat in enumerate(record.seats):
            acc = sums.setdefault(seat.player, _Sum(seat.user_id, seat.name))
            acc.name = seat.name
            acc.halves += halves[seat_no]
            acc.games += 1
            acc.durak += seat_no in outcome.durak_seats
            if record.game_no == last_game:
                acc.last = halves[seat_no]
                acc.last_place = order.index(seat_no) if seat_no in order else n
    rows = sorted(
        (
            Standing(
                player,
                acc.user_id,
                acc.name,
                acc.halves,
                acc.games,
                acc.durak,
                acc.last,
                acc.last_place,
                gone=player in tourney.gone,
            )
            for player, acc in sums.items()
        ),
        key=Standing.key,
    )
    placed: list[Standing] = []
    for i, row in enumerate(rows):
        place = i + 1
        if i and row.key()[:4] == rows[i - 1].key()[:4]:
            place = placed[-1].place  # a true tie shares the place
        placed.append(replace(row, place=place))
    return placed
