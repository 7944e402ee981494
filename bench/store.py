"""Benchmark of the store: durable action saves per second, and the start-up load.

    .venv/bin/python bench/store.py [--saves 5000] [--tables 10000] [--dir DIR]

Targets (issue 4): at least 2,000 durable saves a second; 10,000 running tables loaded in
at most 2 s. Game states are real engine JSON from seeded random playouts, prepared before
the clock starts: the engine's time is not the store's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, Python puts bench/ first on the path, where bench/engine.py would shadow
# the engine package: look in the project root first.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiosqlite

from bot.store import Outcome, Seat, SqliteStore, TableRow
from bot.store.config import Synchronous
from bot.store.models import seats_to_json
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


async def open_tables(store: SqliteStore, n: int, players: int) -> list[TableRow]:
    tables = []
    for i in range(n):
        lobby = await store.create_table(-1000 - i, rules="{}", seats=seats(players))
        tables.append(await store.start_game(lobby.table_id, 0, seed=i, game="{}"))
    return tables


async def bench_saves(folder: Path, synchronous: Synchronous, saves: int) -> tuple[float, float]:
    """Saves per second: one table after another; then 100 tables at once."""
    steps = playout(1, 4)
    path = folder / f"saves-{synchronous}.sqlite3"
    async with SqliteStore.open(path, synchronous=synchronous) as store:
        (table,) = await open_tables(store, 1, 4)
        version = table.version
        start = time.perf_counter()
        for i in range(saves):
            game, action, seat = steps[i % len(steps)]
            version = (
                await store.save_action(
                    table.table_id, version, game=game, action=action, seat=seat
                )
            ).version
        sequential = saves / (time.perf_counter() - start)

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
    return sequential, concurrent


async def bench_finishes(folder: Path, n: int) -> float:
    """Finishing saves per second: state, log line, result and 4 tallies in one commit."""
    steps = playout(2, 4)
    outcome = Outcome(durak_seats=(2,), draw=False, pogony=False, points=(2, 2, 0, 2))
    async with SqliteStore.open(folder / "finish.sqlite3") as store:
        tables = await open_tables(store, n, 4)
        start = time.perf_counter()
        for t in tables:
            game, action, seat = steps[-1]
            await store.save_action(
                t.table_id, t.version, game=game, action=action, seat=seat, outcome=outcome
            )
        return n / (time.perf_counter() - start)


def fill_running_tables(path: Path, n: int) -> None:
    """Write ``n`` mid-game tables straight into a fresh store file (setup, not timed)."""
    states = []
    for seed in range(50):
        players = 2 + seed % 5
        steps = playout(seed, players)
        states.append((players, steps[len(steps) // 2][0]))
    now = time.time()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO tables (chat_id, thread_id, status, creator_id, seats, rules, game_no, seed, "
        "game, version, moves, group_message_id, hand_message_ids, deadline, created_at, "
        "updated_at) VALUES (?, NULL, 'playing', ?, ?, ?, 1, ?, ?, 40, 30, ?, ?, ?, ?, ?)",
        (
            (
                -1_000_000 - i,
                100 + i,
                seats_to_json(seats(states[i % 50][0])),
                Rules.preset("podkidnoy").model_dump_json(),
                i,
                states[i % 50][1],
                5000 + i,
                json.dumps(list(range(9000, 9000 + states[i % 50][0]))),
                now + 60,
                now,
                now,
            )
            for i in range(n)
        ),
    )
    db.execute("COMMIT")
    db.close()


async def bench_load(folder: Path, n: int) -> tuple[float, float, float, float]:
    """Seconds to open the store and load ``n`` running tables; and to parse their games."""
    path = folder / "load.sqlite3"
    async with SqliteStore.open(path):
        pass
    fill_running_tables(path, n)
    start = time.perf_counter()
    store = await SqliteStore.open(path)
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


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=5000, help="action saves to time")
    parser.add_argument("--tables", type=int, default=10_000, help="running tables to load")
    parser.add_argument("--dir", type=Path, default=None, help="folder for the database files")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="durak-bench-") as tmp:
        folder = Path(tmp)
        print(
            f"store benchmark: SQLite {sqlite3.sqlite_version}, aiosqlite "
            f"{aiosqlite.__version__}, Python {sys.version.split()[0]}, files in {folder}"
        )
        ok = True
        for synchronous in ("NORMAL", "FULL"):
            sequential, concurrent = await bench_saves(folder, synchronous, args.saves)
            note = " (the default)" if synchronous == "NORMAL" else ""
            print(
                f"durable action saves, synchronous={synchronous}{note}: "
                f"{sequential:,.0f}/s to one table, {concurrent:,.0f}/s to 100 tables at once"
                f"  [target >= {SAVES_TARGET:,}/s]"
            )
            if synchronous == "NORMAL":
                ok &= min(sequential, concurrent) >= SAVES_TARGET
        finishes = await bench_finishes(folder, 1000)
        print(f"finishing saves (state + log + result + 4 tallies): {finishes:,.0f}/s")
        total, opened, query, parsed = await bench_load(folder, args.tables)
        print(
            f"load {args.tables:,} running tables: {total:.3f} s (open {opened:.3f} s, "
            f"query {query:.3f} s)  [target <= {LOAD_TARGET} s]; "
            f"then Game.from_json for all: {parsed:.3f} s"
        )
        ok &= total <= LOAD_TARGET
        print("targets met" if ok else "TARGETS MISSED")
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
