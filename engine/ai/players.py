"""Computer players: ``easy``, ``normal`` and ``hard``.

A player chooses from a seat's view and the rules, which are public; it is never handed
the game, so it cannot see a hidden card. ``seed`` makes a choice reproducible: the same
view, rules and seed give the same action.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Literal, Protocol

from ..actions import Action, Timeout
from ..rules import Rules
from ..views import SeatView
from .heuristic import best_action, easy_action, situation_from_view
from .search import HARD, SearchConfig, hard_action

__all__ = [
    "LEVELS",
    "EasyPlayer",
    "HardPlayer",
    "Level",
    "NormalPlayer",
    "Player",
    "choose",
    "make_player",
    "think_floor",
]

Level = Literal["easy", "normal", "hard"]
LEVELS: tuple[Level, ...] = ("easy", "normal", "hard")


class Player(Protocol):
    """Anything that picks a legal action for a seat from what that seat may see."""

    level: str

    def choose(
        self, view: SeatView, rules: Rules, *, seed: int = 0, budget: float | None = None
    ) -> Action:
        """One of ``view.actions``. ``budget``: CPU seconds it may think (hard only)."""
        ...


def _legal(view: SeatView) -> SeatView:
    if not view.actions:
        raise ValueError(f"seat {view.seat} has no legal action now")
    return view


def _rng(seed: int, view: SeatView) -> random.Random:
    pub = view.public
    return random.Random((seed * 1_000_003 + pub.moves * 7_919 + view.seat * 104_729) ^ 0x5EED)


class EasyPlayer:
    """Legal and plausible, with mistakes: plays at random three times in ten, otherwise
    greedily by rank (spends trumps freely, never takes while it can cover)."""

    level = "easy"

    def choose(
        self, view: SeatView, rules: Rules, *, seed: int = 0, budget: float | None = None
    ) -> Action:
        """A careless action (``budget`` is ignored)."""
        view = _legal(view)
        acts = tuple(a for a in view.actions if type(a) is not Timeout)
        sit = situation_from_view(view, rules)._replace(actions=acts)
        return easy_action(sit, _rng(seed, view))


class NormalPlayer:
    """A sound heuristic (see :mod:`engine.ai.heuristic`); deterministic."""

    level = "normal"

    def choose(
        self, view: SeatView, rules: Rules, *, seed: int = 0, budget: float | None = None
    ) -> Action:
        """The heuristic's action (``seed`` and ``budget`` are ignored)."""
        view = _legal(view)
        acts = tuple(a for a in view.actions if type(a) is not Timeout)
        if len(acts) == 1:
            return acts[0]
        return best_action(situation_from_view(view, rules)._replace(actions=acts))


class HardPlayer:
    """The exact endgame where every card is known, else determinized Monte Carlo search
    (see :func:`engine.ai.search.hard_action`), within a CPU-time budget per decision."""

    level = "hard"

    def __init__(self, config: SearchConfig | None = None) -> None:
        self.config = config or HARD

    def choose(
        self, view: SeatView, rules: Rules, *, seed: int = 0, budget: float | None = None
    ) -> Action:
        """The searched action. ``budget`` (CPU seconds) overrides the configured one."""
        view = _legal(view)
        cfg = self.config
        if budget is not None:
            cfg = replace(cfg, budget=budget)
        return hard_action(view, rules, seed, cfg)


def make_player(level: str) -> Player:
    """A player of that level: ``easy``, ``normal`` or ``hard``."""
    if level == "easy":
        return EasyPlayer()
    if level == "normal":
        return NormalPlayer()
    if level == "hard":
        return HardPlayer()
    raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")


def choose(
    level: str, view: SeatView, rules: Rules, *, seed: int = 0, budget: float | None = None
) -> Action:
    """The action a ``level`` player picks for ``view``."""
    return make_player(level).choose(view, rules, seed=seed, budget=budget)


def think_floor(level: str) -> float:
    """Seconds a ``level`` player's decision should take at a table at the least: its
    longest think, so that how soon it moves tells nothing of what it holds (a forced pass
    comes no sooner than a searched throw-in). ``easy`` and ``normal`` decide in
    microseconds: 0."""
    if level == "hard":
        return HARD.budget or 0.0
    return 0.0
