"""Round trips: what goes into the store comes back out, also after closing and reopening."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path

import pytest
from store_backends import Database
from store_helpers import ALICE, BORIS, BOT, RULES, VERA, FakeClock, lose, play, playing_table

from bot.store import (
    DEFAULT_FILENAME,
    LATEST_VERSION,
    ChatRow,
    Outcome,
    Seat,
    SqliteStore,
    Store,
    StoreError,
    TableNotFoundError,
    TableStatus,
    UserRow,
    mask_url,
    open_store,
    resolve_path,
    resolve_synchronous,
)
from bot.store.config import Synchronous
from bot.store.models import seats_from_json, seats_to_json
from bot.store.postgres import PostgresStore


async def test_open_by_await_and_by_async_with(db_path: Path) -> None:
    store = await SqliteStore.open(db_path)
    assert await store.schema_version() == LATEST_VERSION
    assert store.path == str(db_path)
    await store.close()
    await store.close()  # idempotent
    async with SqliteStore.open(db_path) as again:
        assert await again.schema_version() == LATEST_VERSION
    with pytest.raises(StoreError, match="closed"):
        await again.get_chat(1)


async def test_open_creates_the_folder_and_sets_wal(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "bot.sqlite3"
    async with SqliteStore.open(path, synchronous="FULL", busy_timeout=2.5) as store:
        rows = await store._fetch("PRAGMA journal_mode")
        assert rows[0][0] == "wal"
        assert (await store._fetch("PRAGMA synchronous"))[0][0] == 2  # FULL
        assert store.busy_timeout == 2.5
    assert path.exists()


@pytest.mark.parametrize("synchronous", ["NORMAL", "FULL"])
async def test_a_write_waits_for_another_connection_s_lock_off_the_loop(
    db_path: Path, synchronous: Synchronous
) -> None:
    async with SqliteStore.open(db_path, synchronous=synchronous) as store:
        other = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")  # an operator's write, under way
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticking = asyncio.ensure_future(ticker())
        saving = asyncio.ensure_future(store.save_chat(ChatRow(-7, "en")))
        while ticks < 5:  # the loop goes on while the write waits for the lock
            await asyncio.sleep(0.01)
        assert not saving.done()
        other.execute("COMMIT")
        await saving
        ticking.cancel()
        other.close()
        store._chats.drop(-7)  # type: ignore[attr-defined]
        assert await store.get_chat(-7) == ChatRow(-7, "en")


async def test_a_lock_held_too_long_refuses_the_write_and_changes_nothing(db_path: Path) -> None:
    async with SqliteStore.open(db_path, busy_timeout=0.2) as store:
        other = sqlite3.connect(db_path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            await store.create_table(-7, rules=RULES)
        other.execute("ROLLBACK")
        other.close()
        assert await store.chat_tables(-7) == []
        table = await store.create_table(-7, rules=RULES)
        assert [t.table_id for t in await store.chat_tables(-7)] == [table.table_id]


async def test_open_refuses_a_bad_synchronous(db_path: Path) -> None:
    with pytest.raises(ValueError, match="NORMAL or FULL"):
        await SqliteStore.open(db_path, synchronous="OFF")  # type: ignore[arg-type]


def test_path_comes_from_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_path(environ={}) == tmp_path / DEFAULT_FILENAME
    assert resolve_path(environ={"DURAK_DB_PATH": "data/x.db"}) == tmp_path / "data" / "x.db"
    assert resolve_path("/srv/durak.db", environ={"DURAK_DB_PATH": "y.db"}) == Path("/srv/durak.db")
    assert resolve_path("", environ={}) == tmp_path / DEFAULT_FILENAME
    assert resolve_synchronous(environ={}) == "NORMAL"
    assert resolve_synchronous(environ={"DURAK_DB_SYNCHRONOUS": "full"}) == "FULL"
    assert resolve_synchronous("normal", environ={"DURAK_DB_SYNCHRONOUS": "full"}) == "NORMAL"
    with pytest.raises(ValueError, match="NORMAL or FULL"):
        resolve_synchronous("OFF", environ={})


async def test_open_store_defaults_to_a_file_under_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DURAK_DB_PATH", raising=False)
    monkeypatch.delenv("DURAK_DB_SYNCHRONOUS", raising=False)
    async with open_store() as store:
        assert store.path == str(tmp_path / DEFAULT_FILENAME)
    assert (tmp_path / DEFAULT_FILENAME).exists()


def test_seats_round_trip_and_validate() -> None:
    seats = (ALICE, VERA, BOT)
    assert seats_from_json(seats_to_json(seats)) == seats
    assert "Вера" in seats_to_json(seats)
    assert [s.player for s in seats] == ["u:1", "u:3", "ai:Bot"]
    with pytest.raises(ValueError):
        Seat(user_id=None, name="nobody")
    with pytest.raises(ValueError):
        Seat(user_id=5, name="both", ai="random")


async def test_chat_round_trip(store: Store) -> None:
    assert await store.get_chat(-100) is None
    chat = ChatRow(-100, language="ru", default_rules=RULES, thread_id=42)
    await store.save_chat(chat)
    assert await store.get_chat(-100) == chat
    changed = ChatRow(-100, language="en")
    await store.save_chat(changed)
    assert await store.get_chat(-100) == changed


async def test_user_round_trip(store: Store) -> None:
    assert await store.get_user(1) is None
    with pytest.raises(StoreError, match="unknown"):
        await store.set_can_message(1, True)
    await store.save_user(UserRow(1, "Alice", "en"))
    await store.save_user(UserRow(3, "Вера", "ru", can_message=True))
    assert await store.get_user(1) == UserRow(1, "Alice", "en", False)
    await store.set_can_message(1, True)
    assert (await store.get_user(1)) == UserRow(1, "Alice", "en", True)
    assert await store.get_users([3, 1, 99, 1]) == {
        1: UserRow(1, "Alice", "en", True),
        3: UserRow(3, "Вера", "ru", True),
    }
    assert await store.get_users([]) == {}


async def test_table_lifecycle_round_trip(
    store: Store, database: Database, clock: FakeClock
) -> None:
    lobby = await store.create_table(-100, rules=RULES, thread_id=7, creator_id=1, seats=[ALICE])
    assert lobby.status is TableStatus.LOBBY
    assert (lobby.version, lobby.game_no, lobby.moves, lobby.game) == (0, 0, 0, None)
    assert lobby.created_at == lobby.updated_at == clock.now
    assert await store.get_table(lobby.table_id) == lobby

    version = await store.update_lobby(lobby.table_id, 0, seats=[ALICE, BORIS, BOT])
    version = await store.update_lobby(lobby.table_id, version, rules='{"game":"perevodnoy"}')
    version = await store.update_lobby(lobby.table_id, version, thread_id=None)
    assert version == 3
    clock.advance(5)
    table = await store.start_game(lobby.table_id, version, seed=99, game="s0", deadline=123.5)
    assert table.status is TableStatus.PLAYING
    assert (table.seats, table.rules, table.thread_id) == (
        (ALICE, BORIS, BOT),
        '{"game":"perevodnoy"}',
        None,
    )
    assert (table.game_no, table.seed, table.game, table.version, table.moves) == (
        1,
        99,
        "s0",
        4,
        0,
    )
    assert table.deadline == 123.5

    await store.set_messages(table.table_id, group_message_id=555, hand_message_ids=[10, None, 12])
    await store.set_deadline(table.table_id, 200.0)
    saved = await store.save_action(
        table.table_id, 4, game="s1", action='{"type":"take","seat":1}', seat=1, deadline=300.0
    )
    assert (saved.version, saved.seq) == (5, 1)

    # Reopen: everything survived.
    await store.close()
    async with database.open(clock=clock) as reopened:
        again = await reopened.get_table(table.table_id)
        assert again is not None
        assert again.group_message_id == 555
        assert again.hand_message_ids == (10, None, 12)
        assert (again.game, again.version, again.moves, again.deadline) == ("s1", 5, 1, 300.0)
        assert again.updated_at == clock.now
        log = await reopened.game_log(table.table_id, 1)
        assert [(a.seq, a.seat, a.action, a.at) for a in log] == [
            (1, 1, '{"type":"take","seat":1}', clock.now)
        ]
        assert await reopened.running_tables() == [again]
        record = await reopened.game_record(table.table_id, 1)
        assert record is not None
        assert (record.seed, record.rules, record.seats, record.started_at) == (
            99,
            '{"game":"perevodnoy"}',
            (ALICE, BORIS, BOT),
            clock.now,
        )
        assert record.finished_at is None and record.outcome is None
        assert await reopened.game_record(table.table_id, 2) is None


async def test_message_ids_and_deadline_are_not_versioned(store: Store) -> None:
    table = await playing_table(store)
    await store.set_messages(table.table_id, group_message_id=1)
    await store.set_messages(table.table_id, hand_message_ids=[5, 6])
    await store.set_messages(table.table_id)
    await store.set_deadline(table.table_id, None)
    again = await store.get_table(table.table_id)
    assert again is not None
    assert (again.version, again.group_message_id, again.hand_message_ids) == (
        table.version,
        1,
        (5, 6),
    )
    await store.set_messages(table.table_id, group_message_id=None)
    assert (await store.get_table(table.table_id)).group_message_id is None  # type: ignore[union-attr]
    with pytest.raises(TableNotFoundError):
        await store.set_messages(999, group_message_id=1)
    with pytest.raises(TableNotFoundError):
        await store.set_deadline(999, 1.0)


async def test_finished_game_round_trip_and_rematch(store: Store, clock: FakeClock) -> None:
    table = await playing_table(store, seats=(ALICE, BORIS, BOT))
    version = await play(store, table, 3)
    clock.advance(60)
    outcome = Outcome(
        durak_seats=(1,), draw=False, pogony=True, points=(2, 0, 2), finish_order=(2, 0)
    )
    saved = await store.save_action(
        table.table_id, version, game="final", action="a4", seat=0, outcome=outcome
    )
    assert saved.seq == 4
    done = await store.get_table(table.table_id)
    assert done is not None
    assert (done.status, done.game, done.deadline, done.moves) == (
        TableStatus.FINISHED,
        "final",
        None,
        4,
    )
    assert await store.running_tables() == []
    record = await store.game_record(table.table_id, 1)
    assert record is not None
    assert (record.outcome, record.final_game, record.finished_at) == (outcome, "final", clock.now)

    # A rematch at the same table: game 2, its own log from sequence 1.
    rematch = await store.start_game(table.table_id, saved.version, seed=8, game="r0")
    assert (rematch.game_no, rematch.moves, rematch.seed) == (2, 0, 8)
    await play(store, rematch, 2)
    assert [a.seq for a in await store.game_log(table.table_id, 2)] == [1, 2]
    assert [a.action for a in await store.game_log(table.table_id, 1)] == ["a1", "a2", "a3", "a4"]
    games = await store.chat_games(-100)
    assert [(g.game_no, g.outcome) for g in games] == [(1, outcome)]
    assert len(await store.chat_games(-100, finished_only=False)) == 2


async def test_chat_tables_filters_by_status(store: Store) -> None:
    lobby = await store.create_table(-100, rules=RULES)
    playing = await playing_table(store)
    other_chat = await store.create_table(-200, rules=RULES)
    cancelled = await store.create_table(-100, rules=RULES)
    await store.cancel_table(cancelled.table_id, cancelled.version)
    ids = [t.table_id for t in await store.chat_tables(-100)]
    assert ids == [lobby.table_id, playing.table_id]
    everything = list(TableStatus)
    assert len(await store.chat_tables(-100, everything)) == 3
    assert [t.table_id for t in await store.chat_tables(-200)] == [other_chat.table_id]
    assert await store.chat_tables(-100, []) == []


async def test_cancel_stops_a_game_without_a_result(store: Store) -> None:
    table = await playing_table(store)
    version = await play(store, table, 2)
    version = await store.cancel_table(table.table_id, version)
    cancelled = await store.get_table(table.table_id)
    assert cancelled is not None and cancelled.status is TableStatus.CANCELLED
    assert cancelled.version == version
    record = await store.game_record(table.table_id, 1)
    assert record is not None and record.outcome is None and record.final_game == "s2"
    assert await store.chat_stats(-100) == []
    assert await store.running_tables() == []


async def test_outcome_from_engine_like_result() -> None:
    class Result:
        durak: int | None = 2
        durak_team: tuple[int, ...] | None = None
        draw = False
        pogony = True
        finish_order: tuple[int, ...] = (0, 1)
        points: tuple[int, ...] = (2, 2, 0)

    outcome = Outcome.from_result(Result())
    assert outcome == Outcome((2,), False, True, (2, 2, 0), (0, 1))
    assert Outcome.from_json(outcome.to_json()) == outcome

    class TeamResult(Result):
        durak = 1
        durak_team = (1, 3)
        points = (2, 0, 2, 0)

    assert Outcome.from_result(TeamResult()).durak_seats == (1, 3)

    class Draw(Result):
        durak = None
        draw = True
        pogony = False
        points = (1, 1, 1)

    assert Outcome.from_result(Draw()).durak_seats == ()
    assert lose(0, 2).points == (0, 2)


async def test_a_review_is_kept_once_per_game_and_viewer(database: Database) -> None:
    async with database.open() as store:
        table = await playing_table(store)
        assert await store.get_review(table.table_id, 1, 1) is None
        await store.save_review(table.table_id, 1, 1, 0, '{"marks":[1]}')
        # the analysis is deterministic: a second one (a race of two presses) changes nothing
        await store.save_review(table.table_id, 1, 1, 0, '{"marks":[2]}')
        await store.save_review(table.table_id, 1, 2, 1, '{"marks":[]}')
        assert await store.get_review(table.table_id, 1, 1) == '{"marks":[1]}'
        assert await store.get_review(table.table_id, 1, 2) == '{"marks":[]}'
        assert await store.get_review(table.table_id, 2, 1) is None
    async with database.open() as again:
        assert await again.get_review(table.table_id, 1, 1) == '{"marks":[1]}'


async def test_the_bot_s_own_state_is_kept_by_key_and_replaced(
    database: Database, clock: FakeClock
) -> None:
    async with database.open(clock=clock) as store:
        assert await store.get_state("menus") is None
        await store.set_state("menus", '{"a":"1"}')
        await store.set_state("other", "x")
        clock.advance(5)
        await store.set_state("menus", '{"a":"2"}')
        assert await store.get_state("menus") == '{"a":"2"}'
        assert await store.get_state("other") == "x"
    async with database.open() as again:
        assert await again.get_state("menus") == '{"a":"2"}'
    rows = await database.query("SELECT key, updated_at FROM bot_state ORDER BY key")
    assert rows == [("menus", clock.now), ("other", clock.now - 5)]


async def test_open_store_picks_postgresql_by_its_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, postgres_store_url: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DURAK_DB_PATH", raising=False)
    monkeypatch.setenv("DURAK_DATABASE_URL", postgres_store_url)
    async with open_store() as store:
        assert isinstance(store, PostgresStore)
        await store.save_chat(ChatRow(-5, "en"))
    async with open_store(url=postgres_store_url) as store:
        assert await store.get_chat(-5) == ChatRow(-5, "en")
    # an empty URL keeps the SQLite file, whatever the environment says
    async with open_store(url="") as store:
        assert isinstance(store, SqliteStore) and await store.get_chat(-5) is None
    assert (tmp_path / DEFAULT_FILENAME).exists()
    with pytest.raises(ValueError, match="postgresql://"):
        open_store(url="mysql://u:p@h/db")


def test_a_postgresql_store_shows_its_address_without_the_password() -> None:
    assert mask_url("postgresql://durak:pa:ss@db:5432/durak?sslmode=require") == (
        "postgresql://durak:***@db:5432/durak?sslmode=require"
    )
    assert mask_url("postgresql://durak@db/durak") == "postgresql://durak@db/durak"
    assert mask_url("postgresql:///durak?host=/run/pg&password=pw") == (
        "postgresql:///durak?host=/run/pg&password=***"
    )


async def test_a_closed_store_refuses_work_on_either_database(database: Database) -> None:
    store = await database.open()
    assert await store.schema_version() == LATEST_VERSION  # type: ignore[attr-defined]
    await store.close()
    await store.close()  # idempotent
    for call in (store.get_chat(1), store.save_user(UserRow(1, "A")), store.running_tables()):
        with pytest.raises(StoreError, match="closed"):
            await call


async def test_the_wal_is_checkpointed_beside_the_writes_and_stays_small(db_path: Path) -> None:
    from bot.store.sqlite import CHECKPOINT_BYTES

    wal = Path(f"{db_path}-wal")
    size = 60_000
    async with SqliteStore.open(db_path) as store:
        table = await playing_table(store)
        version = table.version
        written = 0
        while written < 10 * CHECKPOINT_BYTES:
            for _ in range(20):
                # every page new (SQLite writes again only the pages that change)
                game = random.Random(version).randbytes(size // 2).hex()
                saved = await store.save_action(
                    table.table_id, version, game=game, action="a", seat=0
                )
                version = saved.version
                written += size
            # a checkpoint under way (on its own thread, or on the database's) ends before
            # the next writes
            running = store._checkpointer._running  # type: ignore[attr-defined]
            if running is not None:
                await asyncio.wrap_future(running)
            catching_up = store._catching_up  # type: ignore[attr-defined]
            if catching_up is not None:
                await catching_up
        assert wal.stat().st_size < 3 * CHECKPOINT_BYTES
        row = await store.get_table(table.table_id)
        assert row is not None and row.moves == version - table.version
        assert len(await store.game_log(table.table_id, 1)) == row.moves
