"""Computer-player benchmark: how strong each level is, against whom, and how long it thinks.

Run by hand: ``.venv/bin/python bench/ai.py`` (everything; hours), or some pairings:
``.venv/bin/python bench/ai.py --pairings hard-previous:perevodnoy --games 400``. Prints
figures; asserts nothing.

The players: ``easy``, ``normal``, ``hard`` (``engine.ai`` as it is now); ``previous``, the
hard level before issue 27, frozen in ``bench/ai_previous/``; ``mcts20``, ``mcts60``,
``mcts200`` (deals × rollouts per decision) and ``mcts1s`` (one second of CPU a decision):
the plain determinized Monte Carlo of ``bench/mcts.py``; ``cut0``, ``cut4``, ... ``cut32``:
the hard level with its playouts stopped at the first bout's start after that many moves
(``cut8``: the hard level as it is) while the stock is not empty, the trained evaluation
(``engine/ai/evaluation.py``) taking the rest, as many more worlds as the same playout work
allows; ``cut0e`` ... ``cut32e``: the same, stopped also once the stock is empty.

The rules are fixed: the ``podkidnoy`` and ``perevodnoy`` presets at 2 players, and
``podkidnoy`` at 4 (two of each player, sitting A B A B). Every deal is played twice with
the seats swapped (A B A B, then B A B A at 4). A pairing ``a-b:rules`` reports ``a``'s win
rate over the decided games (a side wins when the durak is on the other side; draws are
counted apart) with its 95% Wilson interval, and each player's CPU time per decision that
had a choice: p50 and p99 (``time.process_time`` in the worker process: CPU time, whatever
else the machine runs; pin with ``taskset -c 1`` and ``--procs 1`` to keep it one core).

Targets (issue 27): hard beats previous in ≥ 65% of decided games, 2-player podkidnoy and
perevodnoy, over ≥ 400 games each; hard beats mcts1s in ≥ 55%; hard's p99 ≤ 300 ms; normal
beats easy in ≥ 90%.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dataclasses import replace

from bench.ai_previous import PreviousHard
from bench.mcts import PlainMCTS
from engine import Rules
from engine.ai import HardPlayer, Player, make_player, play_game
from engine.ai.search import HARD

CUTS = (0, 4, 8, 16, 32)
"""The plies of the hard players ``cutK``/``cutKe`` (see the module docstring)."""


def cut_player(plies: int, empty: bool) -> Player:
    """The hard level with playouts cut after ``plies`` moves at the next bout's start
    (``empty``: once the stock is empty too), the trained evaluation taking the rest."""
    return HardPlayer(replace(HARD, cut=plies, cut_empty=empty, cut_worlds=3000, world_cost=6))


RULES: dict[str, tuple[Rules, int]] = {
    "podkidnoy": (Rules.preset("podkidnoy"), 2),
    "perevodnoy": (Rules.preset("perevodnoy"), 2),
    "podkidnoy4": (Rules.preset("podkidnoy"), 4),
}

MAKERS: dict[str, Callable[[], Player]] = {
    "easy": lambda: make_player("easy"),
    "normal": lambda: make_player("normal"),
    "hard": lambda: make_player("hard"),
    "previous": lambda: PreviousHard(),
    "mcts20": lambda: PlainMCTS(20),
    "mcts60": lambda: PlainMCTS(60),
    "mcts200": lambda: PlainMCTS(200),
    "mcts1s": lambda: PlainMCTS(None, seconds=1.0),
    **{f"cut{k}": (lambda k=k: cut_player(k, False)) for k in CUTS},
    **{f"cut{k}e": (lambda k=k: cut_player(k, True)) for k in CUTS},
}

PAIRINGS: tuple[str, ...] = (
    "normal-easy:podkidnoy",
    "hard-normal:podkidnoy",
    "hard-previous:podkidnoy",
    "hard-previous:perevodnoy",
    "hard-previous:podkidnoy4",
    "hard-mcts20:podkidnoy",
    "hard-mcts60:podkidnoy",
    "hard-mcts200:podkidnoy",
    "hard-mcts1s:podkidnoy",
    "hard-mcts20:perevodnoy",
    "hard-mcts60:perevodnoy",
    "hard-mcts200:perevodnoy",
    "hard-mcts1s:perevodnoy",
    "hard-mcts200:podkidnoy4",
    "hard-mcts1s:podkidnoy4",
)

Job = tuple[str, str, str, int, int]
CHUNK = 5  # deals per job handed to a worker


def parse(pairing: str) -> tuple[str, str, str]:
    """``a-b:rules`` as its three parts (a clear error for anything else)."""
    try:
        names, rules = pairing.split(":")
        a, b = names.split("-")
    except ValueError:
        raise SystemExit(f"not a pairing: {pairing!r} (e.g. hard-previous:podkidnoy)") from None
    for name in (a, b):
        if name not in MAKERS:
            raise SystemExit(f"unknown player {name!r}; players: {', '.join(MAKERS)}")
    if rules not in RULES:
        raise SystemExit(f"unknown rules {rules!r}; rules: {', '.join(RULES)}")
    if a == b:
        raise SystemExit(f"a pairing needs two different players: {pairing!r}")
    return a, b, rules


def duel(job: Job) -> tuple[Counter[str], dict[str, list[float]]]:
    """Deals ``lo..hi-1`` of ``a`` against ``b``, each with both seatings: wins of each
    side, draws, and each player's CPU seconds per decision."""
    a, b, key, lo, hi = job
    rules, n = RULES[key]
    tally: Counter[str] = Counter()
    times: dict[str, list[float]] = {a: [], b: []}
    for seed in range(lo, hi):
        for first, second in ((a, b), (b, a)):
            seats = [first if s % 2 == 0 else second for s in range(n)]
            players = [MAKERS[name]() for name in seats]

            def record(seat: int, seconds: float, seats: list[str] = seats) -> None:
                times[seats[seat]].append(seconds)

            result = play_game(rules, players, seed=seed, on_decision=record).result
            assert result is not None
            if result.draw:
                tally["draw"] += 1
            else:
                loser = seats[result.losers[0]]
                tally[b if loser == a else a] += 1
    return tally, times


