"""The bot on PostgreSQL (``DURAK_DATABASE_URL``): a game pressed to its end, every press
kept in the inbox and done, a restart, the series kept; nothing written to a SQLite file."""

from __future__ import annotations

import json
import random
from pathlib import Path

import asyncpg
from fake_telegram import FakeTelegramServer, Limits

from bot.store import TableStatus
from bot.store.postgres import PostgresStore
from engine import Game, Rules
from engine.actions import action_from_dict

from .harness import Table, bot_running, settings_for


async def test_a_game_to_its_end_and_a_restart_on_postgresql(
    tmp_path: Path, postgres_url: str
) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        settings = settings_for(tg, db, database_url=postgres_url)
        async with bot_running(tg, db, settings=settings):
            await table.seat_everyone()
            end = await table.play_to_end(random.Random(3))
        assert tg.rate_limited == []
        async with PostgresStore.open(postgres_url) as store:
            row = await store.get_table(table.table_id)
            assert row is not None and row.status is TableStatus.FINISHED
            record = await store.game_record(table.table_id, 1)
            assert record is not None and record.outcome is not None
            game = Game.new(Rules.model_validate_json(record.rules), players=2, seed=record.seed)
            log = await store.game_log(table.table_id, 1)
            assert [a.seq for a in log] == list(range(1, row.moves + 1))
            for entry in log:
                game.apply(action_from_dict(json.loads(entry.action)))
            assert game.to_json() == record.final_game == row.game
            tallies = await store.chat_stats(table.group.id)
            assert sorted(t.games for t in tallies) == [1, 1]
            assert sum(t.durak for t in tallies) == len(record.outcome.durak_seats)
            durak = [t.name for t in tallies if t.durak]
            assert all(name in end.plain_text for name in durak)
            assert await store.pending_updates() == []
        conn = await asyncpg.connect(postgres_url)
        try:
            kept = await conn.fetchval("SELECT count(*) FROM inbox WHERE done_at IS NOT NULL")
            # the last press was done by the transaction that saved its move, at its time
            done_at, moved_at = await conn.fetchrow(
                "SELECT i.done_at, a.at FROM tables t JOIN inbox i ON i.update_id = t.last_update "
                "JOIN actions a ON a.table_id = t.table_id AND a.game_no = t.game_no "
                "AND a.seq = t.moves WHERE t.table_id = $1",
                table.table_id,
            )
        finally:
            await conn.close()
        assert kept >= row.moves
        assert done_at == moved_at
        # started again on the same database, the bot has the series
        async with bot_running(tg, db, settings=settings):
            stats = await table.stats()
            for user in table.users:
                assert user.first_name in stats.plain_text
    assert not db.exists()
