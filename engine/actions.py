"""Actions a seat can take and the events an applied action produces.

Both are immutable named tuples, cheap enough for the engine's inner loop. Two actions
are equal only when they are of the same kind with the same fields (``Take(0) != Pass(0)``).
``action.to_dict()`` and :func:`action_from_dict` give a JSON-safe form for the action log.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .cards import Card, Suit, card_from_code

__all__ = [
    "ACTION_TYPES",
    "Action",
    "Beaten",
    "Covered",
    "Dealt",
    "Drew",
    "Event",
    "GameOver",
    "Lead",
    "Led",
    "Pass",
    "Passed",
    "PickedUp",
    "PlayerOut",
    "PokerSwap",
    "PokerSwapped",
    "Resign",
    "Resigned",
    "ShowTrump",
    "SwapTrump",
    "Take",
    "Taking",
    "Throw",
    "Thrown",
    "TimedOut",
    "Timeout",
    "Transfer",
    "Transferred",
    "TrumpChanged",
    "TrumpShown",
    "TrumpSwapped",
    "action_from_dict",
]


def _eq(self: tuple[Any, ...], other: object) -> bool:
    return type(self) is type(other) and tuple.__eq__(self, other)


def _ne(self: tuple[Any, ...], other: object) -> bool:
    return not _eq(self, other)


def _hash(self: tuple[Any, ...]) -> int:
    return hash((type(self).__name__, tuple.__hash__(self)))


# ---------------------------------------------------------------- actions


class Lead(NamedTuple):
    """The principal attacker opens a bout with one card or several of one rank (in
    prostoy5: one attack set). ``suits`` (wild_sixes only) names, card by card, the suit
    each six takes; ``None`` for the other cards."""

    seat: int
    cards: tuple[Card, ...]
    suits: tuple[int | None, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        data: dict[str, Any] = {
            "type": "lead",
            "seat": self.seat,
            "cards": [c.code for c in self.cards],
        }
        if self.suits is not None:
            data["suits"] = list(self.suits)
        return data


class Throw(NamedTuple):
    """A thrower adds one attack card of a rank already on the table (``suit``: the suit a
    wild six takes)."""

    seat: int
    card: Card
    suit: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return _with_suit({"type": "throw", "seat": self.seat, "card": self.card.code}, self.suit)


class Cover(NamedTuple):
    """The defender beats the attack card ``attack`` with ``card`` (``suit``: the suit a
    wild six takes)."""

    seat: int
    attack: Card
    card: Card
    suit: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return _with_suit(
            {
                "type": "cover",
                "seat": self.seat,
                "attack": self.attack.code,
                "card": self.card.code,
            },
            self.suit,
        )


class Take(NamedTuple):
    """The defender declares he will pick up the table."""

    seat: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"type": "take", "seat": self.seat}


class Pass(NamedTuple):
    """A thrower adds nothing more for now ("бито" when all is covered)."""

    seat: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"type": "pass", "seat": self.seat}


class Transfer(NamedTuple):
    """Perevodnoy: the defender lays a card of the attack rank and passes the attack on
    (``suit``: the suit a wild six takes)."""

    seat: int
    card: Card
    suit: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        data = {"type": "transfer", "seat": self.seat, "card": self.card.code}
        return _with_suit(data, self.suit)


class ShowTrump(NamedTuple):
    """Proezdnoy: the defender shows a trump of the attack rank to transfer without laying it."""

    seat: int
    card: Card

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"type": "show_trump", "seat": self.seat, "card": self.card.code}


class SwapTrump(NamedTuple):
    """Prostoy5: the holder of the lowest trump swaps it for the face-up trump."""

    seat: int
    card: Card

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"type": "swap_trump", "seat": self.seat, "card": self.card.code}


class PokerSwap(NamedTuple):
    """Poker: before his lead the attacker swaps two hand cards for the top two of the stock."""

    seat: int
    cards: tuple[Card, Card]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"type": "poker_swap", "seat": self.seat, "cards": [c.code for c in self.cards]}


class Resign(NamedTuple):
    """``seat`` gives up (leaves mid-game): he, and his team, lose at once."""

    seat: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"type": "resign", "seat": self.seat}


class Timeout(NamedTuple):
    """The bot's clock ran out for that seat; the engine applies RULES.md §4."""

    seat: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"type": "timeout", "seat": self.seat}


Action = (
    Lead
    | Throw
    | Cover
    | Take
    | Pass
    | Transfer
    | ShowTrump
    | SwapTrump
    | PokerSwap
    | Resign
    | Timeout
)
ACTION_TYPES: tuple[type[Action], ...] = (
    Lead,
    Throw,
    Cover,
    Take,
    Pass,
    Transfer,
    ShowTrump,
    SwapTrump,
    PokerSwap,
    Resign,
    Timeout,
)


def _with_suit(data: dict[str, Any], suit: int | None) -> dict[str, Any]:
    if suit is not None:
        data["suit"] = suit
    return data


def _suit(data: dict[str, Any]) -> int | None:
    suit = data.get("suit")
    if suit is None:
        return None
    if not isinstance(suit, int) or isinstance(suit, bool) or not 0 <= suit <= 3:
        raise ValueError(f"not a suit: {suit!r}")
    return suit


