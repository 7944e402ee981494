"""The rules of durak: pure, synchronous, no I/O.

>>> from engine import Card, Rules, Game
>>> game = Game.new(Rules.preset("podkidnoy"), players=2, seed=7)
>>> seat = game.to_act()[0]
>>> events = game.apply(game.legal_actions(seat)[0])
"""

from __future__ import annotations

from .actions import Action, Event, action_from_dict
from .cards import Card, Rank, Suit, deck, parse_cards
from .describe import GAMES, MODIFIER_INFO, OptionInfo, describe
from .errors import IllegalAction, InvalidState
from .game import Game
from .result import Result
from .rules import MODIFIERS, PRESETS, Rules
from .state import FORMAT_VERSION
from .views import PublicView, SeatView

__all__ = [
    "FORMAT_VERSION",
    "GAMES",
    "MODIFIERS",
    "MODIFIER_INFO",
    "PRESETS",
    "Action",
    "Card",
    "Event",
    "Game",
    "IllegalAction",
    "InvalidState",
    "OptionInfo",
    "PublicView",
    "Rank",
    "Result",
    "Rules",
    "SeatView",
    "Suit",
    "action_from_dict",
    "deck",
    "describe",
    "parse_cards",
]
