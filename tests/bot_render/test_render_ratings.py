"""Ratings on screen: /top, /me, and the odds in the lobby and a table's first message."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bot.base.i18n import LANGS, Lang
from bot.ratings.model import COMPUTER_SKILLS, NEWCOMER, PROVISIONAL_GAMES
from bot.ratings.odds import odds_for
from bot.render import (
    LobbyContext,
    MePage,
    Player,
    best_and_worst,
    render_lobby,
    render_me,
    render_table,
    render_top,
)
from bot.render.common import MAX_TEXT, text_length
from bot.store import Seat
from engine import Game, Rules

from .helpers import ctx
from .snapshots import assert_snapshot, shot


@dataclass(frozen=True)
class Row:
    """A stand-in for the store's RatingRow."""

    user_id: int
    name: str
    mu: float
    sigma: float
    games: int
    durak: int


@dataclass(frozen=True)
class Partner:
    name: str
    games: int
    won: int


BOARD = [
    Row(1, "Аня", 31.0, 1.6, 40, 6),
    Row(2, "Боря <b>&", 27.5, 1.9, 33, 9),
    Row(3, "Вика", 26.0, 2.2, 25, 7),
    Row(4, "Гена", 30.0, 4.5, 6, 1),  # few games: provisional
]
ME = Row(9, "Дима", 21.0, 2.5, 18, 8)


@pytest.mark.parametrize("lang", LANGS)
def test_top_snapshot(lang: Lang) -> None:
    text = render_top(BOARD, lang, "Дурачки", me=ME, my_place=12)
    assert_snapshot(f"top_{lang}", text)
    assert "Боря &lt;b&gt;&amp;" in text  # names are escaped
    assert text.count("?") == 2  # Gena's provisional rating, and the footer explaining it


def test_top_shows_the_caller_once() -> None:
    among = render_top(BOARD, "en", "Friends", me=BOARD[1], my_place=None)
    assert among.count("(you)") == 1 and "2. <b>Боря" in among
    right_after = render_top(BOARD, "en", "Friends", me=ME, my_place=5)
    assert "…" not in right_after and "5. <b>Дима</b> (you)" in right_after
    far = render_top(BOARD, "en", "Friends", me=ME, my_place=40)
    assert "…\n40. <b>Дима</b> (you)" in far
    nobody = render_top(BOARD, "en", "Friends")
    assert "(you)" not in nobody


def test_top_of_ten_at_most() -> None:
    board = [Row(i, f"P{i}", 30 - i / 10, 2.0, 20, 5) for i in range(1, 16)]
    text = render_top(board, "en", "Friends")
    assert "10. <b>P10</b>" in text and "P11" not in text


@pytest.mark.parametrize("lang", LANGS)
def test_top_of_a_group_with_no_rated_games(lang: Lang) -> None:
    assert_snapshot(f"top_empty_{lang}", render_top([], lang, "Дурачки"))


@pytest.mark.parametrize("lang", LANGS)
def test_me_snapshot(lang: Lang) -> None:
    partners = [Partner("Аня", 7, 5), Partner("Боря", 4, 1), Partner("Вика", 2, 1)]
    best, worst = best_and_worst(partners)
    page = MePage(
        name="Дима",
        here=("Дурачки", ME, 12),
        overall=Row(9, "Дима", 22.0, 2.0, 30, 11),
        computer=Row(9, "Дима", 24.0, 5.0, 3, 1),
        best=best,
        worst=worst,
    )
    assert_snapshot(f"me_{lang}", render_me(page, lang))
    private = MePage(
        name="Дима",
        groups=(("Дурачки", ME), ("Work <i>", Row(9, "Дима", 26.0, 3.0, 12, 3))),
        overall=Row(9, "Дима", 22.0, 2.0, 30, 11),
    )
    assert_snapshot(f"me_private_{lang}", render_me(private, lang))


def test_me_with_nothing_rated() -> None:
    assert render_me(MePage(name="Eve"), "en").startswith("Eve, you have no rated games yet.")
    here = render_me(MePage(name="Eve", here=("Friends", None, None), computer=ME), "en")
    assert "<b>Friends</b>: no rated games yet" in here and "Against the computer" in here


def test_best_and_worst_partner() -> None:
    assert best_and_worst([]) == (None, None)
    alone = Partner("Ann", 3, 1)
    assert best_and_worst([alone]) == (alone, None)
    often, rarely = Partner("Bob", 10, 6), Partner("Cid", 1, 1)
    assert best_and_worst([often, rarely, alone]) == (rarely, alone)  # by share won