def chunks(lo: int, hi: int, size: int) -> list[tuple[int, int]]:
    """``lo..hi`` in contiguous chunks of ``size`` deals."""
    return [(i, min(i + size, hi)) for i in range(lo, hi, size)]


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate of ``wins`` in ``n``."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``, in milliseconds."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def run_pairing(
    pairing: str, games: int, procs: int, seed0: int, progress: bool, chunk: int = CHUNK
) -> None:
    a, b, key = parse(pairing)
    deals = max(1, games // 2)
    start = time.perf_counter()
    jobs = [(a, b, key, lo, hi) for lo, hi in chunks(seed0, seed0 + deals, chunk)]
    total: Counter[str] = Counter()
    times: dict[str, list[float]] = {a: [], b: []}
    with ProcessPoolExecutor(procs) as pool:
        for tally, part in pool.map(duel, jobs):
            total.update(tally)
            for name, values in part.items():
                times[name].extend(values)
            if progress:
                report(pairing, a, b, total, times, start, "so far: ")
    report(pairing, a, b, total, times, start, "")


def report(
    pairing: str,
    a: str,
    b: str,
    total: Counter[str],
    times: dict[str, list[float]],
    start: float,
    note: str,
) -> None:
    played = total[a] + total[b] + total["draw"]
    decided = total[a] + total[b]
    rate = total[a] / decided if decided else 0.0
    lo, hi = wilson(total[a], decided)
    speed = "  ".join(
        f"{name} p50 {percentile(times[name], 0.5):.1f} p99 {percentile(times[name], 0.99):.1f}"
        f" ms ({len(times[name])})"
        for name in (a, b)
    )
    print(
        f"{note}{pairing:<26} {played:5d} games: {a} {total[a]:4d} {b} {total[b]:4d}"
        f" draws {total['draw']:3d}; {a} wins {rate:6.1%} [{lo:.1%}, {hi:.1%}] of decided;"
        f"  {speed}  ({time.perf_counter() - start:.0f} s wall)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=400, help="games per pairing")
    parser.add_argument(
        "--slow-games", type=int, default=100, help="games per pairing with mcts1s (slow)"
    )
    parser.add_argument("--procs", type=int, default=2, help="worker processes")
    parser.add_argument("--seed", type=int, default=0, help="first deal's seed")
    parser.add_argument(
        "--pairings",
        nargs="+",
        default=list(PAIRINGS),
        metavar="A-B:RULES",
        help=f"pairings to play (default: all): {' '.join(PAIRINGS)}",
    )
    parser.add_argument(
        "--progress", action="store_true", help="print the running figures after each chunk"
    )
    parser.add_argument("--chunk", type=int, default=CHUNK, help="deals per job")
    args = parser.parse_args()
    for pairing in args.pairings:
        parse(pairing)
    for pairing in args.pairings:
        games = args.slow_games if "mcts1s" in pairing else args.games
        run_pairing(pairing, games, args.procs, args.seed, args.progress, args.chunk)


if __name__ == "__main__":
    main()
