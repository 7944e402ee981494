"""A group's season in the store, on both databases: the games of a month, times durak, and
each player's group rating as shown at its start and its end."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.model import NEWCOMER
from bot.service.seasons import Season, season_of
from bot.store import Store

from .helpers import ANN, BOB, CID, logged_game, lost

GROUP = -100


async def test_a_season_counts_its_own_games_and_rating_change(store: Store) -> None:
    # the clock starts on 2023-11-14: two games in November, then the season is asked
    await logged_game(store, (ANN, BOB), lost(1, 2))
    await logged_game(store, (ANN, BOB, CID), lost(2, 3))
    await logged_game(store, (ANN, CID), lost(0, 2), chat_id=-200)  # another group
    november = Season(2023, 11)
    assert season_of(1_700_000_000.0) == november
    rows = await store.season(GROUP, november.since, november.until)
    assert rows[0].user_id == 1, "Ann lost nothing: her rating rose most"
    by_user = {r.user_id: r for r in rows}
    assert (by_user[1].games, by_user[1].durak) == (2, 0)
    assert (by_user[2].games, by_user[2].durak) == (2, 1)
    assert (by_user[3].games, by_user[3].durak) == (1, 1)
    assert all(r.before == NEWCOMER.shown for r in rows)
    assert by_user[1].change > 0 > by_user[3].change
    # the next month: nothing yet; the ratings it starts from are November's ends
    assert await store.season(GROUP, november.until, november.next().until) == []
    assert await store.season(GROUP, november.previous().since, november.since) == []


async def test_a_group_hears_of_a_season_once(store: Store) -> None:
    assert await store.season_to_tell(GROUP, "2023-11")
    assert not await store.season_to_tell(GROUP, "2023-11")
    assert await store.season_to_tell(GROUP, "2023-12")
    assert await store.season_to_tell(-200, "2023-12"), "each group its own"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(0, 4_102_444_800, allow_nan=False), min_size=1, max_size=20))
def test_the_season_of_any_moment_asked_in_any_order_is_its_month(moments: list[float]) -> None:
    from datetime import UTC, datetime

    for when in moments:
        month = datetime.fromtimestamp(when // 1, tz=UTC)
        found = season_of(when)
        assert (found.year, found.month) == (month.year, month.month)
        assert found.since <= when < found.until
