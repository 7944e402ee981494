"""The inbox with the real store and table service: an update is handled once, also when
Telegram sends it again, and one kept but not handled before a crash is handled after it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from telegram import Update

from bot.inbox import Inbox
from bot.store import Seat, SqliteStore
from bot.tables import Live, TableService
from engine import Rules


def press(update_id: int) -> dict[str, Any]:
    """A button press as Telegram sends it."""
    return {
        "update_id": update_id,
        "callback_query": {
            "id": str(update_id),
            "from": {"id": 1, "is_bot": False, "first_name": "Ann"},
            "chat_instance": "1",
            "data": "1t.x",
        },
    }


async def running_table(tables: TableService) -> Live:
    live = await tables.create(-5, None, Seat.human(1, "Ann"), Rules(), [Seat.human(2, "Bob")])
    await tables.start(live, seed=3)
    return live


async def a_move(tables: TableService, live: Live, version: int) -> None:
    """What a handler does with a press drawn at ``version``: the first legal move."""
    assert live.game is not None
    seat = live.game.to_act()[0]
    await tables.act(live, seat, live.game.legal_actions(seat)[0], version)


async def test_a_redelivered_press_is_not_applied_twice(tmp_path: Path) -> None:
    async with SqliteStore.open(tmp_path / "db.sqlite3") as store:
        tables = TableService(store)
        live = await running_table(tables)
        version = live.version
        inbox = Inbox(store)
        update = Update.de_json(press(7), None)
        assert await inbox.keep([press(7)]) == [7]

        async def handler() -> None:
            await a_move(tables, live, version)
            # a crash now would not bring it back: done in the move's own transaction
            assert await store.pending_updates() == []

        await inbox.handle(update, handler())
        assert live.version == version + 1

        # Telegram sends it again (it was never told it arrived): dropped, not run
        assert await inbox.keep([press(7)]) == []
        again = a_move(tables, live, live.version)  # would move again if it ran
        await inbox.handle(update, again)
        assert live.version == version + 1
        # nor after a restart
        assert await Inbox(store).pending(None) == []  # type: ignore[arg-type]


async def test_a_press_kept_before_a_crash_is_handled_after_it_once(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    async with SqliteStore.open(path) as store:
        tables = TableService(store)
        live = await running_table(tables)
        version = live.version
        assert await Inbox(store).keep([press(8)]) == [8]  # then the process dies
    async with SqliteStore.open(path) as store:
        tables = TableService(store)
        inbox = Inbox(store)
        (update,) = await inbox.pending(None)  # type: ignore[arg-type]
        assert update.update_id == 8
        (live,) = await tables.load_running()
        assert await inbox.keep([press(8)]) == [], "redelivered by Telegram as well"
        for _ in range(2):  # the kept one and the redelivered copy
            await inbox.handle(update, a_move(tables, live, version))
        assert live.version == version + 1
        assert await store.pending_updates() == []


async def test_an_update_that_makes_no_move_is_done_once_handled(tmp_path: Path) -> None:
    async with SqliteStore.open(tmp_path / "db.sqlite3") as store:
        inbox = Inbox(store)
        await inbox.keep([press(9)])
        ran = []

        async def refresh() -> None:
            assert await store.pending_updates() != [], "not done while it runs"
            ran.append(True)

        await inbox.handle(Update.de_json(press(9), None), refresh())
        assert ran == [True]
        assert await store.pending_updates() == []


async def test_a_press_is_kept_and_handed_on_without_its_messages_keyboard() -> None:
    import json

    from aiohttp import web
    from telegram.request import RequestData

    from bot.request import UpdatesRequest

    pressed = press(10)
    pressed["callback_query"]["message"] = {
        "message_id": 5,
        "date": 0,
        "chat": {"id": 1, "type": "private"},
        "text": "Your hand",
        "entities": [{"type": "bold", "offset": 0, "length": 4}],
        "reply_markup": {"inline_keyboard": [[{"text": "7♠", "callback_data": "1t.x"}]]},
    }

    async def get_updates(request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "result": [pressed, {"update_id": 11}]})

    app = web.Application()
    app.router.add_post("/getUpdates", get_updates)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    kept: list[list[dict[str, Any]]] = []

    async def keep(updates: list[dict[str, Any]]) -> None:
        kept.append(json.loads(json.dumps(updates)))

    request = UpdatesRequest()
    request.keep = keep
    await request.initialize()
    try:
        result = await request.post(f"http://127.0.0.1:{port}/getUpdates", RequestData())
    finally:
        await request.shutdown()
        await runner.cleanup()
    assert isinstance(result, list) and kept == [result]
    message = result[0]["callback_query"]["message"]
    assert "reply_markup" not in message and "entities" not in message
    assert message["message_id"] == 5 and message["text"] == "Your hand"
    update = Update.de_json(result[0], None)
    assert update.callback_query is not None and update.callback_query.data == "1t.x"
    assert result[1] == {"update_id": 11}
