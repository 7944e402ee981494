"""End to end in Chromium: a quick game between two strangers, each playing on the page his
hand's ``web_app`` button opens; the page names the table for what it is, and its end
offers no rematch (a new quick game and Block are in the chat)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from e2e.harness import query
from e2e.pages import start_param_of
from e2e.test_quick import Player, wait_hand
from playwright.async_api import Browser, expect

from bot.service.links import StartTokens, start_key

from .live import LiveBot, live_bot, until, web_app_url


async def test_a_quick_game_on_its_pages(browser: Browser, tmp_path: Path) -> None:
    rng = random.Random(5)
    async with live_bot(browser, tmp_path) as bot:
        ann = await Player.create(bot.tg, "Ann")
        bob = await Player.create(bot.tg, "Bob")
        await ann.quick()
        await until(lambda: ann.waiting_message(), "Ann waits")
        await bob.quick()
        hands = [await wait_hand(ann), await wait_hand(bob)]
        urls = [await until(lambda h=h: web_app_url(h), "the hand's web_app button") for h in hands]
        tid = StartTokens(start_key(bot.tg.token)).table_of(start_param_of(urls[0]))
        assert StartTokens(start_key(bot.tg.token)).table_of(start_param_of(urls[1])) == tid
        pages = [
            await bot.open(p.user, url, seat=stored_seat(bot, tid, p.user.id))
            for p, url in zip((ann, bob), urls, strict=True)
        ]
        for page in pages:
            await expect(page.page.locator("[data-role=title]")).to_contain_text("Quick game")
        taps = 0
        while (st := await bot.in_step(tid, pages)).status == "playing" and taps < 400:
            assert st.game is not None
            acting = [s for s in range(2) if s in st.game.to_act()]
            if not acting:
                await until(lambda v=st.version: bot.stored(tid).version != v, "the clock")
                continue
            page = next(p for p in pages if p.seat == acting[0])
            await bot.tap_a_move(tid, page, rng)
            taps += 1
        assert bot.stored(tid).status == "finished"
        for page in pages:
            await expect(page.page.locator("[data-role=end]")).to_be_visible()
            await expect(page.page.locator("[data-action=rematch]")).to_have_count(0)


def stored_seat(bot: LiveBot, table_id: int, user_id: int) -> int:
    """The seat of a user at a table, as stored."""
    seats = json.loads(query(bot.db, "SELECT seats FROM tables WHERE table_id = ?", table_id)[0][0])
    return next(i for i, s in enumerate(seats) if s.get("user_id") == user_id)
