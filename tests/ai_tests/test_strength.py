"""Strength sanity on small samples with loose bounds (the real figures: bench/ai.py)."""

from __future__ import annotations

from dataclasses import replace

from engine import Rules
from engine.ai import HardPlayer, Player, make_player, play_game
from engine.ai.search import HARD

PODKIDNOY = Rules.preset("podkidnoy")


def player(level: str) -> Player:
    """A player of that level; hard with a quarter of its playout work (the same code
    path, endgame search included), so the test stays quick."""
    if level == "hard":
        return HardPlayer(replace(HARD, work=HARD.work // 4 if HARD.work else None))
    return make_player(level)


def duel(a: str, b: str, deals: range) -> tuple[int, int]:
    """Wins of ``a`` and of ``b`` over the deals, each played with both seatings."""
    wins = {a: 0, b: 0}
    for seed in deals:
        for seats in ((a, b), (b, a)):
            result = play_game(PODKIDNOY, [player(x) for x in seats], seed=seed).result
            assert result is not None
            if not result.draw:
                wins[seats[1 - result.losers[0]]] += 1
    return wins[a], wins[b]


def test_normal_beats_easy() -> None:
    normal, easy = duel("normal", "easy", range(50))
    assert normal >= 0.65 * (normal + easy)


def test_hard_beats_normal() -> None:
    hard, normal = duel("hard", "normal", range(100, 105))
    assert hard >= 0.5 * (hard + normal)
