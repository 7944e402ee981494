"""A table that feels alive: the card just played lit, cards moving from the hand to the
table (none under reduced motion), the trump named, a lobby tailored to its viewer."""

from __future__ import annotations

from playwright.async_api import expect

from . import frames
from .conftest import OpenPage, attrs, show
from .page_server import PageServer

# every card the page sets moving, by its code (the Web Animations API, as the page uses it)
RECORD_MOTION = """() => {
  window.__moved = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    window.__moved.push(this.dataset.tableCard ?? this.className);
    return animate.apply(this, args);
  };
}"""


async def test_the_card_just_played_is_lit(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        assert await attrs(tp, "[data-table-card].last", "data-table-card") == ["9C"]
        await show(tp, peer, frames.covered(42))
        assert await attrs(tp, "[data-table-card].last", "data-table-card") == ["TD"]


async def test_a_card_moves_from_the_hand_to_the_table(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        await tp.page.evaluate(RECORD_MOTION)
        await show(tp, peer, frames.covered(42))
        assert await tp.page.evaluate("window.__moved") == ["TD"]
        # the same state again moves nothing
        await show(tp, peer, frames.with_version(frames.covered(42), 43))
        assert await tp.page.evaluate("window.__moved") == ["TD"]


async def test_no_motion_when_the_system_asks_for_none(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        await tp.page.emulate_media(reduced_motion="reduce")
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        await tp.page.evaluate(RECORD_MOTION)
        await show(tp, peer, frames.covered(42))
        await expect(tp.page.locator("[data-table-card='TD']")).to_be_visible()
        assert await tp.page.evaluate("window.__moved") == []
        running = await tp.page.evaluate("document.getAnimations().length")
        assert running == 0


async def test_the_trump_is_a_labelled_chip(open_page: OpenPage, server: PageServer) -> None:
    async with open_page(color_scheme="dark") as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        chip = tp.page.locator("[data-role=trump-chip]")
        await expect(chip).to_be_visible()
        await expect(chip).to_have_text("Trump")
        await expect(chip).to_have_attribute("aria-label", "Trump ♦")
        await expect(chip).to_have_attribute("data-suit", "D")
        trumpless = frames.mid_game(42)
        trumpless["table"]["trump"] = trumpless["table"]["trump_suit"] = None
        await show(tp, peer, trumpless)
        await expect(chip).to_be_hidden()


async def test_the_lobby_is_tailored_to_its_viewer(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.lobby(3))
        lobby = tp.page.locator("[data-role=lobby]")
        await expect(lobby.locator("li.you .name")).to_have_text("Bob")
        await expect(lobby.locator("li.you .tag")).to_have_text("you")
        await expect(lobby.locator("[data-role=lobby-problem]")).to_have_count(0)
        await expect(tp.page.locator("[data-action=start]")).to_be_enabled()
        # a lobby that cannot start: Start greyed, and why
        alone = frames.lobby(4)
        alone["lobby"]["players"] = ["Bob"]
        alone["lobby"]["problem"] = "At least 2 players are needed to start."
        alone["you"]["seat"] = 0
        alone["buttons"][1]["press"] = None
        await show(tp, peer, alone)
        await expect(tp.page.locator("[data-action=start]")).to_be_disabled()
        await expect(lobby.locator("[data-role=lobby-problem]")).to_have_text(
            "At least 2 players are needed to start."
        )
