"""``python -m bot.ratings --rebuild``: rate every finished game again, from scratch.

Ratings are a function of the stored results in the order they finished; this forgets
them and recomputes them in one transaction (the same numbers the bot reached game by
game). The database is ``--db``, else ``$DURAK_DB_PATH``, else ``./durak.sqlite3``; it may
stay in use by a running bot, whose next rating waits for the rebuild to commit.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from collections.abc import Sequence

from bot.config import PROGRAM
from bot.store import StoreError, open_store, resolve_path


async def _rebuild(db: str | None) -> tuple[int, int]:
    async with open_store(db) as store:
        return await store.rebuild_ratings()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m bot.ratings", description="Recompute the skill ratings."
    )
    parser.add_argument(
        "--rebuild",
        action="store_true",
        help="forget every rating and rate every finished game again, in order",
    )
    parser.add_argument("--db", help="the database file (default: $DURAK_DB_PATH)")
    args = parser.parse_args(argv)
    if not args.rebuild:
        parser.print_usage(sys.stderr)
        print(f"{PROGRAM}: say --rebuild to recompute the ratings", file=sys.stderr)
        return 2
    path = resolve_path(args.db)
    if not path.exists():
        print(f"{PROGRAM}: no database at {path}", file=sys.stderr)
        return 1
    try:
        counted, finished = asyncio.run(_rebuild(str(path)))
    except (StoreError, sqlite3.Error) as exc:
        print(f"{PROGRAM}: {path}: {exc}", file=sys.stderr)
        return 1
    print(f"{PROGRAM}: rated {counted} of {finished} finished games in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
