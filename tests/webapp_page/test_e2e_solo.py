"""End to end in Chromium: a game against the computer in the private chat, played on the
page its hand's ``web_app`` button opens, the computer's moves shown there as they come."""

from __future__ import annotations

import random
from pathlib import Path

from e2e.harness import query
from e2e.pages import start_param_of
from e2e.solo import Solo
from playwright.async_api import Browser, expect

from bot.service.links import StartTokens, start_key

from .live import WAIT, LiveBot, live_bot, until, web_app_url


def last_seat(bot: LiveBot, table_id: int) -> int | None:
    """The seat that made the table's last move (None before the first)."""
    found = query(
        bot.db,
        "SELECT seat FROM actions WHERE table_id = ? AND game_no = ? ORDER BY seq DESC LIMIT 1",
        table_id,
        bot.stored(table_id).game_no,
    )
    return found[0][0] if found else None


async def test_a_game_against_the_computer_on_its_page(browser: Browser, tmp_path: Path) -> None:
    rng = random.Random(7)
    async with live_bot(browser, tmp_path, ai_delay=0.05) as bot:
        solo = await Solo.create(bot.tg)
        await solo.start(await solo.open_setup())
        url = await until(
            lambda: next((u for m in solo.bot_messages() if (u := web_app_url(m))), None),
            "the hand's web_app button",
        )
        assert url.startswith(bot.url + "?startapp=")
        tid = StartTokens(start_key(bot.tg.token)).table_of(start_param_of(url))
        me = await bot.open(solo.user, url, seat=0)
        await expect(me.page.locator("[data-role=title]")).to_contain_text("Against the computer")
        taps = after_computer = 0
        while (st := await bot.in_step(tid, [me])).status == "playing":
            assert st.game is not None
            # the page shows the table as it is, the computer's last move too
            after_computer += last_seat(bot, tid) not in (None, 0)
            if 0 in st.game.to_act():
                await bot.tap_a_move(tid, me, rng)
                taps += 1
            else:  # the computer moves by itself
                await until(lambda v=st.version: bot.stored(tid).version != v, "its move")
        assert taps >= 3 and after_computer >= 1, (taps, after_computer)
        await expect(me.page.locator("[data-role=end]")).to_be_visible()
        assert bot.check_all_frames(tid) >= 1
        # Play again deals the next game at once, on the same page
        await me.tap_action("rematch")
        await until(lambda: bot.stored(tid).game_no == 2, "the next game")
        again = await bot.in_step(tid, [me])
        assert again.status == "playing"
        await expect(me.page.locator("[data-role=end]")).to_be_hidden()
        await expect(me.page.locator("[data-card]").first).to_be_visible(timeout=WAIT * 1000)
