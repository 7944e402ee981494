"""Real games, played by the table service to their end on either database: each end gives
what its replayed log and result earn, and ``python -m bot.rerate --achievements``, which
reads every log again, reaches the same set and the same feats."""

from __future__ import annotations

import asyncio
import random

import pytest
from store_backends import Database, PostgresDatabase, SqliteDatabase

from bot.rerate import main
from bot.service.tables import Live, TableService
from bot.store import Seat, Store
from engine import Rules

USERS = tuple(Seat.human(i, f"U{i}") for i in range(1, 6))
TABLES = ("achievements", "achievement_progress")


async def play_out(tables: TableService, live: Live, rng: random.Random) -> None:
    """Random legal moves until the game ends."""
    while live.game is not None and live.game.result is None:
        seat = rng.choice(live.game.to_act())
        await tables.act(live, seat, rng.choice(live.game.legal_actions(seat)))


async def evening(store: Store, seed: int) -> list[tuple[int, str]]:
    """Tables of two to five, some with a computer, two games each (the second a
    rematch, dealt after the first's result); everything the ends gave."""
    rng = random.Random(seed)
    clock = [1_700_000_000.0]

    def tick() -> float:
        clock[0] += 1.0
        return clock[0]

    tables = TableService(store, clock=tick)
    earned: list[tuple[int, str]] = []
    for t in range(8):
        n = rng.randint(2, 5)
        seats = list(rng.sample(USERS, n))
        if rng.random() < 0.3:
            seats[-1] = Seat.computer("Bot", rng.choice(("easy", "hard")))
        rules = Rules.preset(rng.choice(("podkidnoy", "perevodnoy")))
        live = await tables.create(-100 - t % 2, None, seats[0], rules, seats[1:])
        for game in range(2):
            if game:
                await tables.reopen(live, seats[0].user_id or 1)
            await tables.start(live, seed=rng.randrange(10_000))
            await play_out(tables, live, rng)
            earned += live.earned
    return earned


async def dump(db: Database) -> tuple[list[tuple[object, ...]], ...]:
    feats = await db.query(
        "SELECT table_id, game_no, seat, feats FROM game_players ORDER BY 1, 2, 3"
    )
    return (*[await db.query(f"SELECT * FROM {t} ORDER BY 1, 2") for t in TABLES], feats)


@pytest.mark.parametrize("seed", [1, 2])
async def test_the_command_reaches_what_the_games_gave(database: Database, seed: int) -> None:
    async with database.open() as store:
        earned = await evening(store, seed)
        given = [(a, await store.achievements_of(a)) for a in {u for u, _ in earned}]
    assert earned, "the games gave something"
    assert sorted(earned) == sorted((u, row.code) for u, rows in given for row in rows)
    before = await dump(database)
    assert any(f for *_, f in before[2]), "the logs said something of the seats"
    # forget the feats and the achievements: the command reads them again from the logs
    await database.query("UPDATE game_players SET feats = 0")
    await database.query("DELETE FROM achievements")
    await database.query("DELETE FROM achievement_progress")
    where = str(database.path) if isinstance(database, SqliteDatabase) else ""
    if isinstance(database, PostgresDatabase):
        where = database.url
    assert await asyncio.to_thread(main, ["--achievements", "--db", where]) == 0
    assert await dump(database) == before
