"""Compare-and-set: a stale save is refused, never merged; concurrent saves never mix."""

from __future__ import annotations

import asyncio
import random

import pytest
from store_backends import Database
from store_helpers import ALICE, BORIS, BOT, VERA, FakeClock, lose, play, playing_table

from bot.store import (
    Outcome,
    SqliteStore,
    StaleVersionError,
    Store,
    TableNotFoundError,
    TableStatus,
    WrongStatusError,
)


async def test_a_stale_save_is_refused_and_writes_nothing(store: Store) -> None:
    table = await playing_table(store)
    version = await play(store, table, 2)
    before = await store.get_table(table.table_id)
    with pytest.raises(StaleVersionError) as refused:
        await store.save_action(table.table_id, version - 1, game="other", action="x", seat=0)
    assert (refused.value.expected, refused.value.actual) == (version - 1, version)
    assert "refused a stale save" in str(refused.value)
    assert await store.get_table(table.table_id) == before
    assert [a.action for a in await store.game_log(table.table_id, 1)] == ["a1", "a2"]
    # The current version still works.
    saved = await store.save_action(table.table_id, version, game="s3", action="a3", seat=1)
    assert (saved.version, saved.seq) == (version + 1, 3)


async def test_two_writers_with_one_version_only_one_wins(store: Store) -> None:
    table = await playing_table(store)
    results = await asyncio.gather(
        *(
            store.save_action(table.table_id, table.version, game=f"g{i}", action=f"a{i}", seat=i)
            for i in range(5)
        ),
        return_exceptions=True,
    )
    wins = [r for r in results if not isinstance(r, BaseException)]
    assert len(wins) == 1
    assert all(isinstance(r, StaleVersionError) for r in results if r not in wins)
    log = await store.game_log(table.table_id, 1)
    assert len(log) == 1
    row = await store.get_table(table.table_id)
    assert row is not None and row.game == f"g{log[0].seat}"


async def test_a_stale_finish_counts_no_tally(store: Store) -> None:
    table = await playing_table(store)
    version = await play(store, table, 1)
    await store.save_action(table.table_id, version, game="end", action="a2", seat=0)
    with pytest.raises(StaleVersionError):
        await store.save_action(
            table.table_id, version, game="end", action="a2", seat=0, outcome=lose(0, 2)
        )
    assert await store.chat_stats(-100) == []
    row = await store.get_table(table.table_id)
    assert row is not None and row.status is TableStatus.PLAYING


async def test_a_finished_game_cannot_be_finished_twice(store: Store) -> None:
    table = await playing_table(store)
    saved = await store.save_action(
        table.table_id, table.version, game="end", action="a1", seat=0, outcome=lose(1, 2)
    )
    with pytest.raises(WrongStatusError) as refused:
        await store.save_action(
            table.table_id, saved.version, game="end", action="a1", seat=0, outcome=lose(1, 2)
        )
    assert refused.value.status == "finished"
    stats = await store.chat_stats(-100)
    assert [t.games for t in stats] == [1, 1]


async def test_every_versioned_write_checks_the_version(store: Store) -> None:
    lobby = await store.create_table(-100, rules="{}", seats=[ALICE, BORIS])
    with pytest.raises(StaleVersionError):
        await store.update_lobby(lobby.table_id, 1, seats=[ALICE])
    with pytest.raises(StaleVersionError):
        await store.start_game(lobby.table_id, 1, seed=1, game="s0")
    with pytest.raises(StaleVersionError):
        await store.cancel_table(lobby.table_id, 5)
    with pytest.raises(WrongStatusError):
        await store.save_action(lobby.table_id, 0, game="s", action="a", seat=0)
    table = await store.start_game(lobby.table_id, 0, seed=1, game="s0")
    with pytest.raises(WrongStatusError):
        await store.update_lobby(table.table_id, table.version, seats=[ALICE])
    with pytest.raises(WrongStatusError):
        await store.start_game(table.table_id, table.version, seed=2, game="x")
    for call in (
        store.update_lobby(404, 0, rules="{}"),
        store.start_game(404, 0, seed=1, game="s0"),
        store.save_action(404, 0, game="s", action="a", seat=0),
        store.cancel_table(404, 0),
    ):
        with pytest.raises(TableNotFoundError):
            await call
    assert await store.game_log(table.table_id, 1) == []


