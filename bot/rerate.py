"""``python -m bot.rerate --rebuild``: rate every finished game again, from scratch;
``--achievements``: give every achievement again, from scratch.

Ratings are a function of the stored results in the order they finished; this forgets
them and recomputes them in one transaction (the same numbers the bot reached game by
game). Achievements are a function of the counted games in that order and of what each
game's log says of its seats (its feats): ``--achievements`` reads every finished game's
log again with the engine, then, in one transaction, writes the feats, forgets every
achievement a game gives and gives them again game by game (the same set the bot reached;
the tournaments' are kept). With both, the ratings go first: they say which games count.

The database is ``--db``, else ``$DURAK_DB_PATH``, else ``./durak.sqlite3``; it may stay in
use by a running bot, whose next rating waits for the rebuild to commit.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from collections.abc import Sequence

from bot.base.config import PROGRAM
from bot.service.feats import stored_feats
from bot.store import StoreError, open_store, resolve_path, resolve_url
from bot.store.config import POSTGRES_SCHEMES, mask_url


async def _rebuild(path: str, url: str, *, rate: bool, achieve: bool) -> list[str]:
    """Rebuild what was asked; a line of figures for each."""
    done: list[str] = []
    async with open_store(path, url=url) as store:
        if rate:
            counted, finished = await store.rebuild_ratings()
            done.append(f"rated {counted} of {finished} finished games")
        if achieve:
            feats = await stored_feats(store)
            players, given = await store.rebuild_achievements(feats)
            done.append(f"gave {given} achievements to {players} players")
    return done


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
        "--achievements",
        action="store_true",
        help="read every finished game's log again and give every achievement again, in order",
    )
    parser.add_argument(
        "--db",
        help="the database file or postgresql:// address "
        "(default: $DURAK_DATABASE_URL, else $DURAK_DB_PATH)",
    )
    args = parser.parse_args(argv)
    if not args.rebuild and not args.achievements:
        parser.print_usage(sys.stderr)
        print(
            f"{PROGRAM}: say --rebuild to recompute the ratings, --achievements the achievements",
            file=sys.stderr,
        )
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
        done = asyncio.run(_rebuild(str(path), url, rate=args.rebuild, achieve=args.achievements))
    except failures as exc:
        print(f"{PROGRAM}: {where}: {exc}", file=sys.stderr)
        return 1
    for line in done:
        print(f"{PROGRAM}: {line} in {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
