"""A tournament's words: points in halves in each language, the standings' lines, the
sign-up's games buttons, the end message between games (no rematch) and after the last
(the champion, a rematch), an early end, a stop."""

from __future__ import annotations

import pytest

from bot import render as r
from bot.base.i18n import LANGS, Lang, tr
from bot.render.common import Player
from bot.render.end import EndContext, render_end
from bot.render.lobby import LobbyContext, render_lobby
from bot.service import callbacks as cb
from bot.service.tourneys import Standing
from engine import Result, Rules

ROWS = [
    Standing("u:1", 1, "Ann", 7, 3, 0, 4, 0, place=1),
    Standing("u:2", 2, "Bob", 3, 3, 1, 0, 2, place=2),
    Standing("ai:Bot", None, "Bot", 1, 2, 2, -1, 99, place=3, gone=True),
]


@pytest.mark.parametrize(
    ("lang", "halves", "text"),
    [
        ("en", 0, "0 points"),
        ("en", 1, "½ point"),
        ("en", 2, "1 point"),
        ("en", 7, "3½ points"),
        ("ru", 7, "3½ очка"),
        ("ru", 10, "5 очков"),
        ("ru", 1, "½ очка"),
        ("uk", 3, "1½ очка"),
        ("uk", 4, "2 очки"),
    ],
)
def test_points_in_halves(lang: Lang, halves: int, text: str) -> None:
    assert r.points_text(halves, lang) == text


def test_standings_name_points_games_and_who_left() -> None:
    lines = r.standings_lines(ROWS, "en")
    assert lines[0] == "🥇 <b>Ann</b> — 3½ points · 3 games"
    assert lines[1] == "🥈 <b>Bob</b> — 1½ points · 3 games · durak 1 time"
    assert lines[2] == "🥉 <b>Bot</b> — ½ point · 2 games · durak 2 times (left)"


def test_the_sign_up_offers_the_games_with_the_chosen_marked() -> None:
    codec = cb.CallbackCodec()
    ctx = LobbyContext(7, 3, creator="Ann", codec=codec, tourney=7)
    screen = render_lobby(Rules(), [Player("Ann")], "en", ctx)
    assert screen.text.startswith("🏆 <b>Tournament</b> · 7 games")
    assert screen.keyboard is not None
    labels = {b.text: codec.decode(b.data) for row in screen.keyboard.rows for b in row if b.data}
    assert labels["✅ 7"] == cb.TourneyGames(7, 3, 7)
    assert {"3", "5", "10"} <= set(labels)
    assert isinstance(labels["▶️ Start"], cb.Start)
    plain = render_lobby(Rules(), [Player("Ann")], "en", LobbyContext(7, 3, codec=codec))
    assert "Tournament" not in plain.text


RESULT = Result(
    durak=1,
    durak_team=None,
    losers=(1,),
    draw=False,
    pogony=False,
    finish_order=(0,),
    points=(2, 0),
    first_attacker=0,
    dealer=1,
)


def kinds(screen: r.Screen) -> set[str]:
    codec = cb.CallbackCodec()
    if screen.keyboard is None:
        return set()
    return {type(codec.decode(b.data)).__name__ for row in screen.keyboard.rows for b in row}


@pytest.mark.parametrize("lang", LANGS)
def test_the_end_between_games_and_after_the_last(lang: Lang) -> None:
    players = [Player("Ann"), Player("Bob")]
    between = EndContext(1, 5, game_no=2, tourney=r.TourneyView(ROWS, 2, 5))
    screen = render_end(RESULT, players, lang, between)
    assert "🤡" in screen.text and "Ann" in screen.text and "Bob" in screen.text
    assert "⏭" in screen.text and "🏆" in screen.text
    assert kinds(screen) == {"ReplayOpen"}, "no rematch while it goes on"
    last = r.TourneyView(ROWS, 5, 5, over=True, champion="Ann")
    screen = render_end(RESULT, players, lang, EndContext(1, 5, game_no=5, tourney=last))
    assert "🏆" in screen.text and "<b>Ann</b>!" in screen.text
    assert kinds(screen) == {"Rematch", "ReplayOpen"}


def test_an_early_end_and_a_stop() -> None:
    early = r.TourneyView(ROWS, 2, 5, over=True, champion="Ann", early="players")
    text = r.render_tourney_stop(early, "en")
    assert "ends early" in text and "Champion: <b>Ann</b>" in text
    stopped = r.TourneyView(ROWS, 2, 5, over=True)
    text = r.render_tourney_stop(stopped, "en")
    assert "stopped after 2 of 5 games" in text and "Champion" not in text and "Bob" in text
    assert "первой партии" in r.render_tourney_stop(r.TourneyView([], 0, 5), "ru")


@pytest.mark.parametrize("lang", LANGS)
def test_an_end_told_after_a_restart_names_the_champion_and_his_new_achievement(
    lang: Lang,
) -> None:
    # its last game over before a restart, the tournament ended by the next process: its
    # own message, the final standings with the champion, not a stop
    view = r.TourneyView(
        ROWS, 5, 5, over=True, champion="Ann <x>", earned=(("Ann <x>", ("tournament",)),)
    )
    text = r.render_tourney_stop(view, lang)
    stopped = r.render_tourney_stop(r.TourneyView(ROWS, 5, 5, over=True), lang)
    assert text.splitlines()[0] != stopped.splitlines()[0], "not said as a stop"
    assert text.count("🏅") == 1 and "🏆 " + tr(lang, "ach.tournament.name") in text
    assert "Ann &lt;x&gt;" in text and "Ann <x>" not in text, "the name escaped"
    none = r.TourneyView(ROWS, 5, 5, over=True, champion="Ann")
    assert "🏅" not in r.render_tourney_stop(none, lang), "nothing new, no line"
