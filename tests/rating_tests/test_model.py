"""The rating rules on their own: ranks, ties, teams, scopes, what counts, the odds."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.ratings.model import (
    COMPUTER_SKILLS,
    MIN_MOVES,
    NEWCOMER,
    OVERALL,
    SAME_PAIR_PER_DAY,
    VS_COMPUTER,
    Change,
    FinishedGame,
    RatedSeat,
    Skill,
    durak_chances,
    game_scopes,
    not_counted,
    rate,
    shown,
    sides_of,
)
from engine import Game, Rules

GROUP = -100


def people(n: int) -> tuple[RatedSeat, ...]:
    return tuple(RatedSeat(user_id=i + 1, name=f"P{i + 1}") for i in range(n))


def game(
    seats: tuple[RatedSeat, ...],
    durak: tuple[int, ...] = (),
    *,
    draw: bool = False,
    teams: str = "none",
    moves: int = MIN_MOVES,
) -> FinishedGame:
    return FinishedGame(
        chat_id=GROUP,
        seats=seats,
        durak_seats=durak,
        draw=draw,
        teams=teams,
        moves={i: moves for i in range(len(seats))},
    )


def in_scope(changes: list[Change], scope: int) -> dict[int, Change]:
    return {c.user_id: c for c in changes if c.scope == scope}


def test_free_for_all_everyone_but_the_durak_ties_first() -> None:
    changes = in_scope(rate(game(people(4), (2,)), {}), GROUP)
    gains = {user: c.after.mu - c.before.mu for user, c in changes.items()}
    assert gains[3] < 0  # the durak (seat 2) is last
    winners = [gains[1], gains[2], gains[4]]
    assert all(g > 0 for g in winners)
    assert max(winners) == pytest.approx(min(winners))  # tied first: the same gain
    assert [changes[u].lost for u in (1, 2, 3, 4)] == [False, False, True, False]


def test_a_big_table_tells_about_its_durak_as_much_as_a_small_one() -> None:
    # Being the worst of six says at least as much about a player as being the worse of
    # two: the durak of six equals drops about as far as the durak of two, and the five
    # who escaped share what he lost. (Ranked with the winners tied first, the model took
    # the six-player game for a fifth of a two-player one: 0.5 of mu against 2.6.)
    def durak_loss(n: int) -> tuple[float, float]:
        changes = in_scope(rate(game(people(n), (n - 1,)), {}), GROUP)
        lost = NEWCOMER.mu - changes[n].after.mu
        gained = sum(changes[u].after.mu - NEWCOMER.mu for u in range(1, n))
        return lost, gained

    two, _ = durak_loss(2)
    for n in (4, 6):
        lost, gained = durak_loss(n)
        assert lost > 0.9 * two
        assert gained == pytest.approx(lost, rel=0.01)


def test_the_durak_is_last_whoever_he_is() -> None:
    strong = Skill(35.0, 2.0)
    skills = {(GROUP, 1): strong}
    changes = in_scope(rate(game(people(3), (0,)), skills), GROUP)
    assert changes[1].before == strong
    assert changes[1].after.mu < strong.mu  # the favourite lost: he drops
    assert changes[2].after.mu > NEWCOMER.mu and changes[3].after.mu > NEWCOMER.mu


def test_a_draw_ties_everyone() -> None:
    changes = in_scope(rate(game(people(3), draw=True), {}), GROUP)
    assert all(abs(c.after.mu - NEWCOMER.mu) < 1e-9 for c in changes.values())
    assert not any(c.lost for c in changes.values())
    # the stronger player gives up points to a draw with weaker ones
    skills = {(GROUP, 1): Skill(35.0, 3.0)}
    changes = in_scope(rate(game(people(2), draw=True), skills), GROUP)
    assert changes[1].after.mu < 35.0 < changes[1].after.mu + 5
    assert changes[2].after.mu > NEWCOMER.mu


def test_teams_play_team_against_team_the_durak_team_last() -> None:
    four = rate(game(people(4), (1, 3), teams="pairs"), {})
    changes = in_scope(four, GROUP)
    assert {u: c.side for u, c in changes.items()} == {1: 0, 2: 1, 3: 0, 4: 1}
    assert [changes[u].lost for u in (1, 2, 3, 4)] == [False, True, False, True]
    assert changes[1].after.mu > NEWCOMER.mu > changes[2].after.mu
    assert changes[1].after == changes[3].after and changes[2].after == changes[4].after
    # six in pairs: three teams, the two that did not lose tie first
    six = in_scope(rate(game(people(6), (2, 5), teams="pairs"), {}), GROUP)
    assert [six[u].side for u in range(1, 7)] == [0, 1, 2, 0, 1, 2]
    winners = [six[u].after.mu for u in (1, 2, 4, 5)]
    assert max(winners) == pytest.approx(min(winners)) and winners[0] > NEWCOMER.mu
    assert six[3].after.mu < NEWCOMER.mu and six[3].lost and six[6].lost


@pytest.mark.parametrize(("teams", "players"), [("pairs", 4), ("pairs", 6), ("triples", 6)])
def test_sides_are_the_engines_teams(teams: str, players: int) -> None:
    dealt = Game.new(Rules(teams=teams), players=players, seed=1)  # type: ignore[arg-type]
    assert sides_of(teams, players) == tuple(dealt.team_of(s) for s in range(players))


def test_free_for_all_sides_are_seats() -> None:
    assert sides_of("none", 5) == (0, 1, 2, 3, 4)
    changes = rate(game(people(3), (1,)), {})
    assert all(c.side is None for c in changes)


def test_a_group_game_moves_the_group_and_the_overall_rating() -> None:
    g = game(people(2), (1,))
    assert game_scopes(g) == (GROUP, OVERALL)
    changes = rate(g, {(OVERALL, 1): Skill(30.0, 4.0)})
    assert {(c.scope, c.user_id) for c in changes} == {
        (GROUP, 1),
        (GROUP, 2),
        (OVERALL, 1),
        (OVERALL, 2),
    }
    overall = in_scope(changes, OVERALL)
    assert overall[1].before == Skill(30.0, 4.0)  # each scope starts from its own rating
    assert in_scope(changes, GROUP)[1].before == NEWCOMER


def test_a_game_against_the_computer_moves_only_that_rating() -> None:
    seats = (RatedSeat(1, name="Ann"), RatedSeat(None, ai="hard", name="Bot"))
    g = game(seats, (1,))
    assert game_scopes(g) == (VS_COMPUTER,)
    changes = rate(g, {(GROUP, 1): Skill(40.0, 1.0)})
    assert [(c.scope, c.user_id) for c in changes] == [(VS_COMPUTER, 1)]  # no computer line
    assert changes[0].before == NEWCOMER  # not his group rating
    assert changes[0].after.mu > NEWCOMER.mu
    # beating the hard level is worth more than beating the easy one
    easy = rate(game((seats[0], RatedSeat(None, ai="easy")), (1,)), {})[0]
    assert changes[0].after.mu > easy.after.mu
    assert COMPUTER_SKILLS["easy"].mu < COMPUTER_SKILLS["normal"].mu < COMPUTER_SKILLS["hard"].mu


def test_a_game_counts_only_if_every_human_made_enough_moves() -> None:
    full = game(people(3), (0,))
    assert not_counted(full) is None
    short = FinishedGame(GROUP, people(3), (0,), False, moves={0: 3, 1: MIN_MOVES - 1, 2: 5})
    assert not_counted(short) == "few_moves"
    assert rate(short, {}) == []
    # a computer player's moves are not asked for
    with_bot = (RatedSeat(1), RatedSeat(None, ai="easy"))
    assert not_counted(FinishedGame(GROUP, with_bot, (1,), False, moves={0: 3})) is None
    bots = (RatedSeat(None, ai="easy"), RatedSeat(None, ai="hard"))
    assert not_counted(FinishedGame(GROUP, bots, (1,), False)) == "no_humans"


def test_a_result_that_makes_no_sense_does_not_count() -> None:
    assert not_counted(game(people(2), (5,))) == "bad_result"
    assert not_counted(game(people(2), ())) == "bad_result"  # neither a durak nor a draw
    assert not_counted(game(people(2), (1,), draw=True)) == "bad_result"


def test_durak_chances() -> None:
    even = durak_chances([[NEWCOMER], [NEWCOMER], [NEWCOMER]])
    assert even == pytest.approx([1 / 3] * 3)
    strong, weak = Skill(35.0, 2.0), Skill(15.0, 2.0)
    two = durak_chances([[strong], [weak]])
    assert sum(two) == pytest.approx(1.0) and two[0] < 0.1 < 0.9 < two[1]
    mixed = durak_chances([[strong], [NEWCOMER], [weak]])
    assert mixed[0] < mixed[1] < mixed[2] and sum(mixed) == pytest.approx(1.0)
    teams = durak_chances([[strong, weak], [NEWCOMER, NEWCOMER]])
    assert teams == pytest.approx([0.5, 0.5], abs=0.05)


def test_shown_ratings() -> None:
    assert shown(NEWCOMER) == 1000
    assert shown(Skill(25.0, 1.5)) == 1492  # an average player known well
    assert Skill(30.0, 2.0).shown > Skill(30.0, 4.0).shown  # more certain, shown higher


def test_a_pair_alone_counts_nine_games_a_day() -> None:
    two = (RatedSeat(1, None, "Ann"), RatedSeat(2, None, "Bob"))
    moves = {0: MIN_MOVES, 1: MIN_MOVES}
    game = FinishedGame(-100, two, (1,), False, moves=moves)
    assert not_counted(replace(game, pair_before=SAME_PAIR_PER_DAY - 1)) is None
    assert not_counted(replace(game, pair_before=SAME_PAIR_PER_DAY)) == "same_pair"
    three = FinishedGame(
        -100, (*two, RatedSeat(3, None, "Cid")), (1,), False, moves={**moves, 2: MIN_MOVES}
    )
    assert not_counted(replace(three, pair_before=50)) is None
