"""What runs in the computer players' worker processes; kept apart so that a worker starts
light (the engine is imported by its first decision, or by :func:`prepare`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.base.lifeline import start_below

if TYPE_CHECKING:
    from engine import Rules, SeatView
    from engine.actions import Action

__all__ = ["choose", "prepare", "start_worker"]


start_worker = start_below
"""Worker start-up: end when the bot ends, then yield it the CPU. A decision is awaited by
a table, yet it runs in the idle class like the coach's reviews: the bot's own work (every
other table's presses and messages) comes first, and a busy worker beside it would
otherwise slow every table of the process. The decision's budget is CPU time, so the
computer thinks as deeply as ever; only a machine with no core to spare makes it wait."""


def prepare() -> None:
    """Import the computer players now, so that the first decision does not wait for it."""
    import engine.ai  # noqa: F401


def choose(level: str, view: SeatView, rules: Rules, seed: int) -> Action:
    """The decision of a computer player of ``level`` seeing ``view`` (its seat's view,
    nothing more)."""
    from engine.ai import make_player

    return make_player(level).choose(view, rules, seed=seed)
