"""Actions a seat can take and the events an applied action produces.

Both are immutable named tuples, cheap enough for the engine's inner loop. Two actions
are equal only when they are of the same kind with the same fields (``Take(0) != Pass(0)``).
``action.to_dict()`` and :func:`action_from_dict` give a JSON-safe form for the action log.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .cards import Card, card_from_code

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
    "ShowTrump",
    "Take",
    "Taking",
    "Throw",
    "Thrown",
    "TimedOut",
    "Timeout",
    "Transfer",
    "Transferred",
    "TrumpShown",
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
    """The principal attacker opens a bout with one card or several of one rank."""

    seat: int
    cards: tuple[Card, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"type": "lead", "seat": self.seat, "cards": [c.code for c in self.cards]}


class Throw(NamedTuple):
    """A thrower adds one attack card of a rank already on the table."""

    seat: int
    card: Card

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"type": "throw", "seat": self.seat, "card": self.card.code}


class Cover(NamedTuple):
    """The defender beats the attack card ``attack`` with ``card``."""

    seat: int
    attack: Card
    card: Card

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {
            "type": "cover",
            "seat": self.seat,
            "attack": self.attack.code,
            "card": self.card.code,
        }


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
    """Perevodnoy: the defender lays a card of the attack rank and passes the attack on."""

    seat: int
    card: Card

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"type": "transfer", "seat": self.seat, "card": self.card.code}


class ShowTrump(NamedTuple):
    """Proezdnoy: the defender shows a trump of the attack rank to transfer without laying it."""

    seat: int
    card: Card

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"type": "show_trump", "seat": self.seat, "card": self.card.code}


class Timeout(NamedTuple):
    """The bot's clock ran out for that seat; the engine applies RULES.md §4."""

    seat: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"type": "timeout", "seat": self.seat}


Action = Lead | Throw | Cover | Take | Pass | Transfer | ShowTrump | Timeout
ACTION_TYPES: tuple[type[Action], ...] = (
    Lead,
    Throw,
    Cover,
    Take,
    Pass,
    Transfer,
    ShowTrump,
    Timeout,
)


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
            return Lead(seat, tuple(card_from_code(c) for c in cards))
        if kind == "throw":
            return Throw(seat, card_from_code(data["card"]))
        if kind == "cover":
            return Cover(seat, card_from_code(data["attack"]), card_from_code(data["card"]))
        if kind == "take":
            return Take(seat)
        if kind == "pass":
            return Pass(seat)
        if kind == "transfer":
            return Transfer(seat, card_from_code(data["card"]))
        if kind == "show_trump":
            return ShowTrump(seat, card_from_code(data["card"]))
        if kind == "timeout":
            return Timeout(seat)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed {kind} action: {exc}") from None
    raise ValueError(f"unknown action type: {kind!r}")


# ---------------------------------------------------------------- events


class Dealt(NamedTuple):
    """A game was dealt; ``trump_card`` is the card shown (None if no card shows)."""

    first_attacker: int
    trump_card: Card | None


class Led(NamedTuple):
    """``seat`` opened the bout against ``defender``."""

    seat: int
    cards: tuple[Card, ...]
    defender: int


class Thrown(NamedTuple):
    """``seat`` threw ``card`` in."""

    seat: int
    card: Card


class Covered(NamedTuple):
    """``seat`` beat ``attack`` with ``card``."""

    seat: int
    attack: Card
    card: Card


class Taking(NamedTuple):
    """``seat`` declared he takes; others may still throw in."""

    seat: int


class Passed(NamedTuple):
    """``seat`` passed (nothing more to throw for now)."""

    seat: int


class Transferred(NamedTuple):
    """``seat`` transferred with ``card``; ``defender`` now defends."""

    seat: int
    card: Card
    defender: int


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
    GameOver,
):
    type.__setattr__(_kind, "__eq__", _eq)
    type.__setattr__(_kind, "__ne__", _ne)
    type.__setattr__(_kind, "__hash__", _hash)
