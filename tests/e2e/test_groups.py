"""Where the table lives: forum topics, a group the bot is removed from, a group upgraded to
a supergroup, and a player who blocks the bot."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest
from fake_telegram import GENERAL_TOPIC, FakeTelegramServer, Limits

from bot.base.i18n import tr
from engine import Rules

from .harness import (
    Table,
    assert_no_hand_card_in,
    assert_no_hand_card_in_group,
    bot_running,
    callback_buttons,
    expected_tally,
    group_texts,
    kind_of,
    query,
    replay_games,
    set_group_rules,
    settings_for,
    snapshot,
    stored,
    tally,
    url_buttons,
)

RULES = Rules(hand_size=3)


async def test_forum_tables_stay_in_their_topics(tmp_path: Path) -> None:
    """Two tables at once in two topics of one forum: each keeps to its own topic."""
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(6)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        first = await Table.create(tg, 2, forum=True)
        topic = await tg.create_topic(first.group, "Second table", by=first.users[0])
        others = [await tg.create_user(name) for name in ("Cid", "Dan")]
        for user in others:
            await tg.add_member(first.group, user, announce=False)
        second = Table(tg, others, first.group, topic)
        tables = (first, second)
        await set_group_rules(db, first.group.id, RULES)
        async with bot_running(tg, db):
            for table in tables:
                await table.start_bots()
                await table.open_lobby()
            assert first.table_id != second.table_id
            for table in tables:
                await table.join_all()
                await table.start()
            for _ in range(4):  # the two games move in turns
                for table in tables:
                    await table.move(db, rng)
            for table in tables:
                await table.wait_latest(db)
            ends = [await table.finish(db, rng) for table in tables]
            for table in tables:
                await table.wait_latest(db)
            replies = [await table.stats() for table in tables]
        assert tg.bot_messages(first.group, thread_id=GENERAL_TOPIC) == [], (
            "nothing in the General topic"
        )
        for table, end, reply in zip(tables, ends, replies, strict=True):
            assert table.lobby is not None and table.lobby.thread_id == table.thread_id
            assert end.thread_id == table.thread_id and reply.thread_id == table.thread_id
            mine = tg.bot_messages(table.group, thread_id=table.thread_id)
            assert len(mine) >= 3  # the table, the end, /stats
        for call in tg.calls_to("sendMessage"):
            if call.chat_id == first.group.id:
                assert int(call.params.get("message_thread_id", 0)) in (topic, first.thread_id)
        games = replay_games(db)
        assert len(games) == 2
        assert tally(replies[0].plain_text) == expected_tally(games[:1], first.users) | (
            expected_tally(games[1:], second.users)
        ), "one series for the whole group"
        for table, game in zip(tables, games, strict=True):
            assert_no_hand_card_in(group_texts(tg, table.group, table.thread_id), [game])
        assert tg.rate_limited == []


async def test_removing_the_bot_ends_its_table(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(9)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, RULES)
        async with bot_running(tg, db):
            await table.seat_everyone()
            await table.play_moves(db, rng, 3)
            await table.wait_latest(db)
            ann = table.users[0]
            card_button = callback_buttons(table.hand(ann))[0]
            await tg.remove_bot(table.group, by=ann)
            await tg.wait_for(
                lambda: stored(db, table.table_id).status == "cancelled",
                timeout=10,
                what="the table ended",
            )
            calls = len(tg.calls)
            ended = snapshot(db, table.table_id)

            # A player's button of the ended game changes nothing.
            hand = table.hand(ann)
            assert hand is not None
            press = await tg.press(ann, hand, data=card_button, force=True)
            answer = await press.answer(timeout=10)
            assert answer.text
            assert snapshot(db, table.table_id) == ended
            await tg.settle(quiet=0.2)
            assert not [c for c in tg.calls[calls:] if c.chat_id == table.group.id], (
                "nothing is sent to a group the bot is not in"
            )
            assert query(db, "SELECT count(*) FROM game_players")[0][0] == 0, "no tally"
            assert query(db, "SELECT count(*) FROM tallies")[0][0] == 0

            # Added again, the bot opens a new table there.
            old_table = table.table_id
            await tg.add_bot(table.group, by=ann)
            await table.open_lobby()
            assert table.table_id != old_table
            assert stored(db, table.table_id).status == "lobby"
        assert_no_hand_card_in_group(tg, table.group, replay_games(db))
        assert tg.rate_limited == []


async def test_a_group_upgraded_to_a_supergroup_keeps_its_table_and_tally(
    tmp_path: Path,
) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(12)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        old = table.group
        await set_group_rules(db, old.id, RULES)
        async with bot_running(tg, db):
            await table.seat_everyone()
            first_end = await table.finish(db, rng)
            first = replay_games(db)[0].result
            assert first is not None
            seen = set(group_texts(tg, old))

            # A rematch (a lobby, started by its creator), and the upgrade in its middle.
            await table.press(table.users[1], first_end, callback_buttons(first_end)[0])
            lobby = await table.lobby_after(first_end)
            start = next(d for d in callback_buttons(lobby) if kind_of(d) == "s")
            await table.press(table.users[1], lobby, start)
            await tg.wait_for(
                lambda: (
                    stored(db, table.table_id).game_no == 2
                    and stored(db, table.table_id).status == "playing"
                ),
                timeout=10,
            )
            await table.play_moves(db, rng, 3)
            new = await tg.migrate_to_supergroup(old, by=table.users[0])
            await tg.wait_for(
                lambda: stored(db, table.table_id).chat_id == new.id,
                timeout=10,
                what="the table moved to the supergroup",
            )
            table.group = new
            while await table.move(db, rng):
                pass
            end = await tg.wait_for_message(
                new, lambda m: any(kind_of(d) == "m" for d in callback_buttons(m)), timeout=10
            )
            await table.wait_latest(db)
            reply = await table.stats()

        games = replay_games(db)
        assert len(games) == 2 and all(g.result is not None for g in games)
        assert {c for (c,) in query(db, "SELECT DISTINCT chat_id FROM games")} == {new.id}
        expected = expected_tally(games, table.users)
        assert all(n == 2 for _, n, _ in expected.values())
        assert tally(reply.plain_text) == expected, reply.plain_text
        assert tally(end.plain_text) == expected, end.plain_text
        assert_no_hand_card_in(seen, games[:1])
        assert_no_hand_card_in(set(group_texts(tg, old) + group_texts(tg, new)) - seen, games[1:])
        assert tg.rate_limited == []


async def test_a_player_who_blocks_the_bot_is_shown_the_way_back(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(4)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, RULES)
        async with bot_running(tg, db):
            await table.seat_everyone()
            await table.play_moves(db, rng, 2)
            await table.wait_latest(db)
            # The one who does not move now blocks the bot; the other moves.
            blocker = await table.block_by_idle_player(db)
            before = len(tg.bot_messages(table.group))
            await table.play_moves(db, rng, 1)
            warning = await tg.wait_for_message(
                table.group,
                lambda m: (
                    blocker.first_name in m.plain_text
                    and any("?start=" in u for u in url_buttons(m))
                ),
                timeout=10,
            )
            assert len(tg.bot_messages(table.group)) > before
            link = url_buttons(warning)[0]
            assert link.startswith(f"https://t.me/{tg.bot_user.username}?start="), link
            assert stored(db, table.table_id).status == "playing", "the game waits for him"
        assert_no_hand_card_in_group(tg, table.group, replay_games(db))
        assert tg.rate_limited == []


async def test_a_table_whose_topic_is_deleted_moves_to_the_general_chat(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A closed topic keeps its table, edited in place; once the topic is deleted (its
    messages with it), the table moves to the general chat for good, saying why, and the
    game goes on to its end there."""
    caplog.set_level(logging.INFO)
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(21)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2, forum=True)
        ann = table.users[0]  # the forum's creator
        topic = table.thread_id
        assert topic is not None
        await set_group_rules(db, table.group.id, RULES)
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            await table.seat_everyone()
            await table.play_moves(db, rng, 2)
            await table.wait_latest(db)
            shown = stored(db, table.table_id).group_message_id

            await tg.close_topic(table.group, topic, by=ann)
            await table.play_moves(db, rng, 2)
            await table.wait_latest(db)
            assert stored(db, table.table_id).group_message_id == shown, "edited in place"
            assert tg.message(table.group, shown).thread_id == topic

            await tg.delete_topic(table.group, topic, by=ann)
            await table.play_moves(db, rng, 1)
            note = await tg.wait_for_message(
                table.group,
                lambda m: m.plain_text == tr("en", "table.topic_gone"),
                thread_id=GENERAL_TOPIC,
                timeout=10,
            )
            await table.wait_latest(db)
            moved = stored(db, table.table_id).group_message_id
            assert moved is not None and moved > note.message_id, "the table below the note"
            assert tg.message(table.group, moved).thread_id is None
            assert query(db, "SELECT thread_id FROM tables WHERE table_id = ?", table.table_id) == [
                (None,)
            ]
            table.thread_id = None  # where the harness looks for the end
            end = await table.finish(db, rng)
            assert end.thread_id is None
            assert tg.message(table.group, moved).plain_text, "still shown"
            # said once
            assert [m for m in tg.bot_messages(table.group) if m.plain_text == note.plain_text] == [
                note
            ]
        assert not tg.internal_errors
    bad = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert bad == []


async def test_added_to_a_forum_whose_general_topic_is_closed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The greeting cannot go to a closed General topic: nothing breaks, and /newgame in a
    topic opens a table there."""
    caplog.set_level(logging.INFO)
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2, forum=True)
        ann = table.users[0]
        await tg.remove_bot(table.group, by=ann, kicked=False)
        await tg.close_general(table.group, by=ann)
        async with bot_running(tg, db, settings=settings_for(tg, db, default_language="en")):
            await tg.add_bot(table.group, by=ann)
            await tg.wait_for(
                lambda: any(c.chat_id == table.group.id for c in tg.calls_to("sendMessage")),
                timeout=10,
                what="the greeting tried",
            )
            [greeting] = [c for c in tg.calls_to("sendMessage") if c.chat_id == table.group.id]
            assert greeting.description == "Bad Request: TOPIC_CLOSED"
            await table.start_bots()
            lobby = await table.open_lobby()
            assert lobby.thread_id == table.thread_id
        assert not tg.internal_errors
    bad = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert bad == []
