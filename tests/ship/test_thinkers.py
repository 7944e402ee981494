"""Computer players decide in a worker process of the bot, never in its interpreter, and
the worker runs in the idle scheduling class, below the bot: a game against the computer is
played by a real bot process whose decisions arrive from its worker; the worker killed
outright is replaced and the game goes on; a killed bot takes it along.
While a computer player's decision is awaited, the table's player is answered at once (the
decision holds no lock)."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
from pathlib import Path

from e2e.harness import callback_buttons
from e2e.solo import HAND_KINDS, Solo, of_table, table_of
from fake_telegram import FakeTelegramServer, Limits

from engine import Game

from .process import BotProcess, children, poll, running
from .test_crash import WORKER, held_workers, in_idle_class
from .test_entrypoint import bot_settings


def computer_settings(tg: FakeTelegramServer, tmp_path: Path, **extra: str) -> dict[str, str]:
    """The bot's environment for a game against the computer: one computer players' worker,
    no coach or charts, the computer's pause cut short."""
    return bot_settings(
        tg,
        tmp_path,
        DURAK_AI_WORKERS="1",
        DURAK_COACH_WORKERS="0",
        DURAK_CHARTS="false",
        DURAK_AI_DELAY="0.05",
        **extra,
    )


async def test_computer_players_decide_in_a_worker_that_is_replaced_when_killed(
    tmp_path: Path,
) -> None:
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = computer_settings(tg, tmp_path)
        async with BotProcess(env, tmp_path) as bot:
            assert bot.proc is not None
            pid = bot.proc.pid
            await bot.wait_for_line("getUpdates")
            first = await poll(
                lambda: [p for p in children(pid) if WORKER in p.cmdline] or None,
                60,
                "the computer players' worker",
            )
            assert len(first) == 1
            # it yields the CPU to the bot: in the idle class, once started
            await poll(lambda: in_idle_class(first[0]), 60, "the worker lowers its priority")
            solo = await Solo.create(tg)
            setup = await solo.open_setup()
            table_id = table_of(callback_buttons(setup)[0])
            assert table_id is not None
            await solo.start(setup)
            rng = random.Random(4)
            await solo.play(table_id, rng, presses=4)
            os.kill(first[0].pid, signal.SIGKILL)  # the worker dies mid-game
            end = await solo.play(table_id, rng, timeout=120)
            assert end is not None, "the computer kept moving: the game ended"
            assert not running(first[0])
            again = [p for p in children(pid) if WORKER in p.cmdline]
            assert len(again) == 1 and again[0].pid != first[0].pid, "a new worker"
            assert await bot.stop() == 0, bot.output
        assert "a computer player's worker died" in bot.output


async def test_the_player_is_answered_while_a_computer_player_decides(tmp_path: Path) -> None:
    # The worker is held at its very start: no decision comes until the gate opens. A
    # decision awaited under the table's lock kept the player's press unanswered as long.
    gate, path = held_workers(tmp_path)
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = computer_settings(tg, tmp_path, PYTHONPATH=path)
        db = Path(env["DURAK_DB_PATH"])
        async with BotProcess(env, tmp_path) as bot:
            try:
                await bot.wait_for_line("getUpdates")
                solo = await Solo.create(tg)
                setup = await solo.open_setup()
                table_id = table_of(callback_buttons(setup)[0])
                assert table_id is not None
                await solo.start(setup)
                # his hand: its Refresh at least (a computer that leads first leaves him
                # no other button until it has moved)
                shown = HAND_KINDS | {"f"}
                await tg.wait_for(lambda: of_table(setup, table_id, shown), timeout=30)
                rng = random.Random(8)
                if 0 in stored_game(db, table_id).to_act():
                    await solo.play(table_id, rng, presses=1)  # his lead: the computer answers
                await poll(lambda: 1 in stored_game(db, table_id).to_act() or None, 30, "its turn")
                before = stored_game(db, table_id).moves
                await asyncio.sleep(0.5)  # its move is being decided (it waits 0.05 s first)
                hand = solo.hand(table_id)
                assert hand is not None
                press = await tg.press(solo.user, hand, data=of_table(hand, table_id, shown)[0])
                await press.answer(timeout=10)
                assert stored_game(db, table_id).moves <= before + 1, "his move, not its"
            finally:
                # the decision comes (also after a failure above: a worker held for ever
                # would keep the bot from stopping), and the game goes on to its end
                gate.touch()
            end = await solo.play(table_id, rng, timeout=120)
            assert end is not None
            assert await bot.stop() == 0, bot.output


def stored_game(db: Path, table_id: int) -> Game:
    """The table's game as the bot stored it."""
    with sqlite3.connect(db) as con:
        row = con.execute("SELECT game FROM tables WHERE table_id = ?", (table_id,)).fetchone()
    return Game.from_json(row[0])
