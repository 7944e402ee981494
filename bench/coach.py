"""Coach benchmark: the CPU time a game's review takes, and what it finds.

Run by hand: ``.venv/bin/python bench/coach.py`` (``--games 30`` for more). Prints figures;
asserts nothing.

Plays ``--games`` seeded 2-player podkidnoy games, ``easy`` against ``normal`` with the
seats swapped from game to game, and reviews one seat of each (``--review``: the easy seat
by default, where the mistakes are) with the coach's defaults and ``--budget``. Prints,
per game, the decisions with a choice, those examined, the marks and the CPU seconds;
then CPU seconds p50/max over the games (measured in this process alone: run it under
``taskset -c 0`` to pin it to one core). Target: a 2-player game's review takes ≤ 5 s of
CPU.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Action, Game, Rules
from engine.actions import Timeout
from engine.ai import make_player
from engine.ai.coach import THRESHOLD, WORLDS, review

PODKIDNOY = Rules.preset("podkidnoy")


def play(levels: tuple[str, str], seed: int, seat: int) -> tuple[Game, list[Action], int]:
    """A seeded game: its start, its actions, and how many decisions ``seat`` had with a
    real choice."""
    game = Game.new(PODKIDNOY, players=2, seed=seed)
    initial = game.copy()
    players = [make_player(level) for level in levels]
    order = random.Random(seed ^ 0x0DDBA11)
    actions: list[Action] = []
    choices = 0
    while game.result is None:
        seats = game.to_act()
        s = seats[0] if len(seats) == 1 else order.choice(seats)
        view = game.view(s)
        if s == seat and sum(1 for a in view.actions if type(a) is not Timeout) > 1:
            choices += 1
        action = players[s].choose(view, PODKIDNOY, seed=seed)
        actions.append(action)
        game.apply(action)
    return initial, actions, choices


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10, help="games to play and review")
    parser.add_argument("--review", choices=("easy", "normal"), default="easy")
    parser.add_argument("--budget", type=float, default=4.5, help="CPU seconds per review")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    args = parser.parse_args()
    budget = args.budget if args.budget > 0 else None
    print(
        f"coach: threshold {THRESHOLD}, {WORLDS} worlds per comparison, budget {budget} s; "
        f"reviewing the {args.review} seat",
        flush=True,
    )
    seconds: list[float] = []
    examined = found = cut = 0
    for i in range(args.games):
        seed = 3_000_000 + args.seed + i
        levels = ("easy", "normal") if i % 2 == 0 else ("normal", "easy")
        seat = levels.index(args.review)
        initial, actions, choices = play(levels, seed, seat)
        result = review(initial, actions, PODKIDNOY, seat, seed=seed, budget=budget)
        seconds.append(result.cpu_seconds)
        examined += result.decisions
        found += len(result.marks)
        cut += result.decisions < choices
        biggest = result.biggest
        worst = f"  biggest drop {biggest.drop:.2f} at move {biggest.move}" if biggest else ""
        print(
            f"game {seed}: {len(actions):3d} moves, {choices:2d} decisions, "
            f"{result.decisions:2d} examined, {len(result.marks)} marks, "
            f"{result.cpu_seconds:.2f} s CPU{worst}",
            flush=True,
        )
    seconds.sort()
    print(
        f"{args.games} reviews: CPU p50 {statistics.median(seconds):.2f} s  "
        f"max {seconds[-1]:.2f} s  mean {statistics.fmean(seconds):.2f} s; "
        f"{examined} decisions examined, {found} marks "
        f"({found / max(1, args.games):.1f} per game); {cut} reviews cut short by the budget"
    )


if __name__ == "__main__":
    main()
