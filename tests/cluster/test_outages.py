"""Two bot processes on one PostgreSQL database when something fails under them, against the
fake Bot API server (each process through an address of its own, so that each one's calls
are told apart): the server restarted mid-play (a fast shutdown, or the postmaster killed
and crash recovery), and the poller SIGKILLed right after it was handed presses.

What must hold: at no moment do two processes poll Telegram at once; after the restart the
shards are shared from the start (nobody takes them all and gives half back, drawing every
table twice); no hand is left with live buttons of an old version once play stops; every
press is answered, each by one accepted answer."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest
from e2e.harness import Data, Table
from fake_telegram import FakeTelegramServer, Limits

from bot.cluster.leases import TTL

from .conftest import OwnServer
from .processes import (
    Cluster,
    Reader,
    assert_all_done,
    assert_every_press_answered,
    cluster_env,
    fetchval,
    finish,
    finished_games,
    hand_of,
    legal_press,
    play_moves,
    tables_in_groups,
)


async def stale_hands(tg: FakeTelegramServer, db: Reader, tables: Sequence[Table]) -> list[str]:
    """Each message in the players' private chats with live buttons of a table drawn for
    another version than the table's own now."""
    found = []
    for table in tables:
        version = (await db.table(table.table_id))[1]
        for user in table.users:
            for message in tg.bot_messages(tg.private_chat(user)):
                drawn = set()
                for row in message.buttons:
                    for button in row:
                        if button.callback_data is None or button.disabled:
                            continue
                        try:
                            data = Data.parse(button.callback_data)
                        except (IndexError, ValueError):
                            continue
                        if data.table == table.table_id:
                            drawn.add(data.version)
                if drawn - {version}:
                    found.append(
                        f"{user.first_name}'s message {message.message_id}: versions "
                        f"{sorted(drawn)}, table {table.table_id} at {version}"
                    )
    return found


@pytest.mark.parametrize("how", ["fast shutdown", "postmaster killed"])
async def test_a_restart_of_postgresql_leaves_one_poller_and_each_table_drawn_by_its_holder(
    tmp_path: Path, own_postgres: OwnServer, how: str
) -> None:
    url = own_postgres.url
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        cluster = Cluster(cluster_env(tg, url, tmp_path), tmp_path, url, tg)
        db = Reader(url)
        rng = random.Random(31)
        try:
            await cluster.start(2)
            await cluster.settled(2)
            tables = await tables_in_groups(tg, 8)
            for table in tables:
                await table.seat_everyone()
            await tg.settle(quiet=0.3, timeout=20)
            # each hand's message is known to the store (a process taking a table over
            # edits those: a hand it did not know of would keep its buttons)
            for table in tables:
                stored = await fetchval(
                    url, "SELECT hand_message_ids FROM tables WHERE table_id = $1", table.table_id
                )
                shown = [hand_of(table, user) for user in table.users]
                assert json.loads(stored) == [m.message_id if m else None for m in shown]
            before = {id(bot): len(bot.lines) for bot in cluster.live()}
            # play goes on at every table while the server goes away and comes back,
            # away longer than a lease lasts (a press taken just before it went away is
            # refused, changing nothing: "Something went wrong")
            playing = asyncio.gather(
                *(play_moves(t, db, rng, 10, refused=("outdated", "went wrong")) for t in tables)
            )
            await asyncio.sleep(1.0)
            if how == "fast shutdown":
                await own_postgres.stop()
            else:
                await own_postgres.kill()
            await asyncio.sleep(TTL + 0.5)
            await own_postgres.start()
            await playing
            await cluster.settled(2)
            await tg.settle(quiet=0.5, timeout=20)

            # (a) one poller at a time, before, during and after the restart
            assert tg.overlapping_polls() == [], [
                (a.port, a.time, a.ended, b.port, b.time, b.ended)
                for a, b in tg.overlapping_polls()
            ]
            assert [c for c in tg.failed_calls if c.error_code == 409] == []
            # (b) the shards shared from the start: none taken and given back again
            for bot in cluster.live():
                after = bot.lines[before[id(bot)] :]
                moved = [line for line in after if "given back" in line or "no longer held" in line]
                assert moved == [], bot.output
            assert await stale_hands(tg, db, tables) == []
            assert_every_press_answered(tg, sum(t.presses for t in tables))
            assert tg.rate_limited == []

            await asyncio.gather(*(finish(t, db, rng) for t in tables))
            await tg.settle(quiet=0.3, timeout=20)
            assert len(await finished_games(url)) == len(tables)
            assert_every_press_answered(tg, sum(t.presses for t in tables))
            await assert_all_done(url)
            for bot in cluster.live():
                # a move whose save met the server going away is refused (logged as such)
                errors = [
                    line
                    for line in bot.lines
                    if " ERROR " in line
                    and not ("saving an action failed" in line and "StoreUnavailable" in line)
                ]
                assert errors == [], bot.output
        finally:
            await db.close()
            await cluster.close()


