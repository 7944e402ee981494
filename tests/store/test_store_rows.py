"""Chat and user rows read back exactly as last written, however reads and writes interleave
(the store keeps recent rows in memory so drawing a move does not ask the database)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from store_backends import Database

from bot.store import ChatRow, Store, UserRow


async def test_user_rows_follow_every_write(store: Store, database: Database) -> None:
    assert await store.get_user(7) is None  # the absence is remembered too
    await store.save_user(UserRow(7, "Ann", None, False))
    assert await store.get_user(7) == UserRow(7, "Ann", None, False)
    await store.set_can_message(7, True)
    assert await store.get_user(7) == UserRow(7, "Ann", None, True)
    await store.save_user(UserRow(7, "Ann K", "ru", True))
    assert await store.get_user(7) == UserRow(7, "Ann K", "ru", True)
    on_disk = await database.query("SELECT name, language, can_message FROM users")
    assert on_disk == [("Ann K", "ru", 1)]
    assert await store.get_users([7, 8]) == {7: UserRow(7, "Ann K", "ru", True)}


async def test_a_write_that_keeps_can_message_leaves_it_as_another_writer_set_it(
    store: Store, database: Database
) -> None:
    # a group command's write (name, language) racing the user's /start in another process
    assert await store.save_user(UserRow(9, "Ann", None, False), keep_can_message=True) == (
        UserRow(9, "Ann", None, False)
    )
    await database.query("UPDATE users SET can_message = 1 WHERE user_id = 9")
    stored = await store.save_user(UserRow(9, "Ann K", "en", False), keep_can_message=True)
    assert stored == UserRow(9, "Ann K", "en", True)
    assert await store.get_user(9) == stored
    # a write that says whether we may write to him does set it
    assert await store.save_user(UserRow(9, "Ann K", "en", False)) == UserRow(9, "Ann K", "en")
    on_disk = await database.query("SELECT name, language, can_message FROM users")
    assert on_disk == [("Ann K", "en", 0)]


async def test_a_fresh_read_of_a_user_is_the_databases_not_the_cache(
    store: Store, database: Database
) -> None:
    await store.save_user(UserRow(4, "Bob", None, False))
    await database.query("UPDATE users SET can_message = 1 WHERE user_id = 4")
    assert await store.get_user(4) == UserRow(4, "Bob", None, False)  # as last known here
    assert await store.get_user(4, fresh=True) == UserRow(4, "Bob", None, True)
    assert await store.get_user(4) == UserRow(4, "Bob", None, True)


async def test_chat_rows_follow_writes_and_migration(store: Store) -> None:
    assert await store.get_chat(-1) is None
    await store.save_chat(ChatRow(-1, "en", '{"hand_size":3}', None))
    assert await store.get_chat(-1) == ChatRow(-1, "en", '{"hand_size":3}', None)
    assert await store.get_chat(-1002) is None
    await store.migrate_chat(-1, -1002)
    assert await store.get_chat(-1) is None
    assert await store.get_chat(-1002) == ChatRow(-1002, "en", '{"hand_size":3}', None)


async def test_a_read_racing_a_write_never_brings_back_the_old_row(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worst interleaving: a read fetches the old row, a write lands, and only then
    does the read resume. The old row must not become what later reads see."""
    await store.save_user(UserRow(5, "Bob", None, False))
    store._users.drop(5)  # type: ignore[attr-defined]  # the next read goes to the database
    fetched = asyncio.Event()
    written = asyncio.Event()
    fetch = store._fetch  # type: ignore[attr-defined]

    async def slow_fetch(sql: str, params: Sequence[Any] = ()) -> list[Any]:
        rows = await fetch(sql, params)
        fetched.set()
        await written.wait()
        return rows

    monkeypatch.setattr(store, "_fetch", slow_fetch)
    read = asyncio.ensure_future(store.get_user(5))
    await fetched.wait()
    monkeypatch.setattr(store, "_fetch", fetch)
    await store.save_user(UserRow(5, "Bob", "ru", True))
    written.set()
    assert await read == UserRow(5, "Bob", None, False)  # it began before the write
    assert await store.get_user(5) == UserRow(5, "Bob", "ru", True)


async def test_rows_survive_reopening(database: Database) -> None:
    async with database.open() as store:
        await store.save_user(UserRow(9, "Cid", "en", True))
        await store.save_chat(ChatRow(-9, "ru"))
    async with database.open() as store:
        assert await store.get_user(9) == UserRow(9, "Cid", "en", True)
        assert await store.get_chat(-9) == ChatRow(-9, "ru")


async def test_the_newest_table_of_a_chat_or_topic(store: Store) -> None:
    assert await store.latest_table(-100, None) is None
    first = await store.create_table(-100, rules="{}")
    topic = await store.create_table(-100, rules="{}", thread_id=7)
    await store.cancel_table(first.table_id, first.version)  # any status counts
    assert await store.latest_table(-100, None) == first.table_id
    assert await store.latest_table(-100, 7) == topic.table_id
    second = await store.create_table(-100, rules="{}")
    assert await store.latest_table(-100, None) == second.table_id
    assert await store.latest_table(-200, None) is None
