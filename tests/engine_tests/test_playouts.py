"""Seeded random playouts to the end: every preset × 2–6 players × teams, 420 games each
(over 10,000 games), then every base game × modifier set × seating, 24 games each.

Every preset × 2–6 players × team setting, with option mixes that change the flow. Each
game of a configuration continues the series of the one before (its result sets the next
game's dealer and first attacker), so the series rules are played too.
"""

from __future__ import annotations

import random

import pytest

from engine import Game, Result
from engine.actions import Timeout

from .configs import CONFIGS, MODIFIER_CONFIGS, modifier_rules, rules_for
from .helpers import assert_conserved

GAMES_PER_CONFIG = 420


def check_result(game: Game, result: Result) -> None:
    n = game.n
    teams = game.rules.teams != "none"
    assert game.to_act() == ()
    if result.draw:
        assert result.durak is None and result.losers == ()
        assert all(p in (1, 2) for p in result.points)
        assert 1 in result.points
        return
    assert result.durak is not None and result.durak in result.losers
    assert all(result.points[s] == 0 for s in result.losers)
    assert all(result.points[s] == 2 for s in range(n) if s not in result.losers)
    if teams:
        assert result.durak_team is not None
        assert {game.team_of(s) for s in result.durak_team} == {game.team_of(result.durak)}
    else:
        assert result.losers == (result.durak,)
    if result.timed_out is None:
        assert result.durak not in result.finish_order
        assert game.hands[result.durak], "the durak holds cards"
        assert not game.stock
        for s in result.finish_order:
            assert not game.hands[s]


@pytest.mark.parametrize(("preset", "players", "teams"), CONFIGS)
def test_random_playouts_end_with_every_card_accounted_for(
    preset: str, players: int, teams: str
) -> None:
    previous: Result | None = None
    outcomes = {"durak": 0, "draw": 0, "pogony": 0, "timeout": 0}
    for i in range(GAMES_PER_CONFIG):
        rules = rules_for(preset, teams, i)
        seed = CONFIGS.index((preset, players, teams)) * 100_000 + i
        rng = random.Random(seed)
        game = Game.new(rules, players=players, seed=seed, previous=previous)
        steps = 0
        while game.result is None:
            seat = rng.choice(game.to_act())
            if rules.on_timeout == "auto" and rng.random() < 0.05:
                game.apply(Timeout(seat))
            else:
                game.apply(rng.choice(game.legal_actions(seat)))
            steps += 1
            assert steps < 10_000, "the game did not end"
        assert_conserved(game)
        check_result(game, game.result)
        assert Game.from_json(game.to_json()).to_json() == game.to_json()
        outcomes["draw" if game.result.draw else "durak"] += 1
        outcomes["pogony"] += game.result.pogony
        outcomes["timeout"] += game.result.timed_out is not None
        previous = game.result
    assert outcomes["durak"] > 0


MODIFIER_GAMES = 24
GROUPS = sorted({(p, m, d) for p, m, d, _, _ in MODIFIER_CONFIGS})


@pytest.mark.parametrize(("preset", "mods", "deck"), GROUPS)
def test_every_modifier_with_every_base_game_plays_to_the_end(
    preset: str, mods: tuple[str, ...], deck: int
) -> None:
    """Every base game × modifier set × 2–6 players × teams: 24 games each."""
    seats = [(n, t) for p, m, d, n, t in MODIFIER_CONFIGS if (p, m, d) == (preset, mods, deck)]
    assert seats, "each group has at least one playable seating"
    for players, teams in seats:
        previous: Result | None = None
        for i in range(MODIFIER_GAMES):
            rules = modifier_rules(preset, mods, deck, teams, i)
            seed = GROUPS.index((preset, mods, deck)) * 1_000_000 + players * 10_000 + i
            rng = random.Random(seed)
            game = Game.new(rules, players=players, seed=seed, previous=previous)
            steps = 0
            while game.result is None:
                seat = rng.choice(game.to_act())
                if rules.on_timeout == "auto" and rng.random() < 0.05:
                    game.apply(Timeout(seat))
                else:
                    game.apply(rng.choice(game.legal_actions(seat)))
                steps += 1
                assert steps < 10_000, "the game did not end"
                if steps % 16 == 0:
                    text = game.to_json()
                    assert Game.from_json(text).to_json() == text
            assert_conserved(game)
            check_result(game, game.result)
            assert Game.from_json(game.to_json()).to_json() == game.to_json()
            previous = game.result
