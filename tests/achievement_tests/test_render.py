"""Achievements on screen: the end message's "🏅 New for" lines and /me's list, in each
language."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from bot.base.i18n import LANGS, Lang
from bot.render import MePage, Player, earned_lines, me_achievement_lines, render_me


@dataclass(frozen=True)
class Row:
    code: str
    earned_at: float


DAY = datetime(2026, 12, 7, 18, 30, tzinfo=UTC).timestamp()


def test_each_player_who_earned_gets_one_line() -> None:
    players = [Player("Ann"), Player("Bob"), Player("Bot", ai_level=2)]
    lines = earned_lines([(0, ("first_win", "clean_sheet")), (1, ("first_durak",))], players, "en")
    assert lines == [
        "🏅 New for <b>Ann</b>: 🎉 First win, 🧤 Untouchable",
        "🏅 New for <b>Bob</b>: 🤡 Baptism",
    ]
    assert earned_lines([(0, ("no_such",))], players, "en") == []
    assert earned_lines([], players, "en") == []


def test_me_lists_them_in_the_catalogue_s_order_with_their_dates() -> None:
    rows = [Row("games_10", DAY), Row("first_win", DAY - 86_400 * 3)]
    assert me_achievement_lines(rows, "en") == [
        "🏅 <b>Achievements</b>: 2 of 20",
        "🎉 First win · 2026-12-04",
        "🎲 Regular · 2026-12-07",
    ]
    assert me_achievement_lines(rows, "ru")[1:] == [
        "🎉 Первая победа · 04.12.2026",
        "🎲 Завсегдатай · 07.12.2026",
    ]
    assert me_achievement_lines(rows, "uk")[0] == "🏅 <b>Досягнення</b>: 2 з 20"
    assert me_achievement_lines([], "en") == [
        "🏅 No achievements yet: 20 to earn in counted games."
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_me_shows_them_with_or_without_ratings(lang: Lang) -> None:
    rows = [Row("tournament", DAY)]
    page = MePage(name="Ann", achievements=rows)
    text = render_me(page, lang)
    assert "🏆" in text and "2026" in text
    assert "🏅" not in render_me(MePage(name="Ann"), lang), "not asked: not shown"
