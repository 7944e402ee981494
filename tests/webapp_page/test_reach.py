"""Moves always in reach: a move bar fixed at the bottom of a phone, a greyed card that
says why, refusals and answers floating over the page without moving it."""

from __future__ import annotations

from typing import Any

from playwright.async_api import expect

from . import frames
from .conftest import OpenPage, show
from .page_server import PageServer

WIDTH, HEIGHT = 360, 740

BOXES = """(els) => els.map((e) => {
  const r = e.getBoundingClientRect();
  return {x: r.x, y: r.y, w: r.width, h: r.height, code: e.dataset.card ?? e.dataset.action};
})"""

# how much of each hand card is left to tap: up to the next card of its row that lies on it
STRIPS = """() => [...document.querySelectorAll(".fan")].flatMap((row) => {
  const cards = [...row.querySelectorAll("[data-card]")].map((e) => e.getBoundingClientRect());
  return cards.map((r, i) =>
    Math.min(r.width, i + 1 < cards.length ? cards[i + 1].x - r.x : r.width));
})"""


async def boxes(tp: Any, selector: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = await tp.page.locator(selector).evaluate_all(BOXES)
    return found


async def test_every_move_is_on_screen_with_six_players_and_twenty_cards(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page(width=WIDTH, height=HEIGHT) as tp:
        peer, _ = await server.hello()
        state = frames.crowded(60)
        await show(tp, peer, state)
        assert await tp.page.evaluate("document.documentElement.scrollHeight") > HEIGHT
        for top in (True, False):  # at the top of the page, and scrolled to its end
            if not top:
                await tp.page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
            moves = await boxes(tp, "[data-action]")
            assert len(moves) == len(state["buttons"])
            for box in moves:
                assert box["y"] >= 0 and box["y"] + box["h"] <= HEIGHT, box
                assert box["w"] >= 40 and box["h"] >= 40, box
        # scrolled to the end, the last row of the hand clears the bar
        bar = (await boxes(tp, "[data-role=actions]"))[0]
        last = max(b["y"] + b["h"] for b in await boxes(tp, "[data-card]"))
        assert last <= bar["y"], (last, bar)
        # every card leaves a strip of 40 px or more to tap, and is 40 px high or more
        strips = await tp.page.evaluate(STRIPS)
        assert len(strips) == 20 and min(strips) >= 40, strips
        assert min(b["h"] for b in await boxes(tp, "[data-card]")) >= 40


async def test_a_greyed_card_says_why(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        notice = tp.page.locator("[data-role=notice]")
        await expect(tp.page.locator("[data-card='KS']")).to_be_disabled()
        await tp.page.locator("[data-card='KS']").click(force=True)
        await expect(notice).to_have_text("That card does not beat any open card.")
        assert (await tp.haptics())[-1] == ["notificationOccurred", "error"]
        # nothing went to the server: the next frame it gets is the next real tap
        await tp.page.locator("[data-card='TD']").click()
        assert await peer.recv() == {"t": "press", "press": "press:TD", "v": 41}


async def test_a_notice_moves_nothing(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        layout = "[data-card], [data-action], [data-table-card], [data-role=hand]"
        before = await boxes(tp, layout)
        await peer.send({"t": "notice", "reason": "outdated", "text": "That button is outdated"})
        notice = tp.page.locator("[data-role=notice]")
        await expect(notice).to_be_visible()
        assert await boxes(tp, layout) == before
        # it floats above the move bar, not over it
        box = (await boxes(tp, "[data-role=notice]"))[0]
        bar = (await boxes(tp, "[data-role=actions]"))[0]
        assert box["y"] + box["h"] <= bar["y"]


async def test_every_answer_of_the_server_is_shown(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.finished(90))
        await tp.page.locator("[data-action=replay]").click()
        assert await peer.recv() == {"t": "press", "press": "press:replay", "v": 90}
        await peer.send({"t": "ack", "v": 90, "text": "The replay is in your private chat."})
        notice = tp.page.locator("[data-role=notice]")
        await expect(notice).to_have_text("The replay is in your private chat.")
        await expect(notice).to_have_class("notice info")
        assert ["notificationOccurred", "error"] not in await tp.haptics()
        # an answer without words says nothing
        await show(tp, peer, frames.finished(91))
        await tp.page.locator("[data-action=rematch]").click()
        await peer.recv()
        await peer.send({"t": "ack", "v": 92})
        await expect(tp.page.locator("body")).not_to_have_class("busy")
        await expect(notice).to_be_hidden()


async def test_the_bar_keeps_clear_of_telegrams_safe_area(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page(width=WIDTH, height=HEIGHT) as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        take = (await boxes(tp, "[data-action=take]"))[0]
        await tp.page.evaluate(
            "document.documentElement.style.setProperty('--tg-safe-area-inset-bottom', '34px')"
        )
        await expect(tp.page.locator("[data-action=take]")).to_be_visible()
        lifted = (await boxes(tp, "[data-action=take]"))[0]
        assert lifted["y"] == take["y"] - 34
        assert lifted["y"] + lifted["h"] <= HEIGHT - 34


async def test_a_phone_gets_the_whole_screen_with_telegram_s_safe_areas(
    open_page: OpenPage, server: PageServer
) -> None:
    """On a phone with Bot API 8.0 the page asks for the whole screen, and keeps the move
    bar above Telegram's safe areas as they change; a desktop client, or an older one, is
    asked for nothing of it and the page works the same."""
    async with open_page(
        platform="android",
        safe_area={"top": 24, "bottom": 20, "left": 0, "right": 0},
        content_safe_area={"top": 46, "bottom": 0, "left": 0, "right": 0},
    ) as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        assert ["requestFullscreen"] in await tp.telegram_calls()
        bottom = "getComputedStyle(document.documentElement).getPropertyValue(arguments[0])"
        read = f"(name) => {bottom.replace('arguments[0]', 'name')}"
        assert (await tp.page.evaluate(read, "--tg-safe-area-inset-bottom")).strip() == "20px"
        lowest = max(b["y"] + b["h"] for b in await boxes(tp, "[data-action]"))
        assert lowest <= HEIGHT - 20 + 0.5, "the moves stay above the safe area"
        await tp.page.evaluate(
            "() => window.__telegram.setSafeArea("
            "{top: 24, bottom: 48, left: 0, right: 0}, {top: 46, bottom: 0, left: 0, right: 0})"
        )
        assert (await tp.page.evaluate(read, "--tg-safe-area-inset-bottom")).strip() == "48px"
        await expect(tp.page.locator("[data-role=actions]")).to_be_visible()
        lowest = max(b["y"] + b["h"] for b in await boxes(tp, "[data-action]"))
        assert lowest <= HEIGHT - 48 + 0.5, "still above it once it grew"
    for options in ({"platform": "tdesktop"}, {"platform": "android", "version": "7.10"}):
        async with open_page(**options) as tp:
            peer, _ = await server.hello()
            await show(tp, peer, frames.mid_game(41))
            assert ["requestFullscreen"] not in await tp.telegram_calls(), options
            await expect(tp.page.locator("[data-action=take]")).to_be_visible()


async def test_the_table_can_go_on_the_home_screen_where_the_client_can(
    open_page: OpenPage, server: PageServer
) -> None:
    """A client of Bot API 8.0 without the shortcut yet is offered one; pressed, Telegram is
    asked and the offer goes; with the shortcut there, or an older client, nothing shows."""
    async with open_page(home_screen="missed") as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        offer = tp.page.locator("[data-role=home-screen]")
        await expect(offer).to_be_visible()
        await expect(offer).to_have_text("📲 To the home screen")
        await offer.click()
        assert ["addToHomeScreen"] in await tp.telegram_calls()
        await expect(offer).to_be_hidden()
    for options in ({"home_screen": "added"}, {"version": "7.10"}):
        async with open_page(**options) as tp:
            peer, _ = await server.hello()
            await show(tp, peer, frames.mid_game(41))
            await expect(tp.page.locator("[data-role=home-screen]")).to_be_hidden()
            assert ["addToHomeScreen"] not in await tp.telegram_calls(), options


async def test_a_phone_held_sideways_keeps_every_move_in_reach(
    open_page: OpenPage, server: PageServer
) -> None:
    """Landscape (740×360), six players and twenty cards: every move on screen, nothing
    wider than the screen, every card still a 40 px strip to tap."""
    width, height = HEIGHT, WIDTH
    async with open_page(width=width, height=height, platform="android") as tp:
        peer, _ = await server.hello()
        state = frames.crowded(60)
        await show(tp, peer, state)
        assert await tp.page.evaluate("document.documentElement.scrollWidth") <= width
        for top in (True, False):
            if not top:
                await tp.page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
            moves = await boxes(tp, "[data-action]")
            assert len(moves) == len(state["buttons"])
            for box in moves:
                assert box["y"] >= 0 and box["y"] + box["h"] <= height, box
                assert box["x"] >= 0 and box["x"] + box["w"] <= width, box
                assert box["h"] >= 40, box
        strips = await tp.page.evaluate(STRIPS)
        assert len(strips) == 20 and min(strips) >= 40, strips


async def test_an_invitation_to_the_table_is_shared_through_telegram(
    open_page: OpenPage, server: PageServer
) -> None:
    """Where the table has a link and the client can share (Bot API 8.0), Invite asks the
    server for a prepared message and hands it to Telegram's shareMessage; a table without
    one, or an older client, offers nothing."""
    async with open_page() as tp:
        peer, _ = await server.hello()
        state = frames.mid_game(41)
        state["share"] = True
        await show(tp, peer, state)
        invite = tp.page.locator("[data-role=invite]")
        await expect(invite).to_be_visible()
        await expect(invite).to_have_text("📤 Invite")
        await invite.click()
        assert await peer.recv() == {"t": "share"}
        await peer.send({"t": "share", "id": "prepared-1"})
        await tp.page.wait_for_function(
            "() => window.__telegram.calls.some((c) => c[0] === 'shareMessage')"
        )
        assert ["shareMessage", "prepared-1"] in await tp.telegram_calls()
        state = frames.with_version(state, 42)
        state["share"] = False
        await show(tp, peer, state)
        await expect(invite).to_be_hidden()
    async with open_page(version="7.10") as tp:
        peer, _ = await server.hello()
        state = frames.mid_game(41)
        state["share"] = True
        await show(tp, peer, state)
        await expect(tp.page.locator("[data-role=invite]")).to_be_hidden()
