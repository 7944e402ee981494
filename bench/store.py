"""Benchmark of the store: durable action saves per second, and the start-up load.

    .venv/bin/python bench/store.py [--saves 5000] [--tables 10000] [--dir DIR]
                                    [--database postgresql://user:pass@host/db]

Besides the rates it prints the CPU time (the process's, every thread) per save and per
move (the move's update kept, then its action saved).

Targets (issue 4, SQLite): at least 2,000 durable saves a second; 10,000 running tables
loaded in at most 2 s. With ``--database`` (or ``DURAK_DATABASE_URL``) the same runs on
PostgreSQL too, for comparison, each phase in a schema of its own that is dropped at the
end (nothing else in that database is touched); run it against a server with its
production settings (``fsync`` and ``synchronous_commit`` on), or the saves are not
durable. Game states are real engine JSON from seeded random playouts, prepared before
the clock starts: the engine's time is not the store's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Run as a script, Python puts bench/ first on the path, where bench/engine.py would shadow
# the engine package: look in the project root first.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg

from bot.store import KeptUpdate, Opening, Outcome, Seat, SqliteStore, Store, TableRow
from bot.store.config import URL_ENV, Synchronous, mask_url
from bot.store.models import seats_to_json
from bot.store.postgres import PostgresStore
from engine import Game, Rules

SAVES_TARGET = 2_000
LOAD_TARGET = 2.0


def playout(seed: int, players: int) -> list[tuple[str, str, int]]:
    """(state JSON, action JSON, seat) after each action of one random game."""
    rng = random.Random(seed)
    game = Game.new(Rules.preset("podkidnoy"), players=players, seed=seed)
    steps = []
    while game.result is None:
        seat = rng.choice(game.to_act())
        action = rng.choice(game.legal_actions(seat))
        game.apply(action)
        if game.result is None:
            steps.append((game.to_json(), json.dumps(action.to_dict()), seat))
    return steps


def seats(players: int) -> list[Seat]:
    return [Seat.human(100 + i, f"Player {i}") for i in range(players)]


class Backend:
    """Where the benchmark's databases are made: one new database per phase."""

    name: str

    def open(self, phase: str) -> Opening[Store]:
        raise NotImplementedError

    async def fill(self, phase: str, rows: list[tuple[Any, ...]]) -> None:
        """Write rows of ``tables`` straight into the phase's database (setup, not timed)."""
        raise NotImplementedError

    async def close(self) -> None:
        pass


class SqliteBackend(Backend):
    def __init__(self, folder: Path, synchronous: Synchronous = "NORMAL") -> None:
        self.folder = folder
        self.synchronous = synchronous
        self.name = f"SQLite, synchronous={synchronous}"

    def open(self, phase: str) -> Opening[Store]:
        path = self.folder / f"{phase}-{self.synchronous}.sqlite3"
        return SqliteStore.open(path, synchronous=self.synchronous)

    async def fill(self, phase: str, rows: list[tuple[Any, ...]]) -> None:
        db = sqlite3.connect(self.folder / f"{phase}-{self.synchronous}.sqlite3")
        db.execute("BEGIN")
        db.executemany(
            f"INSERT INTO tables ({FILL_COLUMNS}) VALUES ({', '.join('?' * FILL_WIDTH)})", rows
        )
        db.execute("COMMIT")
        db.close()


