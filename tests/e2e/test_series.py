"""The group's series: rematches add up in /stats; /leave counts, /cancel does not."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from fake_telegram import FakeMessage, FakeTelegramServer, Limits

from engine import Rules

from .harness import (
    Table,
    assert_no_hand_card_in,
    bot_running,
    callback_buttons,
    expected_tally,
    group_texts,
    kind_of,
    query,
    replay_games,
    set_group_rules,
    snapshot,
    stored,
    tally,
)

RULES = Rules(hand_size=3)


async def rematch_lobby(table: Table, db: Path, end: FakeMessage) -> FakeMessage:
    """The lobby a Rematch opened below ``end``: the same players seated, not dealt yet."""
    lobby = await table.lobby_after(end)
    await table.tg.wait_for(
        lambda: all(u.first_name in lobby.plain_text for u in table.users), timeout=10
    )
    assert stored(db, table.table_id).status == "lobby", "a rematch opens a lobby, no deal"
    return lobby


async def start_lobby(table: Table, db: Path, lobby: FakeMessage, by: int, game_no: int) -> None:
    start = [d for d in callback_buttons(lobby) if kind_of(d) == "s"]
    answer = await table.press(table.users[by], lobby, start[0])
    assert answer.text is None, answer.text
    await table.tg.wait_for(
        lambda: (
            stored(db, table.table_id).game_no == game_no + 1
            and stored(db, table.table_id).status == "playing"
        ),
        timeout=10,
    )
    await table.wait_latest(db)


async def rematch(table: Table, db: Path, end: FakeMessage, by: int) -> None:
    """``users[by]`` presses Rematch on ``end``: a lobby opens with the same players, and
    he, its creator, starts the next game of the table."""
    game_no = stored(db, table.table_id).game_no
    rematch = [d for d in callback_buttons(end) if kind_of(d) == "m"]
    assert rematch, f"no rematch button: {callback_buttons(end)}"
    answer = await table.press(table.users[by], end, rematch[0])
    assert answer.text is None, answer.text
    lobby = await rematch_lobby(table, db, end)
    assert stored(db, table.table_id).game_no == game_no
    await start_lobby(table, db, lobby, by, game_no)


async def both_press_rematch(table: Table, db: Path, end: FakeMessage) -> None:
    """Both players press Rematch at once: one lobby opens, the later press is told a
    table is open already."""
    before = stored(db, table.table_id)
    data = next(d for d in callback_buttons(end) if kind_of(d) == "m")
    presses = [await table.tg.press(user, end, data=data) for user in table.users]
    answers = await asyncio.gather(*(p.answer(timeout=10) for p in presses))
    assert sorted(a.text is not None for a in answers) == [False, True], answers
    lobby = await rematch_lobby(table, db, end)
    await start_lobby(table, db, lobby, 0, before.game_no)
    assert stored(db, table.table_id).game_no == before.game_no + 1, "one game, not two"


async def test_three_rematches_add_up_in_the_series(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(21)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, RULES)
        windows: list[set[str]] = []
        async with bot_running(tg, db):
            await table.seat_everyone()
            ends = []
            for game in range(3):
                seen = set(group_texts(tg, table.group))
                if game == 1:
                    await rematch(table, db, ends[-1], by=1)
                elif game == 2:
                    await both_press_rematch(table, db, ends[-1])
                ends.append(await table.finish(db, rng))
                await table.wait_latest(db)
                windows.append(set(group_texts(tg, table.group)) - seen)
                games = replay_games(db)
                assert len(games) == game + 1
                assert tally(ends[-1].plain_text) == expected_tally(games, table.users), (
                    "the end message shows the series so far"
                )

            # An old end message's Rematch does nothing once the table moved on.
            before = snapshot(db, table.table_id)
            press = await tg.press(table.users[0], ends[0], data=callback_buttons(ends[0])[0])
            assert (await press.answer(timeout=10)).text, "refused, with a reason"
            assert snapshot(db, table.table_id) == before
            reply = await table.stats()

        games = replay_games(db)
        assert len(games) == 3 and all(g.result is not None for g in games)
        shown = tally(reply.plain_text)
        assert shown == expected_tally(games, table.users), reply.plain_text
        assert all(n == 3 for _, n, _ in shown.values()), "everyone played three games"
        for game in games:
            assert game.result is not None
            points = sorted(game.result.points)
            assert points in ([0, 2], [1, 1]), "a win 2, a loss 0, a draw 1 each"
        assert sum(p for p, _, _ in shown.values()) == 6
        rows = query(db, "SELECT player, games, durak, points FROM tallies ORDER BY player")
        assert sorted((g, d, p) for _, g, d, p in rows) == sorted(
            (n, d, p) for p, n, d in shown.values()
        )
        for texts, game in zip(windows, games, strict=True):
            assert_no_hand_card_in(texts, [game])
        assert tg.rate_limited == []


async def test_leave_makes_a_durak_and_cancel_counts_nothing(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(2)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        ann, bob = table.users
        await set_group_rules(db, table.group.id, RULES)
        async with bot_running(tg, db):
            await table.seat_everyone()
            await table.play_moves(db, rng, 2)

            # /leave in the middle of a game: Bob gives up and is the durak.
            await tg.send_command(bob, table.group, "leave")
            await tg.wait_for(lambda: table.end_count() == 1, timeout=10, what="the end")
            end = table.ends()[-1]
            assert bob.first_name in end.plain_text and "🏳" in end.plain_text, end.plain_text
            first = replay_games(db)[0]
            assert first.result is not None and first.result.durak == 1
            assert first.result.points == (2, 0)
            counted = tally((await table.stats()).plain_text)
            assert counted == {ann.first_name: (2, 1, 0), bob.first_name: (0, 1, 1)}

            seen = set(group_texts(tg, table.group))

            # The next game: /cancel by someone who neither opened it nor is an admin.
            await rematch(table, db, end, by=0)
            await table.play_moves(db, rng, 2)
            await table.wait_latest(db)
            before = snapshot(db, table.table_id)
            reply = await table.command(1, "cancel")
            assert "Only the creator" in reply.plain_text, reply.plain_text
            assert snapshot(db, table.table_id) == before
            assert stored(db, table.table_id).status == "playing"

            # /cancel by the creator: the game stops and nothing is counted.
            group_message = stored(db, table.table_id).group_message_id
            card_button = callback_buttons(table.hand(ann))[0]
            await tg.send_command(ann, table.group, "cancel")
            await tg.wait_for(lambda: stored(db, table.table_id).status == "cancelled", timeout=10)
            message = tg.message(table.group, group_message)  # type: ignore[arg-type]
            await tg.wait_for(lambda: "🛑" in message.plain_text, timeout=10)
            assert ann.first_name in message.plain_text
            assert not callback_buttons(message)
            assert tally((await table.stats()).plain_text) == counted, "no tally for a cancel"
            assert query(db, "SELECT count(*) FROM game_players")[0][0] == 2

            # A hand button of the cancelled game changes nothing.
            cancelled = snapshot(db, table.table_id)
            hand = table.hand(ann)
            assert hand is not None
            press = await tg.press(ann, hand, data=card_button, force=True)
            assert (await press.answer(timeout=10)).text
            assert snapshot(db, table.table_id) == cancelled

            # The group may open a new table.
            old = table.table_id
            await table.open_lobby()
            assert table.table_id != old
        games = replay_games(db)
        assert len(games) == 2 and games[1].result is None
        assert_no_hand_card_in(seen, games[:1])
        assert_no_hand_card_in(set(group_texts(tg, table.group)) - seen, games[1:])
        assert tg.rate_limited == []
