"""Complete games played only by pressing the buttons the bot drew."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from fake_telegram import FakeTelegramServer, Limits

from engine import Rules

from .harness import (
    Table,
    assert_no_hand_card_in_group,
    bot_running,
    callback_buttons,
    replay_games,
    set_group_rules,
)


@pytest.mark.parametrize(
    ("players", "rules"),
    [
        (players, Rules.preset(game, teams="pairs" if players == 4 else "none"))
        for players in (2, 3, 4, 6)
        for game in ("podkidnoy", "perevodnoy", "prostoy")
    ]
    + [(2, Rules.preset("prostoy5"))],
    ids=[
        f"{players}{'-pairs' if players == 4 else ''}-{game}"
        for players in (2, 3, 4, 6)
        for game in ("podkidnoy", "perevodnoy", "prostoy")
    ]
    + ["2-prostoy5"],
)
async def test_a_complete_game_by_pressing_buttons(
    tmp_path: Path, players: int, rules: Rules
) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, players)
        await set_group_rules(db, table.group.id, rules)
        async with bot_running(tg, db) as app:
            await table.seat_everyone()
            end = await table.play_to_end(random.Random(players))
            # a finished table leaves the bot's memory once its messages are drawn
            rt = app.bot_data["runtime"]
            await rt.out.flush()
            assert rt.tables.cached(table.table_id) is None
            assert rt.out.tracked() == 0
        assert tg.rate_limited == [], "the bot never draws a 429 in normal play"
        games = replay_games(db)
        assert len(games) == 1 and games[0].result is not None
        assert games[0].rules == rules
        result = games[0].result
        if result.durak is not None:
            assert table.users[result.durak].first_name in end.plain_text, "the durak is named"
        assert_no_hand_card_in_group(tg, table.group, games)
        for user in table.users:
            hand = table.hand(user)
            assert hand is not None and not any(d[1:2] in "tcq" for d in callback_buttons(hand)), (
                "the hands are closed"
            )
