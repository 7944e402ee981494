"""Quick games with two processes on one PostgreSQL database: players whose private chats
are held by different processes find each other in the queue, nobody is dealt twice, and
each pair's game is drawn and played by the process holding its table, across a SIGKILL of
that process too."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from e2e.test_quick import Player, play_out, table_id_of, wait_hand

from bot.store import shard_of

from .processes import fetch, two_processes


async def test_players_held_by_two_processes_are_paired_and_play(
    tmp_path: Path, postgres_url: str
) -> None:
    async with two_processes(tmp_path, postgres_url) as (tg, cluster, _db):
        # four players whose private chats one process holds, four the other's
        by_holder: dict[object, list[Player]] = {}
        n = 0
        while min((len(v) for v in by_holder.values()), default=0) < 4 or len(by_holder) < 2:
            # ids spread over the shards (the fake would number them one after another)
            user = await tg.create_user(f"Q{n}", user_id=8_000_000_000 + 29 * n)
            n += 1
            holder = await cluster.holder(user.id)
            if len(by_holder.get(holder, [])) < 4:
                sent = await tg.start_bot(user)
                await tg.wait_for_message(tg.private_chat(user), after=sent, timeout=10)
                by_holder.setdefault(holder, []).append(Player(tg, user))
        players = [p for group in by_holder.values() for p in group]
        rng = random.Random(3)
        order = players[:]
        rng.shuffle(order)
        await asyncio.gather(*(p.quick() for p in order))
        hands = [await wait_hand(p, timeout=30) for p in players]
        tables = {table_id_of(h) for h in hands}
        assert len(tables) == 4, "four pairs, each at a table of its own"
        rows = await fetch(postgres_url, "SELECT table_id, chat_id, seats FROM tables")
        assert len(rows) == 4
        assert await fetch(postgres_url, "SELECT * FROM quick_queue") == []
        # each pair plays its game to the end; one process is killed on the way
        by_table: dict[int, list[Player]] = {}
        for player, hand in zip(players, hands, strict=True):
            by_table.setdefault(table_id_of(hand), []).append(player)
        victim = await cluster.holder(rows[0]["chat_id"])
        games = [
            asyncio.create_task(play_out(pair, table, seed=table))
            for table, pair in by_table.items()
        ]
        await asyncio.sleep(1.0)
        await cluster.kill(victim)
        await asyncio.gather(*games)
        finished = await fetch(
            postgres_url, "SELECT count(*) FROM tables WHERE status = 'finished'"
        )
        assert finished[0][0] == 4
        assert shard_of(rows[0]["chat_id"]) in range(64)
