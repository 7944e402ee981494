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

The hard player (:func:`hard_action`, :data:`HARD`) first tries the exact endgame search
(:mod:`.endgame`) where a 2-player seat knows every card; otherwise it runs this search with
many worlds, stopping when its playouts have made :data:`WORK` moves in all (halving the
candidates at a third and two thirds of that work): a limit that does not depend on the
machine, so its choice is reproducible, with the CPU-time budget a safety net. In 2-player
podkidnoy and perevodnoy a playout stops at the first bout's start after :data:`CUT` moves
while the stock holds cards, and scores the trained evaluation's estimate
(:mod:`.evaluation`) instead of playing on: the same work then covers several times as many
worlds. The coach uses :func:`search_action` alone, with its own configuration (playouts to
the end).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..actions import Action, Cover, Pass, PokerSwap, ShowTrump, Take, Timeout, Transfer
from ..errors import IllegalAction
from ..game import LEAD, Game
from ..rules import Rules
from ..views import SeatView
from .endgame import LOSS, Exhausted, Solver, solve_root
from .evaluation import Evaluation, evaluation_for
from .heuristic import best_action, score_actions, situation_from_game, situation_from_view
from .knowledge import CardSense, card_sense, knowledge
from .world import WorldBuilder

__all__ = [
    "HARD",
    "Playout",
    "SearchConfig",
    "candidates",
    "endgame_action",
    "hard_action",
    "plan_signature",
    "search_action",
]

