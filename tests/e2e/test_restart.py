"""A restart in the middle of a game: the new process resumes it in the same messages."""

from __future__ import annotations

import random
from pathlib import Path

from fake_telegram import FakeTelegramServer, Limits

from engine import Rules

from .harness import (
    Table,
    assert_no_hand_card_in_group,
    bot_running,
    query,
    recent_moves,
    redrawn,
    replay_games,
    set_group_rules,
    stored,
)


async def test_a_game_survives_a_restart_in_the_same_messages(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(3)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 3)
        await set_group_rules(db, table.group.id, Rules(hand_size=3))
        async with bot_running(tg, db):
            await table.seat_everyone()
            await table.play_moves(db, rng, 8)
            await table.wait_latest(db)
        before = stored(db, table.table_id)
        assert before.status == "playing" and before.moves >= 8
        chats = [table.group, *(tg.private_chat(u) for u in table.users)]
        sent = {c.id: [m.message_id for m in tg.messages(c, from_bot=True)] for c in chats}
        known = len(tg.calls)

        async with bot_running(tg, db):
            # The new process redraws the running game in the messages it had drawn (an
            # edit, which changes nothing where the message shows the same already).
            group_message = tg.message(table.group, before.group_message_id)  # type: ignore[arg-type]
            hands = [
                tg.message(tg.private_chat(u), mid)  # type: ignore[arg-type]
                for u, mid in zip(table.users, before.hand_message_ids, strict=True)
            ]
            await tg.wait_for(
                lambda: all(redrawn(tg, known, m) for m in (group_message, *hands)),
                timeout=10,
                what="the redraw after the restart",
            )
            await table.wait_latest(db)
            assert stored(db, table.table_id).version == before.version, "nothing moved"
            for chat in chats:
                now = [m.message_id for m in tg.messages(chat, from_bot=True)]
                assert now == sent[chat.id], f"no message sent or deleted in {chat.id}"
            for user, hand in zip(table.users, hands, strict=True):
                assert table.hand(user) is hand, "the hand is the message it was"

            end = await table.finish(db, rng)
            await table.wait_latest(db)

        games = replay_games(db)
        assert len(games) == 1 and games[0].result is not None
        result = games[0].result
        after = stored(db, table.table_id)
        logged = query(db, "SELECT count(*) FROM actions WHERE table_id = ?", table.table_id)
        assert after.status == "finished" and after.moves == logged[0][0], "every move logged"
        if result.durak is not None:
            assert table.users[result.durak].first_name in end.plain_text, "the durak is named"
        assert end.message_id > before.group_message_id  # type: ignore[operator]
        assert_no_hand_card_in_group(tg, table.group, games)
        assert tg.rate_limited == []


async def test_a_lobby_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, Rules(hand_size=3))
        async with bot_running(tg, db):
            await table.start_bots()
            lobby = await table.open_lobby()
        async with bot_running(tg, db):
            # The buttons drawn by the previous process work, on the same message.
            await table.join_all()
            await table.start()
            await table.wait_latest(db)
            assert stored(db, table.table_id).group_message_id == lobby.message_id
            assert [m.message_id for m in tg.bot_messages(table.group)] == [lobby.message_id]
        assert tg.rate_limited == []


async def test_the_recent_moves_are_shown_again_after_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(5)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 3)
        await set_group_rules(db, table.group.id, Rules(hand_size=4))
        async with bot_running(tg, db):
            await table.seat_everyone()
            await table.play_moves(db, rng, 6)
            await table.wait_latest(db)
        st = stored(db, table.table_id)
        assert st.status == "playing"
        group = tg.message(table.group, st.group_message_id)  # type: ignore[arg-type]
        before = recent_moves(group)
        assert len(before) >= 3, group.plain_text
        known = len(tg.calls)
        async with bot_running(tg, db):
            await tg.wait_for(
                lambda: redrawn(tg, known, group), timeout=10, what="the table redrawn"
            )
            assert recent_moves(group) == before, group.plain_text
            await table.wait_latest(db)
            assert stored(db, table.table_id).version == st.version, "nothing moved"
