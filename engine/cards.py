"""Cards, suits, ranks and decks.

A :class:`Card` is a small immutable value. It is an ``int`` underneath (``rank * 4 + suit``),
so the engine's inner loop can work on plain integers while the public surface keeps a
readable type: ``str(Card.parse("TH")) == "10♥"``. Every card exists once (cards are interned),
so ``Card.parse("10♥") is Card.parse("th")``.
"""

from __future__ import annotations

from enum import IntEnum
from typing import ClassVar

__all__ = ["BLACK_JOKER", "RED_JOKER", "Card", "Rank", "Suit", "deck", "parse_cards"]


class Suit(IntEnum):
    """The four suits, in the house order used for tie-breaks: ♠ ♣ ♦ ♥."""

    SPADES = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3

    @property
    def symbol(self) -> str:
        """The suit's symbol: ♠ ♣ ♦ ♥."""
        return _SUIT_SYMBOLS[self]

    @property
    def letter(self) -> str:
        """The suit's letter: S C D H."""
        return "SCDH"[self]

    @property
    def is_red(self) -> bool:
        """Hearts and diamonds are red."""
        return self in (Suit.DIAMONDS, Suit.HEARTS)

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse ``♠``, ``S`` or ``s`` (and the other suits alike)."""
        try:
            return _SUIT_BY_TEXT[text.strip().upper()]
        except KeyError:
            raise ValueError(f"not a suit: {text!r}") from None

    def __str__(self) -> str:
        return self.symbol


_SUIT_SYMBOLS = ("♠", "♣", "♦", "♥")
_SUIT_BY_TEXT: dict[str, Suit] = {}
for _s in Suit:
    _SUIT_BY_TEXT[_s.letter] = _s
    _SUIT_BY_TEXT[_SUIT_SYMBOLS[_s]] = _s
for _alt, _s in (("♤", Suit.SPADES), ("♧", Suit.CLUBS), ("♢", Suit.DIAMONDS), ("♡", Suit.HEARTS)):
    _SUIT_BY_TEXT[_alt] = _s


class Rank(IntEnum):
    """Card ranks, low to high. The 36-card deck starts at six."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def label(self) -> str:
        """How the rank prints: ``6`` … ``10``, ``J``, ``Q``, ``K``, ``A``."""
        return _RANK_LABELS[self]

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Parse ``10``, ``T``, ``J`` … (case-insensitive)."""
        try:
            return _RANK_BY_TEXT[text.strip().upper()]
        except KeyError:
            raise ValueError(f"not a rank: {text!r}") from None

    def __str__(self) -> str:
        return self.label


_RANK_LABELS = {r: (str(int(r)) if r <= 10 else "JQKA"[r - 11]) for r in Rank}
_RANK_BY_TEXT: dict[str, Rank] = {}
for _r in Rank:
    _RANK_BY_TEXT[_RANK_LABELS[_r]] = _r
_RANK_BY_TEXT["T"] = Rank.TEN


class Card(int):
    """One playing card: an interned ``int`` equal to ``rank * 4 + suit``.

    Cards order by rank, then by suit. Build them with :meth:`Card.of` or :meth:`Card.parse`;
    ``Card(code)`` also accepts the integer code.
    """

    __slots__ = ()
    _by_code: ClassVar[dict[int, Card]] = {}

    def __new__(cls, code: int) -> Card:
        try:
            return cls._by_code[int(code)]
        except KeyError:
            raise ValueError(f"not a card code: {code!r}") from None

    @classmethod
    def of(cls, rank: Rank | int, suit: Suit | int) -> Card:
        """The card of that rank and suit."""
        return cls(int(rank) * 4 + int(suit))

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``10♥``, ``TH``, ``th``, ``10h`` or ``A♠``."""
        try:
            return _CARD_BY_TEXT[text.strip().upper()]
        except (KeyError, AttributeError):
            raise ValueError(f"not a card: {text!r}") from None

    @property
    def rank(self) -> Rank:
        """The card's rank (a joker has none: ``ValueError``)."""
        rank = _RANK_OF.get(self)
        if rank is None:
            return Rank(self >> 2)  # a joker's: ValueError
        return rank

    @property
    def suit(self) -> Suit:
        """The card's suit. A joker has only a colour: the black one answers ♠, the red ♥."""
        return _SUIT_OF[self & 3]

    @property
    def is_joker(self) -> bool:
        """Whether this is one of the two jokers of the 54-card deck."""
        return self >= JOKER_RANK * 4

    @property
    def is_red(self) -> bool:
        """Hearts, diamonds and the red joker are red."""
        return (self & 3) >= 2

    @property
    def code(self) -> str:
        """A two-letter ASCII code such as ``TH`` (used in saved games)."""
        return _CODES[self]

    def __str__(self) -> str:
        return _LABELS[self]

    def __repr__(self) -> str:
        return f"Card({_LABELS[self]})"

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (int(self),))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