WORK = 12_000
"""The hard player's playout moves per decision: about 0.2 s of CPU (a playout move, the
world it is played in included, costs some 13-17 µs in 2-player podkidnoy and
perevodnoy and 4-player podkidnoy; the CPU-time budget cuts the slow ones)."""
ENDGAME_NODES = 5_000
"""The hard player's most positions for the exact endgame: about 0.15 s of CPU at worst
(some 30 µs a position)."""
EVAL_COST = 4
"""Playout moves a playout stopped by the trained evaluation counts for besides its own
moves: the estimate (some 30 µs) and the playout's set-up."""
ENDGAME_SHARE = 0.6
"""The part of the CPU-time budget the endgame search may take before it gives up."""


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """How hard the hard player thinks. ``worlds``: sampled deals per decision;
    ``candidates``: most actions compared; ``budget``: CPU seconds per decision (None: no
    limit, the search always completes); ``max_steps``: longest playout."""

    worlds: int = 30
    candidates: int = 5
    budget: float | None = 0.25
    max_steps: int = 600
    work: int | None = None
    """Most moves the playouts of one decision may make in all (None: no limit): a limit
    on the thinking that, unlike the CPU-time budget, does not depend on the machine, so
    the choice stays reproducible."""
    endgame_nodes: int = 0
    """Most positions the exact endgame search may visit (:mod:`.endgame`; 0: no endgame
    search, the sampled search only)."""
    cut: int | None = None
    """Playout moves after which a playout stops at the next bout's start and takes the
    trained evaluation's estimate (:mod:`.evaluation`) instead of playing on (None: every
    playout to the end; also where the rules have no trained model)."""
    cut_empty: bool = False
    """Whether a playout may stop so once the stock is empty too (else it plays the
    endgame out)."""
    cut_worlds: int = 3000
    """Most sampled worlds where the playouts are cut (instead of ``worlds``)."""
    world_cost: int = 0
    """Playout moves a sampled world counts for in ``work`` where the playouts are cut
    (a world costs as much as a few moves, and a cut playout makes few)."""


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

    def __init__(
        self,
        rules: Rules,
        seat: int,
        teams: tuple[int, ...] | None,
        steps: int,
        evaluation: Evaluation | None = None,
        cut: int = 0,
        cut_empty: bool = False,
    ):
        self.rules = rules
        self.evaluation = evaluation
        self.cut = cut
        self.cut_empty = cut_empty
        self.seat = seat
        self.team = None if teams is None else teams[seat]
        self.teams = teams
        self.steps = steps
        self.partial = str(rules.game) == "prostoy5"
        self.senses: dict[int | None, CardSense] = {}
        self.used = 0

    def sense(self, trump: int | None) -> CardSense:
        found = self.senses.get(trump)
        if found is None:
            found = self.senses[trump] = card_sense(self.rules, trump)
        return found

    def run(self, g: Game) -> float:
        """Play ``g`` out; the seat's side's score. ``used`` counts the moves played."""
        steps = self.steps
        partial = self.partial
        evaluation = self.evaluation
        cut = self.steps - self.cut
        while g.result is None:
            if (
                evaluation is not None
                and steps <= cut
                and g.phase == LEAD
                and (self.cut_empty or g.stock)
                and evaluation.applies(g)
            ):
                self.used += self.steps - steps + EVAL_COST
                return evaluation.value(g, self.seat)
            steps -= 1
            if steps < 0:
                self.used += self.steps
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
        self.used += self.steps - steps
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
    started: float | None = None,
) -> Action:
    """The sampled search's choice for ``view`` (see the module docstring). ``pace`` is
    called after every world (a caller that shares the CPU may rest there); ``started``:
    the CPU time the decision began at, if earlier (the budget counts from there)."""
    cfg = config or SearchConfig()
    acts = [a for a in view.actions if type(a) is not Timeout]
    if not acts:
        raise ValueError("no legal action for this seat now")
    if len(acts) == 1:
        return acts[0]
    start = time.process_time() if started is None else started
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
    evaluation = None
    worlds = cfg.worlds
    world_cost = 0
    if cfg.cut is not None and view.public.teams is None:
        evaluation = evaluation_for(rules, view.public.players)
        if evaluation is not None:
            worlds = cfg.cut_worlds
            world_cost = cfg.world_cost
    playout = Playout(
        rules,
        view.seat,
        view.public.teams,
        cfg.max_steps,
        evaluation,
        cfg.cut or 0,
        cfg.cut_empty,
    )
    total = [0.0] * len(cands)
    count = [0] * len(cands)
    alive = list(range(len(cands)))
    cuts = {max(1, worlds // 3), max(2, 2 * worlds // 3)}
    failures = 0
    done = 0
    stages = 0
    while done < worlds:
        world = builder.sample(rng)
        if world is None:
            failures += 1
            if failures > 3 and failures > done:
                break
            continue
        done += 1
        playout.used += world_cost
        for i in alive:
            g = world.copy()
            try:
                g.apply(cands[i])
            except IllegalAction:
                continue
            total[i] += playout.run(g)
            count[i] += 1
        if cfg.work is not None:  # halve at a third and two thirds of the work instead
            stage = 3 * playout.used // cfg.work
            cut = stage > stages
            stages = max(stages, stage)
        else:
            cut = done in cuts
        if cut and len(alive) > 2:
            alive.sort(key=lambda i: (-_mean(total[i], count[i]), i))
            alive = sorted(alive[: (len(alive) + 1) // 2])
        if pace is not None:
            pace()
        if cfg.budget is not None and time.process_time() - start > cfg.budget:
            break
        if cfg.work is not None and playout.used >= cfg.work:
            break
    if not any(count):
        return cands[0]
    best = max(alive, key=lambda i: (_mean(total[i], count[i]), -i))
    return cands[best]


CUT = 8
"""The hard player's playout moves before a playout may stop at a bout's start and take
the trained evaluation's estimate (:mod:`.evaluation`), where the rules have a model."""
HARD = SearchConfig(
    worlds=400,
    candidates=6,
    budget=0.25,
    work=WORK,
    endgame_nodes=ENDGAME_NODES,
    cut=CUT,
    cut_worlds=3000,
    world_cost=6,
)
"""The hard player's search: the exact endgame where every card is known, else sampled
worlds until :data:`WORK` playout moves are spent (the CPU-time budget a safety net), the
playouts cut by the trained evaluation after :data:`CUT` moves where the rules have a
model."""


def hard_action(
    view: SeatView,
    rules: Rules,
    seed: int = 0,
    config: SearchConfig | None = None,
) -> Action:
    """The hard player's choice: the exact endgame search (:mod:`.endgame`) when the seat
    knows every card and the search finishes within ``config.endgame_nodes`` positions and
    finds a move that does not lose; otherwise the sampled search (:func:`search_action`)
    with what is left of the budget."""
    cfg = config or HARD
    acts = [a for a in view.actions if type(a) is not Timeout]
    if not acts:
        raise ValueError("no legal action for this seat now")
    if len(acts) == 1:
        return acts[0]
    start = time.process_time()
    if cfg.endgame_nodes > 0:
        found = endgame_action(view, rules, acts, cfg, start)
        if found is not None:
            return found
    return search_action(view, rules, seed, cfg, started=start)


def endgame_action(
    view: SeatView, rules: Rules, acts: Sequence[Action], cfg: SearchConfig, start: float
) -> Action | None:
    """The exact endgame's best move for a 2-player seat that knows every card (the stock
    holds none it cannot see); None where it does not apply, runs out of positions, or
    finds every move lost against perfect play (the sampled search then looks for the
    best chance against a fallible one). Ties go to the normal heuristic's order."""
    pub = view.public
    if pub.players != 2 or pub.teams is not None:
        return None
    know = knowledge(view, rules)
    if know is None or know.stock_hidden or know.spare:
        return None
    builder = WorldBuilder(view, rules, know)
    world = builder.sample(random.Random(0)) if builder.ok else None
    if world is None:
        return None
    scores = score_actions(situation_from_view(view, rules, know)._replace(actions=acts))
    order = [acts[i] for i in sorted(range(len(acts)), key=lambda i: _rank(scores[i]))]
    deadline = start + ENDGAME_SHARE * cfg.budget if cfg.budget is not None else None
    solver = Solver(view.seat, pub.teams, cfg.endgame_nodes, deadline)
    try:
        found = solve_root(world, view.seat, order, solver)
    except (Exhausted, RecursionError):
        return None
    best = max(v for _, v in found)
    if best <= LOSS:
        return None
    return next(a for a, v in found if v == best)


def _rank(score: float | None) -> float:
    return -score if score is not None else 1e9


def _mean(total: float, count: int) -> float:
    return total / count if count else -1.0


def _mix(seed: int, view: SeatView) -> int:
    """A per-decision seed from the player's seed and public facts of the position."""
    pub = view.public
    return (seed * 1_000_003 + pub.moves * 7_919 + view.seat * 104_729) % (1 << 62)