@pytest.mark.parametrize("moment", ["updates just handed out", "an answer under way"])
async def test_every_press_handed_to_a_poller_killed_then_is_answered(
    tmp_path: Path, postgres_url: str, moment: str
) -> None:
    """Presses at four tables at once, two held by the poller and two by the other process;
    the poller is SIGKILLed the moment the fake server handed it the presses (whether it
    kept them yet or not), or once it has saved a move and sent its answer, before the
    answer arrives. The other process answers every press, and the games play on."""
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        cluster = Cluster(cluster_env(tg, postgres_url, tmp_path), tmp_path, postgres_url, tg)
        db = Reader(postgres_url)
        rng = random.Random(32)
        try:
            await cluster.start(2)
            await cluster.settled(2)
            poller = await cluster.poller()
            assert poller is not None
            port = next(p for p, bot in cluster.ports.items() if bot is poller)
            mine: list[Table] = []
            others: list[Table] = []
            while len(mine) < 2 or len(others) < 2:
                (table,) = await tables_in_groups(tg, 1)
                side = mine if await cluster.holder(table.group.id) is poller else others
                if len(side) < 2:
                    side.append(table)
            tables = mine + others
            for table in tables:
                await table.seat_everyone()
                await play_moves(table, db, rng, 2)
            await tg.settle(quiet=0.3, timeout=20)

            held = tg.hold("answerCallbackQuery") if moment == "an answer under way" else None
            chosen = [await legal_press(t, db, rng) for t in tables]
            presses = []
            for table, pick in zip(tables, chosen, strict=True):
                assert pick is not None
                user, hand, data, _ = pick
                presses.append(await tg.press(user, hand, data=data))
                table.presses += 1
            if held is not None:
                await tg.wait_for(
                    lambda: any(c.port == port for c in held.calls), timeout=20, what="an answer"
                )
            else:
                ids = {p.update_id for p in presses}

                def handed() -> bool:
                    return any(
                        c.port == port
                        and c.method == "getUpdates"
                        and c.ok
                        and ids & {u.get("update_id") for u in c.result or []}
                        for c in tg.calls
                    )

                await tg.wait_for(handed, timeout=20, what="the presses handed out")
            await cluster.kill(poller)
            if held is not None:
                held.release()
            for press in presses:
                answer = await press.answer(timeout=20)
                assert answer.text is None or "outdated" in answer.text, answer.text

            await asyncio.gather(*(finish(t, db, rng) for t in tables))
            await tg.settle(quiet=0.3, timeout=20)
            assert len(await finished_games(postgres_url)) == len(tables)
            assert_every_press_answered(tg, sum(t.presses for t in tables))
            assert await stale_hands(tg, db, tables) == []
            await assert_all_done(postgres_url)
        finally:
            await db.close()
            await cluster.close()
