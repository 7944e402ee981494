"""Rebuilding finished games from the store: exact, or refused with the reason."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.service.replay import ReplayError, load_replay
from bot.store import Outcome, Seat, SqliteStore
from engine import Game, Result, Rules
from engine.ai import make_player

RULES = Rules(hand_size=4)
SEATS = (Seat.human(1, "Ann"), Seat.computer("Computer 1", "normal"))


async def play_into(
    store: SqliteStore, table_id: int, version: int, seed: int, previous: Result | None
) -> tuple[int, Game]:
    """Start a game at the table and play it to the end through the store, as the table
    service does; the table's version after it, and the final game."""
    game = Game.new(RULES, players=2, seed=seed, previous=previous)
    row = await store.start_game(table_id, version, seed=seed, game=game.to_json())
    version = row.version
    player = make_player("normal")
    while game.result is None:
        seat = game.to_act()[0]
        action = player.choose(game.view(seat), RULES, seed=seed)
        game.apply(action)
        outcome = Outcome.from_result(game.result) if game.result is not None else None
        saved = await store.save_action(
            table_id,
            version,
            game=game.to_json(),
            action=json.dumps(action.to_dict()),
            seat=action.seat,
            outcome=outcome,
        )
        version = saved.version
    return version, game


async def test_a_finished_game_replays_exactly_and_steps_stay_inside_it(tmp_path: Path) -> None:
    async with SqliteStore.open(tmp_path / "d.sqlite3") as store:
        lobby = await store.create_table(1, rules=RULES.model_dump_json(), seats=SEATS)
        _, final = await play_into(store, lobby.table_id, lobby.version, 9, None)
        replay = await load_replay(store, lobby.table_id, 1)
        assert replay.total == final.moves and replay.seat_of(1) == 0 and replay.seat_of(2) is None
        end, events = replay.at(replay.total)
        assert end.to_json() == final.to_json() and events
        assert replay.at(10**6)[0].to_json() == final.to_json()
        start, nothing = replay.at(-3)
        assert start.moves == 0 and nothing == []
        # stepping never changes the replay's own deal
        assert replay.at(0)[0].to_json() == start.to_json()


async def test_a_series_later_game_replays_with_the_previous_result(tmp_path: Path) -> None:
    async with SqliteStore.open(tmp_path / "d.sqlite3") as store:
        lobby = await store.create_table(-5, rules=RULES.model_dump_json(), seats=SEATS)
        version, first = await play_into(store, lobby.table_id, lobby.version, 3, None)
        version = await store.update_lobby(lobby.table_id, version, reopen=True)
        _, second = await play_into(store, lobby.table_id, version, 4, first.result)
        replay = await load_replay(store, lobby.table_id, 2)
        assert replay.at(replay.total)[0].to_json() == second.to_json()


async def test_games_that_cannot_be_replayed_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite3"
    async with SqliteStore.open(path) as store:
        lobby = await store.create_table(1, rules=RULES.model_dump_json(), seats=SEATS)
        with pytest.raises(ReplayError) as none:
            await load_replay(store, lobby.table_id, 1)
        assert none.value.reason == "replay_none"
        running = await store.start_game(
            lobby.table_id, lobby.version, seed=1, game=Game.new(RULES, players=2, seed=1).to_json()
        )
        with pytest.raises(ReplayError) as playing:
            await load_replay(store, lobby.table_id, 1)
        assert playing.value.reason == "replay_running"
        await store.cancel_table(lobby.table_id, running.version)
        with pytest.raises(ReplayError) as cancelled:
            await load_replay(store, lobby.table_id, 1)
        assert cancelled.value.reason == "replay_running"

        other = await store.create_table(1, rules=RULES.model_dump_json(), seats=SEATS)
        await play_into(store, other.table_id, other.version, 5, None)
    # a log that does not lead to the stored end (a changed seed) is refused, not shown
    con = sqlite3.connect(path)
    con.execute("UPDATE games SET seed = seed + 1 WHERE table_id = ?", (other.table_id,))
    con.commit()
    con.close()
    async with SqliteStore.open(path) as store:
        with pytest.raises(ReplayError) as broken:
            await load_replay(store, other.table_id, 1)
        assert broken.value.reason == "replay_broken"


async def test_the_coach_reviews_a_game_once_in_a_worker_and_keeps_it(tmp_path: Path) -> None:
    from bot.service.coach import Coach

    async with SqliteStore.open(tmp_path / "d.sqlite3") as store:
        lobby = await store.create_table(1, rules=RULES.model_dump_json(), seats=SEATS)
        await play_into(store, lobby.table_id, lobby.version, 9, None)
        replay = await load_replay(store, lobby.table_id, 1)
        coach = Coach(store, workers=1, budget=3.0)
        try:
            # a worker starts light: in the idle class, before it has imported the engine
            loop = asyncio.get_running_loop()
            pool = coach._executor()
            policy = await loop.run_in_executor(pool, os.sched_getscheduler, 0)
            assert policy == os.SCHED_IDLE
            names = await loop.run_in_executor(pool, eval, "sorted(__import__('sys').modules)")
            assert {"engine", "pydantic", "telegram", "aiosqlite"}.isdisjoint(names)
            first = coach.request(replay, 1, 0)
            assert coach.request(replay, 1, 0) is first, "one analysis per game and viewer"
            assert coach.running(lobby.table_id, 1, 1)
            review = await first
            assert review is not None and review.seat == 0 and review.decisions > 0
            assert not coach.running(lobby.table_id, 1, 1)
            kept = await store.get_review(lobby.table_id, 1, 1)
            assert kept == review.to_json()
            assert await coach.stored(lobby.table_id, 1, 1) == review
            # asked again, it is read from the store, not analysed again
            again = await coach.request(replay, 1, 0)
            assert again == review
        finally:
            coach.close()
        assert not Coach(store, workers=0).enabled


@pytest.mark.parametrize(
    "start",
    [
        "bot.base.lifeline:die_with",
        "bot.base.lifeline:_watch",
        "bot.service.coach_worker:start_worker",
        "bot.chat.chart:start_worker",
    ],
)
def test_a_worker_whose_bot_is_gone_ends_at_once(start: str) -> None:
    # The bot died before the worker got this far (its parent is another process now):
    # the worker ends, quietly, rather than wait for work that never comes. ``_watch`` is
    # the look-out where the kernel cannot be asked to kill the worker with its parent;
    # the coach's and the chart's workers both start that way.
    module, name = start.split(":")
    code = (
        f"import os\nfrom {module} import {name}\n{name}(os.getppid() + 1)\nprint('still here')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (1, "", "")


def test_a_worker_rests_as_long_as_it_worked_slice_by_slice() -> None:
    from bot.service.coach_worker import Pacer

    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    pacer = Pacer(share=0.5, slice_seconds=0.004, clock=lambda: now[0], sleep=sleep)
    for _ in range(10):  # 1 ms of work between calls: a rest after every fourth
        now[0] += 0.001
        pacer()
    assert slept == pytest.approx([0.004, 0.004])
    assert pacer.rested == pytest.approx(0.008)
    quarter = Pacer(share=0.25, slice_seconds=0.002, clock=lambda: now[0], sleep=sleep)
    now[0] += 0.002
    quarter()
    assert slept[-1] == pytest.approx(0.006), "a quarter of a core: three times the work"
    whole = Pacer(share=1.0, clock=lambda: now[0], sleep=sleep)
    now[0] += 1.0
    whole()
    assert len(slept) == 3, "a whole core never rests"
    with pytest.raises(ValueError):
        Pacer(share=0)
