"""The coach: a finished game's clear mistakes, for one seat, as the hard player sees them.

:func:`review` replays the game's actions from the start. At every decision of the viewer
with a real choice it looks only at what the viewer could see then (``game.view(seat)`` at
that moment: his hand, the public table, ``public.known`` and ``public.discarded``):

1. the hard player's choice for that view: :func:`~engine.ai.search.search_action` with
   :data:`SEARCH` and the review's seed, exactly what a hard player with that seed plays;
2. if the viewer played something else, and not the same plan
   (:func:`~engine.ai.search.plan_signature`: covers that follow the heuristic's plan are
   one plan), both actions are played in each of ``worlds`` sampled deals of the hidden
   cards and the deals are played out with the normal heuristic, as the search does. The
   comparison is paired (both actions share every world), and its worlds are drawn afresh,
   apart from the search's own: the search picked its choice for looking best on its
   worlds, so re-using them would flatter the choice;
3. the chance to avoid being durak (the seat's side's: 1 not the loser, ½ a draw, 0 the
   loser) is estimated for both, and the move is marked when it drops by more than
   ``threshold`` and by more than twice the drop's standard error. A false mark is worse
   than a missed one, so the comparison runs in three stages: after half the worlds a drop
   below half the threshold ends it unmarked; after ``worlds`` a drop that fails the test
   ends it unmarked; one that passes goes on to ``CONFIRM × worlds`` worlds and is marked
   only if it passes again. The extra worlds go to the few decisions that might be marked.

Everything random comes from ``seed``: the same game, seat and seed give the same marks
unless the CPU-time budget cuts the review short. The budget caps the whole review; the
decisions are examined in move order, and those the budget does not reach are skipped
(a decision the budget interrupts is not counted).
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..actions import Action, Resign, Timeout, action_from_dict
from ..errors import IllegalAction
from ..game import Game
from ..rules import Rules
from ..views import SeatView
from .heuristic import score_actions, situation_from_view
from .knowledge import knowledge
from .search import Playout, SearchConfig, plan_signature, search_action
from .world import WorldBuilder

__all__ = ["CONFIRM", "SEARCH", "THRESHOLD", "WORLDS", "Mark", "Review", "review"]

THRESHOLD: float = 0.15
"""A drop in the chance to avoid being durak above this is a clear loss: a move that turns
about one game in seven from a win into a loss, which a player wants to hear about. The
drops of the moves the hard player disagrees with fall mostly below 0.1 or well above 0.15,
so the line sits clear of the crowd of near-equal choices, matters of taste the playout
heuristic cannot judge reliably; over 60 paired worlds the drop's standard error is about
0.05–0.08, so noise alone rarely carries a near-equal move past it, and the confirmation
stage (:data:`CONFIRM`) catches most of those that it does."""

WORLDS: int = 60
"""Sampled worlds per comparison (before the confirmation stage). A playout costs about
half a millisecond in 2-player podkidnoy, so 60 worlds for both actions take some 60 ms;
most comparisons stop at the first stage, and the review of a 2-player game stays within
a couple of CPU seconds."""

CONFIRM: int = 3
"""A comparison that passes on ``worlds`` worlds goes on to ``CONFIRM × worlds`` and is
marked only if it passes again: the decisions that just pass a noisy test are mostly
those whose true drop lies below the threshold, and the extra worlds weed them out."""

SEARCH = SearchConfig(budget=None)
"""The hard player the coach asks: its default search, without a per-decision time limit
so that its choice depends on the seed alone."""

FORMAT = 1
"""The version of :meth:`Review.to_json`'s format."""


class _OutOfTime(Exception):
    """The review's budget ran out in the middle of a decision."""


