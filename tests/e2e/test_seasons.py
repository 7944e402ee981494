"""Seasons: /top shows the group's current season (a calendar month, UTC) by default, the
all-time ranking one button away; the group's first table message of a month names last
season's best, once."""

from __future__ import annotations

import time
from pathlib import Path

from fake_telegram import FakeTelegramServer, Limits

from bot.service.seasons import season_of
from bot.store import Outcome, Seat, SqliteStore, UserRow

from .harness import Table, bot_running, callback_buttons, settings_for

LAST_MONTH = season_of(season_of(time.time()).since - 1)
"""The season before this one."""


async def play_last_month(db: Path, chat_id: int, seats: list[Seat], durak: int) -> None:
    """A finished game of ``seats`` in the group, saved by the bot's own store with a clock
    in the middle of last month (each seat three moves of its own: it counts)."""
    moment = [LAST_MONTH.since + 86_400.0 * 10]

    def clock() -> float:
        moment[0] += 1.0
        return moment[0]

    async with SqliteStore.open(db, clock=clock) as store:
        for seat in seats:
            assert seat.user_id is not None
            await store.save_user(UserRow(seat.user_id, seat.name, "en", True))
        lobby = await store.create_table(
            chat_id, rules="{}", creator_id=seats[0].user_id, seats=tuple(seats)
        )
        table = await store.start_game(lobby.table_id, lobby.version, seed=1, game="s0")
        version = table.version
        moves = [(s, "pass") for _ in range(3) for s in range(len(seats))]
        for i, (seat, kind) in enumerate(moves):
            last = i == len(moves) - 1
            points = [0 if s == durak else 2 for s in range(len(seats))]
            outcome = Outcome(durak_seats=(durak,), draw=False, pogony=False, points=tuple(points))
            saved = await store.save_action(
                table.table_id,
                version,
                game="end" if last else f"s{i}",
                action=f'{{"type":"{kind}","seat":{seat}}}',
                seat=seat,
                outcome=outcome if last else None,
            )
            version = saved.version


async def test_top_shows_the_season_and_the_first_table_of_a_month_names_the_last_best(
    tmp_path: Path,
) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        ann, bob = table.users
        await play_last_month(
            db, table.group.id, [Seat.human(ann.id, "Ann"), Seat.human(bob.id, "Bob")], durak=1
        )
        async with bot_running(tg, db, settings=settings_for(tg, db)):
            await table.start_bots()
            lobby = await table.open_lobby()
            messages = tg.bot_messages(table.group)
            news = [m for m in messages if "is over" in m.plain_text]
            assert len(news) == 1 and "Ann (+" in news[0].plain_text
            assert news[0].message_id < lobby.message_id, "before the month's first table"
            # /top: this season (no game yet), and all time one button away
            asked = await tg.send_command(ann, table.group, "top")
            top = await tg.wait_for_message(table.group, after=asked, timeout=10)
            assert "season" in top.plain_text and "No game counted" in top.plain_text
            press = await tg.press(ann, top, "All time")
            await press.answer(timeout=10)
            await tg.wait_for(lambda: "best players" in top.plain_text, timeout=10)
            assert "Ann" in top.plain_text and "Bob" in top.plain_text
            press = await tg.press(ann, top, "This season")
            await press.answer(timeout=10)
            await tg.wait_for(lambda: "season" in top.plain_text, timeout=10)
            # a second table this month: no second word of last season
            await tg.send_command(ann, table.group, "cancel")
            await table.open_lobby()
            assert len([m for m in tg.bot_messages(table.group) if "is over" in m.plain_text]) == 1
            assert callback_buttons(top)
