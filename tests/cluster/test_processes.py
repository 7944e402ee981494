"""Two and three bot processes on one token and one PostgreSQL database, against the fake
Bot API server: games played to their end across a SIGKILL of the process holding them,
across a rolling restart by SIGTERM, and across a restart of PostgreSQL; every press
answered exactly once, each move applied once (the log numbered without a gap, the version
one step a move), every tally as the games ended, no update left undone."""

from __future__ import annotations

import asyncio
import random
import signal
from collections.abc import Sequence
from pathlib import Path

from e2e.harness import Data, Table, callback_buttons, recent_moves
from fake_telegram import FakeTelegramServer, Limits

from bot.cluster.leases import TTL
from bot.store import shard_of

from .conftest import OwnServer
from .processes import (
    Cluster,
    Reader,
    assert_all_done,
    assert_answered_once,
    assert_every_press_answered,
    cluster_env,
    expected,
    fetchval,
    finish,
    finished_games,
    legal_move,
    legal_press,
    play_moves,
    shared_player_tables,
    tables_in_groups,
    tallies,
    two_processes,
)


async def check_the_end(
    tg: FakeTelegramServer,
    url: str,
    tables: Sequence[Table],
    *,
    shown: bool = True,
    killed: bool = False,
    outage: bool = False,
) -> None:
    """Every game ended once, as its log replays; each move one version; the tallies as
    the games ended; every press answered once (``killed``: once as Telegram accepts it,
    see :func:`assert_every_press_answered`); nothing left undone; no 429."""
    await tg.settle(quiet=0.3, timeout=20)
    played = {p.chat_id: p for p in await finished_games(url)}
    assert sorted(played) == sorted(t.group.id for t in tables)
    for table in tables:
        game = played[table.group.id]
        # created at 0, a version for each join and the start, then one a move
        assert game.started_version == len(table.users)
        assert game.final_version == game.started_version + game.moves
        assert await tallies(url, table.group.id) == expected(game.game, table.users)
        if shown:
            assert table.end_count() == 1
    if killed:
        assert_every_press_answered(tg, sum(t.presses for t in tables))
    else:
        assert_answered_once(tg, sum(t.presses for t in tables))
    await assert_all_done(url)
    if outage:
        # while the database was away, each process paced its sends by its own budget
        # alone: what it sent then is not in the shared one, so a table handed over at
        # the return may draw one 429 in its chat; the bot waits it out
        assert len(tg.rate_limited) <= 1, tg.rate_limited
    else:
        assert tg.rate_limited == []


async def test_games_go_on_across_a_sigkill_of_the_process_holding_them(
    tmp_path: Path, postgres_url: str
) -> None:
    async with two_processes(tmp_path, postgres_url) as (tg, cluster, db):
        rng = random.Random(5)
        tables = await tables_in_groups(tg, 3)
        for table in tables:
            await table.seat_everyone()
            await play_moves(table, db, rng, 4)
        victim = await cluster.holder(tables[0].group.id)
        (survivor,) = [b for b in cluster.live() if b is not victim]
        assert (await db.table(tables[0].table_id))[0] == "playing"
        await cluster.kill(victim)
        # its tables are taken over, drawn again and played on; the others never stop
        await asyncio.gather(*(finish(t, db, rng) for t in tables))
        await check_the_end(tg, postgres_url, tables, killed=True)
        assert await cluster.holder(tables[0].group.id) is survivor
        assert any(
            "running tables" in line and " 0 running" not in line for line in survivor.lines
        ), survivor.output


async def test_a_rolling_restart_by_sigterm_keeps_every_game_going(
    tmp_path: Path, postgres_url: str
) -> None:
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        cluster = Cluster(cluster_env(tg, postgres_url, tmp_path), tmp_path, postgres_url)
        db = Reader(postgres_url)
        rng = random.Random(6)
        try:
            old = await cluster.start(2)
            await cluster.settled(2)
            tables = await tables_in_groups(tg, 2)
            for table in tables:
                await table.seat_everyone()
            for bot in old:
                # each old process in turn: a new one joins, then the old one stops
                await cluster.start(1)
                await cluster.settled(3)
                for table in tables:
                    await play_moves(table, db, rng, 3)
                moving = asyncio.gather(*(play_moves(t, db, rng, 4) for t in tables))
                assert await cluster.stop(bot) == 0
                await moving
                assert "cluster: left, every lease given back" in bot.output
                await cluster.settled(2)
            await asyncio.gather(*(finish(t, db, rng) for t in tables))
            await check_the_end(tg, postgres_url, tables)
            for bot in old:
                assert " ERROR " not in bot.output and "Traceback" not in bot.output, bot.output
        finally:
            await db.close()
            await cluster.close()


