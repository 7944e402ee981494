"""End to end in Chromium: a tournament's sign-up opened in the Mini App shows its number
of games; a seated player who may choose it (the lobby's creator) chooses it there, as on
the group message, and another's choice is refused in the chat's words; a visitor sees the
number and no choice."""

from __future__ import annotations

from pathlib import Path

from e2e.harness import Table, query
from e2e.test_tourney import games_buttons, open_tourney
from playwright.async_api import Browser, expect

from .live import WAIT, Screen, live_bot, until

REFUSED = "Only the creator of the lobby or a group admin can do that."


def tourney(screen: Screen, games: int | None = None) -> str:
    """The sign-up's part of the page, or its button for ``games``."""
    if games is None:
        return "[data-role=lobby] [data-role=tourney]"
    return f"[data-role=tourney] [data-action=games][data-games='{games}']"


async def test_the_number_of_games_is_shown_and_chosen_on_the_page(
    browser: Browser, tmp_path: Path
) -> None:
    async with live_bot(browser, tmp_path) as bot:
        table = await Table.create(bot.tg, 3)
        ann, bob, cid = table.users
        table.users = [ann, bob]  # Cid only looks
        await table.start_bots()
        lobby = await open_tourney(table)
        await table.join_all()
        tid = table.table_id
        pages = [await bot.open_group_link(u, lobby, seat=s) for s, u in enumerate((ann, bob))]
        visitor = await bot.open_group_link(cid, lobby, seat=None)
        screens = [*pages, visitor]
        v = bot.stored(tid).version
        for screen in screens:
            await screen.shows(v)
            box = screen.page.locator(tourney(screen))
            await expect(box).to_have_attribute("data-games", "5")
            await expect(box).to_contain_text("5 games")
        # the seated get the choice, the chosen one pressed; the visitor none
        for screen in pages:
            buttons = screen.page.locator(f"{tourney(screen)} [data-action=games]")
            await expect(buttons).to_have_count(4)
            await expect(screen.page.locator(tourney(screen, 5))).to_have_attribute(
                "aria-pressed", "true"
            )
            await expect(screen.page.locator(tourney(screen, 3))).to_have_attribute(
                "aria-pressed", "false"
            )
        await expect(visitor.page.locator("[data-action=games]")).to_have_count(0)
        # Bob may not choose: refused as in the chat, nothing changes
        bob_page = pages[1]
        assert await bob_page.tap(tourney(bob_page, 3))
        await expect(bob_page.notice).to_have_text(REFUSED, timeout=WAIT * 1000)
        assert query(bot.db, "SELECT games FROM tournaments") == [(5,)]
        assert bot.stored(tid).version == v
        # Ann, its creator, chooses 3: every page and the group message show it
        ann_page = pages[0]
        assert await ann_page.tap(tourney(ann_page, 3))
        await until(lambda: query(bot.db, "SELECT games FROM tournaments") == [(3,)], "chosen")
        await until(lambda: "✅ 3" in games_buttons(lobby), "the group message shows it")
        v = bot.stored(tid).version
        for screen in screens:
            await screen.reaches(v)
            await expect(screen.page.locator(tourney(screen))).to_have_attribute("data-games", "3")
            await expect(screen.page.locator(tourney(screen))).to_contain_text("3 games")
        for screen in pages:
            await expect(screen.page.locator(tourney(screen, 3))).to_have_attribute(
                "aria-pressed", "true"
            )
            await expect(screen.page.locator(tourney(screen, 5))).to_have_attribute(
                "aria-pressed", "false"
            )
        # started: the tournament's games are set, the page shows the game and no choice
        await ann_page.tap_action("start")
        await until(lambda: bot.stored(tid).status == "playing", "the first game dealt")
        assert query(bot.db, "SELECT games, status FROM tournaments") == [(3, "running")]
        await bot.in_step(tid, screens)
        for screen in screens:
            await expect(screen.page.locator("[data-role=tourney]")).to_be_hidden()
            await expect(screen.page.locator("[data-action=games]:visible")).to_have_count(0)