SEATS = (
    Seat.human(1, "Аня"),
    Seat.human(2, "Боря"),
    Seat.human(3, "Вика"),
    Seat.computer("Computer", "normal"),
)
PLAYERS = [Player("Аня"), Player("Боря"), Player("Вика"), Player("Computer", ai_level=1)]
RATED = {
    1: Row(1, "Аня", 31.0, 1.6, 40, 6),
    2: Row(2, "Боря", 20.0, 3.0, PROVISIONAL_GAMES - 1, 4),
}


@pytest.mark.parametrize("lang", LANGS)
def test_lobby_with_odds_snapshot(lang: Lang) -> None:
    odds = odds_for(SEATS[:3], RATED)
    assert odds is not None
    rules = Rules.preset("podkidnoy")
    screen = render_lobby(rules, PLAYERS[:3], lang, LobbyContext(55, 3, "Аня"), odds=odds)
    assert_snapshot(f"lobby_odds_{lang}", shot(screen))
    teams = odds_for(SEATS, RATED, "pairs")
    assert teams is not None and teams.against_computer and teams.teams is not None
    pairs = Rules.preset("podkidnoy", teams="pairs")
    screen = render_lobby(pairs, PLAYERS, lang, LobbyContext(55, 3, "Аня"), odds=teams)
    assert_snapshot(f"lobby_odds_teams_{lang}", shot(screen))


def test_odds() -> None:
    odds = odds_for(SEATS[:3], RATED)
    assert odds is not None
    assert [s.provisional for s in odds.seats] == [False, True, True]  # Вика: no games
    assert odds.seats[2].rating == NEWCOMER.shown
    assert odds.chances[0] > odds.chances[2] > odds.chances[1]
    assert sum(1 - c for c in odds.chances) == pytest.approx(1.0)  # one durak
    teams = odds_for(SEATS, RATED, "pairs")
    assert teams is not None and teams.teams is not None
    assert teams.chances == (teams.teams[0], teams.teams[1]) * 2
    assert sum(teams.teams) == pytest.approx(1.0)  # one losing team of two
    assert teams.seats[3].rating == COMPUTER_SKILLS["normal"].shown  # fixed, not provisional
    assert not teams.seats[3].provisional
    assert odds_for(SEATS[:1], RATED) is None


@pytest.mark.parametrize("lang", LANGS)
def test_first_table_message_with_odds_snapshot(lang: Lang) -> None:
    game = Game.new(Rules.preset("podkidnoy"), players=3, seed=11)
    odds = odds_for(SEATS[:3], RATED)
    screen = render_table(
        game.public_view(), PLAYERS[:3], lang, ctx(game), rules=game.rules, odds=odds
    )
    assert_snapshot(f"table_odds_{lang}", shot(screen))
    teams = Game.new(Rules.preset("podkidnoy", teams="pairs"), players=4, seed=11)
    team_odds = odds_for(SEATS, RATED, "pairs")
    text = render_table(
        teams.public_view(), PLAYERS, lang, ctx(teams), rules=teams.rules, odds=team_odds
    ).text
    assert text.count("%") == 2  # one line per team
    assert_snapshot(f"table_odds_teams_{lang}", text)


@pytest.mark.parametrize("lang", LANGS)
def test_screens_with_six_long_names_stay_short(lang: Lang) -> None:
    names = ["Ж" * 64 + str(i) for i in range(6)]
    seats = tuple(Seat.human(i + 1, n) for i, n in enumerate(names))
    players = [Player(n) for n in names]
    rated = {i + 1: Row(i + 1, n, 30.0, 1.0, 100, 50) for i, n in enumerate(names)}
    odds = odds_for(seats, rated)
    assert odds is not None
    lobby = render_lobby(Rules(), players, lang, LobbyContext(1, 1, names[0]), odds=odds)
    game = Game.new(Rules(), players=6, seed=3)
    table = render_table(game.public_view(), players, lang, ctx(game), rules=Rules(), odds=odds)
    board = [Row(i, n, 30.0, 1.0, 100, 50) for i, n in enumerate(names * 2)]
    top = render_top(board, lang, "Ж" * 200, me=board[0], my_place=1)
    for text in (lobby.text, table.text, top):
        assert text_length(text) < MAX_TEXT // 2