async def test_three_processes_play_on_across_a_restart_of_postgresql(
    tmp_path: Path, own_postgres: OwnServer
) -> None:
    url = own_postgres.url
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        cluster = Cluster(cluster_env(tg, url, tmp_path), tmp_path, url)
        db = Reader(url)
        rng = random.Random(7)
        try:
            await cluster.start(3)
            await cluster.settled(3)
            # Ann sits at every table: her private chat gets hands from all three processes
            tables = await shared_player_tables(tg, range(3))
            for table in tables:
                await table.seat_everyone()
                await play_moves(table, db, rng, 3)
            chosen = await legal_press(tables[0], db, rng)
            assert chosen is not None
            user, hand, data, _ = chosen
            await own_postgres.stop()
            # pressed while the database is down, and down for longer than a lease lasts
            press = await tg.press(user, hand, data=data)
            tables[0].presses += 1
            await asyncio.sleep(TTL + 0.5)
            await own_postgres.start()
            answer = await press.answer(timeout=30)
            assert answer.text is None, answer.text
            await asyncio.gather(*(finish(t, db, rng) for t in tables))
            await check_the_end(tg, url, tables, outage=True)
            for bot in cluster.live():
                assert "cluster: the leases are renewed again" in bot.output, bot.output
                assert " ERROR " not in bot.output and "Traceback" not in bot.output, bot.output
        finally:
            await db.close()
            await cluster.close()


async def test_a_player_gets_his_cards_again_from_whichever_process_holds_his_table(
    tmp_path: Path, postgres_url: str
) -> None:
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        cluster = Cluster(cluster_env(tg, postgres_url, tmp_path), tmp_path, postgres_url)
        try:
            await cluster.start(2)
            await cluster.settled(2)
            creator = await tg.create_user("Ann", language_code="en")
            group = await tg.create_group("Friends", members=[creator], creator=creator)
            holder = await cluster.holder(group.id)
            # a player whose private chat is the other process's
            while True:
                player = await tg.create_user("Bob", language_code="en")
                if await cluster.holder(player.id) is not holder:
                    break
            await tg.add_member(group, player)
            table = Table(tg, [creator, player], group)
            await table.seat_everyone()
            before = table.hand(player)
            assert before is not None
            asked = await tg.send_command(player, tg.private_chat(player), "hand")
            again = await tg.wait_for_message(
                tg.private_chat(player),
                lambda m: m.message_id > asked.message_id and bool(callback_buttons(m)),
                timeout=20,
            )
            assert callback_buttons(again) == callback_buttons(before), "the same hand, anew"
            await tg.wait_for(lambda: tg.message(before.chat_id, before.message_id).deleted, 10)
            db = Reader(postgres_url)
            try:
                await finish(table, db, random.Random(8))
            finally:
                await db.close()
            await check_the_end(tg, postgres_url, [table])
        finally:
            await cluster.close()


async def test_a_group_upgraded_takes_its_game_to_the_process_of_the_supergroup(
    tmp_path: Path, postgres_url: str
) -> None:
    async with two_processes(tmp_path, postgres_url) as (tg, cluster, db):
        rng = random.Random(10)
        (table,) = await tables_in_groups(tg, 1)
        await table.seat_everyone()
        await play_moves(table, db, rng, 3)
        old = table.group
        before = await cluster.holder(old.id)
        # supergroup ids are handed out in turn: the next one is of the other process
        while True:
            probe = await tg.create_supergroup("Elsewhere")
            if await cluster.holder(probe.id - 1) is not before:
                break
        new = await tg.migrate_to_supergroup(old, by=table.users[0])
        after = await cluster.holder(new.id)
        assert after is not before
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        moved = "SELECT chat_id FROM tables WHERE table_id = $1"
        while await fetchval(postgres_url, moved, table.table_id) != new.id:
            assert loop.time() < deadline, "the table did not move to the supergroup"
            await asyncio.sleep(0.05)
        # drawn anew in the supergroup by the process that holds it now, and played on
        await tg.wait_for_message(new, lambda m: "Trump" in (m.text or ""), timeout=20)
        table.group = new
        await finish_in(table, db, rng)
        await check_the_end(tg, postgres_url, [table], shown=False)
        ends = [
            m
            for m in tg.bot_messages(new)
            if any(d[1:].startswith("m.") for d in callback_buttons(m))
        ]
        assert len(ends) == 1, "the end told once, in the supergroup"
        # the old holder let the table go and told the new one, which took it at once
        taken = f"cluster: shards {shard_of(new.id)} taken, 1 running tables"
        assert any(taken in line for line in after.lines), after.output


