"""Tournaments in a group, end to end: /tournament's sign-up (Join, Start, 3/5/7/10 games),
the games following one another at the same table, the standings after each game, the
champion and his new achievement (once, also when a restart comes between the last game and
the tournament's end, on SQLite and PostgreSQL), /stats and /me; who may choose and start;
a player leaving; /cancel; a computer player, and a computer champion in /stats; a restart
between two games; the group's message limit."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from fake_telegram import FakeMessage, FakeTelegramServer, Limits
from store_backends import Database, PostgresDatabase, SqliteDatabase

from bot.service.tourneys import game_halves, teams_of
from bot.store import ChatRow, Outcome, SqliteStore
from engine import Rules

from .harness import (
    CHOICE_KINDS,
    Data,
    Table,
    bot_running,
    callback_buttons,
    kind_of,
    query,
    replay_games,
    settings_for,
    snapshot,
    stored,
)

RULES = Rules(hand_size=3)
PAUSE = 0.3


async def english_group(db: Path, chat_id: int) -> None:
    """The group speaks English and plays with three cards a hand (short games)."""
    async with SqliteStore.open(db) as store:
        await store.save_chat(ChatRow(chat_id, "en", RULES.model_dump_json(), None))


async def open_tourney(table: Table, by: int = 0) -> FakeMessage:
    """``users[by]`` sends /tournament: its sign-up message, with Join and the games."""
    await table.tg.send_command(table.users[by], table.group, "tournament")
    table.lobby = await table.tg.wait_for_message(
        table.group,
        lambda m: any(kind_of(d) == "G" for d in callback_buttons(m)),
        timeout=10,
    )
    table.known_table = Data.parse(table.lobby_button("j")).table
    return table.lobby


def seats_of(db: Path, table_id: int) -> list[dict[str, Any]]:
    """The table's seats as stored."""
    seats: list[dict[str, Any]] = json.loads(
        query(db, "SELECT seats FROM tables WHERE table_id = ?", table_id)[0][0]
    )
    return seats


def games_buttons(message: FakeMessage) -> dict[str, str]:
    """The sign-up's buttons choosing the number of games: label → data."""
    assert message.reply_markup is not None
    found = {}
    for row in message.reply_markup["inline_keyboard"]:
        for button in row:
            data = button.get("callback_data")
            if data and kind_of(data) == "G":
                found[button["text"]] = data
    return found


def game_ends(table: Table) -> list[FakeMessage]:
    """The group's end messages of the table's games (a tournament's have no Rematch
    until the last), oldest first."""
    assert table.lobby is not None
    return [
        m
        for m in table.tg.bot_messages(table.group)
        if m.message_id > table.lobby.message_id
        and m.plain_text.startswith("🏁 Game over\n")
        and "🏆" in m.plain_text
    ]


async def finish_game(table: Table, db: Path, rng: random.Random, games_before: int) -> FakeMessage:
    """Play the running game to its end; its end message (with the standings)."""
    await table.tg.wait_for(
        lambda: (
            stored(db, table.table_id).status == "playing"
            and stored(db, table.table_id).game_no == games_before + 1
        ),
        timeout=15,
        what=f"game {games_before + 1} dealt",
    )
    while stored(db, table.table_id).game_no == games_before + 1:
        if not await table.move(db, rng):
            break
    await table.tg.wait_for(
        lambda: len(game_ends(table)) > games_before, timeout=10, what="the end message"
    )
    return game_ends(table)[-1]


def expected_points(db: Path, names: list[str]) -> dict[str, int]:
    """Each player's tournament points in halves, worked out from the stored games (a
    cancelled one counts nothing)."""
    totals: dict[str, int] = {}
    for game in replay_games(db):
        if game.result is None:
            continue
        n = game.n
        halves = game_halves(
            Outcome.from_result(game.result), n, teams_of(game.rules.model_dump_json(), n)
        )
        for seat, h in enumerate(halves):
            totals[names[seat]] = totals.get(names[seat], 0) + h
    return totals


