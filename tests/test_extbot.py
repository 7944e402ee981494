"""The bot's ``getUpdates``: while updates keep coming it gathers them for a moment before
it asks again; after an answer that brought none it asks at once."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiohttp import web

from bot.transport.extbot import DurakBot
from bot.transport.request import UpdatesRequest

GATHER = 0.5
AT_ONCE = 0.25
"""Seconds within which a request that need not wait is made, even on a busy machine."""
EARLY = 5e-3


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


@pytest.mark.parametrize("gather", [GATHER, 0.0])
async def test_updates_are_gathered_while_they_keep_coming(gather: float) -> None:
    answers: list[list[dict[str, Any]]] = [[press(1)], [], [press(2)], [press(3)]]
    asked: list[float] = []
    answered: list[float] = []
    loop = asyncio.get_running_loop()

    async def get_updates(request: web.Request) -> web.Response:
        asked.append(loop.time())
        result = answers.pop(0)
        answered.append(loop.time())
        return web.json_response({"ok": True, "result": result})

    app = web.Application()
    app.router.add_post("/bot123:ABC/getUpdates", get_updates)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    polling = UpdatesRequest()
    bot = DurakBot(
        "123:ABC",
        base_url=f"http://127.0.0.1:{port}/bot",
        get_updates_request=polling,
        gather=gather,
    )
    await polling.initialize()
    try:
        got = [await bot.get_updates(timeout=0) for _ in range(4)]
    finally:
        await polling.shutdown()
        await runner.cleanup()
    assert [[u.update_id for u in batch] for batch in got] == [[1], [], [2], [3]]
    # the presses are read in full (held back from PTB's reading, put back in place)
    assert got[0][0].callback_query is not None and got[0][0].callback_query.data == "x"
    assert asked[2] - answered[1] < AT_ONCE, "none came: it asks again at once"
    if gather:
        assert asked[1] - answered[0] >= gather - EARLY, "updates came: it waits to ask"
        assert asked[3] - answered[2] >= gather - EARLY
    else:  # off: it always asks at once
        assert asked[1] - answered[0] < AT_ONCE and asked[3] - answered[2] < AT_ONCE
