"""Ratings end to end: the real bot against the fake Bot API server. A played game moves
the ratings; /top and /me show them (/me with its chart as a photo); the lobby and the
table's first message show the odds; bad input gets a clear answer."""

from __future__ import annotations

import random
from pathlib import Path

from fake_telegram import FakeMessage, FakeTelegramServer, Faults, Limits

from .harness import Table, bot_running, group_texts, query, sent_png, settings_for


async def reply_to(tg: FakeTelegramServer, table: Table, asked: FakeMessage) -> FakeMessage:
    """The bot's answer to a command: a reply in a group, the next message in private (a
    chart may take a while: its worker starts first)."""
    private = not asked.chat.is_group
    return await tg.wait_for_message(
        asked.chat,
        lambda m: m.reply_to == asked.message_id or (private and m.message_id > asked.message_id),
        timeout=60,
    )


def assert_chart(answer: FakeMessage) -> None:
    """A PNG of a size a phone shows well, and a file neither empty nor huge."""
    data, width, height = sent_png(answer)
    assert (width, height) == answer.photo_size
    assert 600 <= width <= 2000 and 300 <= height <= 2000 and width > height
    assert 5_000 < len(data) < 1_000_000


async def test_a_game_moves_the_ratings_that_top_and_me_show(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(3)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        ann, bob = table.users
        async with bot_running(tg, db, settings=settings_for(tg, db, charts=True)):
            await table.start_bots()
            # nothing rated yet: /top and /me say so
            empty = await table.command(0, "top")
            assert "season" in empty.plain_text and "No game counted" in empty.plain_text
            asked = await tg.send_command(bob, table.group, "me")
            none = await reply_to(tg, table, asked)
            assert none.photo is None and "Bob, you have no rated games yet" in none.plain_text

            await table.open_lobby()
            await table.join_all()
            assert table.lobby is not None
            lobby = table.lobby.plain_text
            assert "1. Ann · 1000? · 50%" in lobby and "2. Bob · 1000? · 50%" in lobby
            await table.start()
            await table.finish(db, rng)
            # the table's first message showed the odds; they gave way to the moves
            texts = group_texts(tg, table.group)
            assert any("Chances not to be the durak" in t for t in texts)
            table_message = tg.message(
                table.group, query(db, "SELECT group_message_id FROM tables")[0][0]
            )
            assert "Chances not to be the durak" not in (table_message.text or "")

            ratings = dict(query(db, "SELECT user_id, games FROM ratings WHERE scope < 0"))
            assert ratings == {ann.id: 1, bob.id: 1}
            top = await table.command(1, "top")
            # this season: both played one game, the winner's rating rose most
            assert "season" in top.plain_text and top.plain_text.count("1 game") == 2
            assert "1. " in top.plain_text and "+" in top.plain_text
            press = await tg.press(bob, top, "All time")
            await press.answer(timeout=10)
            await tg.wait_for(lambda: "The best players of Friends" in top.plain_text, timeout=10)
            assert top.plain_text.count("1 game") == 2 and "(you)" in top.plain_text

            asked = await tg.send_command(bob, table.group, "me")
            answer = await reply_to(tg, table, asked)
            assert_chart(answer)
            assert "Ratings of Bob" in answer.plain_text
            assert "Friends:" in answer.plain_text and "Overall:" in answer.plain_text
            # in private: his overall rating, with its chart
            private = tg.private_chat(ann)
            asked = await tg.send_command(ann, private, "me")
            answer = await reply_to(tg, table, asked)
            assert_chart(answer)
            assert "Overall:" in answer.plain_text and "Friends:" in answer.plain_text

            # a renamed user keeps his rating, under his new name
            ann.first_name = "Annie"
            asked = await tg.send_command(ann, table.group, "me")
            answer = await reply_to(tg, table, asked)
            assert "Ratings of Annie" in answer.plain_text
            top = await table.command(1, "top")
            assert "Annie" in top.plain_text and "Ann " not in top.plain_text

            # the next lobby shows the ratings the game left
            await table.open_lobby()
            assert table.lobby is not None
            await table.join_all()
            rated = table.lobby.plain_text
            assert "1000?" not in rated and "50%" not in rated
        assert tg.internal_errors == []


async def test_bad_input_gets_a_clear_answer(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        ann, _bob = table.users
        async with bot_running(tg, db, settings=settings_for(tg, db, charts=True)):
            await table.start_bots()
            # /top in private
            asked = await tg.send_command(ann, tg.private_chat(ann), "top")
            answer = await reply_to(tg, table, asked)
            assert "send it there" in answer.plain_text and "/me" in answer.plain_text
            # an anonymous admin: /me cannot tell who he is; /top still answers
            asked = await tg.send_command(ann, table.group, "me", anonymous=True)
            answer = await reply_to(tg, table, asked)
            assert "I cannot tell who you are" in answer.plain_text
            asked = await tg.send_command(ann, table.group, "top", anonymous=True)
            answer = await reply_to(tg, table, asked)
            assert "No game counted this season" in answer.plain_text
        assert tg.internal_errors == []


async def test_a_chart_that_cannot_be_sent_leaves_the_text(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(5)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        async with bot_running(tg, db, settings=settings_for(tg, db, charts=True)):
            await table.seat_everyone()
            await table.finish(db, rng)
            # every photo upload fails at Telegram's gateway
            tg.set_faults(Faults(error=1.0, methods=frozenset({"sendPhoto"})))
            asked = await tg.send_command(table.users[0], table.group, "me")
            answer = await reply_to(tg, table, asked)
            assert answer.photo is None
            assert "Ratings of Ann" in answer.plain_text
            assert "The chart could not be drawn this time" in answer.plain_text
            assert [c.method for c in tg.faulted] == ["sendPhoto"]


async def test_without_charts_me_answers_in_text(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(7)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2, language="ru")
        async with bot_running(tg, db):  # DURAK_CHARTS off, as the harness sets it
            await table.seat_everyone()
            await table.finish(db, rng)
            asked = await tg.send_command(table.users[1], table.group, "me")
            answer = await reply_to(tg, table, asked)
            assert answer.photo is None
            assert "Рейтинги: Bob" in answer.plain_text and "1 игра" in answer.plain_text
            assert not tg.calls_to("sendPhoto")
