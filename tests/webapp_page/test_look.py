"""How the page looks: Telegram's theme, the user's language, a 360 px wide phone."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import expect

from . import frames
from .browser import DARK_THEME, LIGHT_THEME, TelegramPage, TelegramUser
from .conftest import OpenPage, show
from .page_server import PageServer

RU = TelegramUser(id=7, first_name="Ива", language_code="ru")
UK = TelegramUser(id=8, first_name="Оля", language_code="uk")


def rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


async def style(tp: TelegramPage, selector: str, prop: str) -> str:
    value: str = await tp.page.locator(selector).first.evaluate(
        "(e, p) => getComputedStyle(e)[p]", prop
    )
    return value


async def test_dark_theme_from_theme_params(open_page: OpenPage, server: PageServer) -> None:
    async with open_page(color_scheme="dark") as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        await expect(tp.page.locator("html")).to_have_attribute("data-scheme", "dark")
        assert await style(tp, "body", "backgroundColor") == rgb(DARK_THEME["secondary_bg_color"])
        assert await style(tp, "body", "color") == rgb(DARK_THEME["text_color"])
        assert await style(tp, "[data-role=hand]", "backgroundColor") == rgb(
            DARK_THEME["section_bg_color"]
        )
        assert await style(tp, "[data-action=take]", "backgroundColor") == rgb(
            DARK_THEME["button_color"]
        )


async def test_the_theme_follows_telegram(open_page: OpenPage, server: PageServer) -> None:
    async with open_page(color_scheme="light") as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        assert await style(tp, "body", "backgroundColor") == rgb(LIGHT_THEME["secondary_bg_color"])
        await tp.set_theme(DARK_THEME, "dark")
        await expect(tp.page.locator("html")).to_have_attribute("data-scheme", "dark")
        assert await style(tp, "body", "backgroundColor") == rgb(DARK_THEME["secondary_bg_color"])
        # a theme without a colour falls back to the scheme's default, not the old theme's
        await tp.set_theme({}, "light")
        assert await style(tp, "body", "backgroundColor") == rgb("#efeff4")


async def test_dark_without_theme_params(open_page: OpenPage, server: PageServer) -> None:
    async with open_page(color_scheme="dark", theme={}) as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        assert await style(tp, "body", "backgroundColor") == rgb("#232e3c")
        assert await style(tp, "body", "color") == rgb("#f5f5f5")


async def test_the_pages_own_words_in_russian(open_page: OpenPage, server: PageServer) -> None:
    async with open_page(user=RU) as tp:
        peer, _ = await server.hello()
        await expect(tp.page.locator("[data-role=connection]")).to_have_text("Подключение…")
        await show(tp, peer, frames.mid_game(41, "ru"))
        await expect(tp.page.locator("html")).to_have_attribute("lang", "ru")
        await expect(tp.page.locator("[data-role=hand-title]")).to_have_text(
            "Ваши карты · 5 · отбивается"
        )
        await expect(tp.page.locator("[data-role=stock]")).to_have_text("Колода18")
        await peer.close()
        # the server's word for it once it has sent its texts
        await expect(tp.page.locator("[data-role=connection]")).to_have_text("Связь…")


async def test_the_pages_own_words_in_ukrainian(open_page: OpenPage, server: PageServer) -> None:
    async with open_page(user=UK) as tp:
        peer, _ = await server.hello()
        await expect(tp.page.locator("[data-role=connection]")).to_have_text("Підключення…")
        await show(tp, peer, frames.mid_game(41, "uk"))
        await expect(tp.page.locator("html")).to_have_attribute("lang", "uk")
        await expect(tp.page.locator("[data-role=hand-title]")).to_have_text(
            "Ваші карти · 5 · відбивається"
        )
        await expect(tp.page.locator("[data-role=stock]")).to_have_text("Колода18")
        await peer.close()
        # the server's word for it once it has sent its texts
        await expect(tp.page.locator("[data-role=connection]")).to_have_text("Зв’язок…")


async def test_a_ukrainian_table_for_an_english_client(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:  # an English-speaking client at a table set to Ukrainian
        peer, _ = await server.hello()
        state = frames.mid_game(41, "uk")
        state["texts"] = {}  # the page's own Ukrainian words, none of the server's
        await show(tp, peer, state)
        await expect(tp.page.locator("html")).to_have_attribute("lang", "uk")
        await expect(tp.page.locator("[data-role=hand-title]")).to_have_text(
            "Ваші карти · 5 · відбивається"
        )


async def test_the_states_language_wins(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:  # an English-speaking client...
        peer, _ = await server.hello()
        await expect(tp.page.locator("[data-role=connection]")).to_have_text("Connecting…")
        state = frames.mid_game(41, "ru")  # ...at a table he set to Russian
        state["texts"] = {}
        await show(tp, peer, state)
        await expect(tp.page.locator("[data-role=hand-title]")).to_have_text(
            "Ваши карты · 5 · отбивается"
        )


def _wide_states() -> list[dict[str, Any]]:
    return [
        frames.mid_game(41),
        frames.crowded(42),
        frames.choice(43),
        frames.lobby(44),
        frames.finished(45),
        frames.spectator(46),
    ]


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_a_360_px_phone_never_scrolls_sideways(
    open_page: OpenPage, server: PageServer, scheme: str
) -> None:
    async with open_page(width=360, color_scheme=scheme) as tp:
        peer, _ = await server.hello()
        for state in _wide_states():
            await show(tp, peer, state)
            widths = await tp.page.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.clientWidth,"
                " document.body.scrollWidth]"
            )
            assert widths == [360, 360, 360], state["v"]
            # and every card of the hand is on the screen, to be tapped
            for box in [await c.bounding_box() for c in await tp.page.locator("[data-card]").all()]:
                assert box is not None
                assert box["x"] >= 0 and box["x"] + box["width"] <= 360


async def test_every_card_of_a_big_hand_can_be_tapped(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page(width=360) as tp:
        peer, _ = await server.hello()
        state = frames.crowded(42)
        await show(tp, peer, state)
        playable = [c for c in state["hand"]["cards"] if c["press"]]
        for card in playable:
            # a tap where Playwright aims it: the card's visible middle, not its neighbour
            await tp.page.locator(f"[data-card='{card['code']}']").click()
            assert await peer.recv() == {"t": "press", "press": card["press"], "v": 42}
            await peer.send({"t": "ack", "v": 42})
            await expect(tp.page.locator("body")).not_to_have_class("busy")