async def test_a_bad_outcome_rolls_the_whole_save_back(store: Store) -> None:
    table = await playing_table(store, seats=(ALICE, BORIS, VERA))
    for bad in (
        lose(0, 2),  # points for 2 seats at a 3-seat table
        Outcome(durak_seats=(5,), draw=False, pogony=False, points=(2, 2, 0)),
        Outcome(durak_seats=(0,), draw=True, pogony=False, points=(1, 1, 1)),
    ):
        with pytest.raises(ValueError):
            await store.save_action(
                table.table_id, table.version, game="end", action="a1", seat=0, outcome=bad
            )
    assert await store.get_table(table.table_id) == table
    assert await store.game_log(table.table_id, 1) == []
    assert await store.chat_stats(-100) == []


async def test_concurrent_saves_to_many_tables(database: Database, clock: FakeClock) -> None:
    tables_n, moves = 60, 25
    async with database.open(clock=clock) as store:
        tables = [
            await playing_table(store, chat_id=-(i % 7) - 1, seats=(ALICE, BORIS, BOT), seed=i)
            for i in range(tables_n)
        ]

        async def player(i: int) -> None:
            rng = random.Random(i)
            table = tables[i]
            version = table.version
            for seq in range(1, moves + 1):
                await asyncio.sleep(rng.random() / 1000)
                outcome = lose(seq % 3, 3) if seq == moves else None
                saved = await store.save_action(
                    table.table_id,
                    version,
                    game=f"t{i}s{seq}",
                    action=f"t{i}a{seq}",
                    seat=seq % 3,
                    outcome=outcome,
                )
                assert saved.seq == seq
                version = saved.version

        await asyncio.gather(*(player(i) for i in range(tables_n)))

    async with database.open(clock=clock) as store:
        assert await store.running_tables() == []
        for i, table in enumerate(tables):
            row = await store.get_table(table.table_id)
            assert row is not None
            assert (row.game, row.moves, row.status) == (
                f"t{i}s{moves}",
                moves,
                TableStatus.FINISHED,
            )
            log = await store.game_log(table.table_id, 1)
            assert [a.action for a in log] == [f"t{i}a{s}" for s in range(1, moves + 1)]
        total_games = 0
        for chat in range(1, 8):
            total_games += sum(t.games for t in await store.chat_stats(-chat))
        assert total_games == tables_n * 3


async def test_a_cancelled_caller_leaves_no_open_transaction(
    store: Store, database: Database
) -> None:
    tables = [await playing_table(store, seats=(ALICE, BORIS, BOT), seed=i) for i in range(20)]
    tasks = [
        asyncio.ensure_future(
            store.save_action(
                t.table_id, t.version, game="end", action="a1", seat=0, outcome=lose(0, 3)
            )
        )
        for t in tables
    ]
    await asyncio.sleep(0)
    for task in tasks[::2]:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    # A transaction already under way when its caller is cancelled still runs to its
    # end (PostgreSQL runs it in a task of its own): let those end before reading.
    pending = getattr(store, "_writes", set())
    await asyncio.gather(*pending, return_exceptions=True)
    # Each finish either happened completely or not at all, and the store still works.
    finished = 0
    for t in tables:
        row = await store.get_table(t.table_id)
        assert row is not None
        log = await store.game_log(t.table_id, 1)
        record = await store.game_record(t.table_id, 1)
        assert record is not None
        if row.status is TableStatus.FINISHED:
            finished += 1
            assert len(log) == 1 and record.outcome is not None
        else:
            assert log == [] and record.outcome is None
    stats = {t.player: t for t in await store.chat_stats(-100)}
    assert stats["u:1"].games == finished
    assert (await store._fetch("SELECT 1"))[0][0] == 1  # type: ignore[attr-defined]
    if isinstance(store, SqliteStore):
        assert not store._db.in_transaction
    else:
        assert await database.query(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND state <> 'idle' AND pid <> pg_backend_pid()"
        ) == [(0,)]
