"""End to end in Chromium: the real bot, two players' pages, a spectator's, and the chat, side
by side through a whole game (the bot and its pages: ``live.py``)."""

from __future__ import annotations

import random
from pathlib import Path

from e2e.harness import Table
from playwright.async_api import Browser, expect

from .browser import TelegramUser
from .live import WAIT, live_bot

DAN = TelegramUser(id=4004, first_name="Dan", language_code="en")
"""Not at the table: he holds the group's link and watches."""


async def test_two_pages_and_the_chat_play_a_game_to_its_end(
    browser: Browser, tmp_path: Path
) -> None:
    rng = random.Random(19)
    async with live_bot(browser, tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        tid = table.table_id
        start = bot.stored(tid).version
        # the players open the table with their hands' button, the spectator with the
        # group table's link
        ann, bob = [await bot.open_hand(table, seat) for seat in (0, 1)]
        group = bot.tg.message(table.group, bot.stored(tid).group_message_id)  # type: ignore[arg-type]
        dan = await bot.open_group_link(DAN, group)
        screens = [ann, bob, dan]
        moves = by_page = by_chat = 0
        while (st := await bot.in_step(tid, screens)).status == "playing":
            assert st.game is not None
            if moves % 4 == 3:
                by_chat += await table.move(bot.db, rng)  # a hand button in the chat
            else:
                screen = (ann, bob)[rng.choice(st.game.to_act())]
                outcome = await bot.tap_a_move(tid, screen, rng)
                by_page += outcome == "moved"
            moves += 1
        assert by_page >= 3 and by_chat >= 1, (by_page, by_chat)
        # the end: every page names the durak, as the chat does
        end = bot.stored(tid)
        assert end.status == "finished" and end.game is not None
        result = end.game.result
        assert result is not None
        chat_end = await bot.tg.wait_for(table.end_message, timeout=WAIT, what="the end")
        for screen in screens:
            await expect(screen.page.locator("[data-role=end]")).to_be_visible()
        if result.durak is not None:
            durak = table.users[result.durak].first_name
            assert durak in chat_end.plain_text
            for screen in screens:
                await expect(screen.page.locator("[data-role=end]")).to_contain_text(durak)
        # Rematch on a page opens the next lobby in the group, as the chat's button does
        for screen in (ann, bob):
            await expect(screen.page.locator("[data-action=rematch]")).to_be_visible()
        await ann.tap_action("rematch")
        await table.lobby_after(chat_end, timeout=WAIT)
        lobby = bot.stored(tid)
        assert lobby.status == "lobby"
        for screen in screens:
            await screen.shows(lobby.version)
            await expect(screen.page.locator("[data-role=lobby]")).to_be_visible()
        # each page's lobby is its viewer's: the seated may start, a visitor may join
        for screen in (ann, bob):
            await expect(screen.page.locator("[data-action=start]")).to_be_visible()
            await expect(screen.page.locator("[data-action=join]")).to_have_count(0)
        await expect(dan.page.locator("[data-action=join]")).to_be_visible()
        await expect(dan.page.locator("[data-action=start]")).to_have_count(0)
        # no page ever got a card of a hand not its viewer's, in any frame
        assert bot.check_all_frames(tid, start) >= len(screens)
        for screen in screens:
            assert screen.tp.blocked == [], "nothing asked of the internet"
            assert screen.requests_outside(bot.url) == [], "only the Mini App's own files"