def shown_points(text: str) -> dict[str, str]:
    """The standings' lines of a message: name → its points in words."""
    found = {}
    for line in text.splitlines():
        m = re.match(r"^(?:🥇|🥈|🥉|\d+\.) (.+?) — ([^·]+) · ", line)
        if m:
            found[m.group(1)] = m.group(2).strip()
    return found


def new_champions(*messages: FakeMessage) -> list[str]:
    """The players the messages' "🏅 New for …" lines give the tournament's achievement
    ("🏆 Champion"), one per line."""
    found = []
    for message in messages:
        for line in message.plain_text.splitlines():
            m = re.match(r"^🏅 New for (.+?): (.+)$", line)
            if m and "🏆 Champion" in m.group(2).split(", "):
                found.append(m.group(1))
    return found


def words(halves: int) -> str:
    whole, half = divmod(halves, 2)
    if half:
        return f"{whole}½ points" if whole else "½ point"
    return f"{whole} point" if whole == 1 else f"{whole} points"


async def test_a_tournament_of_three_games_to_its_champion(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(28)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 4)
        ann, bob, cid, dan = table.users
        table.users = [ann, bob, cid]  # Dan watches: he never sits down
        await english_group(db, table.group.id)
        settings = settings_for(tg, db, tourney_pause=PAUSE)
        async with bot_running(tg, db, settings=settings):
            await table.start_bots()
            lobby = await open_tourney(table)
            kinds = {kind_of(d) for d in callback_buttons(lobby)}
            assert {"j", "s", "G"} <= kinds, callback_buttons(lobby)
            assert sorted(games_buttons(lobby)) == ["10", "3", "7", "✅ 5"]
            assert "🏆" in lobby.plain_text and "5 games" in lobby.plain_text

            # Bob is no creator and no admin: he may not choose; Ann chooses 3.
            before = snapshot(db, table.table_id)
            answer = await table.press(bob, lobby, games_buttons(lobby)["3"])
            assert "Only the creator" in (answer.text or ""), answer.text
            assert snapshot(db, table.table_id) == before
            await table.press(ann, lobby, games_buttons(lobby)["3"])
            await tg.wait_for(lambda: "✅ 3" in games_buttons(lobby), timeout=10)
            assert "3 games" in lobby.plain_text
            # a button drawn before the change is outdated and changes nothing
            old = games_buttons(lobby)["7"]
            await table.press(ann, lobby, games_buttons(lobby)["10"])
            await tg.wait_for(lambda: "✅ 10" in games_buttons(lobby), timeout=10)
            before = snapshot(db, table.table_id)
            press = await tg.press(ann, lobby, data=old, force=True)
            assert (await press.answer(timeout=10)).text
            assert snapshot(db, table.table_id) == before
            assert query(db, "SELECT games FROM tournaments") == [(10,)]
            await table.press(ann, lobby, games_buttons(lobby)["3"])
            await tg.wait_for(lambda: "✅ 3" in games_buttons(lobby), timeout=10)
            await table.join_all()

            # Dan, not seated and no admin, may not start it.
            start = table.lobby_button("s")
            answer = await table.press(dan, lobby, start)
            assert "Only the creator" in (answer.text or ""), answer.text
            assert stored(db, table.table_id).status == "lobby"
            choose = games_buttons(lobby)["7"]
            await table.start()

            # Choosing the number of games after the start changes nothing.
            press = await tg.press(ann, lobby, data=choose, force=True)
            assert (await press.answer(timeout=10)).text, "refused, with a reason"
            assert query(db, "SELECT games, status FROM tournaments") == [(3, "running")]

            names = [u.first_name for u in table.users]
            for number in range(3):
                end = await finish_game(table, db, rng, number)
                text = end.plain_text
                assert "🤡" in text or "draw" in text, text
                assert "Out in order" in text or "draw" in text, text
                shown = shown_points(text)
                want = expected_points(db, names)
                assert shown == {n: words(h) for n, h in want.items()}, text
                assert f"after game {number + 1} of 3" in text or number == 2, text
            final = game_ends(table)[-1]
            assert "🏆" in final.plain_text and "Final standings" in final.plain_text
            want = expected_points(db, names)
            rows = query(db, "SELECT champion_name, status FROM tournaments")
            champion, status = rows[0]
            assert status == "done" and f"Champion: {champion}" in final.plain_text
            assert want[champion] == max(want.values())
            assert any(kind_of(d) == "m" for d in callback_buttons(final)), "a rematch at last"
            # the champion's achievement, given as the tournament ended, is new in the last
            # end message like any other, on his line, once in the group
            assert new_champions(final) == [champion], final.plain_text
            assert new_champions(*tg.bot_messages(table.group)) == [champion]
            assert stored(db, table.table_id).game_no == 3, "three games, no fourth"
            await asyncio.sleep(PAUSE * 3)
            assert stored(db, table.table_id).status == "finished", "no fourth deal"

            stats = await table.stats()
            assert "🏆 1 tournament" in stats.plain_text, stats.plain_text
            line = next(x for x in stats.plain_text.splitlines() if "🏆" in x)
            assert champion in line
            seat = names.index(champion)
            me = await table.command(seat, "me")
            assert "Tournaments won: 1" in me.plain_text or "Tournaments won: 1" in (
                me.caption or ""
            )
            assert "🏆 Champion" in me.plain_text, me.plain_text
            assert new_champions(*tg.bot_messages(table.group)) == [champion], "still once"
        assert tg.rate_limited == []


