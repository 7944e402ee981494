"""Shards in the store: each kept update names its shard, its holder reads those of its own
shards, one handed on reaches another, and the running tables load shard by shard."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from store_backends import Database, PostgresDatabase
from store_helpers import ALICE, BORIS, VERA, playing_table

from bot.store import SHARDS, KeptUpdate, Store, StoreUnavailable, UserRow, shard_of
from bot.store.postgres import INBOX_CHANNEL, ROWS_CHANNEL, PostgresStore


def kept(update_id: int, shard: int) -> KeptUpdate:
    return KeptUpdate(update_id, f'{{"update_id": {update_id}}}', shard)


def test_a_chat_and_its_tables_have_one_shard() -> None:
    assert shard_of(-1001234567890) == -1001234567890 % SHARDS
    assert {shard_of(chat) for chat in range(-1000, 1000)} == set(range(SHARDS))
    assert all(0 <= shard_of(chat) < SHARDS for chat in (-(2**52), -1, 0, 1, 2**40))


async def test_a_holder_reads_the_updates_of_its_shards_only(store: Store) -> None:
    await store.keep_updates([kept(1, 3), kept(2, 5), kept(3, 3), kept(4, 0)])
    assert [u.update_id for u in await store.pending_updates([3])] == [1, 3]
    assert [u.update_id for u in await store.pending_updates([5, 0])] == [2, 4]
    assert await store.pending_updates([]) == []
    assert [u.shard for u in await store.pending_updates()] == [3, 5, 3, 0]
    await store.finish_update(1)
    assert [u.update_id for u in await store.pending_updates([3])] == [3]


async def test_an_update_handed_on_goes_to_its_new_shard_unless_done(store: Store) -> None:
    await store.keep_updates([kept(10, 1), kept(11, 1)])
    assert await store.forward_update(10, 9)
    assert [u.update_id for u in await store.pending_updates([9])] == [10]
    assert [u.update_id for u in await store.pending_updates([1])] == [11]
    await store.finish_update(11)
    assert not await store.forward_update(11, 9), "a done update stays where it was done"
    assert not await store.forward_update(99, 9), "nor is an unknown one made up"
    assert [u.update_id for u in await store.pending_updates([9])] == [10]


async def test_the_running_tables_load_by_the_shard_of_their_chat(store: Store) -> None:
    chats = (-100, -164, -101, 7, 71)  # -100 and -164 share a shard (64 apart)
    tables = {chat: await playing_table(store, chat_id=chat) for chat in chats}
    lobby = await store.create_table(-100, rules="{}")
    assert shard_of(-100) == shard_of(-164) != shard_of(-101)
    found = await store.running_tables([shard_of(-100)])
    assert [t.table_id for t in found] == [tables[-100].table_id, tables[-164].table_id]
    both = await store.running_tables([shard_of(7), shard_of(71)])
    assert [t.chat_id for t in both] == [7, 71]
    assert await store.running_tables([]) == []
    everything = await store.running_tables()
    assert lobby.table_id not in [t.table_id for t in everything]
    assert len(everything) == len(chats)


async def listen(url: str, channel: str) -> tuple[asyncpg.Connection, asyncio.Queue[str]]:
    conn = await asyncpg.connect(url)
    heard: asyncio.Queue[str] = asyncio.Queue()
    await conn.add_listener(channel, lambda *args: heard.put_nowait(args[3]))
    return conn, heard


@pytest.fixture
def postgres(database: Database) -> PostgresDatabase:
    assert isinstance(database, PostgresDatabase)
    return database


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_the_shards_given_updates_are_told_when_they_commit(
    postgres: PostgresDatabase, store: Store
) -> None:
    conn, heard = await listen(postgres.url, INBOX_CHANNEL)
    try:
        assert isinstance(store, PostgresStore)
        await store.keep_updates([kept(1, 3), kept(2, 5), kept(3, 3)])
        told = await asyncio.wait_for(heard.get(), 5)
        shards, _, _ = told.partition(":")
        assert sorted(shards.split(",")) == ["3", "5"] and store.told_by_me(told)
        await store.keep_updates([kept(1, 3)])  # nothing new: nobody told
        await store.forward_update(2, 8)
        told = await asyncio.wait_for(heard.get(), 5)
        assert told.startswith("8:") and store.told_by_me(told)
        assert heard.empty()
        async with PostgresStore.open(postgres.url, connections=1) as other:
            assert not other.told_by_me(told)
    finally:
        await conn.close()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_row_written_by_another_process_is_read_again(
    postgres: PostgresDatabase, store: Store
) -> None:
    assert isinstance(store, PostgresStore)
    other = await PostgresStore.open(postgres.url, connections=2)
    conn, heard = await listen(postgres.url, ROWS_CHANNEL)
    try:
        await store.save_user(UserRow(5, "Ann", "ru", True))
        assert (await other.get_user(5)) == UserRow(5, "Ann", "ru", True)  # cached there
        await store.save_user(UserRow(5, "Ann", "en", True))
        payload = await asyncio.wait_for(heard.get(), 5)
        assert payload.startswith("u:5:")
        assert (await other.get_user(5)).language == "ru"  # type: ignore[union-attr]
        other.row_changed(payload)
        assert (await other.get_user(5)).language == "en"  # type: ignore[union-attr]
        store.row_changed(payload)  # its own write: still cached as written
        await postgres.query("UPDATE users SET name = 'Bea' WHERE user_id = 5")
        assert (await store.get_user(5)).name == "Ann"  # type: ignore[union-attr]
    finally:
        await conn.close()
        await other.close()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_server_gone_is_unavailable_and_comes_back(
    postgres: PostgresDatabase, store: Store
) -> None:
    assert isinstance(store, PostgresStore)
    await store.save_user(UserRow(6, "Cid", None, False))
    # a query under way when the server cuts every connection, as a restart does
    waiting = asyncio.ensure_future(store._fetch("SELECT pg_sleep(5)"))
    await asyncio.sleep(0.3)
    await postgres.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
    )
    with pytest.raises(StoreUnavailable):
        await waiting
    for _ in range(10):  # a connection found cut on the way is reported the same way
        try:
            found = await store.get_users([6])
            break
        except StoreUnavailable:
            continue
    assert found[6].name == "Cid"


async def test_a_tables_chat_and_a_players_running_tables_are_read_alone(store: Store) -> None:
    first = await playing_table(store, chat_id=-100, seats=(ALICE, BORIS))
    second = await playing_table(store, chat_id=-200, seats=(VERA, ALICE))
    await store.create_table(-300, rules="{}", seats=(ALICE,))  # a lobby: no game runs
    assert await store.table_chat(second.table_id) == -200
    assert await store.table_chat(999) is None
    alice = ALICE.user_id
    assert alice is not None
    expected = [(first.table_id, -100), (second.table_id, -200)]
    assert await store.playing_tables_of(alice) == expected
    assert await store.playing_tables_of(alice * 10 + 1) == []  # no prefix of another id
