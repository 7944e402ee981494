"""A table taken over by another process: its recent moves, rebuilt from the log after a
move was already made there, are the same as the process before would show."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.service.tables import TableService
from bot.store import Seat, SqliteStore
from engine import Rules


async def test_recent_moves_rebuilt_after_a_move_made_since_the_takeover(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with SqliteStore.open(tmp_path / "db.sqlite3") as store:
        before = TableService(store)
        live = await before.create(-5, None, Seat.human(1, "Ann"), Rules(), [Seat.human(2, "Bob")])
        await before.start(live, seed=3)

        async def move(tables: TableService, table: object) -> None:
            game = table.game  # type: ignore[attr-defined]
            seat = game.to_act()[0]
            await tables.act(table, seat, game.legal_actions(seat)[0], table.version)  # type: ignore[arg-type]

        for _ in range(3):
            await move(before, live)
        # another process takes the table over: it takes a press before it rebuilds
        after = TableService(store)
        (taken,) = after.adopt_running(await store.running_tables())
        await move(after, taken)
        # what a process loading the table only now shows
        (fresh,) = TableService(store).adopt_running(await store.running_tables())
        await TableService(store).recall(fresh)
        assert len(taken.events) < len(fresh.events)
        with caplog.at_level(logging.ERROR):
            await after.recall(taken, again=True)
        assert list(taken.events) == list(fresh.events)
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