def action_from_dict(data: Any) -> Action:
    """Rebuild an action from :meth:`to_dict` output; ``ValueError`` if malformed."""
    if not isinstance(data, dict):
        raise ValueError("an action must be an object")
    kind = data.get("type")
    seat = data.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise ValueError("an action needs an integer seat")
    try:
        if kind == "lead":
            cards = data["cards"]
            if not isinstance(cards, list):
                raise ValueError("lead cards must be a list")
            suits = data.get("suits")
            if suits is not None:
                if not isinstance(suits, list) or len(suits) != len(cards):
                    raise ValueError("lead suits must be a list, one per card")
                suits = tuple(_suit({"suit": x}) for x in suits)
            return Lead(seat, tuple(card_from_code(c) for c in cards), suits)
        if kind == "throw":
            return Throw(seat, card_from_code(data["card"]), _suit(data))
        if kind == "cover":
            return Cover(
                seat, card_from_code(data["attack"]), card_from_code(data["card"]), _suit(data)
            )
        if kind == "take":
            return Take(seat)
        if kind == "pass":
            return Pass(seat)
        if kind == "transfer":
            return Transfer(seat, card_from_code(data["card"]), _suit(data))
        if kind == "show_trump":
            return ShowTrump(seat, card_from_code(data["card"]))
        if kind == "swap_trump":
            return SwapTrump(seat, card_from_code(data["card"]))
        if kind == "poker_swap":
            pair = data["cards"]
            if not isinstance(pair, list) or len(pair) != 2:
                raise ValueError("a poker swap takes two cards")
            return PokerSwap(seat, (card_from_code(pair[0]), card_from_code(pair[1])))
        if kind == "timeout":
            return Timeout(seat)
        if kind == "resign":
            return Resign(seat)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed {kind} action: {exc}") from None
    raise ValueError(f"unknown action type: {kind!r}")


# ---------------------------------------------------------------- events


class Dealt(NamedTuple):
    """A game was dealt; ``trump_card`` is the card shown (None if no card shows)."""

    first_attacker: int
    trump_card: Card | None


class Led(NamedTuple):
    """``seat`` opened the bout against ``defender``. ``suits`` (wild sixes): card by card,
    the suit a six was named as (None for a card that stands for itself); None when no
    six was named."""

    seat: int
    cards: tuple[Card, ...]
    defender: int
    suits: tuple[Suit | None, ...] | None = None


class Thrown(NamedTuple):
    """``seat`` threw ``card`` in (``suit``: the suit a wild six was named as)."""

    seat: int
    card: Card
    suit: Suit | None = None


class Covered(NamedTuple):
    """``seat`` beat ``attack`` with ``card``. With wild sixes, ``suit`` is the suit
    ``card`` was named as and ``attack_suit`` the one ``attack`` was (None: the card
    stands for itself), so that the move can be told once the bout has left the table."""

    seat: int
    attack: Card
    card: Card
    suit: Suit | None = None
    attack_suit: Suit | None = None


class Taking(NamedTuple):
    """``seat`` declared he takes; others may still throw in."""

    seat: int


class Passed(NamedTuple):
    """``seat`` passed (nothing more to throw for now)."""

    seat: int


class Transferred(NamedTuple):
    """``seat`` transferred with ``card``; ``defender`` now defends (``suit``: the suit a
    wild six was named as)."""

    seat: int
    card: Card
    defender: int
    suit: Suit | None = None


class TrumpShown(NamedTuple):
    """``seat`` showed ``card`` to transfer; ``defender`` now defends."""

    seat: int
    card: Card
    defender: int


class PickedUp(NamedTuple):
    """``seat`` picked up these table cards."""

    seat: int
    cards: tuple[Card, ...]


class Beaten(NamedTuple):
    """The bout was beaten off; these cards went to the discard."""

    cards: tuple[Card, ...]


class Drew(NamedTuple):
    """``seat`` drew ``amount`` cards from the stock (public: the number only)."""

    seat: int
    amount: int


class PlayerOut(NamedTuple):
    """``seat`` has no cards left with the stock empty: he is out, ``place`` counting from 1."""

    seat: int
    place: int


class TimedOut(NamedTuple):
    """The clock ran out for ``seat``; ``effect`` is ``durak``, ``auto`` or ``pass``."""

    seat: int
    effect: str


class TrumpChanged(NamedTuple):
    """Changing trump: the turn-up was drawn, ``card`` is turned and sets the trump."""

    card: Card


class TrumpSwapped(NamedTuple):
    """Prostoy5: ``seat`` put ``card`` under the stock and took the turn-up ``taken``."""

    seat: int
    card: Card
    taken: Card


class PokerSwapped(NamedTuple):
    """Poker: ``seat`` swapped two cards with the stock (``left``: swaps he has left)."""

    seat: int
    left: int


class Resigned(NamedTuple):
    """``seat`` gave up."""

    seat: int


class GameOver(NamedTuple):
    """The game ended: ``durak`` seat (None on a draw) and whether with pogony."""

    durak: int | None
    draw: bool
    pogony: bool


Event = (
    Dealt
    | Led
    | Thrown
    | Covered
    | Taking
    | Passed
    | Transferred
    | TrumpShown
    | PickedUp
    | Beaten
    | Drew
    | PlayerOut
    | TimedOut
    | TrumpChanged
    | TrumpSwapped
    | PokerSwapped
    | Resigned
    | GameOver
)

for _kind in (
    *ACTION_TYPES,
    Dealt,
    Led,
    Thrown,
    Covered,
    Taking,
    Passed,
    Transferred,
    TrumpShown,
    PickedUp,
    Beaten,
    Drew,
    PlayerOut,
    TimedOut,
    TrumpChanged,
    TrumpSwapped,
    PokerSwapped,
    Resigned,
    GameOver,
):
    type.__setattr__(_kind, "__eq__", _eq)
    type.__setattr__(_kind, "__ne__", _ne)
    type.__setattr__(_kind, "__hash__", _hash)