class PostgresBackend(Backend):
    """Each phase in a new schema of the given database (dropped by :meth:`close`)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.name = "PostgreSQL"
        self.schemas: list[str] = []

    def _url(self, phase: str) -> str:
        schema = f"durak_bench_{os.getpid()}_{phase}"
        joiner = "&" if "?" in self.url else "?"
        return f"{self.url}{joiner}search_path={schema}"

    def open(self, phase: str) -> Opening[Store]:
        schema = f"durak_bench_{os.getpid()}_{phase}"

        async def opener() -> Store:
            if schema not in self.schemas:
                conn = await asyncpg.connect(self.url)
                await conn.execute(f"CREATE SCHEMA {schema}")
                await conn.close()
                self.schemas.append(schema)
            return await PostgresStore.open(self._url(phase), connections=10)

        return Opening(opener)

    async def fill(self, phase: str, rows: list[tuple[Any, ...]]) -> None:
        conn = await asyncpg.connect(self._url(phase))
        await conn.copy_records_to_table(
            "tables", records=rows, columns=[c.strip() for c in FILL_COLUMNS.split(",")]
        )
        await conn.close()

    async def close(self) -> None:
        conn = await asyncpg.connect(self.url)
        for schema in self.schemas:
            await conn.execute(f"DROP SCHEMA {schema} CASCADE")
        await conn.close()


async def open_tables(store: Store, n: int, players: int) -> list[TableRow]:
    tables = []
    for i in range(n):
        lobby = await store.create_table(-1000 - i, rules="{}", seats=seats(players))
        tables.append(await store.start_game(lobby.table_id, 0, seed=i, game="{}"))
    return tables


async def bench_saves(backend: Backend, saves: int) -> tuple[float, float, float]:
    """Saves per second: one table after another; then 100 tables at once. And the CPU
    time (the bot process's, every thread) per save, one after another."""
    steps = playout(1, 4)
    async with backend.open("saves") as store:
        (table,) = await open_tables(store, 1, 4)
        version = table.version
        start, cpu = time.perf_counter(), time.process_time()
        for i in range(saves):
            game, action, seat = steps[i % len(steps)]
            version = (
                await store.save_action(
                    table.table_id, version, game=game, action=action, seat=seat
                )
            ).version
        sequential = saves / (time.perf_counter() - start)
        cpu_per_save = (time.process_time() - cpu) / saves

        tables = await open_tables(store, 100, 4)
        per_table = max(1, saves // len(tables))

        async def play(t: TableRow) -> None:
            v = t.version
            for i in range(per_table):
                game, action, seat = steps[i % len(steps)]
                v = (
                    await store.save_action(t.table_id, v, game=game, action=action, seat=seat)
                ).version

        start = time.perf_counter()
        await asyncio.gather(*(play(t) for t in tables))
        concurrent = per_table * len(tables) / (time.perf_counter() - start)
    return sequential, concurrent, cpu_per_save


async def bench_moves(backend: Backend, moves: int) -> float:
    """CPU time per move of what a move asks of the store: its update kept as it arrives,
    then the action saved, which marks that update done."""
    steps = playout(3, 4)
    body = json.dumps({"update_id": 0, "callback_query": {"id": "1" * 19, "data": "x" * 40}})
    async with backend.open("moves") as store:
        (table,) = await open_tables(store, 1, 4)
        version = table.version
        cpu = time.process_time()
        for i in range(1, moves + 1):
            await store.keep_updates([KeptUpdate(i, body)])
            game, action, seat = steps[i % len(steps)]
            saved = await store.save_action(
                table.table_id, version, game=game, action=action, seat=seat, update_id=i
            )
            version = saved.version
        return (time.process_time() - cpu) / moves


async def bench_finishes(backend: Backend, n: int) -> float:
    """Finishing saves per second: state, log line, result and 4 tallies in one commit."""
    steps = playout(2, 4)
    outcome = Outcome(durak_seats=(2,), draw=False, pogony=False, points=(2, 2, 0, 2))
    async with backend.open("finish") as store:
        tables = await open_tables(store, n, 4)
        start = time.perf_counter()
        for t in tables:
            game, action, seat = steps[-1]
            await store.save_action(
                t.table_id, t.version, game=game, action=action, seat=seat, outcome=outcome
            )
        return n / (time.perf_counter() - start)


FILL_COLUMNS = (
    "chat_id, thread_id, status, creator_id, seats, rules, game_no, seed, game, version, "
    "moves, group_message_id, hand_message_ids, deadline, created_at, updated_at"
)
FILL_WIDTH = len(FILL_COLUMNS.split(","))


def running_rows(n: int) -> list[tuple[Any, ...]]:
    """``n`` mid-game tables, as rows of ``tables`` in FILL_COLUMNS' order."""
    states = []
    for seed in range(50):
        players = 2 + seed % 5
        steps = playout(seed, players)
        states.append((players, steps[len(steps) // 2][0]))
    now = time.time()
    rules = Rules.preset("podkidnoy").model_dump_json()
    return [
        (
            -1_000_000 - i,
            None,
            "playing",
            100 + i,
            seats_to_json(seats(states[i % 50][0])),
            rules,
            1,
            i,
            states[i % 50][1],
            40,
            30,
            5000 + i,
            json.dumps(list(range(9000, 9000 + states[i % 50][0]))),
            now + 60,
            now,
            now,
        )
        for i in range(n)
    ]


async def bench_load(backend: Backend, n: int) -> tuple[float, float, float, float]:
    """Seconds to open the store and load ``n`` running tables; and to parse their games."""
    async with backend.open("load"):
        pass
    await backend.fill("load", running_rows(n))
    start = time.perf_counter()
    store = await backend.open("load")
    opened = time.perf_counter()
    tables = await store.running_tables()
    loaded = time.perf_counter()
    await store.close()
    assert len(tables) == n
    parse_start = time.perf_counter()
    for t in tables:
        assert t.game is not None
        Game.from_json(t.game)
    parsed = time.perf_counter() - parse_start
    return loaded - start, opened - start, loaded - opened, parsed


async def run(backend: Backend, saves: int, tables: int) -> tuple[float, float]:
    """Every phase on one backend, printed; (slowest save rate, load seconds)."""
    sequential, concurrent, cpu_per_save = await bench_saves(backend, saves)
    print(
        f"{backend.name}: durable action saves: {sequential:,.0f}/s to one table, "
        f"{concurrent:,.0f}/s to 100 tables at once  [target >= {SAVES_TARGET:,}/s]; "
        f"CPU {cpu_per_save * 1e6:,.0f} us a save"
    )
    per_move = await bench_moves(backend, saves)
    print(
        f"{backend.name}: a move's store calls (keep its update, save its action): "
        f"CPU {per_move * 1e6:,.0f} us a move"
    )
    finishes = await bench_finishes(backend, 1000)
    print(f"{backend.name}: finishing saves (state + log + result + 4 tallies): {finishes:,.0f}/s")
    total, opened, query, parsed = await bench_load(backend, tables)
    print(
        f"{backend.name}: load {tables:,} running tables: {total:.3f} s (open {opened:.3f} s, "
        f"query {query:.3f} s)  [target <= {LOAD_TARGET} s]; "
        f"then Game.from_json for all: {parsed:.3f} s"
    )
    return min(sequential, concurrent), total


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=5000, help="action saves to time")
    parser.add_argument("--tables", type=int, default=10_000, help="running tables to load")
    parser.add_argument("--dir", type=Path, default=None, help="folder for the database files")
    parser.add_argument(
        "--database",
        default=os.environ.get(URL_ENV, ""),
        help=f"a PostgreSQL database to compare with (default: ${URL_ENV})",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="durak-bench-") as tmp:
        folder = Path(tmp)
        print(
            f"store benchmark: SQLite {sqlite3.sqlite_version}, "
            f"Python {sys.version.split()[0]}, files in {folder}"
        )
        ok = True
        for synchronous in ("NORMAL", "FULL"):
            rate, total = await run(SqliteBackend(folder, synchronous), args.saves, args.tables)
            if synchronous == "NORMAL":  # the default
                ok &= rate >= SAVES_TARGET and total <= LOAD_TARGET
        if args.database:
            backend = PostgresBackend(args.database)
            conn = await asyncpg.connect(args.database)
            version = await conn.fetchval("SHOW server_version")
            settings = [
                f"{name}={await conn.fetchval(f'SHOW {name}')}"
                for name in ("fsync", "synchronous_commit")
            ]
            await conn.close()
            print(
                f"PostgreSQL {version} at {mask_url(args.database)} "
                f"({', '.join(settings)}), asyncpg {asyncpg.__version__}"
            )
            try:
                await run(backend, args.saves, args.tables)
            finally:
                await backend.close()
        print("targets met" if ok else "TARGETS MISSED")
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
