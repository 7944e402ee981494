"""The live channel: hello, the start token, reconnecting, and a page without Telegram."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.async_api import expect

from . import frames
from .browser import TelegramUser
from .conftest import TOKEN, OpenPage, handled_more, show
from .page_server import PageServer


async def test_reconnects_by_itself_and_never_resends_a_press(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        peer, hello = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        connection = tp.page.locator("[data-role=connection]")
        await expect(connection).to_be_hidden()
        # a press the server took but never answered, then the socket drops
        await tp.page.locator("[data-card='TD']").click()
        assert await peer.recv() == {"t": "press", "press": "press:TD", "v": 41}
        await peer.close()
        await expect(connection).to_be_visible()
        await expect(connection).to_have_text("Reconnecting…")
        # a tap while the line is down goes nowhere
        await tp.page.locator("[data-action=take]").click()

        again, hello_again = await server.hello()
        assert hello_again == hello
        await show(tp, again, frames.mid_game(45))
        await expect(connection).to_be_hidden()
        # the first thing after the hello is the tap made on the fresh state: nothing replayed
        await tp.page.locator("[data-card='TD']").click()
        assert await again.recv() == {"t": "press", "press": "press:TD", "v": 45}


async def test_a_restarted_server_may_send_any_version(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        await peer.close()
        again, _ = await server.hello()
        # on a new connection the server's state is the truth, even at a lower version
        await show(tp, again, frames.lobby(30))
        await expect(tp.page.locator("[data-role=lobby]")).to_be_visible()


async def test_a_line_gone_silent_is_dropped_and_dialled_again(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page(fake_clock=True) as tp:
        peer, hello = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        # pings that are answered keep the line: a ping period at a time, each pong in
        # before the clock goes on (the page's clock is the test's, the network is not)
        for _ in range(2):
            handled = await tp.frames_handled()
            await tp.page.clock.run_for(25_000)
            await handled_more(tp, handled)  # the pong
        await tp.page.clock.run_for(10_000)
        assert await tp.sockets_opened() == 1
        # a server that stops answering: after a ping period without a word the page gives
        # the socket up and connects anew
        peer.answer_pings = False
        await tp.page.clock.run_for(25_000)
        await tp.page.clock.run_for(25_000)
        await expect(tp.page.locator("[data-role=connection]")).to_be_visible()
        await tp.page.clock.run_for(1_000)
        again, hello_again = await server.hello()
        assert hello_again == hello
        await show(tp, again, frames.mid_game(42))
        await expect(tp.page.locator("[data-role=connection]")).to_be_hidden()


async def test_back_online_it_connects_at_once(open_page: OpenPage, server: PageServer) -> None:
    async with open_page(fake_clock=True) as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        await tp.page.clock.pause_at(await tp.page.evaluate("Date.now() + 10"))
        await peer.close()
        await expect(tp.page.locator("[data-role=connection]")).to_be_visible()
        # the clock stands still, so the backoff never runs out: only the nudge can dial
        await tp.page.evaluate("window.dispatchEvent(new Event('online'))")
        again, _ = await server.hello()
        await show(tp, again, frames.mid_game(42))


async def test_reconnects_again_and_again(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        for v in (41, 42, 43):
            peer, _ = await server.hello()
            await show(tp, peer, frames.mid_game(v))
            await peer.close()
        # closed before any state, too: the page keeps trying
        peer, _ = await server.hello()
        await peer.close()
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(50))


@pytest.mark.parametrize(
    ("reason", "code", "text"),
    [
        ("unauthorized", 4401, "Open the table again from Telegram"),
        ("no_table", 4404, "This table is over"),
        ("too_many", 4429, "Too many pages"),
    ],
)
async def test_a_refused_hello_is_said_and_not_retried(
    open_page: OpenPage, server: PageServer, reason: str, code: int, text: str
) -> None:
    async with open_page(fake_clock=True) as tp:
        peer, _ = await server.hello()
        await peer.send({"t": "error", "reason": reason, "text": text})
        await peer.close(code)
        notice = tp.page.locator("[data-role=notice]")
        await expect(notice).to_have_text(text)
        await expect(tp.page.locator("[data-role=connection]")).to_be_hidden()
        # the page stays as it is: however long it waits, it does not try again
        await tp.page.clock.run_for(60_000)
        assert await tp.sockets_opened() == 1


async def test_a_refusal_by_close_code_alone(open_page: OpenPage, server: PageServer) -> None:
    async with open_page(user=TelegramUser(id=7, first_name="Ива", language_code="ru")) as tp:
        peer, _ = await server.hello()
        await peer.close(4404)
        await expect(tp.page.locator("[data-role=notice]")).to_have_text("Такого стола нет.")


@pytest.mark.parametrize(
    ("via", "url_extra"),
    [
        ("start_param", "?tgWebAppStartParam=second&startapp=third"),
        ("tgWebAppStartParam", "?startapp=third"),
        ("startapp", ""),
    ],
)
async def test_the_start_token_is_read_in_order(
    open_page: OpenPage, server: PageServer, via: str, url_extra: str
) -> None:
    async with open_page(url=server.url + url_extra, via=via):
        _, hello = await server.hello()
        assert hello["start"] == TOKEN


async def test_no_token_no_table(open_page: OpenPage, server: PageServer) -> None:
    async with open_page(start=None, via="none") as tp:
        await expect(tp.page.locator("[data-role=notice]")).to_have_text(
            "This page does not know which table to show: open it with the table's button in"
            " Telegram."
        )
        await expect(tp.page.locator("[data-role=connection]")).to_be_hidden()
        assert await tp.sockets_opened() == 0


async def test_a_malformed_token_is_no_table(open_page: OpenPage, server: PageServer) -> None:
    user = TelegramUser(id=7, first_name="Ива", language_code="ru")
    async with open_page(user=user, start="../etc", via="startapp") as tp:
        await expect(tp.page.locator("[data-role=notice]")).to_have_text(
            "Страница не знает, какой стол показать: откройте её кнопкой стола в Telegram."
        )
        assert await tp.sockets_opened() == 0


@pytest.mark.parametrize("path", ["/app", "/app/"])
async def test_served_at_its_path_with_telegrams_fragment(
    open_page: OpenPage, server: PageServer, path: str
) -> None:
    base = f"http://127.0.0.1:{server.port}{path}"
    async with open_page(url=base) as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        # the launch parameters ride in the fragment, as Telegram puts them
        assert "#tgWebAppData=" in tp.page.url
        assert "/app/static/app.js" in server.requests
        assert "/app/static/style.css" in server.requests
        assert not tp.blocked


async def test_telegram_org_is_never_asked_when_the_object_is_there(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        assert not tp.blocked
        assert all(urlsplit(u).hostname == "127.0.0.1" for u in tp.requested)
        assert (await tp.telegram_calls())[:5] == [
            ["ready"],
            ["expand"],
            ["setHeaderColor", "secondary_bg_color"],
            ["setBackgroundColor", "secondary_bg_color"],
            ["disableVerticalSwipes"],
        ]


async def test_without_telegram_and_without_internet(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page(inject=False) as tp:
        # the page asked for Telegram's script, was refused, and says what to do
        await expect(tp.page.locator("[data-role=notice]")).to_have_text(
            "Open this table from Telegram"
        )
        assert tp.blocked == ["https://telegram.org/js/telegram-web-app.js"]


async def test_telegrams_script_is_loaded_when_the_object_is_missing(
    open_page: OpenPage, server: PageServer
) -> None:
    # a stand-in for telegram-web-app.js that defines the object as the real one does
    script = (
        "window.Telegram = {WebApp: {initData: 'user=x&hash=y', initDataUnsafe: "
        f"{{start_param: '{TOKEN}'}}, themeParams: {{}}, colorScheme: 'light', "
        "ready() {}, expand() {}}};"
    )
    async with open_page(inject=False, telegram_script=script, via="none") as tp:
        peer, hello = await server.hello()
        assert hello == {"t": "hello", "init_data": "user=x&hash=y", "start": TOKEN}
        await show(tp, peer, frames.mid_game(41))
        assert not tp.blocked
