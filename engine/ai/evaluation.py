"""A trained evaluation of a 2-player position whose every card is known: how likely a seat
is not to be the durak, for cutting the hard player's playouts short.

The hard player's search plays each candidate move out in sampled worlds with the normal
heuristic for every seat (:mod:`.search`). A playout to the end costs some 50-150 moves;
with :class:`Evaluation`, a playout stops at the first bout's start after a few moves and
takes this estimate of how the playout would have ended, so the same amount of work
covers several times as many sampled worlds.

The features (:func:`features`) describe the position between two bouts as one seat sees
it in a sampled world, where every hand is known: each hand's size, trumps and their
power, high and low plain cards, cards sharing a rank; the stock left, who attacks, the
face-up trump still to be drawn. The model, a small neural network (one hidden layer,
``tanh``) or a logistic regression, maps them to the chance of ending not the durak. Its
weights are trained offline by ``bench/train_eval.py`` on self-play games of the normal
heuristic (the search's playout policy), seeded and reproducible, and kept in
:mod:`.eval_weights`, one model per rule preset; rules without a model get none, and
the search then plays its playouts to the end.

Pure Python, no dependency: an estimate costs about as much as two playout moves.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ..game import LEAD, Game
from ..rules import Rules
from .knowledge import card_sense

__all__ = ["FEATURES", "Evaluation", "evaluation_for", "features"]

FEATURES: tuple[str, ...] = (
    "stock",
    "stock_empty",
    "attacking",
    "turnup_power",
    "end_size_diff",
    "end_trump_diff",
    "end_attacking",
    *(
        f"{side}_{name}"
        for side in ("me", "other")
        for name in ("size", "trumps", "trump_power", "top_trump", "high", "low", "pairs")
    ),
)
"""The names of :func:`features`' values, in order (the weights file checks them)."""

_DECK_STOCK = 24.0  # scale of the stock size: a 36-card deck's stock after the deal


def features(g: Game, seat: int) -> list[float]:
    """The features of ``g`` for ``seat`` (a 2-player position: ``seat`` and the other
    active seat; every hand of ``g`` is known, as in a sampled world)."""
    sense = card_sense(g.rules, g.trump)
    trumps = sense.trumps
    value = sense.value
    other = 1 - seat if g.n == 2 else _other(g, seat)
    stock = len(g.stock)
    empty = 1.0 if stock == 0 else 0.0
    attacking = 1.0 if g.attacker == seat else -1.0
    turnup = g.turnup
    turnup_power = 0.0
    if stock and turnup is not None and turnup in trumps:
        turnup_power = (value.get(turnup, 26) - 20) / 14.0
    sides = [_hand(g.hands[seat], trumps, value), _hand(g.hands[other], trumps, value)]
    me, them = sides
    return [
        stock / _DECK_STOCK,
        empty,
        attacking,
        turnup_power,
        empty * (me[0] - them[0]),
        empty * (me[1] - them[1]),
        empty * attacking,
        *me,
        *them,
    ]


def _other(g: Game, seat: int) -> int:
    for s in range(g.n):
        if s != seat and not g.out[s]:
            return s
    return seat


def _hand(hand: Sequence[int], trumps: frozenset[int], value: dict[int, int]) -> list[float]:
    size = len(hand)
    n_trumps = 0
    power = 0.0
    top = 0.0
    high = 0
    low = 0
    ranks: dict[int, int] = {}
    for c in hand:
        v = value.get(c, 10)
        if c in trumps:
            n_trumps += 1
            p = (v - 20) / 14.0
            power += p
            if p > top:
                top = p
        elif v >= 12:
            high += 1
        elif v <= 8:
            low += 1
        r = c >> 2
        ranks[r] = ranks.get(r, 0) + 1
    pairs = sum(k for k in ranks.values() if k > 1)
    return [
        size / 6.0,
        n_trumps / 3.0,
        power / 3.0,
        top,
        high / 3.0,
        low / 3.0,
        pairs / 3.0,
    ]


class Evaluation:
    """One trained model: ``value(g, seat)`` is the chance that ``seat`` ends not the
    durak, from :func:`features` (a network with one ``tanh`` hidden layer, or a logistic
    regression where it has no hidden layer)."""

    __slots__ = ("hidden", "out", "out_bias", "scale")

    def __init__(self, model: dict[str, Any]) -> None:
        if tuple(model["features"]) != FEATURES:
            raise ValueError("the weights were trained on other features")
        mean: list[float] = [float(x) for x in model["mean"]]
        std: list[float] = [float(x) or 1.0 for x in model["std"]]
        self.scale = list(zip(mean, std, strict=True))
        self.hidden: list[tuple[list[float], float]] = [
            ([float(w) for w in row], float(b))
            for row, b in zip(model["hidden_w"], model["hidden_b"], strict=True)
        ]
        self.out = [float(w) for w in model["out_w"]]
        self.out_bias = float(model["out_b"])
        width = len(self.hidden) if self.hidden else len(FEATURES)
        if len(self.out) != width or any(len(w) != len(FEATURES) for w, _ in self.hidden):
            raise ValueError("the weights do not fit the features")

    def value(self, g: Game, seat: int) -> float:
        """The chance that ``seat`` ends not the durak (between 0 and 1)."""
        x = [(v - m) / s for v, (m, s) in zip(features(g, seat), self.scale, strict=True)]
        if self.hidden:
            x = [
                math.tanh(b + sum(w * v for w, v in zip(ws, x, strict=True)))
                for ws, b in self.hidden
            ]
        z = self.out_bias + sum(w * v for w, v in zip(self.out, x, strict=True))
        if z < -30.0:
            return 0.0
        if z > 30.0:
            return 1.0
        return 1.0 / (1.0 + math.exp(-z))

    def applies(self, g: Game) -> bool:
        """Whether ``g`` is a position this model values: between two bouts, two seats
        still playing."""
        return g.phase == LEAD and g.result is None and sum(1 for o in g.out if not o) == 2


@lru_cache(maxsize=32)
def evaluation_for(rules: Rules, players: int) -> Evaluation | None:
    """The trained model for these rules (None: no model for them: other presets, other
    options, more than two players, teams)."""
    if players != 2 or rules.teams != "none":
        return None
    from .eval_weights import MODELS

    for name, model in MODELS.items():
        try:
            if Rules.preset(name) == rules:
                return Evaluation(model)
        except ValueError:
            continue
    return None
