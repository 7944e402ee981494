"""Taps become presses: the button's opaque press at the version on screen, sent once."""

from __future__ import annotations

from playwright.async_api import expect

from . import frames
from .conftest import OpenPage, show
from .page_server import PageServer


async def test_a_tap_on_a_card_sends_its_press_at_the_shown_version(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        await tp.page.locator("[data-card='TD']").tap()
        assert await peer.recv() == {"t": "press", "press": "press:TD", "v": 41}
        assert ["impactOccurred", "light"] in await tp.haptics()


async def test_a_move_button_sends_its_press(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        await show(tp, peer, frames.mid_game(44))
        await tp.page.locator("[data-action=take]").click()
        assert await peer.recv() == {"t": "press", "press": "press:take", "v": 44}


async def test_a_dimmed_card_sends_nothing(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        await expect(tp.page.locator("[data-card='KS']")).to_be_disabled()
        # a click forced through onto the disabled card, then a real one: only the real one
        # reaches the server
        await tp.page.locator("[data-card='KS']").click(force=True)
        await tp.page.locator("[data-card='TD']").click()
        assert await peer.recv() == {"t": "press", "press": "press:TD", "v": 41}


async def test_a_press_is_sent_once_until_the_server_answers(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        await tp.page.locator("[data-card='TD']").click()
        assert await peer.recv() == {"t": "press", "press": "press:TD", "v": 41}
        # a second tap before the answer is not sent...
        await tp.page.locator("[data-action=take]").click()
        await peer.send({"t": "ack", "v": 41})
        await expect(tp.page.locator("body")).not_to_have_class("busy")
        # ...so the next press the server gets is the one after the answer
        await tp.page.locator("[data-card='TD']").click()
        assert await peer.recv() == {"t": "press", "press": "press:TD", "v": 41}


async def test_a_refusal_is_explained_in_place(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        notice = tp.page.locator("[data-role=notice]")
        await expect(notice).to_be_hidden()
        await tp.page.locator("[data-card='TD']").click()
        await peer.recv()
        await peer.send({"t": "notice", "reason": "outdated", "text": "That button is outdated"})
        await expect(notice).to_be_visible()
        await expect(notice).to_have_text("That button is outdated")
        assert (await tp.haptics())[-1] == ["notificationOccurred", "error"]
        # the refusal answered the press: the next tap goes out
        await tp.page.locator("[data-action=take]").click()
        assert await peer.recv() == {"t": "press", "press": "press:take", "v": 41}
        # and the next state clears it
        await show(tp, peer, frames.mid_game(42))
        await expect(notice).to_be_hidden()


async def test_haptics_on_becoming_your_turn(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        success = ["notificationOccurred", "success"]
        await show(tp, peer, frames.waiting(40))
        assert success not in await tp.haptics()
        await show(tp, peer, frames.mid_game(41))
        assert (await tp.haptics()).count(success) == 1
        # still his turn: no second buzz
        await show(tp, peer, frames.mid_game(42))
        assert (await tp.haptics()).count(success) == 1
        await show(tp, peer, frames.waiting(43))
        await show(tp, peer, frames.mid_game(44))
        assert (await tp.haptics()).count(success) == 2


async def test_a_client_without_haptics_still_plays(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page(haptics=False) as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.waiting(40))
        await show(tp, peer, frames.mid_game(41))
        await tp.page.locator("[data-card='TD']").click()
        assert await peer.recv() == {"t": "press", "press": "press:TD", "v": 41}
        await peer.send({"t": "notice", "reason": "outdated", "text": "That button is outdated"})
        await expect(tp.page.locator("[data-role=notice]")).to_be_visible()
