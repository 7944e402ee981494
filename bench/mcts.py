"""A plain determinized Monte Carlo player, a yardstick for the hard level in bench/ai.py.

Nothing of ``engine/ai``'s judgement goes into it: per decision it

1. samples a deal of the hidden cards consistent with the seat's view (the frozen sampler of
   ``bench/ai_previous/world.py``: hand sizes, known cards, stock, the face-up trump);
2. picks one of the seat's legal actions by UCB1 over the root (c = 0.7 on a 0..1 score),
   plays it in that deal, and plays the game out with a light rule of thumb for every seat
   (lead the lowest card; cover with the cheapest card that beats, else take; throw in the
   lowest card that fits, else pass; one move in ten at random); scores 1 if the seat's
   side is not the loser, ½ a draw, 0 the loser;
3. repeats ``playouts`` times (one fresh deal per playout: deals × rollouts), or until
   ``seconds`` of CPU are spent, and plays the most tried action.

Flat UCB1 over determinized deals is the textbook plain approach (no tree below the root,
no inference from the others' moves); its budgets are deals × rollouts per decision.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from engine.actions import Action, Cover, Lead, Pass, Take, Throw, Timeout
from engine.game import Game
from engine.rules import Rules
from engine.views import SeatView

from .ai_previous.knowledge import card_sense, knowledge
from .ai_previous.world import WorldBuilder

__all__ = ["PlainMCTS"]

EXPLORE = 0.7
NOISE = 0.1
MAX_STEPS = 600


class PlainMCTS:
    """Flat determinized UCB1 with light playouts: ``playouts`` deals × rollouts per
    decision, or as many as ``seconds`` of CPU allow (whichever ends first)."""

    def __init__(self, playouts: int | None = 200, seconds: float | None = None) -> None:
        if playouts is None and seconds is None:
            raise ValueError("give a playout count or a time")
        self.playouts = playouts
        self.seconds = seconds
        self.level = f"mcts{playouts}" if seconds is None else f"mcts{seconds:g}s"

    def choose(
        self, view: SeatView, rules: Rules, *, seed: int = 0, budget: float | None = None
    ) -> Action:
        """The most tried action after the playouts (``budget`` is ignored)."""
        acts = [a for a in view.actions if type(a) is not Timeout]
        if not acts:
            raise ValueError(f"seat {view.seat} has no legal action now")
        if len(acts) == 1:
            return acts[0]
        know = knowledge(view, rules)
        if know is None:
            return _light(acts, view.hand, card_sense(rules, _trump(view)).value, None)
        builder = WorldBuilder(view, rules, know)
        pub = view.public
        rng = random.Random((seed * 1_000_003 + pub.moves * 7_919 + view.seat) ^ 0xC0FFEE)
        team = None if pub.teams is None else pub.teams[view.seat]
        teams = pub.teams
        wins = [0.0] * len(acts)
        tries = [0] * len(acts)
        start = time.process_time()
        done = failures = 0
        while self.playouts is None or done < self.playouts:
            if self.seconds is not None and time.process_time() - start > self.seconds:
                break
            world = builder.sample(rng)
            if world is None:
                failures += 1
                if failures > 20 and failures > 4 * done:
                    break
                continue
            done += 1
            i = _ucb(wins, tries, done, rng)
            world.apply(acts[i])
            wins[i] += _playout(world, view.seat, team, teams, rng)
            tries[i] += 1
        if not done:
            return _light(acts, view.hand, card_sense(rules, _trump(view)).value, rng)
        best = max(range(len(acts)), key=lambda i: (tries[i], wins[i]))
        return acts[best]


def _trump(view: SeatView) -> int | None:
    return int(view.public.trump) if view.public.trump is not None else None


def _ucb(wins: list[float], tries: list[int], total: int, rng: random.Random) -> int:
    untried = [i for i, t in enumerate(tries) if t == 0]
    if untried:
        return rng.choice(untried)
    log = math.log(total)
    return max(
        range(len(tries)),
        key=lambda i: wins[i] / tries[i] + EXPLORE * math.sqrt(log / tries[i]),
    )


def _playout(
    g: Game, seat: int, team: int | None, teams: tuple[int, ...] | None, rng: random.Random
) -> float:
    value = card_sense(g.rules, g.trump).value
    steps = MAX_STEPS
    while g.result is None:
        steps -= 1
        if steps < 0:
            return 0.5
        seats = g.to_act()
        s = seats[0] if len(seats) == 1 else rng.choice(seats)
        acts = g.legal_actions(s)
        g.apply(acts[0] if len(acts) == 1 else _light(acts, g.hands[s], value, rng))
    result = g.result
    if result.draw:
        return 0.5
    if teams is not None and team is not None:
        return 0.0 if any(teams[x] == team for x in result.losers) else 1.0
    return 0.0 if seat in result.losers else 1.0


def _light(
    acts: Sequence[Action], hand: Sequence[int], value: dict[int, int], rng: random.Random | None
) -> Action:
    """The playouts' rule of thumb (see the module docstring)."""
    if rng is not None and rng.random() < NOISE:
        return rng.choice(list(acts))

    def v(c: int) -> int:
        return value.get(c, 10)

    leads = [a for a in acts if type(a) is Lead]
    if leads:
        return min(leads, key=lambda a: (min(v(c) for c in a.cards), -len(a.cards)))
    covers = [a for a in acts if type(a) is Cover]
    if covers:
        return min(covers, key=lambda a: v(a.card))
    throws = [a for a in acts if type(a) is Throw and v(a.card) < 20]
    if throws:
        return min(throws, key=lambda a: v(a.card))
    for a in acts:
        if type(a) in (Take, Pass):
            return a
    return acts[0]
