"""The bot's ``getUpdates``: while updates keep coming it gathers them for a moment before
it asks again; after an answer that brought none it asks at once."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web

from bot.transport.extbot import DurakBot
from bot.transport.request import UpdatesRequest

GATHER = 0.5
AT_ONCE = 0.25
"""Seconds within which a request that need not wait is made, even on a busy machine."""
EARLY = 5e-3


@contextlib.asynccontextmanager
async def bot_api(
    get_updates: Callable[[web.Request], Awaitable[web.Response]],
) -> AsyncIterator[str]:
    """A Bot API server on 127.0.0.1 that answers ``getUpdates`` alone; its base URL."""
    app = web.Application()
    app.router.add_post("/bot123:ABC/getUpdates", get_updates)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/bot"
    finally:
        await runner.cleanup()


def press(update_id: int) -> dict[str, Any]:
    return {
        "update_id": update_id,
        "callback_query": {
            "id": str(update_id),
            "from": {"id": 7, "is_bot": False, "first_name": "Ann"},
            "chat_instance": "1",
            "data": "x",
        },
    }


async def _kept(updates: list[dict[str, Any]]) -> None:
    """An inbox that keeps everything (the bot's has one: then presses go around PTB)."""


@pytest.mark.parametrize("inbox", [True, False])
@pytest.mark.parametrize("gather", [GATHER, 0.0])
async def test_updates_are_gathered_while_they_keep_coming(gather: float, inbox: bool) -> None:
    answers: list[list[dict[str, Any]]] = [[press(1)], [], [press(2)], [press(3)]]
    asked: list[float] = []
    answered: list[float] = []
    loop = asyncio.get_running_loop()

    async def get_updates(request: web.Request) -> web.Response:
        asked.append(loop.time())
        result = answers.pop(0)
        answered.append(loop.time())
        return web.json_response({"ok": True, "result": result})

    polling = UpdatesRequest()
    if inbox:
        polling.keep = _kept
    async with bot_api(get_updates) as base_url:
        bot = DurakBot("123:ABC", base_url=base_url, get_updates_request=polling, gather=gather)
        await polling.initialize()
        try:
            got = [await bot.get_updates(timeout=0) for _ in range(4)]
        finally:
            await polling.shutdown()
    assert [[u.update_id for u in batch] for batch in got] == [[1], [], [2], [3]]
    # the presses are read in full (held back from PTB's reading, put back in place)
    assert got[0][0].callback_query is not None and got[0][0].callback_query.data == "x"
    assert asked[2] - answered[1] < AT_ONCE, "none came: it asks again at once"
    if gather:
        assert asked[1] - answered[0] >= gather - EARLY, "updates came: it waits to ask"
        assert asked[3] - answered[2] >= gather - EARLY
    else:  # off: it always asks at once
        assert asked[1] - answered[0] < AT_ONCE and asked[3] - answered[2] < AT_ONCE


def message(update_id: int) -> dict[str, Any]:
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": 0,
            "chat": {"id": 5, "type": "private"},
            "from": {"id": 7, "is_bot": False, "first_name": "Ann"},
            "text": f"/start {update_id}",
        },
    }


async def test_presses_and_other_updates_keep_telegrams_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The presses go around PTB's reading (it builds nothing for them) and come back in
    their places among the updates PTB read."""
    from telegram import Update

    result = [message(10), press(11), press(12), message(13), press(14)]
    built: list[int] = []
    original = Update.de_json.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Update], data: dict[str, Any], bot: Any = None) -> Update:
        built.append(data["update_id"])
        return original(cls, data, bot)  # type: ignore[no-any-return]

    monkeypatch.setattr(Update, "de_json", classmethod(counting))

    async def get_updates(request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "result": result})

    polling = UpdatesRequest()
    kept: list[list[int]] = []

    async def keep(updates: list[dict[str, Any]]) -> None:  # the inbox, before anyone reads
        kept.append([u["update_id"] for u in updates])

    polling.keep = keep
    async with bot_api(get_updates) as base_url:
        bot = DurakBot("123:ABC", base_url=base_url, get_updates_request=polling)
        await polling.initialize()
        try:
            got = await bot.get_updates(timeout=0)
        finally:
            await polling.shutdown()
    assert [u.update_id for u in got] == [10, 11, 12, 13, 14]
    assert [u.message.text for u in got if u.message is not None] == ["/start 10", "/start 13"]
    assert [u.callback_query.id for u in got if u.callback_query is not None] == ["11", "12", "14"]
    assert kept == [[10, 11, 12, 13, 14]], "all were kept first"
    assert built == [10, 13], "PTB read the messages alone"
