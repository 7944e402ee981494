"""What runs in the coach's worker processes; kept apart so that a worker starts light.

A worker is a fresh interpreter: it imports this module to reach its start-up function,
which ties the worker's life to the bot's and lowers its priority, and only the first
review imports the engine, at that lower priority. (Importing the bot and the engine at
the bot's own priority would take a second of CPU from the games each time a worker
starts.) Nothing here imports more than the standard library (and :mod:`bot.base.lifeline`,
which imports no more) at import time.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from bot.base.lifeline import start_below

__all__ = [
    "SHARE",
    "Pacer",
    "analyse",
    "prepare",
    "start_worker",
]


start_worker = start_below
"""Worker start-up: end when the bot ends, then yield it the CPU."""


SHARE = 0.5
"""The share of one core a worker works at: it rests as long as it worked, slice by slice."""

SLICE = 0.004
"""Seconds of work between rests: short, so that the bot never meets a long stretch of it."""


class Pacer:
    """Keeps a worker to :data:`SHARE` of a core: called between units of work (a sampled
    world played out), it sleeps once a slice of work has gone by. Even in the idle
    class, a core kept busy all the time slows the bot's process next to it (on a
    virtual machine's shared cores most of all); resting half the time removes that, at
    the price of reviews that take twice as long."""

    def __init__(
        self,
        share: float = SHARE,
        slice_seconds: float = SLICE,
        *,
        clock: Callable[[], float] = time.perf_counter,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not 0 < share <= 1:
            raise ValueError("a share of a core is above 0 and at most 1")
        self._rest = (1 - share) / share
        self._slice = slice_seconds
        self._clock = clock
        self._sleep = sleep
        self._since = clock()
        self.rested = 0.0
        """Seconds slept so far."""

    def __call__(self) -> None:
        worked = self._clock() - self._since
        if worked >= self._slice:
            if self._rest > 0:
                self._sleep(worked * self._rest)
                self.rested += worked * self._rest
            self._since = self._clock()


def analyse(start: str, actions: list[str], rules: str, seat: int, seed: int, budget: float) -> str:
    """One review, as a worker runs it: JSON in (the deal, the actions, the rules), the
    review's JSON out, so that nothing but text crosses the process boundary."""
    import json

    from engine import Game, Rules, action_from_dict
    from engine.ai.coach import review

    game = Game.from_json(start)
    moves = [action_from_dict(json.loads(a)) for a in actions]
    found = review(
        game,
        moves,
        Rules.model_validate_json(rules),
        seat,
        seed=seed,
        budget=budget,
        pace=Pacer(),
    )
    return found.to_json()


def prepare() -> int:
    """Import what a review needs (at the worker's low priority, before any review is
    asked for); the worker's pid."""
    import engine.ai.coach  # noqa: F401

    return os.getpid()
