"""Fixtures of the page tests: the system Chromium, and the page served by a stand-in server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from playwright.async_api import Browser

from .browser import BrowserMissing, TelegramPage, TelegramUser, chromium, open_telegram_page
from .page_server import PageServer

BOT_TOKEN = "123456789:AAPageTestsTokenNotTheBots-0123456789"
TOKEN = "t1_Ab-cd"
BOB = TelegramUser(id=1002, first_name="Bob", username="bob", language_code="en")

OpenPage = Callable[..., AbstractAsyncContextManager[TelegramPage]]


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    try:
        async with chromium() as launched:
            yield launched
    except BrowserMissing as missing:
        pytest.fail(str(missing), pytrace=False)


@pytest.fixture
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
