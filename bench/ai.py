"""Computer-player benchmark: strength of each level and the hard player's thinking time.

Run by hand: ``.venv/bin/python bench/ai.py`` (``--games 200`` for a quick look). Prints
figures; asserts nothing.

- Head to head, 2-player podkidnoy: ``normal`` against ``easy`` and ``hard`` against
  ``normal``, each over ``--games`` seeded games; every deal is played twice with the seats
  swapped. Win rates count decided games only (draws are reported apart).
  Targets: normal beats easy in ≥ 75%, hard beats normal in ≥ 60% of decided games.
- The hard player's CPU time per decision, p50/p99/max, measured in this process alone
  (run it under ``taskset -c 0`` to pin it to one core). Target: p99 ≤ 300 ms.
- 4-player podkidnoy, one seat per level plus a second normal seat, rotated over the
  seats: each level's durak rate (one in four is par).

The head-to-head and 4-player games run in ``--procs`` worker processes (default 2); the
decision times come from a separate single-process run of ``--timing-games`` games.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Rules
from engine.ai import make_player, play_game

PODKIDNOY = Rules.preset("podkidnoy")
FOUR_LINEUP = ("easy", "normal", "hard", "normal")


def duel(job: tuple[str, str, int, int]) -> Counter[str]:
    """Play deals ``lo..hi-1`` of ``a`` against ``b``, each with both seatings; count wins
    of ``a``, of ``b`` and draws."""
    a, b, lo, hi = job
    tally: Counter[str] = Counter()
    for seed in range(lo, hi):
        for first in (a, b):
            seats = [first, b if first == a else a]
            players = [make_player(level) for level in seats]
            result = play_game(PODKIDNOY, players, seed=seed).result
            assert result is not None
            if result.draw:
                tally["draw"] += 1
            else:
                winner = seats[1 - result.losers[0]]
                tally[winner] += 1
    return tally


def four(job: tuple[int, int]) -> Counter[str]:
    """4-player games ``lo..hi-1``: per level, seat-games and times durak."""
    lo, hi = job
    tally: Counter[str] = Counter()
    for seed in range(lo, hi):
        shift = seed % 4
        seats = [FOUR_LINEUP[(s + shift) % 4] for s in range(4)]
        players = [make_player(level) for level in seats]
        result = play_game(PODKIDNOY, players, seed=seed).result
        assert result is not None
        for level in seats:
            tally[f"{level} seats"] += 1
        if result.draw:
            tally["draw"] += 1
        else:
            tally[f"{seats[result.losers[0]]} durak"] += 1
    return tally


def chunks(lo: int, hi: int, parts: int) -> list[tuple[int, int]]:
    """``lo..hi`` in ``parts`` interleaved-free contiguous chunks of similar size."""
    step = max(1, (hi - lo + parts * 4 - 1) // (parts * 4))
    return [(i, min(i + step, hi)) for i in range(lo, hi, step)]


def run_duel(a: str, b: str, games: int, procs: int, seed0: int) -> None:
    deals = max(1, games // 2)
    start = time.perf_counter()
    jobs = [(a, b, lo, hi) for lo, hi in chunks(seed0, seed0 + deals, procs)]
    total: Counter[str] = Counter()
    with ProcessPoolExecutor(procs) as pool:
        for part in pool.map(duel, jobs):
            total.update(part)
    decided = total[a] + total[b]
    rate = total[a] / decided if decided else 0.0
    print(
        f"{a:>6} vs {b:<6} {deals * 2:6d} games  {a} wins {total[a]:5d}  {b} wins {total[b]:5d}"
        f"  draws {total['draw']:4d}  {a} wins {rate:6.1%} of decided"
        f"  ({time.perf_counter() - start:.0f} s wall)",
        flush=True,
    )


def run_timing(games: int, seed0: int) -> None:
    times: list[float] = []
    start = time.perf_counter()

    def record(seat: int, seconds: float) -> None:
        if seat == hard_seat:
            times.append(seconds)

    for i in range(games):
        hard_seat = i % 2
        seats = ["hard", "normal"] if hard_seat == 0 else ["normal", "hard"]
        play_game(PODKIDNOY, [make_player(x) for x in seats], seed=seed0 + i, on_decision=record)
    times.sort()
    ms = [t * 1000 for t in times]
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(
        f"hard decision CPU time over {len(ms)} decisions ({games} games, one process): "
        f"mean {statistics.fmean(ms):.1f} ms  p50 {ms[len(ms) // 2]:.1f} ms  "
        f"p99 {p99:.1f} ms  max {ms[-1]:.1f} ms  ({time.perf_counter() - start:.0f} s wall)",
        flush=True,
    )


def run_four(games: int, procs: int, seed0: int) -> None:
    start = time.perf_counter()
    total: Counter[str] = Counter()
    with ProcessPoolExecutor(procs) as pool:
        for part in pool.map(four, chunks(seed0, seed0 + games, procs)):
            total.update(part)
    print(
        f"4-player podkidnoy, {games} games, lineup {'/'.join(FOUR_LINEUP)} rotated; "
        f"draws {total['draw']}  ({time.perf_counter() - start:.0f} s wall)"
    )
    for level in ("easy", "normal", "hard"):
        seats = total[f"{level} seats"]
        durak = total[f"{level} durak"]
        print(f"  {level:>6}: durak {durak:5d} of {seats:5d} seat-games = {durak / seats:6.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000, help="games per head-to-head pairing")
    parser.add_argument("--four", type=int, default=400, help="4-player games")
    parser.add_argument("--timing-games", type=int, default=60, help="games for decision times")
    parser.add_argument("--procs", type=int, default=2, help="worker processes")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument(
        "--only", choices=("duels", "timing", "four"), default=None, help="run one part only"
    )
    args = parser.parse_args()
    if args.only in (None, "timing"):
        run_timing(args.timing_games, 1_000_000 + args.seed)
    if args.only in (None, "duels"):
        run_duel("normal", "easy", args.games, args.procs, args.seed)
        run_duel("hard", "normal", args.games, args.procs, args.seed)
    if args.only in (None, "four"):
        run_four(args.four, args.procs, 2_000_000 + args.seed)


if __name__ == "__main__":
    main()
