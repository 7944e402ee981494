"""A tournament's points (:mod:`bot.service.tourneys`): pinned cases for each way a game ends,
invariants over seeded random games played to the end by the engine (with and without
teams, draws, surrenders and timeouts), and the standings' order and tie-breaks."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.service.tourneys import game_halves, standings, teams_of
from bot.store import GameRecord, Outcome, Seat, Tourney, TourneyStatus
from engine import Game, Rules
from engine.actions import Resign, Timeout


def outcome(durak: tuple[int, ...], order: tuple[int, ...], n: int, draw: bool = False) -> Outcome:
    points = tuple(0 if s in durak else (1 if draw and s in order[-2:] else 2) for s in range(n))
    return Outcome(durak, draw, False, points, order)


def test_first_out_scores_n_minus_one_and_the_durak_nothing() -> None:
    # four players go out 2, 0, 3; seat 1 is the durak
    assert game_halves(outcome((1,), (2, 0, 3), 4), 4) == (4, 0, 6, 2)


def test_a_draw_shares_the_places_of_the_two_left() -> None:
    # seat 0 went out first (2 points); seats 1 and 2 ran out together: places 2 and 3, ½ each
    assert game_halves(outcome((), (0, 1, 2), 3, draw=True), 3) == (4, 1, 1)
    # two players, a draw: ½ each
    assert game_halves(outcome((), (1, 0), 2, draw=True), 2) == (1, 1)


def test_a_timeout_shares_the_places_between_those_out_and_the_durak() -> None:
    # seat 2 went out; seat 0 ran out of time holding cards: seats 1 and 3 share 2nd and 3rd
    assert game_halves(outcome((0,), (2,), 4), 4) == (0, 3, 6, 3)


def test_teams_score_their_team_place() -> None:
    # two pairs (seats 0, 2 against 1, 3): the winners 1 point each, the losers 0
    assert game_halves(outcome((1, 3), (0, 2), 4), 4, teams=2) == (2, 0, 2, 0)
    # three pairs: team 1 (seats 1, 4) out first, team 0 next, team 2 lost
    assert game_halves(outcome((2, 5), (1, 4, 0, 3), 6), 6, teams=3) == (2, 4, 0, 2, 4, 0)


def play_out(rules: Rules, players: int, seed: int, ending: str) -> Game:
    """A seeded random game to its end; ``ending``: ``play``, ``resign`` or ``timeout``
    (one of those at a random moment)."""
    game = Game.new(rules, players=players, seed=seed)
    rng = random.Random(seed)
    stop = rng.randrange(5, 60)
    while game.result is None:
        if ending != "play" and game.moves >= stop:
            if ending == "resign":
                holding = [s for s in range(players) if game.view(s).hand]
                game.apply(Resign(rng.choice(holding)))
            else:
                waiting = game.waiting_on()
                if waiting:
                    game.apply(Timeout(waiting[0]))
                    continue
            if game.result is not None:
                break
        seat = rng.choice(game.to_act())
        game.apply(rng.choice(game.legal_actions(seat)))
    return game


@settings(max_examples=120, deadline=None)
@given(
    players=st.integers(2, 6),
    teams=st.sampled_from(["none", "pairs", "triples"]),
    seed=st.integers(0, 10**6),
    ending=st.sampled_from(["play", "resign", "timeout"]),
)
def test_points_over_real_games(players: int, teams: str, seed: int, ending: str) -> None:
    rules = Rules(teams=teams)  # type: ignore[arg-type]
    try:
        rules.check_players(players)
    except ValueError:
        return
    game = play_out(rules, players, seed, ending)
    assert game.result is not None
    out = Outcome.from_result(game.result)
    k = teams_of(rules.model_dump_json(), players)
    halves = game_halves(out, players, k)
    units = k or players
    size = players // units
    # every place's points are given out, no more: k-1 + ... + 0 per unit, times its size
    assert sum(halves) == 2 * size * units * (units - 1) // 2
    assert all(0 <= h <= 2 * (units - 1) for h in halves)
    for s in out.durak_seats:
        assert halves[s] == min(halves)
    if k:
        assert all(halves[s] == halves[s % k] for s in range(players)), "a team scores alike"
    elif out.finish_order and not out.draw:
        assert halves[out.finish_order[0]] == 2 * (players - 1), "the first out scores n-1"
    if out.durak_seats and not k and len(out.finish_order) == players - 1:
        assert halves[out.durak_seats[0]] == 0


def record(game_no: int, seats: tuple[Seat, ...], result: Outcome) -> GameRecord:
    return GameRecord(1, game_no, -100, 7, "{}", seats, 0.0, 1.0, result, None)


A, B, C = Seat.human(1, "Anna"), Seat.human(2, "Boris"), Seat.computer("Bot", "easy")
TOURNEY = Tourney(1, -100, 3, TourneyStatus.RUNNING, 1, (), None, None, None, 0.0, None)


def test_standings_add_up_and_break_ties_by_fewer_times_durak() -> None:
    games = [
        record(1, (A, B, C), outcome((2,), (0, 1), 3)),  # Anna 2, Boris 1, Bot 0
        record(2, (A, B, C), outcome((0,), (1, 2), 3)),  # Boris 2, Bot 1, Anna 0
    ]
    rows = standings(TOURNEY, games)
    assert [(r.name, r.halves, r.games, r.durak, r.place) for r in rows] == [
        ("Boris", 6, 2, 0, 1),  # 3 points
        ("Anna", 4, 2, 1, 2),  # 2 points, durak once
        ("Bot", 2, 2, 1, 3),  # 1 point
    ]


def test_equal_points_and_durak_go_by_the_last_game() -> None:
    games = [
        record(1, (A, B), outcome((1,), (0,), 2)),
        record(2, (A, B), outcome((0,), (1,), 2)),
    ]
    rows = standings(TOURNEY, games)
    assert [r.name for r in rows] == ["Boris", "Anna"], "Boris won the last game"
    assert [r.place for r in rows] == [1, 2]


def test_a_player_who_left_keeps_what_he_scored() -> None:
    gone = Tourney(1, -100, 3, TourneyStatus.RUNNING, 1, ("u:2",), None, None, None, 0.0, None)
    games = [
        record(1, (A, B, C), outcome((0,), (1, 2), 3)),
        record(2, (A, C), outcome((0,), (1,), 2)),
    ]
    rows = {r.name: r for r in standings(gone, games)}
    assert rows["Boris"].gone and (rows["Boris"].halves, rows["Boris"].games) == (4, 1)
    assert rows["Boris"].last == -1, "he did not play the last game"
    assert (rows["Bot"].halves, rows["Bot"].games) == (4, 2)


@pytest.mark.parametrize("games", [[]])
def test_no_games_no_standings(games: list[GameRecord]) -> None:
    assert standings(TOURNEY, games) == []