_CODES: dict[int, str] = {}
_LABELS: dict[int, str] = {}
_RANK_OF: dict[int, Rank] = {}
"""Each card's rank, looked up (rank and suit are asked for all the time, and building an
enum member from its value is slow)."""
_SUIT_OF: tuple[Suit, ...] = tuple(Suit(v) for v in range(4))
_CARD_BY_TEXT: dict[str, Card] = {}
for _r in Rank:
    for _s in Suit:
        _c = int.__new__(Card, int(_r) * 4 + int(_s))
        Card._by_code[int(_c)] = _c
        _RANK_OF[_c] = _r
        _CODES[_c] = ("T" if _r == Rank.TEN else _RANK_LABELS[_r]) + _s.letter
        _LABELS[_c] = _RANK_LABELS[_r] + _SUIT_SYMBOLS[_s]
        _CARD_BY_TEXT[_CODES[_c]] = _c
        _CARD_BY_TEXT[_RANK_LABELS[_r] + _s.letter] = _c
        _CARD_BY_TEXT[_RANK_LABELS[_r] + _SUIT_SYMBOLS[_s]] = _c
        for _alt, _as in (("♤", 0), ("♧", 1), ("♢", 2), ("♡", 3)):
            if _as == _s:
                _CARD_BY_TEXT[_RANK_LABELS[_r] + _alt] = _c
                _CARD_BY_TEXT[("T" if _r == Rank.TEN else _RANK_LABELS[_r]) + _alt] = _c


JOKER_RANK = 15
"""Jokers are coded as rank 15: the black joker in the ♠ slot, the red one in the ♥ slot."""
for _slot, _colour, _symbol in ((0, "B", "★B"), (3, "R", "★R")):
    _c = int.__new__(Card, JOKER_RANK * 4 + _slot)
    Card._by_code[int(_c)] = _c
    _CODES[_c] = "X" + _colour
    _LABELS[_c] = _symbol
    for _text in ("X" + _colour, _symbol, "JOKER" + _colour, "J" + _colour + "★"):
        _CARD_BY_TEXT[_text] = _c
BLACK_JOKER = Card(JOKER_RANK * 4)
RED_JOKER = Card(JOKER_RANK * 4 + 3)


def card_from_code(code: str) -> Card:
    """The card of a saved-game code such as ``TH``; raises ``ValueError`` otherwise."""
    try:
        return _CARD_BY_TEXT[code]
    except KeyError:
        raise ValueError(f"not a card: {code!r}") from None


def parse_cards(text: str) -> list[Card]:
    """Parse a space- or comma-separated list of cards: ``"6♠ 7♠ TH"``."""
    return [Card.parse(t) for t in text.replace(",", " ").split()]


_DECKS: dict[int, tuple[Card, ...]] = {
    36: tuple(c for c in Card._by_code.values() if Rank.SIX <= c >> 2 <= Rank.ACE),
    52: tuple(c for c in Card._by_code.values() if c >> 2 <= Rank.ACE),
    54: tuple(sorted(Card._by_code.values())),
}


def deck(size: int = 36) -> list[Card]:
    """The cards of a deck of 36 (six to ace), 52 (two to ace) or 54 (52 and two jokers),
    in a fixed order."""
    try:
        return list(_DECKS[size])
    except KeyError:
        raise ValueError(f"unsupported deck size: {size}") from None
