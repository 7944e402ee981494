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
