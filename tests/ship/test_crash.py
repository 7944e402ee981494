"""A bot killed outright (SIGKILL: a crash, the OOM killer) takes its helper processes
along: the coach's worker and multiprocessing's resource tracker end with it, and the
next bot starts as if the killed one had never run."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from fake_telegram import FakeTelegramServer, Limits

from .process import BotProcess, Proc, children, poll, running
from .test_entrypoint import assert_clean_log, bot_settings

WORKER = "--multiprocessing-fork"
"""What the command line of a worker started by multiprocessing holds."""


def helpers(pid: int) -> list[Proc] | None:
    """The bot's helper processes once its coach worker runs (None before)."""
    found = children(pid)
    return found if any(WORKER in p.cmdline for p in found) else None


async def test_a_killed_bot_leaves_no_process_behind(tmp_path: Path) -> None:
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = bot_settings(tg, tmp_path, DURAK_COACH_WORKERS="1")
        ann = await tg.create_user("Ann", language_code="en")
        chat = tg.private_chat(ann)
        async with BotProcess(env, tmp_path) as bot:
            assert bot.proc is not None
            await bot.wait_for_line("getUpdates")
            left = await poll(lambda: helpers(bot.proc.pid), 30, "the coach's worker starts")
            os.kill(bot.proc.pid, signal.SIGKILL)
            # (not proc.wait(): that also waits for the output pipe, which a surviving
            # helper would hold open)
            code = await poll(lambda: bot.proc.returncode, 30, "the bot dies")
            assert code == -signal.SIGKILL
            await poll(
                lambda: not any(running(p) for p in left),
                30,
                f"the killed bot's helpers end: {[p for p in left if running(p)]}",
            )

        # the next bot, on the same database, works and stops cleanly, its helpers with it
        async with BotProcess(env, tmp_path) as again:
            assert again.proc is not None
            await again.wait_for_line("getUpdates")
            sent = await tg.start_bot(ann)
            await tg.wait_for_message(chat, after=sent, timeout=20)
            own = await poll(lambda: helpers(again.proc.pid), 30, "the new bot's worker")
            assert await again.stop() == 0, again.output
            await poll(lambda: not any(running(p) for p in own), 30, "its helpers end too")
        assert_clean_log(again.output, tg.token)
