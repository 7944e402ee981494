"""A crash between fetching a press and handling it: the real entry point, ``python -m bot``,
killed with SIGKILL at that moment, then started again. Telegram has been told the press
arrived (PTB asks for the next updates while it handles the last) and will not send it
again; the bot kept it, and handles it after the restart, once."""

from __future__ import annotations

import signal
from pathlib import Path

from e2e.harness import Table, callback_buttons, query, stored
from fake_telegram import FakeTelegramServer, Limits

from .process import BotProcess


def pending_updates(db: Path) -> list[int]:
    """The updates the bot kept and has not handled yet."""
    return [row[0] for row in query(db, "SELECT update_id FROM inbox WHERE done_at IS NULL")]


async def test_a_press_fetched_when_the_bot_is_killed_is_handled_once_after_a_restart(
    tmp_path: Path,
) -> None:
    db = tmp_path / "data" / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        env = {
            "BOT_TOKEN": tg.token,
            "DURAK_BASE_URL": tg.base_url,
            "DURAK_DB_PATH": str(db),
            "DURAK_DEFAULT_LANGUAGE": "en",
            "DURAK_GROUP_EDIT_INTERVAL": "0.08",
            "DURAK_PRIVATE_EDIT_INTERVAL": "0.02",
            "DURAK_COACH_WORKERS": "0",
        }
        table = await Table.create(tg, 2)
        admin = table.users[1]  # not the lobby's creator: Start asks whether he is an admin
        async with BotProcess(env, tmp_path) as bot:
            await table.start_bots()
            lobby = await table.open_lobby()
            await table.join_all()
            await tg.set_admin(table.group, admin)
            version = stored(db, table.table_id).version
            asked = tg.hold("getChatMember")
            pressed = await tg.press(admin, lobby, data=table.lobby_button("s"))
            # the bot handles the press (it waits for Telegram's answer about the admin),
            # and has told Telegram that the press arrived: killed right there
            await tg.wait_for(
                lambda: asked.calls and tg.confirmed(pressed.update_id),
                timeout=20,
                what="the press fetched, confirmed and being handled",
            )
            assert bot.proc is not None
            bot.proc.send_signal(signal.SIGKILL)
            await bot.proc.wait()
        asked.release()
        assert stored(db, table.table_id).version == version, "nothing applied before the kill"

        async with BotProcess(env, tmp_path) as bot:
            await tg.wait_for(
                lambda: all(callback_buttons(table.hand(u)) for u in table.users),
                timeout=30,
                what="the game started by the press, after the restart",
            )
            await tg.wait_for(lambda: not pending_updates(db), timeout=10, what="done")
            after = stored(db, table.table_id)
            assert after.status == "playing" and after.version == version + 1
            assert await bot.stop() == 0
        assert stored(db, table.table_id).version == version + 1, "applied exactly once"
        assert "handled now" in bot.output
