"""End to end in Chromium: a page that loses the real bot — its line cut, or the bot
restarted — reconnects by itself, shows the table as it is now, and play goes on."""

from __future__ import annotations

import random
from pathlib import Path

from e2e.harness import Table
from playwright.async_api import Browser, expect

from .browser import Line
from .live import WAIT, LiveBot, Screen, live_bot, until


def presses(screen: Screen) -> int:
    return sum(1 for f in screen.tp.sent if f.get("t") == "press")


async def play_on_pages(bot: LiveBot, table: Table, screens: list[Screen], moves: int) -> None:
    """``moves`` moves tapped on the pages (fewer if the game ends), each page in step."""
    rng = random.Random(moves)
    target = bot.stored(table.table_id).moves + moves
    while (st := await bot.in_step(table.table_id, screens)).moves < target:
        if st.status != "playing":
            return
        assert st.game is not None
        await bot.tap_a_move(table.table_id, screens[rng.choice(st.game.to_act())], rng)


async def test_a_page_whose_line_was_cut_catches_up_and_goes_on(
    browser: Browser, tmp_path: Path
) -> None:
    rng = random.Random(5)
    async with live_bot(browser, tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        tid = table.table_id
        start = bot.stored(tid).version
        line = Line()
        ann = await bot.open_hand(table, 0, line=line)
        bob = await bot.open_hand(table, 1)
        await play_on_pages(bot, table, [ann, bob], 2)
        cut_at = bot.stored(tid).version
        tapped = presses(ann)
        # Ann's network goes; her page says so and keeps trying, in vain for now
        await line.cut()
        await expect(ann.connection).to_be_visible(timeout=WAIT * 1000)
        await until(lambda: line.connections >= 2, "a try while the line is down")
        # meanwhile the game goes on in the chat; Bob's page follows
        await table.play_moves(bot.db, rng, 3)
        await bot.in_step(tid, [bob])
        assert (await ann.shown()).v == cut_at, "nothing reaches a page cut off"
        # the line is back: the page is let in at its next try and shows the table as it is
        line.restore()
        await bot.in_step(tid, [ann, bob])
        await expect(ann.connection).to_be_hidden()
        assert presses(ann) == tapped, "no press is sent again after a reconnect"
        await play_on_pages(bot, table, [ann, bob], 2)
        assert bot.check_all_frames(tid, start) >= 2


async def test_pages_reconnect_after_the_bot_restarts_and_go_on(
    browser: Browser, tmp_path: Path
) -> None:
    async with live_bot(browser, tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        tid = table.table_id
        start = bot.stored(tid).version
        screens = [await bot.open_hand(table, seat) for seat in (0, 1)]
        await play_on_pages(bot, table, screens, 2)
        before = bot.stored(tid).version
        opened = [len(s.tp.sockets) for s in screens]
        await bot.stop()
        for screen in screens:
            await expect(screen.connection).to_be_visible(timeout=WAIT * 1000)
        await bot.start()
        # each page dials the new bot by itself and shows the saved state
        st = await bot.in_step(tid, screens)
        assert st.version == before
        for screen, was in zip(screens, opened, strict=True):
            await expect(screen.connection).to_be_hidden()
            assert len(screen.tp.sockets) > was
        await play_on_pages(bot, table, screens, 3)
        assert bot.stored(tid).version > before
        assert bot.check_all_frames(tid, start) >= 4
