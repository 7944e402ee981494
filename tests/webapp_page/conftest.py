"""Fixtures of the page tests: the system Chromium, and the page served by a stand-in server."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, expect

from .browser import BrowserMissing, TelegramPage, TelegramUser, chromium, open_telegram_page
from .page_server import WAIT, PageServer, Peer

BOT_TOKEN = "123456789:AAPageTestsTokenNotTheBots-0123456789"
TOKEN = "t1_Ab-cd"
BOB = TelegramUser(id=1002, first_name="Bob", username="bob", language_code="en")

OpenPage = Callable[..., AbstractAsyncContextManager[TelegramPage]]


HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The page tests share one browser, so they run in the session's event loop."""
    in_session_loop = pytest.mark.asyncio(loop_scope="session")
    for item in items:
        if pytest_asyncio.is_async_test(item) and HERE in Path(str(item.path)).parents:
            item.add_marker(in_session_loop, append=False)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Browser]:
    """One Chromium for the session (each page gets a context of its own)."""
    try:
        async with chromium() as launched:
            yield launched
    except BrowserMissing as missing:
        pytest.fail(str(missing), pytrace=False)


@pytest_asyncio.fixture(loop_scope="session")
async def server() -> AsyncIterator[PageServer]:
    async with PageServer().running() as running:
        yield running


@pytest.fixture
def open_page(browser: Browser, server: PageServer) -> OpenPage:
    """``async with open_page(**options) as tp:`` Bob's page of the table TOKEN (options as
    :func:`open_telegram_page` takes them)."""

    def opener(**options: Any) -> AbstractAsyncContextManager[TelegramPage]:
        values: dict[str, Any] = {"bot_token": BOT_TOKEN, "user": BOB, "start": TOKEN}
        values.update(options)
        url = values.pop("url", server.url)
        return open_telegram_page(browser, url, **values)

    return opener


async def show(tp: TelegramPage, peer: Peer, state: dict[str, Any]) -> None:
    """Sends a state and waits until the page shows its version."""
    await peer.send(state)
    await expect(tp.page.locator("[data-role=state]")).to_have_attribute(
        "data-version", str(state["v"])
    )


async def attrs(tp: TelegramPage, selector: str, name: str) -> list[str | None]:
    """The attribute ``name`` of every element matching ``selector``, in page order."""
    values: list[str | None] = await tp.page.locator(selector).evaluate_all(
        "(els, name) => els.map((e) => e.getAttribute(name))", name
    )
    return values


async def handled_more(tp: TelegramPage, than: int) -> None:
    """Wait until the page has handled more than ``than`` frames of its sockets."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while await tp.frames_handled() <= than:
        assert loop.time() < deadline, f"no frame handled in {WAIT} s"
        await asyncio.sleep(0.01)


def classes(*names: str) -> re.Pattern[str]:
    """A class attribute holding all these classes, in any order (for to_have_class)."""
    return re.compile("".join(rf"(?=.*(?:^|\s){re.escape(n)}(?:\s|$))" for n in names))
