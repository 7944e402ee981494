"""Playing whole games between computer players (tests, benchmarks, an empty-seat filler).

Several seats may act at once (a defender and throwers); :func:`play_game` picks which one
moves next at random from the game's seed, so a seeded game is reproducible.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

from ..game import Game
from ..result import Result
from ..rules import Rules
from .players import Player

__all__ = ["play_game"]


def play_game(
    rules: Rules,
    players: Sequence[Player],
    seed: int,
    *,
    previous: Result | None = None,
    on_decision: Callable[[int, float], None] | None = None,
    max_moves: int = 5_000,
) -> Game:
    """Play a seeded game to the end, seat ``s`` played by ``players[s]``.

    ``on_decision(seat, cpu_seconds)`` is called after every decision that had a choice."""
    game = Game.new(rules, players=len(players), seed=seed, previous=previous)
    order = random.Random(seed ^ 0x0DDBA11)
    while game.result is None:
        if game.moves >= max_moves:
            raise RuntimeError(f"game {seed} did not end in {max_moves} moves")
        seats = game.to_act()
        seat = seats[0] if len(seats) == 1 else order.choice(seats)
        view = game.view(seat)
        if len(view.actions) == 1:
            game.apply(view.actions[0])
            continue
        start = time.process_time()
        action = players[seat].choose(view, rules, seed=seed)
        if on_decision is not None:
            on_decision(seat, time.process_time() - start)
        game.apply(action)
    return game
