"""The inbox with the real store and table service: an update is handled once, also when
Telegram sends it again, and one kept but not handled before a crash is handled after it."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from telegram import Update

from bot.service.inbox import Inbox, Relayed
from bot.service.shards import NotHere
from bot.service.tables import Live, TableService
from bot.store import Seat, SqliteStore, Store, shard_of
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


async def test_a_press_is_kept_and_handed_on_without_what_no_handler_reads() -> None:
    import json

    from aiohttp import web
    from telegram.request import RequestData

    from bot.transport.request import UpdatesRequest

    pressed = press(10)
    pressed["callback_query"]["message"] = {
        "message_id": 5,
        "date": 0,
        "chat": {"id": 1, "type": "private"},
        "from": {"id": 99, "is_bot": True, "first_name": "Durak"},
        "edit_date": 7,
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
    # where the pressed message is stays; its keyboard, text, sender and edit time go
    assert message == {"message_id": 5, "date": 0, "chat": {"id": 1, "type": "private"}}
    update = Update.de_json(result[0], None)
    assert update.callback_query is not None and update.callback_query.data == "1t.x"
    assert result[1] == {"update_id": 11}


# ---- several processes: updates by shard ----------------------------------------------


class Routes:
    """Every update is for ``shard``."""

    def __init__(self, shard: int) -> None:
        self.shard_of = shard

    async def shard(self, update: Mapping[str, Any]) -> int:
        return self.shard_of


async def test_an_update_for_a_shard_held_elsewhere_is_left_to_its_holder(
    tmp_path: Path,
) -> None:
    async with SqliteStore.open(tmp_path / "db.sqlite3") as store:
        here = Inbox(store, routes=Routes(9), holds=lambda shard: shard == 3)
        assert await here.keep([press(10)]) == [10]
        update = Update.de_json(press(10), None)
        assert not here.admits(update), "not handled here"
        assert await here.pending(None, [3]) == []  # type: ignore[arg-type]
        there = Inbox(store, routes=Routes(9), holds=lambda shard: shard == 9)
        (found,) = await there.pending(None, [9])  # type: ignore[arg-type]
        assert found.update_id == 10 and there.admits(found)
        assert await there.pending(None, [9]) == [], "taken once"  # type: ignore[arg-type]
        ran = []

        async def handler() -> None:
            ran.append(True)

        await there.handle(found, handler())
        assert ran == [True] and await store.pending_updates() == []


async def test_an_update_whose_table_is_held_elsewhere_is_handed_on(tmp_path: Path) -> None:
    async with SqliteStore.open(tmp_path / "db.sqlite3") as store:
        elsewhere = await store.create_table(-7, rules=Rules().model_dump_json())
        tables = TableService(store, holds=lambda chat: chat == -5)
        inbox = Inbox(store, routes=Routes(shard_of(-5)), holds=lambda shard: True)
        await inbox.keep([press(11)])
        asked = []

        async def handler() -> None:
            # as PTB runs a handler: what it raises goes to the error handlers
            try:
                await tables.get(elsewhere.table_id)
            except NotHere as exc:
                asked.append(exc.shard)

        await inbox.handle(Update.de_json(press(11), None), handler())
        assert asked == [shard_of(-7)]
        (kept,) = await store.pending_updates()
        assert (kept.update_id, kept.shard) == (11, shard_of(-7)), "not done: handed on"
        assert tables.cached(elsewhere.table_id) is None, "never loaded here"
        with pytest.raises(NotHere):
            await tables.open_table(-7, None)


async def test_a_process_asks_the_holder_of_a_table_through_the_store(tmp_path: Path) -> None:
    async with SqliteStore.open(tmp_path / "db.sqlite3") as store:
        asking = Inbox(store, routes=Routes(1), holds=lambda shard: shard == 1)
        await asking.relay("back", 44, 6, user=5)
        holder = Inbox(store, routes=Routes(6), holds=lambda shard: shard == 6)
        assert await asking.pending(None, [1]) == []  # type: ignore[arg-type]
        (relayed,) = await holder.pending(None, [6])  # type: ignore[arg-type]
        assert isinstance(relayed, Relayed)
        assert (relayed.kind, relayed.table, dict(relayed.data)) == ("back", 44, {"user": 5})
        assert relayed.update_id < 0, "never one of Telegram's ids"

        async def done() -> None:
            pass

        await holder.handle(relayed, done())
        assert await store.pending_updates() == []


class SlowStore:
    """A store whose keeping of updates answers only once let: the update is in the database
    (and its holder told) before the keeper hears back."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.let = asyncio.Event()
        self.written = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def keep_updates(self, updates: Any) -> list[int]:
        fresh = await self._store.keep_updates(updates)
        self.written.set()
        await self.let.wait()
        return fresh


async def test_an_update_being_kept_here_is_not_taken_from_the_store_as_well(
    tmp_path: Path,
) -> None:
    async with SqliteStore.open(tmp_path / "db.sqlite3") as store:
        slow = SlowStore(store)
        inbox = Inbox(slow, routes=Routes(2), holds=lambda shard: True)  # type: ignore[arg-type]
        keeping = asyncio.ensure_future(inbox.keep([press(12)]))
        await slow.written.wait()
        # the look at the store that its notification wakes finds it: kept here already
        assert await inbox.pending(None, [2]) == []  # type: ignore[arg-type]
        slow.let.set()
        assert await keeping == [12]
        update = Update.de_json(press(12), None)
        assert inbox.admits(update)
        runs = []

        async def handler() -> None:
            runs.append(True)

        await inbox.handle(update, handler())
        await inbox.handle(update, handler())  # a second copy of it: dropped
        assert runs == [True]
        assert await inbox.pending(None, [2]) == []  # type: ignore[arg-type]
