"""Bytes on disk per finished game: N two-player games played to their end by computer
players and written through the bot's own store, move by move as the bot writes them
(``bench/load.py``'s ``seed_finished_games``), then the tables that grew, measured with
their indexes: SQLite's pages (dbstat) and PostgreSQL's relations after VACUUM FULL, the
live rows alone (every move rewrites its table's row; the old versions are space that
autovacuum hands to later writes, not growth).

    .venv/bin/python bench/disk.py [--games 200] [--database URL|auto]

The inbox is not in these figures (no update comes in): ``bench/load.py`` reports its
bytes per update. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from load import seed_finished_games  # noqa: E402
from loaddb import GROWING, bench_database  # noqa: E402


async def measure(games: int, database: str) -> None:
    async with bench_database(database, Path(tempfile.mkdtemp(prefix="durak-disk-"))) as db:
        users = [SimpleNamespace(id=10_000 + i, first_name=f"P{i}") for i in range(games)]
        await seed_finished_games(db, users, seed=1)
        if db.kind == "PostgreSQL":
            for table in GROWING:
                await db.row(f"VACUUM FULL {table}")
        sizes = await db.sizes()
        moves = sizes["actions"][1]
        total = sum(size for size, _ in sizes.values())
        print(f"{db.about}: {games} games, {moves / games:.0f} moves each")
        for name, (size, rows) in sizes.items():
            if rows:
                print(
                    f"  {name}: {size / games:.0f} bytes a game "
                    f"({rows} rows, {size / rows:.0f} each)"
                )
        print(f"  in all {total / games:.0f} bytes a finished game, {total / moves:.0f} a move")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument(
        "--database", default="", metavar="URL", help="PostgreSQL too: a URL or auto"
    )
    args = parser.parse_args()
    asyncio.run(measure(args.games, ""))
    if args.database:
        asyncio.run(measure(args.games, args.database))
