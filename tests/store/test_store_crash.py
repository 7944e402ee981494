"""Crash test: a child process plays games into the store and is SIGKILLed at random.

After every kill the store must hold whole transactions only, and each update the worker
kept is done exactly when its move is saved (else pending); after the last restart every
game is finished, every update done, each game's log replays from its seed to exactly the
stored state (no action missing or doubled), and every series tally equals what the
finished games say.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import store_crash_worker as worker
from store_backends import BACKENDS, Database, PostgresDatabase, SqliteDatabase

from bot.store import Outcome, TableStatus
from engine import Game, Rules
from engine.actions import action_from_dict

WORKER = Path(worker.__file__).resolve()
ROOT = WORKER.parents[2]
ROUNDS = 24
"""Kill rounds; at least MIN_KILLS of them must hit while games are still being played."""
MIN_KILLS = 20
EARLY_KILLS = 3
"""Extra kills during the worker's start-up (imports, creating the schema)."""


def start_worker(database: Database) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(WORKER.parent)])}
    where = str(database.path) if isinstance(database, SqliteDatabase) else database.url
    return subprocess.Popen(
        [sys.executable, str(WORKER), where],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def query(database: Database, sql: str) -> list[tuple[Any, ...]]:
    return asyncio.run(database.query(sql))


def logged_actions(database: Database) -> int:
    if isinstance(database, SqliteDatabase) and not database.path.exists():
        return 0
    try:
        return int(query(database, "SELECT count(*) FROM actions")[0][0])
    except (sqlite3.OperationalError, asyncpg.UndefinedTableError):  # killed before the schema
        return 0


def check_whole_transactions(database: Database) -> None:
    """What must hold at every moment, whenever the process died."""
    seats = "g.seats" if database.backend == "sqlite" else "g.seats::json"
    for table_id, moves, logged, last in query(
        database,
        "SELECT t.table_id, t.moves, count(a.seq), max(a.seq) FROM tables t "
        "LEFT JOIN actions a ON a.table_id = t.table_id AND a.game_no = t.game_no "
        "GROUP BY t.table_id",
    ):
        assert logged == moves == (last or 0), f"table {table_id}: torn action save"
    for table_id, game_no, outcome, players_n, players in query(
        database,
        f"SELECT g.table_id, g.game_no, g.outcome, json_array_length({seats}), "
        "(SELECT count(*) FROM game_players p "
        " WHERE p.table_id = g.table_id AND p.game_no = g.game_no) FROM games g",
    ):
        expected = players_n if outcome is not None else 0
        assert players == expected, f"table {table_id} game {game_no}: torn finish"
    tallied = query(database, "SELECT coalesce(sum(games), 0) FROM tallies")[0][0]
    finished = query(database, "SELECT count(*) FROM game_players")[0][0]
    assert tallied == finished, "tallies disagree with the finished games"
    status_games = query(
        database,
        "SELECT count(*) FROM tables t JOIN games g "
        "ON g.table_id = t.table_id AND g.game_no = t.game_no "
        "WHERE (t.status = 'finished') != (g.outcome IS NOT NULL)",
    )[0][0]
    assert status_games == 0, "a table's status disagrees with its game's outcome"
    check_inbox(database)


def check_inbox(database: Database) -> None:
    """Each move (a logged action, a game's start) has its update done; each update not
    done has no move: a kill never leaves a move whose update is pending, nor the reverse."""
    moves = set(query(database, "SELECT table_id, game_no, seq FROM actions"))
    moves |= {(t, g, 0) for t, g in query(database, "SELECT table_id, game_no FROM games")}
    done, pending = set(), set()
    for update_id, done_at in query(database, "SELECT update_id, done_at FROM inbox"):
        (pending if done_at is None else done).add(worker.move_of(update_id))
    assert not done - moves, f"updates done without their move: {sorted(done - moves)[:5]}"
    assert not moves - done, f"moves whose update is not done: {sorted(moves - done)[:5]}"
    tables = Counter(table_id for table_id, _, _ in pending)
    assert max(tables.values(), default=0) <= 1, f"two pending updates at a table: {tables}"


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_sigkill_at_random_moments_loses_nothing(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    # PostgreSQL's database starts empty: the first kills hit its migrations too
    database: Database = (
        SqliteDatabase(tmp_path / "crash.sqlite3")
        if backend == "sqlite"
        else PostgresDatabase(request.getfixturevalue("postgres_url"))
    )
    references = {s.index: worker.reference_games(s) for s in worker.ALL_SPECS}
    total = sum(n for finals in references.values() for _, n in finals)
    rng = random.Random(int(os.environ.get("STORE_CRASH_SEED", "20240601")))
    rate = 3000.0  # actions per second; re-estimated after every round
    # First a few kills while the worker starts: while it creates and migrates the schema.
    for _ in range(EARLY_KILLS):
        proc = start_worker(database)
        time.sleep(rng.uniform(0.05, 0.4))
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        assert proc.returncode in (-signal.SIGKILL, 0)
    kills = 0
    for round_no in range(ROUNDS):
        before = logged_actions(database)
        remaining = total - before
        rounds_left = ROUNDS - round_no
        # The rate is taken as the fastest seen: a worker that finishes before its kill
        # leaves nothing for the rounds after it, while one killed early is killed all the
        # same.
        delay = rng.uniform(0.0, remaining / rate / (rounds_left + 1))
        proc = start_worker(database)
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        if line != "ready":
            proc.kill()
            _, err = proc.communicate()
            pytest.fail(f"worker did not start: {line!r}\n{err}")
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
        if proc.returncode == -signal.SIGKILL:
            after = logged_actions(database)
            if after < total:
                kills += 1
            if delay > 0.005 and after > before:
                rate = max(rate, (after - before) / delay)
        else:
            assert proc.returncode == 0, f"worker failed:\n{err}"
            assert "done" in out
        check_whole_transactions(database)
    assert kills >= MIN_KILLS, f"only {kills} kills hit a running worker"

    # The last restart, left alone, finishes every game.
    proc = start_worker(database)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert out.split() == ["ready", "done"]
    check_whole_transactions(database)
    asyncio.run(verify(database, references))


async def verify(database: Database, references: dict[int, list[tuple[str, int]]]) -> None:
    """Replay every logged game from its seed; recount every tally."""
    expected: dict[int, Counter[str]] = {}
    last_played: dict[tuple[int, str], float] = {}
    async with database.open() as store:
        assert await store.running_tables() == []
        assert await store.pending_updates() == []
        for c, chat_id in enumerate(worker.CHATS):
            tables = await store.chat_tables(chat_id, list(TableStatus))
            assert len(tables) == worker.TABLES_PER_CHAT
            for k, table in enumerate(tables):
                spec = worker.spec(c, k)
                assert table.status is TableStatus.FINISHED
                assert table.game_no == worker.GAMES_PER_TABLE
                assert table.seats == spec.seats
                previous = None
                for game_no in range(1, worker.GAMES_PER_TABLE + 1):
                    record = await store.game_record(table.table_id, game_no)
                    assert record is not None and record.outcome is not None
                    assert record.seed == spec.seed(game_no)
                    log = await store.game_log(table.table_id, game_no)
                    assert [a.seq for a in log] == list(range(1, len(log) + 1))
                    game = Game.new(
                        Rules.model_validate_json(record.rules),
                        players=len(record.seats),
                        seed=record.seed,
                        previous=previous,
                    )
                    for entry in log:
                        assert game.result is None, "an action logged after the end"
                        action = action_from_dict(json.loads(entry.action))
                        assert action.seat == entry.seat
                        game.apply(action)
                    assert game.result is not None, "the log stops before the end"
                    final = game.to_json()
                    assert final == record.final_game
                    assert (final, len(log)) == references[spec.index][game_no - 1]
                    assert Outcome.from_result(game.result) == record.outcome
                    previous = game.result
                    tally = expected.setdefault(chat_id, Counter())
                    for i, seat in enumerate(record.seats):
                        lost = i in record.outcome.durak_seats
                        tally[f"{seat.player}:games"] += 1
                        tally[f"{seat.player}:durak"] += lost
                        tally[f"{seat.player}:pogony"] += lost and record.outcome.pogony
                        tally[f"{seat.player}:draws"] += record.outcome.draw
                        tally[f"{seat.player}:points"] += record.outcome.points[i]
                        assert record.finished_at is not None
                        key = (chat_id, seat.player)
                        last_played[key] = max(last_played.get(key, 0.0), record.finished_at)
                assert table.game == final
            stats = await store.chat_stats(chat_id)
            got: Counter[str] = Counter()
            for row in stats:
                got[f"{row.player}:games"] += row.games
                got[f"{row.player}:durak"] += row.durak
                got[f"{row.player}:pogony"] += row.pogony
                got[f"{row.player}:draws"] += row.draws
                got[f"{row.player}:points"] += row.points
                assert row.last_played == last_played[(chat_id, row.player)]
            assert +got == +expected[chat_id]
