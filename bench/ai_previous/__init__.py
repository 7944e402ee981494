"""The hard player as it was before issue 27, frozen as a fixed opponent for bench/ai.py.

A copy of ``engine/ai``'s search, sampling, knowledge and heuristic at that time (commit
9b95efc), importing only the engine's rules from ``engine``; whatever ``engine/ai``
becomes, ``PreviousHard`` plays as the hard level did then: 30 sampled worlds, 5
candidates, normal-heuristic playouts, stopping at 0.25 s of CPU.
"""

from __future__ import annotations

from engine.actions import Action
from engine.rules import Rules
from engine.views import SeatView

from .search import SearchConfig, search_action

__all__ = ["PreviousHard"]


class PreviousHard:
    """The previous hard level: ``choose`` as ``engine.ai.HardPlayer.choose`` was."""

    level = "previous"

    def __init__(self, config: SearchConfig | None = None) -> None:
        self.config = config or SearchConfig()

    def choose(
        self, view: SeatView, rules: Rules, *, seed: int = 0, budget: float | None = None
    ) -> Action:
        """The searched action. ``budget`` (CPU seconds) overrides the configured one."""
        if not view.actions:
            raise ValueError(f"seat {view.seat} has no legal action now")
        cfg = self.config
        if budget is not None:
            cfg = SearchConfig(cfg.worlds, cfg.candidates, budget, cfg.max_steps)
        return search_action(view, rules, seed, cfg)
