"""End to end in Chromium: what the real bot refuses a page, and how the page says so — init
data that does not hold, a tap the lobby does not allow, a tap of a state already gone."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest
from e2e.harness import Table
from e2e.pages import table_token
from playwright.async_api import Browser, expect

from .browser import Line, init_data_fields, sign_init_data
from .live import WAIT, live_bot, until, user_of

UNAUTHORIZED = "Telegram could not confirm who you are: open the table again with its button."
OTHER_BOT = "987654321:AAAnotherBotsTokenForTests-9876543210"


@pytest.mark.parametrize("forgery", ["another bot's token", "a name changed", "expired"])
async def test_init_data_that_does_not_hold_is_refused(
    browser: Browser, tmp_path: Path, forgery: str
) -> None:
    async with live_bot(browser, tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        ann = user_of(table.users[0])
        token = table_token(bot.tg, table.table_id)
        fields = init_data_fields(ann, start_param=token)
        if forgery == "another bot's token":
            raw = sign_init_data(OTHER_BOT, fields)
        elif forgery == "a name changed":
            raw = sign_init_data(bot.tg.token, fields).replace("Ann", "Bob", 1)
        else:
            old = str(int(time.time()) - 86_400 - 60)
            raw = sign_init_data(bot.tg.token, {**fields, "auth_date": old})
        assert raw != sign_init_data(bot.tg.token, fields)
        screen = await bot.open(
            ann, start=token, via="direct_link", init_data=raw, fake_clock=True, name="forged"
        )
        # the page says why, and shows nothing of the table
        await expect(screen.notice).to_have_text(UNAUTHORIZED, timeout=WAIT * 1000)
        await expect(screen.connection).to_be_hidden()
        await expect(screen.root).not_to_have_attribute("data-version", re.compile(".*"))
        # the bot closed the socket after its one error frame
        await until(lambda: screen.tp.sockets and screen.tp.sockets[0].is_closed(), "closed")
        assert [f["t"] for f in screen.tp.received] == ["error"]
        assert screen.tp.received[0]["reason"] == "unauthorized"
        # and the page does not knock again: a refusal would only come again
        await screen.page.clock.run_for(60_000)
        assert await screen.tp.sockets_opened() == 1
        assert await screen.page.locator("[data-card], [data-table-card]").count() == 0
        # the same user with his real init data is let in
        real = await bot.open(ann, start=token, via="direct_link", seat=0)
        await bot.in_step(table.table_id, [real])


async def test_a_tap_the_lobby_does_not_allow_is_explained_on_the_page(
    browser: Browser, tmp_path: Path
) -> None:
    async with live_bot(browser, tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.start_bots()
        lobby = await table.open_lobby()
        await table.join_all()
        tid = table.table_id
        ann, bob = [
            await bot.open_group_link(user, lobby, seat=seat)
            for seat, user in enumerate(table.users)
        ]
        v = bot.stored(tid).version
        for screen in (ann, bob):
            await screen.shows(v)
            await expect(screen.page.locator("[data-role=lobby]")).to_contain_text("Bob")
        # only the lobby's creator may start: Bob's tap is refused in the chat's words
        said = (await table.press(table.users[1], lobby, table.lobby_button("s"))).text
        assert said == "Only the creator of the lobby or a group admin can do that."
        await bob.tap_action("start")
        await expect(bob.notice).to_have_text(said, timeout=WAIT * 1000)
        assert bot.stored(tid).version == v and bot.stored(tid).status == "lobby"
        await expect(bob.root).to_have_attribute("data-version", str(v))
        # Ann's is taken: both pages deal the game, and Bob's refusal goes with the new state
        await ann.tap_action("start")
        await until(lambda: bot.stored(tid).status == "playing", "the deal")
        await bot.in_step(tid, [ann, bob])
        await expect(bob.notice).to_be_hidden()


async def test_a_tap_of_a_state_already_gone_is_refused_as_outdated(
    browser: Browser, tmp_path: Path
) -> None:
    rng = random.Random(3)
    async with live_bot(browser, tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        tid = table.table_id
        st = bot.stored(tid)
        assert st.game is not None
        [leader] = st.game.to_act()
        lines = {seat: Line() for seat in (0, 1)}
        screens = [await bot.open_hand(table, seat, line=lines[seat]) for seat in (0, 1)]
        await bot.in_step(tid, screens)
        mine = screens[leader]
        # the leader's line is slow: his page still shows the deal when he leads in the chat
        lines[leader].hold()
        await table.move(bot.db, rng)
        assert bot.stored(tid).version == st.version + 1
        await bot.in_step(tid, [screens[1 - leader]])
        shown = await mine.shown()
        assert shown.v == st.version and shown.cards, shown
        assert await mine.tap(f"[data-card='{shown.cards[0]}']")
        await until(lambda: any(f.get("t") == "press" for f in mine.tp.sent), "the press sent")
        lines[leader].release()
        # refused, in the chat's words for a stale button; the page shows the table as it is
        await expect(mine.notice).to_have_text(
            "That button is outdated: here is the current state.", timeout=WAIT * 1000
        )
        assert bot.stored(tid).version == st.version + 1, "the tap changed nothing"
        await bot.in_step(tid, screens)
        # and play goes on from there; the notice goes with the next state
        while bot.stored(tid).version == st.version + 1:
            now = bot.stored(tid)
            assert now.game is not None
            screen = screens[rng.choice(now.game.to_act())]
            await bot.tap_a_move(tid, screen, rng)
        await bot.in_step(tid, screens)
        await expect(mine.notice).to_be_hidden()
        assert bot.check_all_frames(tid, st.version) >= 2
