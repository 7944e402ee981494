"""Rule-of-thumb policies: ``normal`` (a sound heuristic) and ``easy`` (a careless one).

Both work on a :class:`Situation`: the acting seat's hand and legal actions, the table, the
stock size and an estimate of what the defender can beat. A situation is built from a seat's
view (:func:`situation_from_view`) for real decisions, or from a sampled game
(:func:`situation_from_game`) inside the hard player's playouts, where every hand of the
sample is, by construction, a guess.

The normal heuristic scores every action it understands and plays the best:

- lead the cheapest plain cards, several of a rank when they are low; keep trumps;
- cover with the cheapest cards that beat everything on the table; take instead when
  covering would cost trumps early in the game;
- transfer (perevodnoy) with a plain card rather than cover; show a trump whenever allowed;
- throw in low plain cards, and cards the defender likely cannot beat;
- with the stock empty, shed anything the defender likely cannot beat, and go out.

Action types it does not know score ``None``: it never picks them while a known action is
legal, and plays the first legal action when nothing else is offered.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import NamedTuple

from engine.actions import (
    Action,
    Cover,
    Lead,
    Pass,
    PokerSwap,
    ShowTrump,
    SwapTrump,
    Take,
    Throw,
    Transfer,
)
from engine.cards import Card
from engine.game import Game
from engine.rules import Rules
from engine.views import SeatView

from .knowledge import CardSense, Knowledge, beat_chance_from_view, card_sense

__all__ = [
    "Situation",
    "best_action",
    "easy_action",
    "score_actions",
    "situation_from_game",
    "situation_from_view",
]

OUT_BONUS = 100.0  # playing one's last cards with the stock empty: out of the game


class Situation(NamedTuple):
    """What a heuristic decides from. ``beat_chance(c)``: the estimated chance that the
    defender can beat ``c``. ``partial``: prostoy5's partial defence (covered pairs go off
    even when the defender takes)."""

    seat: int
    hand: Sequence[Card]
    actions: Sequence[Action]
    att: Sequence[Card]
    cov: Sequence[Card | None]
    stock: int
    taking: bool
    sense: CardSense
    beat_chance: Callable[[Card], float]
    partial: bool


def _partial(rules: Rules) -> bool:
    return str(rules.game) == "prostoy5"


def situation_from_view(view: SeatView, rules: Rules, know: Knowledge | None = None) -> Situation:
    """The situation of ``view``'s seat (``know``: its knowledge, if already computed)."""
    pub = view.public
    trump = int(pub.trump) if pub.trump is not None else None
    sense = card_sense(rules, trump)
    if know is None:
        from .knowledge import knowledge

        know = knowledge(view, rules)
    return Situation(
        seat=view.seat,
        hand=view.hand,
        actions=view.actions,
        att=tuple(a for a, _ in pub.table),
        cov=tuple(c for _, c in pub.table),
        stock=pub.stock_size,
        taking=pub.taking,
        sense=sense,
        beat_chance=beat_chance_from_view(view, sense, know),
        partial=_partial(rules),
    )


def situation_from_game(
    game: Game, seat: int, actions: Sequence[Action], sense: CardSense, partial: bool
) -> Situation:
    """The situation of ``seat`` in a sampled game (the hard player's playouts)."""
    defender_hand = game.hands[game.defender]
    beats = sense.beats

    def chance(card: Card) -> float:
        beaters = beats.get(card)
        if beaters is None:
            return 1.0
        for c in defender_hand:
            if c in beaters:
                return 1.0
        return 0.0

    return Situation(
        seat=seat,
        hand=game.hands[seat],
        actions=actions,
        att=game.att,
        cov=game.cov,
        stock=len(game.stock),
        taking=game.taking,
        sense=sense,
        beat_chance=chance,
        partial=partial,
    )


# ---------------------------------------------------------------- the normal heuristic


def _assign(
    uncovered: Sequence[Card], options: dict[Card, list[Card]], value: Callable[[Card], int]
) -> tuple[dict[Card, Card], int] | None:
    """The cheapest way to cover every card of ``uncovered`` with distinct cards (branch and
    bound over the few options each attack card has); None if there is none."""
    order = sorted(uncovered, key=lambda a: len(options.get(a, ())))
    if any(not options.get(a) for a in order):
        return None
    ranked = {a: sorted(set(options[a]), key=value) for a in order}
    best: list[tuple[dict[Card, Card], int]] = []
    bound = [1 << 30]
    used: set[Card] = set()
    pick: dict[Card, Card] = {}
    nodes = [0]

    def search(i: int, cost: int) -> None:
        if cost >= bound[0] or nodes[0] > 4000:
            return
        nodes[0] += 1
        if i == len(order):
            bound[0] = cost
            best.append((dict(pick), cost))
            return
        a = order[i]
        for c in ranked[a]:
            if c not in used:
                used.add(c)
                pick[a] = c
                search(i + 1, cost + value(c))
                used.discard(c)
        pick.pop(a, None)

    search(0, 0)
    return best[-1] if best else None


def _want_take(sit: Situation, plan: dict[Card, Card]) -> bool:
    """Whether taking beats covering with ``plan``: covering costs trumps while the stock is
    still large and the pick-up would be small."""
    if sit.stock == 0:
        return False
    trumps = sit.sense.trumps
    used = [c for c in plan.values() if c in trumps]
    if not used:
        return False
    val = sit.sense.val
    pickup = len(sit.att) + sum(1 for c in sit.cov if c is not None)
    top = max(val(c) for c in used)
    attack_top = max((val(a) for a in sit.att), default=0)
    if attack_top >= 20:  # a trump is attacking: covering it is no waste
        return False
    if sit.stock >= 12:
        return pickup <= 3 and (len(used) >= 2 or top >= 20 + 12)
    return pickup <= 2 and len(used) >= 2


