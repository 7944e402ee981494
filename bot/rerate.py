"""``python -m bot.rerate --rebuild``: rate every finished game again, from scratch.

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

from bot.base.config import PROGRAM
from bot.store import StoreError, open_store, resolve_path, resolve_url
from bot.store.config import POSTGRES_SCHEMES, mask_url


async def _rebuild(path: str, url: str) -> tuple[int, int]:
    async with open_store(path, url=url) as store:
        return await store.rebuild_ratings()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m bot.rerate", description="Recompute the skill ratings."
    )
    parser.add_argument(
        "--rebuild",
        action="store_true",
        help="forget every rating and rate every finished game again, in order",
    )
    parser.add_argument(
        "--db",
        help="the database file or postgresql:// address "
        "(default: $DURAK_DATABASE_URL, else $DURAK_DB_PATH)",
    )
    args = parser.parse_args(argv)
    if not args.rebuild:
        parser.print_usage(sys.stderr)
        print(f"{PROGRAM}: say --rebuild to recompute the ratings", file=sys.stderr)
        return 2
    given = args.db
    try:
        if given is not None and given.partition("://")[0] in POSTGRES_SCHEMES:
            url = resolve_url(given)
        else:
            url = resolve_url("" if given is not None else None)
    except ValueError as exc:
        print(f"{PROGRAM}: the database address: {exc}", file=sys.stderr)
        return 1
    path = resolve_path(given if not url else None)
    where = mask_url(url) if url else str(path)
    if not url and not path.exists():
        print(f"{PROGRAM}: no database at {path}", file=sys.stderr)
        return 1
    from bot.store.postgres import CONNECT_ERRORS

    failures: tuple[type[BaseException], ...] = (StoreError, sqlite3.Error, *CONNECT_ERRORS)
    try:
        counted, finished = asyncio.run(_rebuild(str(path), url))
    except failures as exc:
        print(f"{PROGRAM}: {where}: {exc}", file=sys.stderr)
        return 1
    print(f"{PROGRAM}: rated {counted} of {finished} finished games in {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
