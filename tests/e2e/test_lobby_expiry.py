"""Lobbies nobody started are removed after a day, and their message says so."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from fake_telegram import FakeTelegramServer, Limits

from .harness import Table, bot_running, callback_buttons


async def test_a_lobby_nobody_started_expires_after_a_day(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2)
        async with bot_running(tg, db) as app:
            await table.start_bots()
            lobby = await table.open_lobby()
            assert callback_buttons(lobby), "a live lobby has buttons"
            con = sqlite3.connect(db)
            with con:
                con.execute("UPDATE tables SET created_at = ?", (time.time() - 2 * 86_400,))
            con.close()
            (job,) = app.job_queue.get_jobs_by_name("purge")
            await job.run(app)
            await tg.wait_for(lambda: not callback_buttons(lobby), timeout=5)
            assert "expired" in lobby.plain_text
            con = sqlite3.connect(db)
            assert con.execute("SELECT count(*) FROM tables").fetchone()[0] == 0
            con.close()
            await table.open_lobby()  # /newgame opens a new one
