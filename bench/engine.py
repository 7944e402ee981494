"""Engine benchmark: random-playout games per second and JSON round-trip time.

Run by hand on one core: ``taskset -c 0 .venv/bin/python bench/engine.py``. Prints
figures; asserts nothing. Targets: ≥ 1,500 random 2-player podkidnoy games/s; ≤ 200 µs per
JSON round trip. Rates are per second of this process's CPU time (what one core does),
so other load on the machine does not distort them; wall-clock rates are printed beside.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Game, Rules


def playouts(rules: Rules, players: int, games: int, seed0: int = 0) -> tuple[float, float, float]:
    """Play ``games`` random games; return (games per CPU second, per wall second, mean
    actions per game)."""
    actions = 0
    start = time.process_time()
    wall = time.perf_counter()
    for i in range(games):
        game = Game.new(rules, players=players, seed=seed0 + i)
        rnd = random.Random(seed0 + i).random
        while game.result is None:
            acting = game.to_act()
            seat = acting[int(rnd() * len(acting))]
            legal = game.legal_actions(seat)
            game.apply(legal[int(rnd() * len(legal))])
            actions += 1
    elapsed = time.process_time() - start
    wall = time.perf_counter() - wall
    return games / elapsed, games / wall, actions / games


def json_round_trip(rules: Rules, players: int, samples: int) -> tuple[float, float, int]:
    """Mean and p99 CPU µs of ``Game.from_json(game.to_json())`` over mid-game states."""
    states: list[Game] = []
    rng = random.Random(1)
    seed = 0
    while len(states) < samples:
        game = Game.new(rules, players=players, seed=seed)
        seed += 1
        while game.result is None:
            seat = rng.choice(game.to_act())
            game.apply(rng.choice(game.legal_actions(seat)))
            if rng.random() < 0.1:
                states.append(game.copy())
    times = []
    size = 0
    for g in states[:samples]:
        t = time.process_time()
        for _ in range(10):
            text = g.to_json()
            Game.from_json(text)
        times.append((time.process_time() - t) * 1e5)
        size = max(size, len(text))
    times.sort()
    return statistics.fmean(times), times[int(len(times) * 0.99)], size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=3000)
    args = parser.parse_args()
    podkidnoy = Rules.preset("podkidnoy")
    perevodnoy = Rules.preset("perevodnoy")
    playouts(podkidnoy, 2, 200)  # warm-up
    for label, rules, players, games in (
        ("2-player podkidnoy", podkidnoy, 2, args.games),
        ("6-player perevodnoy", perevodnoy, 6, args.games // 3),
    ):
        best = max(playouts(rules, players, games, seed0=r * games) for r in range(3))
        print(
            f"{label:22s} {best[0]:8.0f} games/s (CPU)  {best[1]:8.0f} games/s (wall)"
            f"  {best[2]:.0f} actions per game"
        )
    for label, rules, players in (
        ("2-player podkidnoy", podkidnoy, 2),
        ("6-player perevodnoy", perevodnoy, 6),
    ):
        mean, p99, size = json_round_trip(rules, players, 2000)
        print(
            f"JSON round trip, {label:20s} mean {mean:6.1f} µs  p99 {p99:6.1f} µs  (≤ {size} bytes)"
        )


if __name__ == "__main__":
    main()
