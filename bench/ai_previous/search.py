"""The hard player's search: determinized Monte Carlo over the legal actions.

For a decision with a real choice, the search

1. keeps a few candidate actions: the normal heuristic's best ones, plus taking, passing,
   the best transfer and any action type the heuristic does not know;
2. samples worlds (deals of the hidden cards consistent with the view, :mod:`.world`);
3. in each world plays every candidate, then plays the game out with the normal heuristic
   for every seat, and scores it for the seat's side: 1 not the loser, ½ a draw, 0 the loser
   (in team play the whole team's result). All candidates share each world, so their
   comparison is paired;
4. halves the candidates after a third and after two thirds of the worlds (successive
   halving), and stops early when the CPU-time budget runs out;
5. plays the candidate with the best mean, ties going to the heuristic's order.

Everything random comes from the seed, and the world count is fixed, so the same view with
the same seed gives the same choice unless the time budget cuts the search short.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.actions import Action, Cover, Pass, PokerSwap, ShowTrump, Take, Timeout, Transfer
from engine.errors import IllegalAction
from engine.game import Game
from engine.rules import Rules
from engine.views import SeatView

from .heuristic import best_action, score_actions, situation_from_game, situation_from_view
from .knowledge import CardSense, card_sense, knowledge
from .world import WorldBuilder

__all__ = ["Playout", "SearchConfig", "candidates", "plan_signature", "search_action"]


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """How hard the hard player thinks. ``worlds``: sampled deals per decision;
    ``candidates``: most actions compared; ``budget``: CPU seconds per decision (None: no
    limit, the search always completes); ``max_steps``: longest playout."""

    worlds: int = 30
    candidates: int = 5
    budget: float | None = 0.25
    max_steps: int = 600


def plan_signature(action: Action, score: float | None) -> tuple[Any, ...]:
    """Actions that are one plan for the search: covers that follow the heuristic's plan,
    one poker swap."""
    kind = type(action)
    if kind is Cover and score is not None and score >= 2.5:
        return ("cover-plan",)
    if kind is PokerSwap:
        return ("poker",)
    return (kind.__name__, *action)


def candidates(
    actions: Sequence[Action], scores: Sequence[float | None], limit: int
) -> list[Action]:
    """The actions worth comparing: the heuristic's best first, then taking or passing, the
    best transfer and unknown action types, up to ``limit`` (and at least those)."""

    def rank(i: int) -> float:
        s = scores[i]
        return -s if s is not None else 1e9

    order = sorted(range(len(actions)), key=rank)
    chosen: list[Action] = []
    seen: set[tuple[Any, ...]] = set()

    def add(i: int) -> None:
        sig = plan_signature(actions[i], scores[i])
        if sig not in seen:
            seen.add(sig)
            chosen.append(actions[i])

    known = [i for i in order if scores[i] is not None]
    if known:
        add(known[0])
    for i in order:  # the side's fallback moves and the best transfer
        kind = type(actions[i])
        if kind in (Take, Pass):
            add(i)
    for kinds in ((ShowTrump,), (Transfer,)):
        for i in known:
            if type(actions[i]) in kinds:
                add(i)
                break
    unknown = [i for i in order if scores[i] is None and type(actions[i]) is not Timeout]
    for i in unknown[:2]:
        add(i)
    for i in known:
        if len(chosen) >= limit:
            break
        add(i)
    if not chosen:
        chosen.append(actions[0])
    return chosen


class Playout:
    """Plays sampled games to the end with the normal heuristic for every seat."""

    def __init__(self, rules: Rules, seat: int, teams: tuple[int, ...] | None, steps: int):
        self.rules = rules
        self.seat = seat
        self.team = None if teams is None else teams[seat]
        self.teams = teams
        self.steps = steps
        self.partial = str(rules.game) == "prostoy5"
        self.senses: dict[int | None, CardSense] = {}

    def sense(self, trump: int | None) -> CardSense:
        found = self.senses.get(trump)
        if found is None:
            found = self.senses[trump] = card_sense(self.rules, trump)
        return found

    def run(self, g: Game) -> float:
        """Play ``g`` out; the seat's side's score."""
        steps = self.steps
        partial = self.partial
        while g.result is None:
            steps -= 1
            if steps < 0:
                return 0.5
            seats = g.to_act()
            d = g.defender
            seat = d if d in seats else seats[0]
            acts = g.legal_actions(seat)
            if len(acts) == 1:
                g.apply(acts[0])
                continue
            sit = situation_from_game(g, seat, acts, self.sense(g.trump), partial)
            g.apply(best_action(sit))
        result = g.result
        if result.draw:
            return 0.5
        return 0.0 if self.seat in result.losers else 1.0


def search_action(
    view: SeatView,
    rules: Rules,
    seed: int = 0,
    config: SearchConfig | None = None,
    pace: Callable[[], None] | None = None,
) -> Action:
    """The hard player's choice for ``view`` (see the module docstring). ``pace`` is called
    after every world (a caller that shares the CPU may rest there)."""
    cfg = config or SearchConfig()
    acts = [a for a in view.actions if type(a) is not Timeout]
    if not acts:
        raise ValueError("no legal action for this seat now")
    if len(acts) == 1:
        return acts[0]
    start = time.process_time()
    know = knowledge(view, rules)
    sit = situation_from_view(view, rules, know)
    scores = score_actions(sit._replace(actions=acts))
    cands = candidates(acts, scores, cfg.candidates)
    if len(cands) == 1 or know is None:
        return cands[0]
    builder = WorldBuilder(view, rules, know)
    if not builder.ok:
        return cands[0]
    rng = random.Random(_mix(seed, view))
    playout = Playout(rules, view.seat, view.public.teams, cfg.max_steps)
    total = [0.0] * len(cands)
    count = [0] * len(cands)
    alive = list(range(len(cands)))
    worlds = cfg.worlds
    cuts = {max(1, worlds // 3), max(2, 2 * worlds // 3)}
    failures = 0
    done = 0
    while done < worlds:
        world = builder.sample(rng)
        if world is None:
            failures += 1
            if failures > 3 and failures > done:
                break
            continue
        done += 1
        for i in alive:
            g = world.copy()
            try:
                g.apply(cands[i])
            except IllegalAction:
                continue
            total[i] += playout.run(g)
            count[i] += 1
        if done in cuts and len(alive) > 2:
            alive.sort(key=lambda i: (-_mean(total[i], count[i]), i))
            alive = sorted(alive[: (len(alive) + 1) // 2])
        if pace is not None:
            pace()
        if cfg.budget is not None and time.process_time() - start > cfg.budget:
            break
    if not any(count):
        return cands[0]
    best = max(alive, key=lambda i: (_mean(total[i], count[i]), -i))
    return cands[best]


def _mean(total: float, count: int) -> float:
    return total / count if count else -1.0


def _mix(seed: int, view: SeatView) -> int:
    """A per-decision seed from the player's seed and public facts of the position."""
    pub = view.public
    return (seed * 1_000_003 + pub.moves * 7_919 + view.seat * 104_729) % (1 << 62)
