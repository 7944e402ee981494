"""What runs in the computer players' worker processes; kept apart so that a worker starts
light (the engine is imported by its first decision, or by :func:`prepare`).

A worker runs at a lower priority than the bot (:data:`NICENESS`). A hard decision is up
to a quarter of a second of CPU, and a hundred tables against the computer keep a worker
busy without end (``bench/load.py --compare-computers``); at the bot's own priority, on a
machine short of CPU, it would take its share from the bot and the people's presses. Niced,
it takes the CPU the bot leaves: there the computers' moves come later (they wait a second
before moving anyway), the people's presses do not.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

from bot.base.lifeline import die_with

if TYPE_CHECKING:
    from engine import Rules, SeatView
    from engine.actions import Action

__all__ = ["NICENESS", "choose", "prepare", "start_worker"]

NICENESS = 10
"""How much lower a worker's priority is than the bot's (``nice``). Not the idle class of
the coach's workers: a decision is awaited by a table, and a worker that ran only on CPU
nobody else wants would never decide while the bot is busy; niced, it still has a tenth
of a core the bot also wants."""


def start_worker(parent: int) -> None:
    """Worker start-up: end when the bot (process ``parent``) ends, and yield it the CPU
    (:data:`NICENESS`)."""
    die_with(parent)
    with contextlib.suppress(OSError):
        os.nice(NICENESS)


def prepare() -> None:
    """Import the computer players now, so that the first decision does not wait for it."""
    import engine.ai  # noqa: F401


def choose(level: str, view: SeatView, rules: Rules, seed: int) -> Action:
    """The decision of a computer player of ``level`` seeing ``view`` (its seat's view,
    nothing more)."""
    from engine.ai import make_player

    return make_player(level).choose(view, rules, seed=seed)
