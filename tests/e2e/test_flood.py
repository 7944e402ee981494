"""Flood control: 429s forced in the middle of a game, and Telegram's real figures."""

from __future__ import annotations

import random
from pathlib import Path

from fake_telegram import FakeTelegramServer, Limits

from engine import Rules

from .harness import (
    Table,
    assert_no_hand_card_in_group,
    bot_running,
    replay_games,
    set_group_rules,
)


async def test_a_429_storm_is_waited_out_and_every_message_ends_up_current(
    tmp_path: Path,
) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(5)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, Rules(hand_size=3))
        async with bot_running(tg, db):
            await table.seat_everyone()
            await table.play_moves(db, rng, 3)
            await table.wait_latest(db)

            # Every chat answers 429 four times in a row: each one pauses that chat and the
            # publisher tries again with the newest content. One move (a press may open a
            # choice first) must reach every chat through them.
            tg.force_429(4, 1, chat=table.group)
            for user in table.users:
                tg.force_429(4, 1, chat=tg.private_chat(user))
            await table.play_moves(db, rng, 1)
            await tg.wait_for(lambda: tg.limiter.forced_pending == 0, timeout=20)
            await table.wait_latest(db, timeout=20)
            assert len(tg.rate_limited) == 12

            # The group is flooded while the players keep moving: only the latest
            # state has to show in the end.
            tg.force_429(2, 1, chat=table.group)
            await table.play_moves(db, rng, 5)
            await table.wait_latest(db, timeout=20)

            # The end message itself meets a 429.
            tg.force_429(2, 1, chat=table.group, method="sendMessage")
            end = await table.finish(db, rng, timeout=60)
            await table.wait_latest(db, timeout=20)
            assert tg.limiter.forced_pending == 0
        games = replay_games(db)
        assert len(games) == 1 and games[0].result is not None
        result = games[0].result
        if result.durak is not None:
            assert table.users[result.durak].first_name in end.plain_text
        assert_no_hand_card_in_group(tg, table.group, games)
        assert tg.rate_limited and all(call.forced for call in tg.rate_limited), (
            "only the forced 429s: the bot never floods by itself"
        )