@dataclass(frozen=True, slots=True)
class Mark:
    """One clear mistake. ``move``: the 1-based index of the action in the game's action
    list (the log's sequence number); ``played``: the viewer's action; ``suggested``: the
    hard player's; ``before`` and ``after``: the estimated chance (0..1) for the viewer's
    side to avoid being durak with the suggested and with the played action."""

    move: int
    played: Action
    suggested: Action
    before: float
    after: float

    @property
    def drop(self) -> float:
        """How much the played action cost: ``before - after``."""
        return self.before - self.after

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {
            "move": self.move,
            "played": self.played.to_dict(),
            "suggested": self.suggested.to_dict(),
            "before": self.before,
            "after": self.after,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Mark:
        """Rebuild from :meth:`to_dict` output; ``ValueError`` if malformed."""
        if not isinstance(data, dict):
            raise ValueError("a mark must be an object")
        try:
            move, before, after = data["move"], data["before"], data["after"]
            played, suggested = data["played"], data["suggested"]
        except KeyError as exc:
            raise ValueError(f"a mark needs {exc}") from None
        if not isinstance(move, int) or isinstance(move, bool) or move < 1:
            raise ValueError(f"not a move number: {move!r}")
        return cls(
            move=move,
            played=action_from_dict(played),
            suggested=action_from_dict(suggested),
            before=_chance(before),
            after=_chance(after),
        )


@dataclass(frozen=True, slots=True)
class Review:
    """The coach's findings for ``seat``: how many of his decisions with a real choice were
    examined, the marks among them in move order, and the CPU seconds the review took."""

    seat: int
    decisions: int
    marks: tuple[Mark, ...]
    cpu_seconds: float

    @property
    def biggest(self) -> Mark | None:
        """The costliest mark (the earliest of equal ones); None without marks."""
        best: Mark | None = None
        for m in self.marks:
            if best is None or m.drop > best.drop:
                best = m
        return best

    def to_json(self) -> str:
        """The review as JSON with a format version; :meth:`from_json` reads it back."""
        return json.dumps(
            {
                "format": FORMAT,
                "seat": self.seat,
                "decisions": self.decisions,
                "marks": [m.to_dict() for m in self.marks],
                "cpu_seconds": self.cpu_seconds,
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> Review:
        """Load :meth:`to_json` output; ``ValueError`` if it is not a review."""
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("not a coach review of a known format")
        seat, decisions = _count(data, "seat"), _count(data, "decisions")
        marks = data.get("marks")
        if not isinstance(marks, list):
            raise ValueError("a review's marks must be a list")
        seconds = data.get("cpu_seconds")
        if not isinstance(seconds, int | float) or isinstance(seconds, bool):
            raise ValueError("a review needs its cpu_seconds")
        return cls(
            seat=seat,
            decisions=decisions,
            marks=tuple(Mark.from_dict(m) for m in marks),
            cpu_seconds=float(seconds),
        )


def review(
    initial: Game,
    actions: Sequence[Action],
    rules: Rules,
    seat: int,
    *,
    seed: int = 0,
    threshold: float = THRESHOLD,
    worlds: int = WORLDS,
    budget: float | None = 4.5,
    config: SearchConfig | None = None,
    pace: Callable[[], None] | None = None,
) -> Review:
    """Review ``seat``'s play in the game that starts at ``initial`` and went through
    ``actions`` (legal, as logged). ``budget``: CPU seconds for the whole review (None: no
    limit); ``config``: the hard player asked (default :data:`SEARCH`); ``pace``: called
    after every sampled world played out (a caller that shares the CPU may rest there;
    the budget counts CPU time only). See the module docstring."""
    if worlds < 2:
        raise ValueError("a comparison needs at least 2 worlds")
    start = time.process_time()
    deadline = None if budget is None else start + budget
    cfg = config or SEARCH
    game = initial.copy()
    marks: list[Mark] = []
    decisions = 0
    for move, action in enumerate(actions, 1):
        if action.seat == seat and type(action) not in (Timeout, Resign):
            if deadline is not None and time.process_time() >= deadline:
                break
            view = game.view(seat)
            choices = [a for a in view.actions if type(a) is not Timeout]
            if len(choices) > 1:
                try:
                    found = _examine(
                        view, choices, action, rules, seed, cfg, worlds, threshold, deadline, pace
                    )
                except _OutOfTime:
                    break
                decisions += 1
                if found is not None:
                    suggested, before, after = found
                    marks.append(Mark(move, action, suggested, before, after))
        game.apply(action)
    return Review(seat, decisions, tuple(marks), time.process_time() - start)


def _examine(
    view: SeatView,
    choices: list[Action],
    played: Action,
    rules: Rules,
    seed: int,
    cfg: SearchConfig,
    worlds: int,
    threshold: float,
    deadline: float | None,
    pace: Callable[[], None] | None = None,
) -> tuple[Action, float, float] | None:
    """One decision: ``(suggested, before, after)`` for a mark, None for none. Raises
    :class:`_OutOfTime` when the budget runs out before the decision is judged."""
    if deadline is not None:
        left = max(0.0, deadline - time.process_time())
        cfg = replace(cfg, budget=left if cfg.budget is None else min(cfg.budget, left))
    suggested = search_action(view, rules, seed, cfg, pace)
    if deadline is not None and time.process_time() > deadline:
        raise _OutOfTime
    if suggested == played:
        return None
    know = knowledge(view, rules)
    if know is None:
        return None
    sit = situation_from_view(view, rules, know)
    scores = dict(zip(choices, score_actions(sit._replace(actions=choices)), strict=True))
    if plan_signature(played, scores.get(played)) == plan_signature(
        suggested, scores.get(suggested)
    ):
        return None
    builder = WorldBuilder(view, rules, know)
    if not builder.ok:
        return None
    pair = _Pair(builder, random.Random(_seed(seed, view)), suggested, played)
    playout = Playout(rules, view.seat, view.public.teams, cfg.max_steps)
    for stage, size in enumerate((max(1, worlds // 2), worlds, CONFIRM * worlds)):
        pair.play(size, playout, deadline, pace)
        good, bad = pair.good, pair.bad
        n = len(good)
        if n < 2:
            return None
        drop = (sum(good) - sum(bad)) / n
        if stage == 0:
            if drop < threshold / 2:
                return None
            continue
        spread = sum((g - b - drop) ** 2 for g, b in zip(good, bad, strict=True)) / (n - 1)
        if drop <= threshold or drop <= 2.0 * math.sqrt(spread / n):
            return None
    n = len(pair.good)
    return suggested, sum(pair.good) / n, sum(pair.bad) / n


class _Pair:
    """The paired comparison of two actions: both played in every sampled world, each
    world then played out. ``good`` and ``bad``: the scores, world by world, of the
    suggested and of the played action."""

    def __init__(
        self, builder: WorldBuilder, rng: random.Random, suggested: Action, played: Action
    ) -> None:
        self.builder = builder
        self.rng = rng
        self.suggested = suggested
        self.played = played
        self.good: list[float] = []
        self.bad: list[float] = []
        self.failures = 0

    def play(
        self,
        size: int,
        playout: Playout,
        deadline: float | None,
        pace: Callable[[], None] | None = None,
    ) -> None:
        """Play worlds until there are ``size``, or until sampling keeps failing (as in
        the search: more failures than worlds, past the first three)."""
        good, bad = self.good, self.bad
        while len(good) < size:
            if deadline is not None and time.process_time() > deadline:
                raise _OutOfTime
            world = self.builder.sample(self.rng)
            if world is None:
                self.failures += 1
                if self.failures > 3 and self.failures > len(good):
                    return
                continue
            other = world.copy()
            try:
                world.apply(self.suggested)
                other.apply(self.played)
            except IllegalAction:
                self.failures += 1
                continue
            good.append(playout.run(world))
            bad.append(playout.run(other))
            if pace is not None:
                pace()


def _seed(seed: int, view: SeatView) -> int:
    """The comparison's seed for one decision: from the review's seed and public facts of
    the position, and apart from the search's own."""
    pub = view.public
    mixed = (seed * 1_000_003 + pub.moves * 7_919 + view.seat * 104_729) % (1 << 62)
    return mixed ^ 0xC0AC4


def _count(data: dict[str, Any], name: str) -> int:
    value = data.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"a review needs a non-negative integer {name}")
    return value


def _chance(value: Any) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1:
        raise ValueError(f"not a chance: {value!r}")
    return float(value)
