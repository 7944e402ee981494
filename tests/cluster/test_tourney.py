"""A tournament with two processes on one PostgreSQL database: the process holding the
group's table is killed in the pause after a game, and the next game is dealt by the one
that takes the table over; the tournament goes on there."""

from __future__ import annotations

import random
from pathlib import Path

from e2e.test_tourney import game_ends, open_tourney
from fake_telegram import FakeTelegramServer, Limits

from engine import Rules

from .processes import Cluster, Reader, cluster_env, fetch, legal_move, tables_in_groups


async def test_the_next_game_is_dealt_by_whoever_holds_the_table(
    tmp_path: Path, postgres_url: str
) -> None:
    rng = random.Random(28)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = cluster_env(tg, postgres_url, tmp_path, DURAK_TOURNEY_PAUSE="3")
        cluster = Cluster(env, tmp_path, postgres_url)
        db = Reader(postgres_url)
        try:
            await cluster.start(2)
            await cluster.settled(2)
            (table,) = await tables_in_groups(tg, 1, players=2)
            conn_rules = Rules(hand_size=3).model_dump_json()
            await fetch(
                postgres_url,
                "INSERT INTO chats (chat_id, language, default_rules, thread_id, updated_at) "
                "VALUES ($1, 'en', $2, NULL, 0)",
                table.group.id,
                conn_rules,
            )
            await table.start_bots()
            await open_tourney(table)
            await table.join_all()
            await table.start()
            while await legal_move(table, db, rng):
                pass
            await tg.wait_for(lambda: len(game_ends(table)) == 1, timeout=20, what="the end")
            assert "after game 1 of 5" in game_ends(table)[0].plain_text
            # the holder dies in the pause: the other takes the table and deals game 2
            victim = await cluster.holder(table.group.id)
            (survivor,) = [b for b in cluster.live() if b is not victim]
            await cluster.kill(victim)
            await survivor.wait_for_line("tournament game 2 dealt", timeout=30)
            assert await cluster.holder(table.group.id) is survivor
            status, _, _, game = await db.table(table.table_id)
            assert status == "playing" and game is not None
            while await legal_move(table, db, rng):
                pass
            await tg.wait_for(lambda: len(game_ends(table)) == 2, timeout=20, what="game 2's end")
            assert "after game 2 of 5" in game_ends(table)[1].plain_text
            rows = await fetch(postgres_url, "SELECT status, first_game FROM tournaments")
            assert [tuple(r) for r in rows] == [("running", 1)]
            played = await fetch(
                postgres_url,
                "SELECT count(*) FROM games WHERE table_id = $1 AND outcome IS NOT NULL",
                table.table_id,
            )
            assert played[0][0] == 2, "game 1 counted once, game 2 once"
        finally:
            await db.close()
            await cluster.close()
