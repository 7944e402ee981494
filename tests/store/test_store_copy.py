"""``python -m bot.store.copy``: SQLite to PostgreSQL and back, every row the same, ids and
their sequences kept; a non-empty target refused with one line and exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from store_backends import Database, PostgresDatabase, SqliteDatabase
from store_helpers import ALICE, BORIS, BOT, VERA, FakeClock, lose, play, playing_table

from bot.store import ChatRow, KeptUpdate, Outcome, Store, TableStatus, UserRow
from bot.store.migrations import EPHEMERAL_TABLES

ROOT = Path(__file__).resolve().parents[2]


def run_copy(*args: str, cwd: Path) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "bot.store.copy", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def location(database: Database) -> str:
    if isinstance(database, SqliteDatabase):
        return f"sqlite:///{database.path}"  # an absolute path: sqlite:////tmp/...
    assert isinstance(database, PostgresDatabase)
    return database.url


async def dump(database: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the bot, in a fixed order."""
    if isinstance(database, SqliteDatabase):
        names = await database.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    else:
        names = await database.query(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() AND table_name <> 'schema_version'"
        )
    rows = {}
    for (name,) in sorted(names):
        rows[name] = sorted(await database.query(f"SELECT * FROM {name}"), key=repr)
    return rows


async def fill(store: Store, clock: FakeClock) -> dict[str, int]:
    """Two chats' worth of play: finished games with tallies, a rematch running, a lobby,
    a cancelled table, users, chat settings, a coach's review, the bot's own state, the
    inbox's updates (done by a move, done once handled, pending); and a lobby purged, so
    that the highest id ever handed out is no longer in the table."""
    await store.set_state("menus", '{"en": "ab12", "ru": "cd34"}')
    await store.keep_updates([update(7001), update(7002), update(7003), update(7004, shard=5)])
    await store.save_user(UserRow(1, "Alice", "en", True))
    await store.save_user(UserRow(3, "Вера", "ru", False))
    await store.save_chat(ChatRow(-100, "ru", '{"game":"perevodnoy"}', 7))
    await store.save_chat(ChatRow(-200, None, None, None))
    first = await playing_table(store, seats=(ALICE, BORIS, BOT))
    version = await play(store, first, 5)
    clock.advance(30.125)
    outcome = Outcome((1,), False, True, (2, 0, 2), (2, 0))
    saved = await store.save_action(
        first.table_id, version, game="final", action="a6", seat=0, outcome=outcome
    )
    await store.save_review(first.table_id, 1, 1, 0, '{"marks":[{"seq":3,"loss":0.25}]}')
    rematch = await store.start_game(
        first.table_id, saved.version, seed=2**61 + 5, game="r0", update_id=7001
    )
    await play(store, rematch, 3)
    await store.finish_update(7002)
    await store.set_messages(first.table_id, group_message_id=991, hand_message_ids=[5, None, 7])
    await store.set_deadline(first.table_id, clock.now + 90.5)
    other = await playing_table(store, chat_id=-200, seats=(VERA, ALICE))
    clock.advance(1.0)
    await store.save_action(
        other.table_id,
        other.version,
        game="e",
        action="x1",
        seat=1,
        outcome=lose(0, 2, pogony=True),
    )
    await store.create_table(-200, rules="{}", creator_id=3, seats=[VERA])
    cancelled = await store.create_table(-100, rules="{}", thread_id=7)
    await store.cancel_table(cancelled.table_id, cancelled.version)
    clock.advance(2 * 86_400)
    stale = await store.create_table(-300, rules="{}")
    clock.advance(2 * 86_400)
    purged = [t.table_id for t in await store.purge_stale_lobbies()]
    assert purged[-1] == stale.table_id  # the highest id handed out, gone
    return {"last_id": stale.table_id, "running": first.table_id}


def update(update_id: int, shard: int = 0) -> KeptUpdate:
    body = f'{{"update_id": {update_id}, "message": {{"text": "Ходи"}}}}'
    return KeptUpdate(update_id, body, shard)


async def run_processes(database: Database) -> None:
    """What running processes leave: a heartbeat, leases, a chat's pace."""
    await database.query("INSERT INTO members VALUES ('m1', 'host', 42, 1.0, 4.0)")
    await database.query("INSERT INTO shard_leases VALUES (3, 'm1', 2, 4.0), (-1, 'm1', 1, 4.0)")
    await database.query("INSERT INTO chat_pace VALUES (1, 5.0)")


