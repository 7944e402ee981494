"""Computer players decide in a worker process of the bot, never in its interpreter: a game
against the computer is played by a real bot process whose decisions arrive from its worker;
the worker killed outright is replaced and the game goes on; a killed bot takes it along."""

from __future__ import annotations

import os
import random
import signal
from pathlib import Path

from e2e.harness import callback_buttons
from e2e.solo import Solo, table_of
from fake_telegram import FakeTelegramServer, Limits

from .process import BotProcess, children, poll, running
from .test_crash import WORKER
from .test_entrypoint import bot_settings


async def test_computer_players_decide_in_a_worker_that_is_replaced_when_killed(
    tmp_path: Path,
) -> None:
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = bot_settings(
            tg,
            tmp_path,
            DURAK_AI_WORKERS="1",
            DURAK_COACH_WORKERS="0",
            DURAK_CHARTS="false",
            DURAK_AI_DELAY="0.05",
        )
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
