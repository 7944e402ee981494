"""The achievements' rules (``bot.ratings.achievements.earn``): each one earned by a game
that does what it says, and missed by one that just does not; monotone, never twice."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.base.i18n import LANGS, tr
from bot.ratings.achievements import (
    BY_CODE,
    CATALOGUE,
    FEATS,
    KNOWN,
    NO_TAKE,
    NO_TRUMP,
    POGONY_GIVEN,
    SIX_BEATEN,
    TOOK_FIVE,
    TOURNAMENT,
    TRANSFER_THREE,
    Line,
    Progress,
    earn,
)

WON = Line(
    players=3, durak=False, draw=False, first=False, team=False, beat_hard=False, quick=False
)
LOST = replace(WON, durak=True)


def first_game(line: Line) -> list[str]:
    return earn(Progress(), line)


# (code, a game that earns it, one that just misses it), each a player's first game
CASES: list[tuple[str, Line, Line]] = [
    ("first_win", WON, LOST),
    ("first_out", replace(WON, first=True), replace(WON, first=True, players=2)),
    ("clean_sheet", replace(WON, feats=KNOWN | NO_TAKE), replace(WON, feats=KNOWN)),
    ("six_beaten", replace(LOST, feats=KNOWN | SIX_BEATEN), replace(LOST, feats=SIX_BEATEN)),
    ("transfer_three", replace(WON, feats=KNOWN | TRANSFER_THREE), replace(WON, feats=KNOWN)),
    ("pogony", replace(WON, feats=KNOWN | POGONY_GIVEN), replace(WON, feats=KNOWN)),
    (
        "no_trump",
        replace(WON, first=True, feats=KNOWN | NO_TRUMP),
        replace(WON, first=False, feats=KNOWN | NO_TRUMP),
    ),
    ("escape", replace(WON, feats=KNOWN | TOOK_FIVE), replace(LOST, feats=KNOWN | TOOK_FIVE)),
    ("six_first", replace(WON, players=6, first=True), replace(WON, players=5, first=True)),
    ("team_win", replace(WON, team=True), replace(LOST, team=True)),
    ("hard_win", replace(WON, beat_hard=True), replace(LOST, beat_hard=True)),
    ("quick_win", replace(WON, players=2, quick=True), replace(LOST, players=2, quick=True)),
    ("draw", replace(WON, draw=True), WON),
    ("first_durak", LOST, WON),
]


@pytest.mark.parametrize(("code", "earns", "misses"), CASES, ids=[c[0] for c in CASES])
def test_each_rule_earns_and_just_misses(code: str, earns: Line, misses: Line) -> None:
    assert code in first_game(earns)
    assert code not in first_game(misses)


def play(lines: list[Line], progress: Progress | None = None) -> list[list[str]]:
    """What each game of a row gives one player."""
    progress = progress or Progress()
    have: set[str] = set()
    given = []
    for line in lines:
        new = earn(progress, line, have)
        have.update(new)
        given.append(new)
    return given


def test_games_ten_fifty_hundred() -> None:
    given = play([LOST] * 100)
    assert given[8] == [] and given[9] == ["games_10"]
    assert given[48] == [] and given[49] == ["games_50"]
    assert given[98] == [] and given[99] == ["games_100"]


def test_ten_in_a_row_without_being_the_durak() -> None:
    given = play([WON] * 9 + [LOST] + [WON] * 10)
    assert not any("calm_10" in g for g in given[:19])
    assert "calm_10" in given[19]
    assert "calm_10" in play([replace(WON, draw=True)] * 10)[9], "a draw is not a loss"


def test_first_out_three_in_a_row() -> None:
    first = replace(WON, first=True)
    given = play([first, first, WON, first, first])
    assert not any("streak_3" in g for g in given)
    assert "streak_3" in play([first, first, WON, first, first, first])[5]


def test_the_tournament_is_never_given_by_a_game() -> None:
    everything = replace(
        WON, first=True, players=6, team=True, beat_hard=True, quick=True, feats=sum(FEATS)
    )
    assert TOURNAMENT not in {code for g in play([everything] * 100) for code in g}


def test_the_catalogue_speaks_every_language() -> None:
    assert 18 <= len(CATALOGUE) <= 24 and len(BY_CODE) == len(CATALOGUE)
    for lang in LANGS:
        for a in CATALOGUE:
            assert tr(lang, f"ach.{a.code}.name") and tr(lang, f"ach.{a.code}.desc")


lines = st.builds(
    Line,
    players=st.integers(2, 6),
    durak=st.booleans(),
    draw=st.booleans(),
    first=st.booleans(),
    team=st.booleans(),
    beat_hard=st.booleans(),
    quick=st.booleans(),
    feats=st.integers(0, sum(FEATS)),
)


@given(st.lists(lines, max_size=120))
def test_achievements_only_grow_and_come_once(games: list[Line]) -> None:
    progress = Progress()
    have: list[str] = []
    for i, line in enumerate(games, 1):
        new = earn(progress, line, have)
        assert not set(new) & set(have), "never twice"
        assert set(new) <= set(BY_CODE) - {TOURNAMENT}
        have += new
        assert progress.games == i
    # the same games from the start give the same set (nothing depends on what is had)
    again = [code for g in play(games) for code in g]
    assert sorted(again) == sorted(have)