async def finish_in(table: Table, db: Reader, rng: random.Random) -> None:
    """Legal moves until the game is over (its end is looked for by the caller)."""
    while await legal_move(table, db, rng):
        pass


async def test_a_player_who_just_started_the_bot_is_seated_though_another_process_is_behind(
    tmp_path: Path, postgres_url: str
) -> None:
    """Ann presses Start in her private chat and at once opens a table in the group; Bob
    presses Start and at once Join. Their private chats are another process's, stopped for
    a moment: the group's process waits for their /start instead of taking them for people
    who never started the bot."""
    async with two_processes(tmp_path, postgres_url) as (tg, cluster, db):
        poller = await cluster.poller()
        assert poller is not None
        (behind,) = [b for b in cluster.live() if b is not poller]
        assert behind.proc is not None
        users = []
        while len(users) < 2:
            user = await tg.create_user(f"{'AB'[len(users)]}nn", language_code="en")
            if await cluster.holder(user.id) is behind:
                users.append(user)
        ann, bob = users
        while True:
            group = await tg.create_group("Friends", members=users, creator=ann)
            if await cluster.holder(group.id) is poller:
                break
        table = Table(tg, users, group)

        behind.proc.send_signal(signal.SIGSTOP)
        try:
            await tg.start_bot(ann)
            await tg.send_command(ann, group, "newgame")
            await asyncio.sleep(1.5)
        finally:
            behind.proc.send_signal(signal.SIGCONT)
        lobby = table.lobby = await tg.wait_for_message(
            group, lambda m: bool(callback_buttons(m)), timeout=15
        )
        table.known_table = Data.parse(table.lobby_button("j")).table
        assert "1/6" in lobby.plain_text and "Ann" in lobby.plain_text, lobby.plain_text
        assert not [m for m in tg.bot_messages(group) if "/start" in (m.text or "")], (
            "Ann was not asked to start the bot: she had"
        )

        behind.proc.send_signal(signal.SIGSTOP)
        try:
            await tg.start_bot(bob)
            press = await tg.press(bob, lobby, data=table.lobby_button("j"))
            await asyncio.sleep(1.5)
        finally:
            behind.proc.send_signal(signal.SIGCONT)
        answer = await press.answer(timeout=10)
        table.presses += 1
        assert answer.url is None, "Bob was not sent to start the bot: he had"
        await tg.wait_for(lambda: "2/6" in lobby.plain_text, timeout=10)

        await table.start()
        await finish(table, db, random.Random(11))
        await check_the_end(tg, postgres_url, [table])


async def test_a_table_taken_over_shows_its_recent_moves_as_before(
    tmp_path: Path, postgres_url: str
) -> None:
    """The process taking a table over rebuilds its "Recent moves" from the log: the moves
    made before the handover stay listed above the next one."""
    async with two_processes(tmp_path, postgres_url) as (tg, cluster, db):
        rng = random.Random(13)
        (table,) = await tables_in_groups(tg, 1)
        await table.seat_everyone()
        await play_moves(table, db, rng, 3)
        await tg.settle(quiet=0.3, timeout=20)
        message_id = await fetchval(
            postgres_url,
            "SELECT group_message_id FROM tables WHERE table_id = $1",
            table.table_id,
        )
        shown = tg.message(table.group, message_id)
        before = recent_moves(shown)
        assert before, shown.plain_text
        assert await cluster.stop(await cluster.holder(table.group.id)) == 0
        await play_moves(table, db, rng, 1)
        await tg.settle(quiet=0.3, timeout=20)
        after = recent_moves(tg.message(table.group, message_id))
        kept = next((n for n in range(len(before), 0, -1) if after[:n] == before[-n:]), 0)
        assert kept and len(after) > kept, (before, after)
