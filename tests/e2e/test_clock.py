"""The table's clock: a player out of time is durak, or the game moves for him."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from fake_telegram import FakeTelegramServer, Limits

from engine import Rules

from .harness import (
    Table,
    assert_no_hand_card_in_group,
    bot_running,
    callback_buttons,
    kind_of,
    query,
    replay_games,
    set_group_rules,
    stored,
)


async def test_automatic_moves_finish_a_game_nobody_plays(tmp_path: Path) -> None:
    """Every move is the clock's: the attacker leads his lowest card, the defender takes.
    Railway (no stock) and prostoy (no throw-in window) make that the shortest such game,
    still some 17 bouts of two one-second clocks each."""
    db = tmp_path / "durak.sqlite3"
    rules = Rules(
        game="prostoy",
        modifiers=["railway"],
        turn_timeout=1,
        on_timeout="auto",
        throw_in_window=1,
    )
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, rules)
        async with bot_running(tg, db):
            await table.seat_everyone()
            end = await tg.wait_for_message(
                table.group,
                lambda m: any(kind_of(d) == "m" for d in callback_buttons(m)),
                timeout=90,
            )
            await table.wait_latest(db)
        games = replay_games(db)
        assert len(games) == 1 and games[0].result is not None
        result = games[0].result
        assert result.timed_out is None, "nobody lost on time: the clock moved for them"
        log = query(db, "SELECT action FROM actions WHERE table_id = ?", table.table_id)
        assert log and all(json.loads(a)["type"] == "timeout" for (a,) in log), (
            "every move was the clock's"
        )
        if result.durak is not None:
            assert table.users[result.durak].first_name in end.plain_text
        assert_no_hand_card_in_group(tg, table.group, games)
        assert tg.rate_limited == []


async def test_out_of_time_is_durak(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rules = Rules(hand_size=3, turn_timeout=1, on_timeout="durak")
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, rules)
        async with bot_running(tg, db):
            await table.seat_everyone()
            started = stored(db, table.table_id)
            assert started.game is not None
            waited_on = started.game.waiting_on()
            assert len(waited_on) == 1
            began = time.monotonic()
            end = await tg.wait_for_message(
                table.group,
                lambda m: any(kind_of(d) == "m" for d in callback_buttons(m)),
                timeout=8,
            )
            assert time.monotonic() - began < 6, "the clock ran out in about a second"
            await tg.settle(quiet=0.2)
        games = replay_games(db)
        assert len(games) == 1
        result = games[0].result
        assert result is not None
        assert result.durak == waited_on[0] and result.timed_out == waited_on[0]
        assert games[0].moves == 1, "nobody moved; the clock's timeout is the only action"
        durak = table.users[waited_on[0]].first_name
        assert durak in end.plain_text and "⏰" in end.plain_text, end.plain_text
        assert stored(db, table.table_id).status == "finished"
        for user in table.users:
            assert not any(kind_of(d) in "tcq" for d in callback_buttons(table.hand(user)))
        assert_no_hand_card_in_group(tg, table.group, games)
        assert tg.rate_limited == []


async def test_a_clock_that_ran_out_while_the_bot_was_down_fires_on_start(
    tmp_path: Path,
) -> None:
    db = tmp_path / "durak.sqlite3"
    rules = Rules(hand_size=3, turn_timeout=3, on_timeout="durak")
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, rules)
        async with bot_running(tg, db):
            await table.seat_everyone()
        started = stored(db, table.table_id)
        assert started.status == "playing" and started.game is not None
        waited_on = started.game.waiting_on()[0]
        await asyncio.sleep(3.2)  # the deadline passes while no bot runs
        assert stored(db, table.table_id).status == "playing"
        async with bot_running(tg, db):
            end = await tg.wait_for_message(
                table.group,
                lambda m: any(kind_of(d) == "m" for d in callback_buttons(m)),
                timeout=5,
            )
            await tg.settle(quiet=0.2)
        games = replay_games(db)
        assert games[0].result is not None and games[0].result.timed_out == waited_on
        assert table.users[waited_on].first_name in end.plain_text
        assert_no_hand_card_in_group(tg, table.group, games)
        assert tg.rate_limited == []