@pytest.mark.parametrize(
    ("source_backend", "target_backend"),
    [
        ("sqlite", "postgresql"),
        ("postgresql", "sqlite"),
    ],
)
async def test_a_copy_holds_every_row_and_goes_on(
    source_backend: str,
    target_backend: str,
    tmp_path: Path,
    clock: FakeClock,
    postgres_url: str,
) -> None:
    def make(backend: str, name: str) -> Database:
        if backend == "sqlite":
            return SqliteDatabase(tmp_path / name)
        return PostgresDatabase(postgres_url)

    source, target = make(source_backend, "source.sqlite3"), make(target_backend, "copy.sqlite3")
    async with source.open(clock=clock) as store:
        facts = await fill(store, clock)
    await run_processes(source)
    before = await dump(source)
    kept = ("tables", "games", "actions", "tallies", "bot_state", "inbox")
    assert all(before[t] for t in (*kept, "rated_games", "ratings", "rating_history"))
    assert all(before[t] for t in EPHEMERAL_TABLES)

    code, out, err = run_copy("--from", location(source), "--to", location(target), cwd=tmp_path)
    assert code == 0, err
    assert out.startswith("durak-bot copy: copied ") and err == ""
    assert f"actions {len(before['actions'])}" in out

    # every row of the data; none of the processes that ran on the source
    assert await dump(target) == {t: [] if t in EPHEMERAL_TABLES else r for t, r in before.items()}
    assert await dump(source) == before  # the source is only read
    async with target.open(clock=clock) as copy:
        # The copy goes on where the source was: the running game, the next id.
        running = await copy.running_tables()
        assert [t.table_id for t in running] == [facts["running"]]
        assert await copy.get_state("menus") == '{"en": "ab12", "ru": "cd34"}'
        assert await copy.pending_updates() == [update(7003), update(7004, shard=5)]
        assert await copy.pending_updates([5]) == [update(7004, shard=5)]
        assert await copy.keep_updates([update(7002), update(7005)]) == [7005]
        saved = await copy.save_action(
            running[0].table_id, running[0].version, game="r4", action="b4", seat=1, update_id=7003
        )
        assert saved.seq == 4
        assert await copy.pending_updates() == [update(7004, shard=5), update(7005)]
        log = await copy.game_log(running[0].table_id, 2)
        assert [a.action for a in log] == ["a1", "a2", "a3", "b4"]
        fresh = await copy.create_table(-100, rules="{}")
        assert fresh.table_id == facts["last_id"] + 1
        assert [t.player for t in await copy.chat_stats(-100)] == ["ai:Bot", "u:1", "u:2"]
        assert (await copy.get_table(facts["running"])).status is TableStatus.PLAYING  # type: ignore[union-attr]
        # the next game finished takes the next place in the rating order
        await copy.save_action(
            running[0].table_id, saved.version, game="r5", action="a5", seat=0, outcome=lose(0, 3)
        )
        places = await target.query("SELECT seq, table_id, game_no FROM rated_games ORDER BY seq")
        assert places[-1] == (len(before["rated_games"]) + 1, facts["running"], 2)


async def test_a_target_with_rows_is_refused_untouched(
    tmp_path: Path, postgres_url: str, clock: FakeClock
) -> None:
    source, target = SqliteDatabase(tmp_path / "a.sqlite3"), PostgresDatabase(postgres_url)
    async with source.open(clock=clock) as store:
        await playing_table(store)
    async with target.open(clock=clock) as store:
        await store.save_user(UserRow(5, "Eve"))
    before = await dump(target)
    code, out, err = run_copy("--from", location(source), "--to", location(target), cwd=tmp_path)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1
    assert err.startswith("durak-bot copy: the target postgresql://")
    assert "is not empty (its table users holds rows)" in err
    assert await dump(target) == before
    # the other way round too: a SQLite file with rows
    code, _, err = run_copy("--from", location(target), "--to", location(source), cwd=tmp_path)
    assert code == 2 and "is not empty" in err and len(err.splitlines()) == 1


def test_a_missing_source_or_a_bad_address_is_refused(tmp_path: Path) -> None:
    code, out, err = run_copy(
        "--from", "sqlite:///nothing.sqlite3", "--to", "sqlite:///b.sqlite3", cwd=tmp_path
    )
    assert (code, out) == (2, "")
    assert err == "durak-bot copy: the source sqlite:///nothing.sqlite3 does not exist\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    code, _, err = run_copy("--from", "mysql://u:pw@h/db", "--to", "b.sqlite3", cwd=tmp_path)
    assert code == 2 and "not a postgresql:// nor a sqlite:/// address" in err
    code, _, err = run_copy(
        "--from", "a.sqlite3", "--to", "postgresql://u:Sekr3t@h:99999/db", cwd=tmp_path
    )
    assert code == 2 and len(err.splitlines()) == 1
    assert "Sekr3t" not in err and "port" in err


def test_an_unreachable_target_is_one_line_without_its_password(tmp_path: Path) -> None:
    (tmp_path / "a.sqlite3").touch()
    code, _, err = run_copy(
        "--from", "a.sqlite3", "--to", "postgresql://u:Sekr3t@127.0.0.1:1/db", cwd=tmp_path
    )
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith("durak-bot copy: ") and "Sekr3t" not in err
