"""Helpers for the computer-player tests: configurations, checked games, positions."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from engine import Game, Rules
from engine.ai import EasyPlayer, HardPlayer, NormalPlayer, Player, SearchConfig
from engine.rules import MODIFIERS, PRESETS, TEAM_PLAYERS

# A quick hard player for the many-game tests: the same code path (the exact endgame
# and the cut playouts included), fewer worlds and endgame positions.
QUICK = SearchConfig(
    worlds=4, candidates=3, budget=None, endgame_nodes=1500, cut=8, cut_worlds=4, world_cost=6
)

# Options that change the flow, mixed in by seed.
OPTION_MIXES: list[dict[str, object]] = [
    {},
    {"throw_in_order": "clockwise"},
    {"draw": "not_allowed"},
    {"draw_order": "defender_first", "limit_lifts_when_stock_empty": True},
    {"multi_card_lead": False, "first_bout_limit": None},
    {"bout_limit": 5, "first_bout_limit": 4},
]
PEREVODNOY_MIXES: list[dict[str, object]] = [
    {"proezdnoy": True},
    {"no_transfer_with_trump_on_table": True, "no_transfer_first_bout": False},
]


def make_rules(preset: str, mix: int = 0, **extra: object) -> Rules | None:
    """The preset with an option mix; None if the combination is not a legal game."""
    options = dict(OPTION_MIXES[mix % len(OPTION_MIXES)])
    if preset == "perevodnoy":
        options.update(PEREVODNOY_MIXES[mix % 2])
    options.update(extra)
    try:
        return Rules.preset(preset, **options)
    except ValueError:
        return Rules.preset(preset, **extra) if extra else Rules.preset(preset)


def base_configs() -> list[tuple[str, int, str]]:
    """Every preset × player count × team setting the engine accepts."""
    found = []
    for preset in sorted(PRESETS):
        for teams, counts in TEAM_PLAYERS.items():
            for players in counts:
                try:
                    Rules.preset(preset, teams=teams).check_players(players)
                except ValueError:
                    continue
                found.append((preset, players, teams))
    return found


def modifier_configs() -> list[tuple[str, str, int]]:
    """Every modifier with every preset, at 2 and 4 players where the rules allow."""
    found = []
    for modifier in MODIFIERS:
        for preset in sorted(PRESETS):
            for players in (2, 4):
                try:
                    Rules.preset(preset, modifiers=(modifier,)).check_players(players)
                except ValueError:
                    continue
                found.append((modifier, preset, players))
    return found


def player(level: str, quick: bool = True) -> Player:
    """A player of that level (the hard one with a quick search unless ``quick`` is off)."""
    if level == "easy":
        return EasyPlayer()
    if level == "normal":
        return NormalPlayer()
    return HardPlayer(QUICK if quick else None)


def play_checked(
    rules: Rules, levels: Sequence[str], seed: int, quick: bool = True, max_moves: int = 3000
) -> Game:
    """Play a game, asserting that every chosen action is one of the seat's legal ones."""
    players = [player(level, quick) for level in levels]
    game = Game.new(rules, players=len(levels), seed=seed)
    order = random.Random(seed)
    while game.result is None:
        assert game.moves < max_moves, "the game did not end"
        seat = order.choice(game.to_act())
        view = game.view(seat)
        action = players[seat].choose(view, rules, seed=seed)
        assert action in view.actions, (levels[seat], action, view.actions)
        game.apply(action)
    return game


def positions(rules: Rules, players: int, seed: int, every: int = 3) -> Iterator[Game]:
    """Positions along a seeded game between normal players (copies of every ``every``th
    one where the seat to act has a choice)."""
    game = Game.new(rules, players=players, seed=seed)
    bot = NormalPlayer()
    order = random.Random(seed)
    step = 0
    while game.result is None:
        seat = order.choice(game.to_act())
        view = game.view(seat)
        if len(view.actions) > 1:
            step += 1
            if step % every == 0:
                yield game.copy()
        game.apply(bot.choose(view, rules))
