"""The Mini App with two processes: a page connected to the process that does not hold its
table shows it, follows every change made by the holder, and its taps play there."""

from __future__ import annotations

import random
from pathlib import Path

import aiohttp
from e2e.pages import Frame, PageClient, free_port, init_data, table_token
from fake_telegram import FakeTelegramServer, Limits

from .processes import Cluster, Reader, cluster_env, finish, legal_move, tables_in_groups
from .test_processes import check_the_end


def page_presses(state: Frame) -> list[str]:
    """What may be tapped on a state: the playable cards, the buttons."""
    hand = state.get("hand") or {}
    cards = [c["press"] for c in hand.get("cards", []) if c.get("press")]
    return cards + [b["press"] for b in state.get("buttons", []) if b.get("press")]


async def test_a_page_on_the_other_process_follows_and_plays_its_table(
    tmp_path: Path, postgres_url: str
) -> None:
    ports = [free_port(), free_port()]
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = cluster_env(
            tg,
            postgres_url,
            tmp_path,
            DURAK_WEBAPP_URL=f"http://127.0.0.1:{ports[0]}/app",
            DURAK_WEBAPP_SHORT_NAME="table",
        )
        cluster = Cluster(env, tmp_path, postgres_url)
        db = Reader(postgres_url)
        rng = random.Random(9)
        try:
            first = (await cluster.start(1, DURAK_WEBAPP_PORT=str(ports[0])))[0]
            await cluster.start(1, DURAK_WEBAPP_PORT=str(ports[1]))
            await cluster.settled(2)
            (table,) = await tables_in_groups(tg, 1)
            await table.seat_everyone()
            holder = await cluster.holder(table.group.id)
            elsewhere = ports[1] if holder is first else ports[0]
            _, version, moves, game = await db.table(table.table_id)
            assert game is not None
            seat = game.to_act()[0]
            user = table.users[seat]
            async with aiohttp.ClientSession() as session:
                page = await PageClient.open(
                    session,
                    elsewhere,
                    init_data(user, tg.token),
                    table_token(tg, table.table_id),
                )
                state = await page.wait_state(lambda s: s["v"] == version and page_presses(s))
                # taps on the page until they make a move (a tap may first open a choice)
                for _ in range(4):
                    reply = await page.press(rng.choice(page_presses(state)), state["v"])
                    assert reply["t"] == "ack", reply
                    if (await db.table(table.table_id))[2] > moves:
                        break
                    shown = reply["v"]
                    state = await page.wait_state(lambda s, shown=shown: s["v"] == shown)
                assert (await db.table(table.table_id))[2] == moves + 1, "one move, made there"
                after = (await db.table(table.table_id))[1]
                await page.wait_state(lambda s: s["v"] == after)
                # moves made in the chat, held by the other process, show on the page too
                assert await legal_move(table, db, rng)
                latest = (await db.table(table.table_id))[1]
                await page.wait_state(lambda s: s["v"] == latest)
                await finish(table, db, rng)
                final = (await db.table(table.table_id))[1]
                await page.wait_state(lambda s: s["v"] == final)
                await page.close()
            await check_the_end(tg, postgres_url, [table])
        finally:
            await db.close()
            await cluster.close()