async def test_open_tables_forged_buttons_and_the_next_game_between(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(5)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        ann, bob = table.users
        await english_group(db, table.group.id)
        settings = settings_for(tg, db, tourney_pause=2.0)
        async with bot_running(tg, db, settings=settings):
            await table.start_bots()
            lobby = await open_tourney(table)
            # /tournament or /newgame while it signs up: the same table, shown again
            await tg.send_command(bob, table.group, "tournament")
            await tg.send_command(bob, table.group, "newgame")
            await tg.settle(quiet=0.3, timeout=10)
            assert query(db, "SELECT count(*) FROM tables")[0][0] == 1
            assert query(db, "SELECT count(*) FROM tournaments")[0][0] == 1
            shown = [
                m
                for m in tg.bot_messages(table.group)
                if any(kind_of(d) == "G" for d in callback_buttons(m)) and not m.deleted
            ]
            assert len(shown) == 1, "the sign-up moved below, once"
            lobby = table.lobby = shown[0]
            # a forged number of games is refused
            parts = games_buttons(lobby)["3"].split(".")
            parts[3] = "4"
            fake = ".".join(parts)
            before = snapshot(db, table.table_id)
            press = await tg.press(ann, lobby, data=fake, force=True)
            assert (await press.answer(timeout=10)).text
            assert snapshot(db, table.table_id) == before
            await table.join_all()
            join = table.lobby_button("j")
            await table.start()
            end = await finish_game(table, db, rng, 0)
            assert "after game 1 of 5" in end.plain_text, end.plain_text
            assert not any(kind_of(d) == "m" for d in callback_buttons(end)), "no rematch yet"
            # between two games: /newgame opens nothing, the next game is on its way
            await tg.send_command(bob, table.group, "newgame")
            await tg.wait_for_message(
                table.group, lambda m: "tournament is on" in m.plain_text, timeout=10
            )
            assert query(db, "SELECT count(*) FROM tables")[0][0] == 1
            # Join on the old sign-up message: nobody comes in mid-tournament
            outsider = await tg.create_user("Zed", language_code="en")
            await tg.add_member(table.group, outsider, by=ann)
            before = snapshot(db, table.table_id)
            press = await tg.press(outsider, lobby, data=join, force=True)
            assert (await press.answer(timeout=10)).text
            assert (
                stored(db, table.table_id).status != "finished"
                or snapshot(db, table.table_id) == before
            )
            assert len(seats_of(db, table.table_id)) == 2, "nobody joins mid-tournament"
            await finish_game(table, db, rng, 1)
        assert tg.rate_limited == []


async def test_leaving_scores_no_more_and_too_few_end_it_early(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(9)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 3)
        ann, bob, cid = table.users
        await english_group(db, table.group.id)
        settings = settings_for(tg, db, tourney_pause=PAUSE)
        async with bot_running(tg, db, settings=settings):
            await table.start_bots()
            await open_tourney(table)
            await table.join_all()
            await table.start()
            await table.play_moves(db, rng, 2)
            # Bob gives up: he is the durak of this game, and out of the tournament
            await tg.send_command(bob, table.group, "leave")
            await tg.wait_for(lambda: len(game_ends(table)) == 1, timeout=10)
            first = game_ends(table)[-1]
            assert "🏳" in first.plain_text and "Bob" in first.plain_text
            assert "(left)" in first.plain_text, first.plain_text
            # the next game: Ann and Cid only
            await tg.wait_for(
                lambda: (
                    stored(db, table.table_id).game_no == 2
                    and stored(db, table.table_id).status == "playing"
                ),
                timeout=10,
            )
            assert [s["name"] for s in seats_of(db, table.table_id)] == ["Ann", "Cid"]
            table.users = [ann, cid]
            end = await finish_game(table, db, rng, 1)
            bob_line = next(x for x in end.plain_text.splitlines() if "Bob" in x)
            assert "1 game" in bob_line, "Bob scores no more"
            # between games Cid leaves too: one player is left, the tournament ends
            await tg.send_command(cid, table.group, "leave")
            final = await tg.wait_for_message(
                table.group, lambda m: "ends early" in m.plain_text, timeout=10
            )
            assert "🏆" in final.plain_text and "Champion" in final.plain_text
            assert query(db, "SELECT status FROM tournaments") == [("done",)]
            assert stored(db, table.table_id).game_no == 2, "no game for one player"
        assert tg.rate_limited == []


async def test_a_computer_player_scores_too(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(11)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await english_group(db, table.group.id)
        settings = settings_for(tg, db, tourney_pause=PAUSE, ai_delay=0.0)
        async with bot_running(tg, db, settings=settings):
            await table.start_bots()
            lobby = await open_tourney(table)
            await table.press(table.users[0], lobby, games_buttons(lobby)["3"])
            await tg.wait_for(lambda: "✅ 3" in games_buttons(lobby), timeout=10)
            await table.press(table.users[0], lobby, table.lobby_button("a"))
            picker = await tg.wait_for(
                lambda: next((d for d in callback_buttons(lobby) if kind_of(d) == "b"), None),
                timeout=10,
            )
            await table.press(table.users[0], lobby, picker)
            await tg.wait_for(lambda: "2/6" in lobby.plain_text, timeout=10)
            await table.press(table.users[1], lobby, table.lobby_button("j"))
            await tg.wait_for(lambda: "3/6" in lobby.plain_text, timeout=10)
            await table.press(table.users[0], lobby, table.lobby_button("s"))
            humans = {0: table.users[0], 2: table.users[1]}
            # seat by seat (the computer's, 1, is never pressed for)
            table.users = [table.users[0], table.users[0], table.users[1]]
            for number in range(3):
                await tg.wait_for(
                    lambda n=number: (
                        stored(db, table.table_id).game_no == n + 1
                        and stored(db, table.table_id).status == "playing"
                    ),
                    timeout=15,
                )
                while True:
                    st = stored(db, table.table_id)
                    if st.status != "playing" or st.game is None:
                        break
                    seats = [s for s in st.game.to_act() if s in humans]
                    if not seats:
                        await asyncio.sleep(0.02)
                        continue
                    seat = rng.choice(seats)
                    hand = await table.current_hand(db, seat) if seat in humans else None
                    if hand is None or stored(db, table.table_id).version != st.version:
                        continue
                    presses = table.legal_presses(hand, st.game, seat)
                    if presses:
                        shown = callback_buttons(hand)
                        user = humans[seat]
                        await table.press(user, hand, rng.choice(presses))
                        await tg.wait_for(
                            lambda v=st.version, u=user, b=shown: (
                                stored(db, table.table_id).version != v
                                or callback_buttons(table.hand(u)) != b
                            ),
                            timeout=10,
                        )
                await tg.wait_for(lambda n=number: len(game_ends(table)) > n, timeout=10)
            final = game_ends(table)[-1]
            assert "🏆" in final.plain_text
            seated = seats_of(db, table.table_id)
            names = [s["name"] for s in seated]
            computer = next(s["name"] for s in seated if s["ai"])
            assert computer in shown_points(final.plain_text), final.plain_text
            want = expected_points(db, names)
            assert shown_points(final.plain_text) == {n: words(h) for n, h in want.items()}
        assert tg.rate_limited == []


async def test_a_restart_between_two_games_then_cancel(tmp_path: Path) -> None:
    """The bot stops during the pause after game 1: the next process deals game 2 at the
    same table; /cancel in the middle of it stops the tournament, says so, and keeps game
    1 in the standings, with nobody champion."""
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(17)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 3)
        ann = table.users[0]
        await english_group(db, table.group.id)
        settings = settings_for(tg, db, tourney_pause=2.0)
        async with bot_running(tg, db, settings=settings):
            await table.start_bots()
            await open_tourney(table)
            await table.join_all()
            await table.start()
            first = await finish_game(table, db, rng, 0)
            assert "after game 1 of 5" in first.plain_text
        # stopped within the pause: game 1 over, game 2 not dealt
        assert stored(db, table.table_id).status == "finished"
        assert query(db, "SELECT status FROM tournaments") == [("running",)]
        async with bot_running(tg, db, settings=settings):
            await tg.wait_for(
                lambda: (
                    stored(db, table.table_id).game_no == 2
                    and stored(db, table.table_id).status == "playing"
                ),
                timeout=15,
                what="game 2 dealt by the new process",
            )
            await table.wait_latest(db)
            await table.play_moves(db, rng, 2)
            await tg.send_command(ann, table.group, "cancel")
            stop = await tg.wait_for_message(
                table.group, lambda m: "tournament was stopped" in m.plain_text, timeout=10
            )
            assert "after 1 of 5 games" in stop.plain_text and "Champion" not in stop.plain_text
            names = [u.first_name for u in table.users]
            want = expected_points(db, names)
            assert shown_points(stop.plain_text) == {n: words(h) for n, h in want.items()}
            assert query(db, "SELECT status, champion FROM tournaments") == [("cancelled", None)]
            # nothing deals again, and the group may open a new table
            await asyncio.sleep(2.5)
            assert stored(db, table.table_id).status == "cancelled"
            await tg.send_command(ann, table.group, "newgame")
            await tg.wait_for(lambda: query(db, "SELECT count(*) FROM tables")[0][0] == 2, 10)
            stats = await table.stats()
            assert "🏆" not in stats.plain_text
        assert tg.rate_limited == []


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """The SQLite file of the ``database`` fixture's SQLite runs."""
    return tmp_path / "durak.sqlite3"


def playing_buttons(hand: FakeMessage | None) -> list[str]:
    """A hand's buttons that play (cards, Take, Pass, a choice's): never Give up."""
    return [d for d in callback_buttons(hand) if kind_of(d) in "tqn" or kind_of(d) in CHOICE_KINDS]


async def press_until_ends(table: Table, ends: int, rng: random.Random) -> FakeMessage:
    """Press the playing buttons of random hands until the group has ``ends`` end messages
    of the tournament (read from the messages alone: any database); the last of them."""
    await table.press_until(lambda: len(game_ends(table)) >= ends, rng, buttons=playing_buttons)
    return game_ends(table)[ends - 1]


async def test_the_champions_achievement_is_told_once_after_a_restart_before_the_end(
    database: Database,
) -> None:
    """The last game is over but the tournament is not ended when the bot stops (the state
    a restart between the last game's end and the tournament's end leaves; made here by
    stopping in the pause after game 2 of 3 and shortening the tournament to the 2 games
    played). The next process ends it: its message names the champion and his "🏅 New"
    line, once; another restart tells nothing again. On SQLite and PostgreSQL."""
    rng = random.Random(2028)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        async with database.open() as store:
            await store.save_chat(ChatRow(table.group.id, "en", RULES.model_dump_json(), None))
        where: dict[str, Any] = (
            {"database_url": database.url} if isinstance(database, PostgresDatabase) else {}
        )
        db = database.path if isinstance(database, SqliteDatabase) else Path("unused.sqlite3")
        settings = settings_for(tg, db, tourney_pause=2.0, **where)
        async with bot_running(tg, db, settings=settings):
            await table.start_bots()
            lobby = await open_tourney(table)
            await table.press(table.users[0], lobby, games_buttons(lobby)["3"])
            await tg.wait_for(lambda: "✅ 3" in games_buttons(lobby), timeout=10)
            await table.join_all()
            await table.start()
            await press_until_ends(table, 1, rng)
            second = await press_until_ends(table, 2, rng)
            assert "after game 2 of 3" in second.plain_text, second.plain_text
        assert await database.query("SELECT status FROM tournaments") == [("running",)]
        await database.query("UPDATE tournaments SET games = 2")
        async with bot_running(tg, db, settings=settings):
            final = await tg.wait_for_message(
                table.group, lambda m: "Final standings" in m.plain_text, timeout=15
            )
            ((champion, status),) = await database.query(
                "SELECT champion_name, status FROM tournaments"
            )
            assert status == "done"
            assert f"Champion: {champion}" in final.plain_text, final.plain_text
            assert "stopped" not in final.plain_text, "it ended: it was not stopped"
            assert new_champions(final) == [champion], final.plain_text
            seat = [u.first_name for u in table.users].index(champion)
            me = await table.command(seat, "me")
            assert "🏆 Champion" in me.plain_text, me.plain_text
        async with bot_running(tg, db, settings=settings):
            await tg.settle(quiet=1.0, timeout=10)
        assert new_champions(*tg.bot_messages(table.group)) == [champion], "told once"
        user = await database.query(
            "SELECT champion_user FROM tournaments WHERE champion_name = ?", (champion,)
        )
        assert await database.query(
            "SELECT count(*) FROM achievements WHERE code = 'tournament' AND user_id = ?",
            (user[0][0],),
        ) == [(1,)]
        assert tg.rate_limited == []


async def test_a_computer_champion_in_stats_as_its_other_figures(tmp_path: Path) -> None:
    """Ann and a computer player; Ann gives up in game 1 and leaves the tournament: the
    computer is champion. The group's /stats, which lists computer players with their
    games and times durak, shows its tournament on its line; nobody is given an
    achievement for it; Ann's /me counts no tournament won."""
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 1)
        (ann,) = table.users
        await english_group(db, table.group.id)
        settings = settings_for(tg, db, tourney_pause=PAUSE, ai_delay=0.0)
        async with bot_running(tg, db, settings=settings):
            await table.start_bots()
            lobby = await open_tourney(table)
            await table.press(ann, lobby, table.lobby_button("a"))
            picker = await tg.wait_for(
                lambda: next((d for d in callback_buttons(lobby) if kind_of(d) == "b"), None),
                timeout=10,
            )
            await table.press(ann, lobby, picker)
            await tg.wait_for(lambda: "2/6" in lobby.plain_text, timeout=10)
            await table.press(ann, lobby, table.lobby_button("s"))
            await tg.wait_for(lambda: stored(db, table.table_id).status == "playing", timeout=10)
            computer = next(s["name"] for s in seats_of(db, table.table_id) if s["ai"])
            await tg.send_command(ann, table.group, "leave")
            final = await tg.wait_for_message(
                table.group, lambda m: "ends early" in m.plain_text, timeout=10
            )
            assert f"Champion: 🤖 {computer}" in final.plain_text or (
                f"Champion: {computer}" in final.plain_text
            ), final.plain_text
            assert "🏅" not in final.plain_text, "a computer earns no achievement"
            assert query(db, "SELECT champion, champion_user FROM tournaments") == [
                (f"ai:{computer}", None)
            ]
            assert query(db, "SELECT count(*) FROM achievements WHERE code = 'tournament'") == [
                (0,)
            ]
            stats = (await table.stats()).plain_text
            lines = {line for line in stats.splitlines() if " — " in line}
            mine = next(line for line in lines if computer in line)
            assert "🏆 1 tournament" in mine, stats
            theirs = next(line for line in lines if "Ann" in line)
            assert "🏆" not in theirs, stats
            me = await table.command(0, "me")
            assert "Tournaments won" not in me.plain_text, me.plain_text
        assert tg.rate_limited == []
