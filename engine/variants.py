"""What the modifiers of RULES.md §6 change about cards: trumps, what beats what, the
order of cards, and the five-card game's attack sets.

Everything here is computed once per (deck, trump, modifiers) and cached, so the game's
inner loop only looks things up.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

from .cards import JOKER_RANK, Card, Rank, Suit, deck
from .rules import Rules

__all__ = [
    "CardModel",
    "attack_sets",
    "card_model",
    "is_attack_set",
]

SPADES = int(Suit.SPADES)
DIAMONDS = int(Suit.DIAMONDS)
JACK = int(Rank.JACK)
ACE = int(Rank.ACE)


class CardModel:
    """How cards behave under one set of rules and one trump suit.

    ``beats[a]`` is the set of cards that beat attack card ``a``; ``trumps`` the cards that
    count as trumps; ``key(c)`` orders cards from weakest to strongest (non-trumps by rank,
    then trumps, jokers last), which sorts hands and picks the lowest trump or card.
    """

    __slots__ = ("beats", "key", "lowest_trump", "trumps")

    def __init__(
        self,
        beats: dict[int, frozenset[int]],
        trumps: frozenset[int],
        key: dict[int, tuple[int, int, int]],
        lowest_trump: Card | None,
    ) -> None:
        self.beats = beats
        self.trumps = trumps
        self.key = key
        self.lowest_trump = lowest_trump


def _model_key(rules: Rules) -> tuple[int, bool, bool, bool]:
    mods = rules.modifiers
    return (
        rules.deck_size,
        "japanese" in mods or "spades_by_spades" in mods,
        "fallen_ace" in mods,
        "lizard" in mods,
    )


def card_model(rules: Rules, trump: int | None) -> CardModel:
    """The card model for these rules and this trump suit (cached)."""
    return _card_model(*_model_key(rules), trump)


@lru_cache(maxsize=256)
def _card_model(
    deck_size: int, spades_only: bool, fallen_ace: bool, lizard: bool, trump: int | None
) -> CardModel:
    cards = deck(deck_size)
    plain = [c for c in cards if c >> 2 != JOKER_RANK]
    trumps: set[int] = set()
    # strength among trumps: rank, with lizard's jacks on top
    power: dict[int, int] = {}
    if trump is not None:
        for c in plain:
            if c & 3 == trump:
                trumps.add(c)
                power[c] = c >> 2
        if lizard:
            sister = next(s for s in range(4) if s != trump and (s >= 2) == (trump >= 2))
            top = Card.of(JACK, trump)
            second = Card.of(JACK, sister)
            trumps.add(second)
            power[top] = ACE + 2
            power[second] = ACE + 1
    low_rank = min((c >> 2 for c in plain), default=6)
    lowest_trump = Card.of(low_rank, trump) if trump is not None else None
    trump_ace = Card.of(ACE, trump) if trump is not None else None

    def beats(a: int, c: int) -> bool:
        a_joker, c_joker = a >> 2 == JOKER_RANK, c >> 2 == JOKER_RANK
        if a_joker:
            return c_joker and c != a
        if c_joker:
            return (a & 3 >= 2) == (c & 3 >= 2)  # a joker beats any card of its colour
        a_trump, c_trump = a in trumps, c in trumps
        if spades_only and a & 3 == SPADES and not a_trump:
            return c & 3 == SPADES and not c_trump and c > a
        if c_trump:
            if not a_trump:
                return True
            if fallen_ace and a == trump_ace and c == lowest_trump:
                return True
            return power[c] > power[a]
        return not a_trump and c & 3 == a & 3 and c > a

    table: dict[int, frozenset[int]] = {
        a: frozenset(c for c in cards if beats(a, c)) for a in cards
    }
    key: dict[int, tuple[int, int, int]] = {}
    for c in cards:
        if c >> 2 == JOKER_RANK:
            key[c] = (2, c & 3, 0)
        elif c in trumps:
            key[c] = (1, power[c], c & 3)
        else:
            key[c] = (0, c >> 2, c & 3)
    return CardModel(table, frozenset(trumps), key, lowest_trump)


# ---------------------------------------------------------------- the five-card game's sets


def is_attack_set(cards: tuple[Card, ...] | list[Card]) -> bool:
    """Prostoy5 (seed 002 §03): 1 card; 3 = a pair and any card; 5 = two pairs and any card,
    or four of a kind and any card (the odd card may match a pair's rank)."""
    size = len(cards)
    if size == 1:
        return True
    if size not in (3, 5):
        return False
    counts: dict[int, int] = {}
    for c in cards:
        counts[c >> 2] = counts.get(c >> 2, 0) + 1
    pairs = sum(n // 2 for n in counts.values())
    return pairs >= (1 if size == 3 else 2)


def attack_sets(hand: list[Card], limit: int) -> list[tuple[Card, ...]]:
    """Every attack set of at most ``limit`` cards from ``hand`` (sorted), each once."""
    found: list[tuple[Card, ...]] = [(c,) for c in hand]
    if limit < 3:
        return found
    by_rank: dict[int, list[Card]] = {}
    for c in hand:
        by_rank.setdefault(c >> 2, []).append(c)
    pairs = [p for cards in by_rank.values() for p in combinations(cards, 2)]
    if not pairs:
        return found
    seen: set[tuple[Card, ...]] = set()
    for pair in pairs:
        for other in hand:
            if other not in pair:
                attack = tuple(sorted((*pair, other)))
                if attack not in seen:
                    seen.add(attack)
                    found.append(attack)
    if limit >= 5:
        for p, q in combinations(pairs, 2):
            if set(p) & set(q):
                continue
            for other in hand:
                if other not in p and other not in q:
                    attack = tuple(sorted((*p, *q, other)))
                    if attack not in seen:
                        seen.add(attack)
                        found.append(attack)
    return found
