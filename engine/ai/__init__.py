"""Computer players for empty seats: ``easy``, ``normal`` and ``hard``.

A player sees what its seat may see and nothing else: it takes a
:class:`~engine.views.SeatView` (and the public :class:`~engine.rules.Rules`), never the
game. Besides the seat's own hand it uses what a player with perfect memory knows: the
cards beaten off (``public.discarded``) and the cards others are known to hold
(``public.known``).

>>> from engine import Game, Rules
>>> from engine.ai import make_player
>>> rules = Rules.preset("podkidnoy")
>>> game = Game.new(rules, players=2, seed=1)
>>> seat = game.to_act()[0]
>>> action = make_player("normal").choose(game.view(seat), rules, seed=1)
>>> action in game.legal_actions(seat)
True

- ``easy``: legal and plausible, but careless (:func:`~engine.ai.heuristic.easy_action`).
- ``normal``: a sound heuristic (:func:`~engine.ai.heuristic.best_action`).
- ``hard``: where a 2-player seat knows every card (the stock holds none it cannot see), an
  exact search of the rest of the game (:mod:`~engine.ai.endgame`); elsewhere, and where
  that search does not finish in its positions or finds every move lost, determinized Monte
  Carlo search with the normal heuristic for playouts, until a fixed amount of playout work
  is spent, within a CPU-time budget per decision (:func:`~engine.ai.search.hard_action`);
  in 2-player podkidnoy and perevodnoy the playouts stop early and take a trained
  evaluation's estimate (:mod:`~engine.ai.evaluation`), so the work covers more worlds.
  The coach asks the sampled search alone (:func:`~engine.ai.search.search_action`).
"""

from __future__ import annotations

from .play import play_game
from .players import (
    LEVELS,
    EasyPlayer,
    HardPlayer,
    Level,
    NormalPlayer,
    Player,
    choose,
    make_player,
    think_floor,
)
from .search import SearchConfig

__all__ = [
    "LEVELS",
    "EasyPlayer",
    "HardPlayer",
    "Level",
    "NormalPlayer",
    "Player",
    "SearchConfig",
    "choose",
    "make_player",
    "play_game",
    "think_floor",
]
