"""Computer players in the bot: added from the lobby, they move by themselves."""

from __future__ import annotations

import random
from pathlib import Path

from fake_telegram import FakeTelegramServer, Limits, running

from bot.app import build_application

from .harness import Table, callback_buttons, replay_games, settings_for


async def test_one_person_plays_a_computer_player_to_the_end(tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 1)
        # computer players that think 50 ms instead of a second
        settings = settings_for(tg, db, ai_delay=0.05)
        app = build_application(settings)
        async with running(app, poll_timeout=0.5):
            await table.start_bots()
            lobby = await table.open_lobby()
            await table.press(table.users[0], lobby, table.lobby_button("a"))
            picker = await tg.wait_for(
                lambda: any(d[1:].startswith("b.") for d in callback_buttons(lobby)), timeout=5
            )
            assert picker
            normal = [d for d in callback_buttons(lobby) if d[1:].startswith("b.")][1]
            await table.press(table.users[0], lobby, normal)
            await tg.wait_for(
                lambda: "2/6" in lobby.plain_text and "🤖" in lobby.plain_text, timeout=5
            )
            await table.press(table.users[0], lobby, table.lobby_button("s"))
            end = await table.play_to_end(random.Random(5), timeout=120)
        games = replay_games(db)
        assert len(games) == 1 and games[0].result is not None
        result = games[0].result
        if result.durak == 0:
            assert "Ann" in end.plain_text
        assert tg.rate_limited == []
