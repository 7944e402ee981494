"""Computer players only ever play legal actions, in every game the engine offers."""

from __future__ import annotations

import pytest

from engine import Rules

from .helpers import base_configs, make_rules, modifier_configs, play_checked

LINEUPS = (("easy", "normal", "hard"), ("hard", "easy", "normal"), ("normal", "hard", "easy"))


@pytest.mark.parametrize(("preset", "players", "teams"), base_configs())
def test_mixed_tables_play_legal_actions_in_every_base_game(
    preset: str, players: int, teams: str
) -> None:
    for i in range(2):
        rules = make_rules(preset, mix=i, teams=teams)
        assert rules is not None
        lineup = LINEUPS[(i + players) % 3]
        levels = [lineup[s % 3] for s in range(players)]
        game = play_checked(rules, levels, seed=1000 * players + i)
        assert game.result is not None


@pytest.mark.parametrize(("modifier", "preset", "players"), modifier_configs())
def test_mixed_tables_play_legal_actions_with_every_modifier(
    modifier: str, preset: str, players: int
) -> None:
    rules = Rules.preset(preset, modifiers=(modifier,))
    levels = [("hard", "normal", "easy")[s % 3] for s in range(players)]
    game = play_checked(rules, levels, seed=7 * players + len(modifier))
    assert game.result is not None


def test_full_strength_hard_players_play_legal_actions() -> None:
    rules = Rules.preset("perevodnoy", teams="pairs", proezdnoy=True)
    game = play_checked(rules, ["hard", "normal", "hard", "easy"], seed=3, quick=False)
    assert game.result is not None
