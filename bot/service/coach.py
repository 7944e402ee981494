"""The coach at run time: analyses finished games off the event loop and keeps the results.

The analysis (:func:`engine.ai.coach.review`) is CPU work of a few seconds, so it runs in
worker processes (:mod:`bot.service.coach_worker`) in the idle scheduling class: a review never
holds the event loop or the interpreter lock, and the operating system serves the games'
process first. Each game is analysed once per viewer; the review is stored, and a second
request while one runs waits for the same analysis.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from bot.base.lifeline import stop_workers
from bot.service.coach_worker import analyse, prepare, start_worker
from bot.service.replay import Replay
from bot.store import Store
from engine.ai.coach import Review

__all__ = ["Coach"]

log = logging.getLogger(__name__)


class Coach:
    """Reviews games for their players, each once, in a small pool of worker processes."""

    def __init__(self, store: Store, *, workers: int = 1, budget: float = 5.0) -> None:
        self._store = store
        self._workers = workers
        self._budget = budget
        self._pool: ProcessPoolExecutor | None = None
        self._running: dict[tuple[int, int, int], asyncio.Future[Review | None]] = {}
        self._failed: set[tuple[int, int, int]] = set()
        """Reviews that failed since start-up: not tried again until a restart."""

    @property
    def enabled(self) -> bool:
        """Whether the coach works at all (``DURAK_COACH_WORKERS`` above 0)."""
        return self._workers > 0

    async def stored(self, table_id: int, game_no: int, user_id: int) -> Review | None:
        """The review kept for this game and viewer, if it was made."""
        text = await self._store.get_review(table_id, game_no, user_id)
        if text is None:
            return None
        try:
            return Review.from_json(text)
        except (ValueError, KeyError, TypeError):
            log.warning("table %s game %s: stored review unreadable", table_id, game_no)
            return None

    def running(self, table_id: int, game_no: int, user_id: int) -> bool:
        """Whether the review of this game for this viewer is being made."""
        return (table_id, game_no, user_id) in self._running

    def failed(self, table_id: int, game_no: int, user_id: int) -> bool:
        """Whether the review of this game for this viewer failed (see the log)."""
        return (table_id, game_no, user_id) in self._failed

    def request(self, replay: Replay, user_id: int, seat: int) -> asyncio.Future[Review | None]:
        """The review of ``replay`` for the player at ``seat``: made in a worker unless one
        is being made already; the future gives None if it failed."""
        key = (replay.record.table_id, replay.record.game_no, user_id)
        found = self._running.get(key)
        if found is not None:
            return found
        future = asyncio.ensure_future(self._made(key, replay, user_id, seat))
        self._running[key] = future
        future.add_done_callback(lambda _: self._running.pop(key, None))
        return future

    async def _made(
        self, key: tuple[int, int, int], replay: Replay, user_id: int, seat: int
    ) -> Review | None:
        found = await self._make(replay, user_id, seat)
        if found is None:
            self._failed.add(key)
        return found

    async def _make(self, replay: Replay, user_id: int, seat: int) -> Review | None:
        record = replay.record
        kept = await self.stored(record.table_id, record.game_no, user_id)
        if kept is not None:
            return kept
        job = (
            replay.start.to_json(),
            [json.dumps(a.to_dict(), separators=(",", ":")) for a in replay.actions],
            replay.rules.model_dump_json(),
            seat,
            record.seed,
            self._budget,
        )
        loop = asyncio.get_running_loop()
        try:
            text = await loop.run_in_executor(self._executor(), analyse, *job)
        except BrokenProcessPool:
            log.exception(
                "table %s game %s: the coach's worker died", record.table_id, record.game_no
            )
            self._pool = None
            return None
        except Exception:
            log.exception("table %s game %s: the review failed", record.table_id, record.game_no)
            return None
        await self._store.save_review(record.table_id, record.game_no, user_id, seat, text)
        found = Review.from_json(text)
        log.info(
            "table %s game %s seat %s: reviewed, %s marks of %s decisions, %.2f s CPU",
            record.table_id,
            record.game_no,
            seat,
            len(found.marks),
            found.decisions,
            found.cpu_seconds,
        )
        return found

    def start(self) -> None:
        """Start the workers now (at the bot's start-up): starting a process pauses the
        bot for a moment, which should not fall in the middle of the evening's games."""
        if not self.enabled:
            return
        pool = self._executor()
        for _ in range(self._workers):
            pool.submit(prepare)  # a pool starts a process for each job none is idle for

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn: a fresh interpreter, never a fork of a process with threads running.
            # Each worker ends with the bot, even one killed outright; so then does
            # multiprocessing's resource tracker, which spawn needs and which ends once
            # nothing (neither the bot nor a worker) holds its pipe open any more.
            self._pool = ProcessPoolExecutor(
                max_workers=self._workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=start_worker,
                initargs=(os.getpid(),),
            )
        return self._pool

    def close(self) -> None:
        """Stop the workers (a review in progress is dropped; it is made again on request)."""
        for future in list(self._running.values()):
            future.cancel()
        if self._pool is not None:
            stop_workers(self._pool)
            self._pool = None
