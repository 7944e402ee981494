"""Computer players' decisions, made off the bot's event loop and interpreter.

A decision of the hard level is tens to hundreds of milliseconds of CPU. Made in a thread
of the bot's process it would hold the interpreter lock that long, and every other table
of the process would wait behind it; so it is made in worker processes, which the bot
starts with itself and which end with it (:mod:`bot.service.think_worker`). A worker that
dies (killed, out of memory) is replaced and the decision asked again; if that fails too,
the move is decided in the bot after all: a table never waits for a dead worker. With no
workers (``DURAK_AI_WORKERS=0``) decisions are made in a thread, as on a machine with one
core they may as well be.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from bot.base.lifeline import stop_workers
from bot.service.think_worker import choose, prepare, start_worker
from engine import Rules, SeatView
from engine.actions import Action

__all__ = ["Thinkers"]

log = logging.getLogger(__name__)


class Thinkers:
    """A small pool of worker processes where computer players decide."""

    def __init__(self, workers: int = 1) -> None:
        self._workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False
        self.replaced = 0
        """Pools started again after a worker died (for the logs and the tests)."""

    def start(self) -> None:
        """Start the workers now (at start-up, not in the middle of a game)."""
        if self._workers <= 0:
            return
        pool = self._executor()
        for _ in range(self._workers):
            pool.submit(prepare)

    async def choose(self, level: str, view: SeatView, rules: Rules, seed: int) -> Action:
        """The computer player's decision (it sees ``view``, its seat's view alone)."""
        if self._workers > 0:
            loop = asyncio.get_running_loop()
            for attempt in range(2):
                try:
                    return await loop.run_in_executor(
                        self._executor(), choose, level, view, rules, seed
                    )
                except BrokenProcessPool:
                    if self._closed:
                        raise  # the bot stops: the decision is made by the next one
                    log.warning("a computer player's worker died; started again (%d)", attempt)
                    self._pool = None
                    self.replaced += 1
            log.error("the computer players' workers keep dying: deciding in the bot")
        return await asyncio.to_thread(choose, level, view, rules, seed)

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn: a fresh interpreter, never a fork of a process with threads running;
            # each worker ends with the bot, even one killed outright
            self._pool = ProcessPoolExecutor(
                max_workers=self._workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=start_worker,
                initargs=(os.getpid(),),
            )
        return self._pool

    def close(self) -> None:
        """Stop the workers (a decision in progress is made again by the next bot)."""
        self._closed = True
        if self._pool is not None:
            stop_workers(self._pool)
            self._pool = None
