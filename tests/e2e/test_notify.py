"""How hands follow the game. When it turns to a player: a fresh hand (a notification) if he
has been away, the same message edited if he is playing along. A player who only watches
(the game waits on someone else) sees the table at the group's pace."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from fake_telegram import FakeTelegramServer, Limits

from engine import Rules

from .harness import (
    Table,
    bot_running,
    callback_buttons,
    hand_versions,
    set_group_rules,
    settings_for,
    stored,
)

AWAY = 4.0
"""DURAK_NOTIFY_AFTER for these tests: seconds without a notification or a press."""


async def act(table: Table, db: Path, seat: int, rng: random.Random) -> None:
    """``seat`` makes one move by pressing his buttons (through a choice if one opens)."""
    before = stored(db, table.table_id).version
    for _ in range(4):
        game = stored(db, table.table_id).game
        assert game is not None
        hand = await table.current_hand(db, seat)
        presses = table.legal_presses(hand, game, seat)
        assert presses, f"seat {seat} has nothing to press"
        shown = callback_buttons(hand)
        await table.press(table.users[seat], hand, rng.choice(presses))
        await table.tg.wait_for(
            lambda shown=shown: (
                stored(db, table.table_id).version != before
                or callback_buttons(table.hand(table.users[seat])) != shown
            ),
            timeout=10,
        )
        if stored(db, table.table_id).version != before:
            return
    raise AssertionError(f"seat {seat} could not move")


async def test_the_turn_notifies_an_absent_player_and_edits_for_an_active_one(
    tmp_path: Path,
) -> None:
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(3)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        await set_group_rules(db, table.group.id, Rules(turn_timeout=0, throw_in_window=600))
        settings = settings_for(tg, db).model_copy(update={"notify_after": AWAY})
        async with bot_running(tg, db, settings=settings):
            await table.start_bots()
            await table.open_lobby()
            await table.join_all()
            await table.start()
            game = stored(db, table.table_id).game
            assert game is not None
            attacker = game.waiting_on()[0]
            defender = game.defender
            dealt = table.hand(table.users[defender])
            assert dealt is not None

            # the defender has been away longer than AWAY: the lead sends his hand anew
            await asyncio.sleep(AWAY + 0.3)
            await act(table, db, attacker, rng)
            fresh = await table.current_hand(db, defender)
            assert fresh.message_id != dealt.message_id, "an absent player is notified"
            await tg.wait_for(lambda: dealt.deleted, timeout=10, what="the old copy removed")

            # from now on each player presses well within AWAY of his last press, for longer
            # than AWAY in all: whenever the game turns to one of them, his hand is edited
            ids = {seat: table.hand(table.users[seat]).message_id for seat in (0, 1)}  # type: ignore[union-attr]
            turns = 0
            for _ in range(10):
                game = stored(db, table.table_id).game
                if game is None or game.result is not None:
                    break
                seat = (game.waiting_on() or game.to_act())[0]
                await asyncio.sleep(AWAY * 0.15)
                await act(table, db, seat, rng)
                turns += 1
                await table.wait_latest(db)
                for s in (0, 1):
                    hand = table.hand(table.users[s])
                    assert hand is not None and hand.message_id == ids[s], (
                        f"seat {s} was playing along: his hand is edited, not sent anew"
                    )
            assert turns >= 4


async def test_a_watching_player_follows_at_the_group_pace(tmp_path: Path) -> None:
    """Three players: the attacker leads, the defender must answer at once, the third
    only watches until the bout needs his decision; his hand catches up a moment later."""
    db = tmp_path / "durak.sqlite3"
    rng = random.Random(5)
    pace = 4.0
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 3)
        await set_group_rules(db, table.group.id, Rules(turn_timeout=0, throw_in_window=600))
        settings = settings_for(tg, db).model_copy(update={"group_edit_interval": pace})
        async with bot_running(tg, db, settings=settings):
            await table.seat_everyone()
            await table.wait_latest(db, timeout=3 * pace)
            game = stored(db, table.table_id).game
            assert game is not None
            attacker, defender = game.waiting_on()[0], game.defender
            (watcher,) = {0, 1, 2} - {attacker, defender}
            await act(table, db, attacker, rng)
            moved = stored(db, table.table_id).version
            await table.current_hand(db, defender, timeout=pace / 4)  # at once
            await table.current_hand(db, attacker, timeout=pace / 4)  # his own move, at once
            seen = table.hand(table.users[watcher])
            assert seen is not None and moved not in hand_versions(seen), "the watcher's hand waits"
            await table.current_hand(db, watcher, timeout=3 * pace)  # and then catches up