def score_actions(sit: Situation) -> list[float | None]:
    """A score for each of ``sit.actions`` (higher is better); None for an action type
    the heuristic does not know."""
    acts = sit.actions
    kinds = {type(a) for a in acts}
    if Lead in kinds:
        return _score_lead(sit)
    if Take in kinds or Cover in kinds:
        return _score_defence(sit)
    if Throw in kinds or Pass in kinds:
        return _score_throw(sit)
    return [_score_other(sit, a) for a in acts]


def _score_other(sit: Situation, action: Action) -> float | None:
    if type(action) is SwapTrump:
        return 1000.0  # the face-up trump is worth more than the lowest one
    if type(action) is PokerSwap:
        val = sit.sense.val
        gain = 16 - val(action.cards[0]) - val(action.cards[1])
        return 500.0 + gain if gain > 0 else -500.0
    return None


def _score_lead(sit: Situation) -> list[float | None]:
    val = sit.sense.val
    endgame = sit.stock == 0
    keep = 16 if endgame else 12
    chance = sit.beat_chance
    size = len(sit.hand)
    scores: list[float | None] = []
    for a in sit.actions:
        if type(a) is not Lead:
            scores.append(_score_other(sit, a))
            continue
        cards = a.cards
        s = 0.0
        for c in cards:
            s += keep - val(c)
            if endgame:
                s += 6.0 * (1.0 - chance(c))
        if endgame and len(cards) == size:
            s += OUT_BONUS
        scores.append(s)
    return scores


def _score_throw(sit: Situation) -> list[float | None]:
    val = sit.sense.val
    stock = sit.stock
    keep = 11 if stock >= 6 else (13 if stock > 0 else 16)
    chance = sit.beat_chance
    last = len(sit.hand) == 1 and stock == 0
    scores: list[float | None] = []
    for a in sit.actions:
        if type(a) is Pass:
            scores.append(0.0)
        elif type(a) is Throw:
            c = a.card
            s = float(keep - val(c))
            if not sit.taking:
                s += 5.0 * (1.0 - chance(c))
            if last:
                s += OUT_BONUS
            scores.append(s)
        else:
            scores.append(_score_other(sit, a))
    return scores


def _score_defence(sit: Situation) -> list[float | None]:
    val = sit.sense.val
    trumps = sit.sense.trumps
    acts = sit.actions
    options: dict[Card, list[Card]] = {}
    for a in acts:
        if type(a) is Cover:
            options.setdefault(a.attack, []).append(a.card)
    uncovered = [a for a, c in zip(sit.att, sit.cov, strict=False) if c is None]
    found = _assign(uncovered, options, val)
    plan = found[0] if found is not None else {}
    want_take = found is None or _want_take(sit, plan)
    scores: list[float | None] = []
    for a in acts:
        if type(a) is Take:
            scores.append(1.0 if want_take else -1.0)
        elif type(a) is Cover:
            attack, card = a.attack, a.card
            v = val(card)
            if not want_take:
                scores.append((3.0 if plan.get(attack) == card else 0.5) - 0.001 * v)
            elif sit.partial and (card not in trumps or sit.stock == 0):
                # prostoy5: a covered pair goes off even if the rest is taken
                scores.append(2.0 - 0.01 * v)
            else:
                scores.append(-2.0 - 0.001 * v)
        elif type(a) is Transfer:
            card = a.card
            if card not in trumps:
                scores.append(4.0 - 0.01 * val(card))
            else:
                scores.append(1.5 - 0.001 * val(card) if want_take else -0.5)
        elif type(a) is ShowTrump:
            scores.append(5.0)
        else:
            scores.append(_score_other(sit, a))
    return scores


def _argmax(actions: Sequence[Action], scores: Sequence[float | None]) -> Action:
    best: Action | None = None
    top = 0.0
    for a, s in zip(actions, scores, strict=True):
        if s is not None and (best is None or s > top):
            best, top = a, s
    return best if best is not None else actions[0]


def best_action(sit: Situation) -> Action:
    """The normal heuristic's choice (the first legal action if it knows none of them)."""
    acts = sit.actions
    if len(acts) == 1:
        return acts[0]
    return _argmax(acts, score_actions(sit))


# ---------------------------------------------------------------- the easy heuristic

EASY_MISTAKES = 0.3  # how often the easy player plays any legal action at random


def easy_action(sit: Situation, rng: random.Random) -> Action:
    """A careless player: often random, else greedy by rank alone (it spends trumps like
    any card, never takes while it can cover, throws in on a whim)."""
    acts = sit.actions
    if len(acts) == 1:
        return acts[0]
    if rng.random() < EASY_MISTAKES:
        return rng.choice(list(acts))
    leads = [a for a in acts if type(a) is Lead]
    if leads:
        return min(leads, key=lambda a: (len(a.cards), min(c >> 2 for c in a.cards)))
    covers = [a for a in acts if type(a) is Cover]
    if covers:
        return min(covers, key=lambda a: a.card >> 2)
    for a in acts:
        if type(a) is Transfer:
            return a
    throws = [a for a in acts if type(a) is Throw]
    if throws and rng.random() < 0.5:
        return rng.choice(throws)
    for a in acts:
        if type(a) in (Take, Pass):
            return a
    return rng.choice(list(acts))
