"""The rules describe themselves: every option, base game and modifier with a stable key,
a short English name and a one-line description, as data the bot renders (and translates
by key)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from annotated_types import Ge, Le

from .rules import MODIFIERS, PRESETS, Rules

__all__ = ["GAMES", "MODIFIER_INFO", "OPTION_NAMES", "OptionInfo", "describe"]

GAMES: dict[str, tuple[str, str]] = {
    "podkidnoy": ("Podkidnoy", "Throw-in durak: everyone may add cards of ranks on the table."),
    "perevodnoy": ("Perevodnoy", "Transfer durak: the defender may pass the attack on."),
    "prostoy": ("Prostoy", "Simple durak: no throw-ins; cover everything or take it all."),
    "prostoy5": (
        "Five-card durak",
        "Five cards, attacks of 1, 3 or 5 cards in sets, and partial defence.",
    ),
}

MODIFIER_INFO: dict[str, tuple[str, str]] = {
    "japanese": ("Japanese", "Trump is always diamonds; spades are beaten only by spades."),
    "spades_by_spades": ("Spades by spades", "Spades are beaten only by higher spades."),
    "no_trump": ("No trumps", "No trump suit at all."),
    "fallen_ace": ("Fallen ace", "The lowest trump beats the trump ace."),
    "albanian": ("Albanian", "The face-up trump lies on top of the stock and is drawn first."),
    "changing_trump": (
        "Changing trump",
        "When the face-up card is drawn, the card under it sets a new trump.",
    ),
    "railway": ("Railway", "The whole deck but one card is dealt: no stock, no drawing."),
    "poker": ("Poker", "Before his lead a player may swap two cards with the stock (3 times)."),
    "full": ("Full deck", "52 cards from the twos, or 54 with two jokers."),
    "wild_sixes": ("Wild sixes", "A six takes the suit its player names when he lays it."),
    "lizard": ("Lizard", "Five cards; the jacks of the trump colour are the highest trumps."),
}

OPTION_NAMES: dict[str, str] = {
    "game": "Game",
    "modifiers": "Modifiers",
    "deck_size": "Deck",
    "hand_size": "Hand size",
    "multi_card_lead": "Lead several cards",
    "throw_in_order": "Throw-in order",
    "bout_limit": "Cards per bout",
    "first_bout_limit": "First bout limit",
    "limit_lifts_when_stock_empty": "No limit when the stock is out",
    "draw_order": "Drawing order",
    "next_first_attacker": "Next game starts",
    "draw": "Draws",
    "teams": "Teams",
    "turn_timeout": "Turn time limit",
    "on_timeout": "Out of time",
    "throw_in_window": "Throw-in window",
    "no_transfer_first_bout": "No transfer in the first bout",
    "no_transfer_with_trump_on_table": "No transfer over a trump",
    "proezdnoy": "Proezdnoy",
    "fast_throw_ins": "Fast throw-ins",
}


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """One option of :class:`Rules`: ``kind`` is ``choice`` (pick one of ``choices``),
    ``multi`` (any subset of ``choices``), ``bool`` or ``int`` (``low``..``high``;
    ``optional`` ints may be None, meaning off)."""

    key: str
    name: str
    description: str
    kind: Literal["choice", "multi", "bool", "int"]
    choices: tuple[Any, ...]
    default: Any
    value: Any
    low: int | None = None
    high: int | None = None
    optional: bool = False


def describe(rules: Rules | None = None) -> list[OptionInfo]:
    """Every option with its name, description, possible values, default and current value."""
    current = rules if rules is not None else Rules()
    found = []
    for key, field in Rules.model_fields.items():
        annotation = field.annotation
        args = get_args(annotation)
        low = high = None
        for meta in field.metadata:
            if isinstance(meta, Ge):
                low = int(meta.ge)  # type: ignore[call-overload]
            elif isinstance(meta, Le):
                high = int(meta.le)  # type: ignore[call-overload]
        optional = type(None) in args
        kind: Literal["choice", "multi", "bool", "int"]
        choices: tuple[Any, ...] = ()
        if key == "game":
            kind, choices = "choice", tuple(PRESETS)
        elif key == "modifiers":
            kind, choices = "multi", MODIFIERS
        elif annotation is bool:
            kind, choices = "bool", (False, True)
        elif get_origin(annotation) is Literal:
            kind, choices = "choice", args
        else:
            kind = "int"
        found.append(
            OptionInfo(
                key=key,
                name=OPTION_NAMES[key],
                description=field.description or "",
                kind=kind,
                choices=choices,
                default=field.default,
                value=getattr(current, key),
                low=low,
                high=high,
                optional=optional,
            )
        )
    return found
