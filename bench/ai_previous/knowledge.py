"""What a seat can know: its own hand, the public table, and perfect memory.

Everything here is computed from a :class:`~engine.views.SeatView` and the public rules, never
from a game: the unknown cards are the deck minus the seat's own hand, the table, the
discard (remembered), the cards others are known to hold (picked up, shown) and the face-up
trump card while it still lies in the stock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import NamedTuple

from engine.cards import Card, deck
from engine.rules import Rules
from engine.variants import card_model
from engine.views import SeatView

__all__ = [
    "CardSense",
    "Knowledge",
    "beat_chance_from_view",
    "card_sense",
    "knowledge",
]

TRUMP_STEP = 20  # a trump's value is its power plus this: above every plain card
JOKER_VALUE = 3 * TRUMP_STEP


class CardSense:
    """How cards rate under one set of rules and one trump suit, for the heuristics.

    ``value[c]``: plain cards rate by rank (2..14), trumps above all of them, jokers on top.
    ``beats[a]``: the cards that beat ``a`` (from the engine's card model; wild sixes and
    other per-bout declarations are ignored, so this is an estimate). ``trumps``: the cards
    that count as trumps.
    """

    __slots__ = ("beats", "trumps", "value")

    def __init__(
        self, beats: dict[int, frozenset[int]], trumps: frozenset[int], value: dict[int, int]
    ) -> None:
        self.beats = beats
        self.trumps = trumps
        self.value = value

    def val(self, card: Card) -> int:
        """The card's value (unknown cards rate as a middling plain card)."""
        return self.value.get(card, 10)

    def beaten_by(self, card: Card) -> frozenset[int]:
        """The cards that beat ``card`` (empty for a card the model does not know)."""
        return self.beats.get(card, frozenset())


@lru_cache(maxsize=512)
def card_sense(rules: Rules, trump: int | None) -> CardSense:
    """The :class:`CardSense` for these rules and this trump suit (cached)."""
    model = card_model(rules, trump)
    value: dict[int, int] = {}
    for c, (kind, power, _suit) in model.key.items():
        if kind == 0:
            value[c] = power
        elif kind == 1:
            value[c] = TRUMP_STEP + power
        else:
            value[c] = JOKER_VALUE
    return CardSense(model.beats, model.trumps, value)


class Knowledge(NamedTuple):
    """Where the cards a seat cannot see may be.

    ``unknown``: the cards whose place the seat does not know, sorted. ``hidden[s]``: how many
    of seat ``s``'s cards are unknown to this seat (0 for itself). ``stock_hidden``: unknown
    cards in the stock (the face-up trump card is not one of them). ``turnup_in_stock``:
    whether the face-up trump card still lies in the stock. ``spare``: unknown cards that are
    in none of those places (a card set aside by a variant), so a sample puts them aside.
    """

    unknown: tuple[Card, ...]
    hidden: tuple[int, ...]
    stock_hidden: int
    turnup_in_stock: bool
    spare: int


@lru_cache(maxsize=16)
def _deck(size: int) -> frozenset[Card]:
    return frozenset(deck(size))


def knowledge(view: SeatView, rules: Rules) -> Knowledge | None:
    """What ``view``'s seat knows about the hidden cards; None if the view does not add up
    (a variant this module does not understand)."""
    pub = view.public
    try:
        full = _deck(rules.deck_size)
    except ValueError:
        return None
    seen: set[Card] = set(view.hand)
    for a, c in pub.table:
        seen.add(a)
        if c is not None:
            seen.add(c)
    seen.update(pub.discarded)
    hidden: list[int] = []
    for s in range(pub.players):
        if s == view.seat:
            hidden.append(0)
            continue
        known = pub.known[s]
        seen.update(known)
        hidden.append(max(0, pub.hand_sizes[s] - len(known)))
    turnup = pub.trump_card
    if turnup is not None and rules.has("railway"):
        seen.add(turnup)  # set aside face up, never drawn
    turnup_in_stock = pub.stock_size > 0 and turnup is not None and turnup not in seen
    if turnup_in_stock and turnup is not None:
        seen.add(turnup)
    unknown = tuple(sorted(c for c in full if c not in seen))
    stock_hidden = pub.stock_size - (1 if turnup_in_stock else 0)
    spare = len(unknown) - sum(hidden) - stock_hidden
    if spare < 0 or stock_hidden < 0:
        return None
    return Knowledge(unknown, tuple(hidden), stock_hidden, turnup_in_stock, spare)


def beat_chance_from_view(
    view: SeatView, sense: CardSense, know: Knowledge | None
) -> Callable[[Card], float]:
    """A function: the chance that the defender can beat a card, from what the seat knows
    (his known cards, then a draw of his hidden cards from the unknown ones)."""
    pub = view.public
    defender = pub.defender
    if defender is None or defender == view.seat:
        return lambda card: 1.0
    known: Sequence[Card] = pub.known[defender]
    pool: Sequence[Card] = know.unknown if know is not None else ()
    hidden = know.hidden[defender] if know is not None else 0
    size = len(pool)
    cache: dict[Card, float] = {}

    def chance(card: Card) -> float:
        found = cache.get(card)
        if found is not None:
            return found
        beaters = sense.beaten_by(card)
        if any(k in beaters for k in known):
            result = 1.0
        else:
            b = sum(1 for c in pool if c in beaters)
            miss = 1.0  # the chance that none of his hidden cards beats it
            for i in range(min(hidden, size)):
                miss *= max(0.0, (size - b - i) / (size - i))
            result = 1.0 - miss
        cache[card] = result
        return result

    return chance
