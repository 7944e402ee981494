"""Bugs of the bot found by the end-to-end tests.

Each test failed against the bot as it was when the test was written, and states what a
user would see; its docstring says where the code went wrong. Bugs fixed since stay here
as regression tests.
"""

from __future__ import annotations

import random
from pathlib import Path

from fake_telegram import FakeTelegramServer, Limits

from engine import Rules

from .harness import (
    Table,
    bot_running,
    callback_buttons,
    set_group_rules,
    stored,
    tapped_cards,
    url_buttons,
)

RULES = Rules(hand_size=3)


async def test_a_restart_redraws_without_blanking_the_messages(tmp_path: Path) -> None:
    """On start-up ``Presenter.adopt_messages`` hands the publisher a "…" placeholder as the
    wanted content of every message, and the publisher sends it: the group's table and every
    hand are first edited to "…", then redrawn (two edits per message; a group's share of
    20 a minute spent on nothing)."""
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(3)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, RULES)
        async with bot_running(tg, db):
            await table.seat_everyone()
            await table.play_moves(db, rng, 3)
            await table.wait_latest(db)
        st = stored(db, table.table_id)
        messages = [tg.message(table.group, st.group_message_id)]  # type: ignore[arg-type]
        messages += [
            tg.message(tg.private_chat(u), mid)  # type: ignore[arg-type]
            for u, mid in zip(table.users, st.hand_message_ids, strict=True)
        ]
        revisions = {m.message_id: len(m.history) for m in messages}
        async with bot_running(tg, db):
            await table.wait_latest(db)
            await tg.settle(quiet=0.2)
        for message in messages:
            shown = [r.text for r in message.history[revisions[message.message_id] :]]
            shown.append(message.text)
            assert "…" not in shown, f"message {message.message_id} of {message.chat_id} blanked"


async def test_hands_speak_the_language_of_the_player(tmp_path: Path) -> None:
    """English users (Telegram language_code "en", no /lang) get their hands in Russian,
    while the bot's alerts and the group (opened by an English user) are in English:
    ``Presenter._user_lang`` calls ``pick_lang(settings.default_language, row.language)``,
    passing the bot's default where the user's Telegram language belongs."""
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2, language="en")
        async with bot_running(tg, db):
            await table.start_bots()
            lobby = await table.open_lobby()
            await table.join_all()
            await table.start()
            await tg.settle(quiet=0.2)
            assert "Stock" in lobby.plain_text, "the group speaks English"
            for user in table.users:
                hand = table.hand(user)
                assert hand is not None
                assert "Stock" in hand.plain_text and "Колода" not in hand.plain_text, (
                    f"{user.first_name}'s hand: {hand.plain_text}"
                )


async def test_cancel_closes_the_hands(tmp_path: Path) -> None:
    """After /cancel (and likewise when the bot is removed from the group) every hand keeps
    its card buttons, which only answer "This table no longer exists." —
    ``Presenter.cancelled`` says it closes the hands, but ``Presenter.forget`` only drops
    the publisher's slots."""
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(1)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, RULES)
        async with bot_running(tg, db):
            await table.seat_everyone()
            await table.play_moves(db, rng, 2)
            await table.wait_latest(db)
            await tg.send_command(table.users[0], table.group, "cancel")
            await tg.wait_for(lambda: stored(db, table.table_id).status == "cancelled")
            await tg.settle(quiet=0.3)
            for user in table.users:
                hand = table.hand(user)
                assert not tapped_cards(hand), (
                    f"{user.first_name}'s hand still offers {callback_buttons(hand)}"
                )


async def test_a_player_back_from_blocking_gets_his_cards(tmp_path: Path) -> None:
    """The group is told: "tap the button below and then Start to get your cards back; the
    game waits for you". He does — and gets "A game is already running here. /cancel ends
    it." and no cards: ``cmd_start`` treats the payload as a join, ``TableService.join``
    refuses with ``game_running`` (its status check comes before ``already_seated``), and
    the handler returns without redrawing his hand."""
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(4)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, RULES)
        async with bot_running(tg, db):
            await table.seat_everyone()
            await table.play_moves(db, rng, 2)
            await table.wait_latest(db)
            blocker = await table.block_by_idle_player(db)
            await table.play_moves(db, rng, 1)
            warning = await tg.wait_for_message(
                table.group,
                lambda m: any("?start=" in u for u in url_buttons(m)),
                timeout=10,
            )
            link = next(u for u in url_buttons(warning) if "?start=" in u)
            await tg.open_link(blocker, link)
            await tg.settle(quiet=0.3)
            hand = table.hand(blocker)
            assert hand is not None
            assert "already running" not in hand.plain_text, hand.plain_text
            await table.wait_latest(db)  # his cards, at the current state, are back


async def test_the_group_is_told_once_that_a_player_blocked_the_bot(tmp_path: Path) -> None:
    """Every move after a player blocked the bot posts the same "I cannot write to …"
    message in the group again: ``Publisher._deliver`` reports every failed delivery of
    his hand, and ``Presenter.on_blocked`` sends a new group message each time (spam, and
    the group's 20 messages a minute spent on it). Here the clock makes the moves."""
    db = tmp_path / "durak.sqlite3"
    rules = Rules(hand_size=3, turn_timeout=1, on_timeout="auto", throw_in_window=1)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, rules)
        async with bot_running(tg, db):
            await table.seat_everyone()
            await tg.block_bot(table.users[1])
            await tg.wait_for(
                lambda: stored(db, table.table_id).moves >= 3, timeout=10, what="three moves"
            )
            await tg.settle(quiet=0.3)
            warnings = [
                m
                for m in tg.bot_messages(table.group)
                if any("?start=" in u for u in url_buttons(m))
            ]
            assert len(warnings) == 1, [m.plain_text for m in warnings]


async def test_newgame_during_a_game_leaves_no_stale_table_behind(tmp_path: Path) -> None:
    """/newgame while a game runs posts the table again at the bottom (by design), but the
    old table message is left as it was: a frozen, live-looking table ("Bob to lead · ⏱
    2:00", the "My cards" button) above the real one, forever. ``Presenter._repost``
    forgets the group slot without deleting or closing the old message."""
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(1)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, RULES)
        async with bot_running(tg, db):
            await table.seat_everyone()
            await table.play_moves(db, rng, 2)
            await table.wait_latest(db)
            old = tg.message(table.group, stored(db, table.table_id).group_message_id)  # type: ignore[arg-type]
            await tg.send_command(table.users[1], table.group, "newgame")
            await tg.wait_for(
                lambda: stored(db, table.table_id).group_message_id != old.message_id,
                timeout=10,
                what="the table posted again",
            )
            await table.play_moves(db, rng, 2)
            await table.wait_latest(db)
            await tg.settle(quiet=0.2)
            stale = old.text
            current = tg.message(table.group, stored(db, table.table_id).group_message_id)  # type: ignore[arg-type]
            assert old.deleted or stale == current.text or not url_buttons(old), (
                f"a stale table stays in the group: {old.plain_text}"
            )
