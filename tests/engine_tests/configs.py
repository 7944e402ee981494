"""Every preset × player count × team setting, plus option mixes, for playouts."""

from __future__ import annotations

from engine import Rules
from engine.rules import PRESETS, TEAM_PLAYERS

CONFIGS: list[tuple[str, int, str]] = [
    (preset, players, teams)
    for preset in sorted(PRESETS)
    for teams, counts in TEAM_PLAYERS.items()
    for players in counts
]

# Options that change the flow, mixed into playouts by seed.
OPTION_MIXES: list[dict[str, object]] = [
    {},
    {"throw_in_order": "clockwise"},
    {"draw": "not_allowed"},
    {"draw_order": "defender_first", "limit_lifts_when_stock_empty": True},
    {"multi_card_lead": False, "first_bout_limit": None},
    {"on_timeout": "auto", "bout_limit": 5, "first_bout_limit": 4},
    {"hand_size": 5, "next_first_attacker": "winner"},
]

PEREVODNOY_MIXES: list[dict[str, object]] = [
    {"proezdnoy": True},
    {"no_transfer_with_trump_on_table": True, "no_transfer_first_bout": False},
]


def rules_for(preset: str, teams: str, mix: int) -> Rules:
    """The rules of one playout configuration."""
    options = dict(OPTION_MIXES[mix % len(OPTION_MIXES)])
    if preset == "perevodnoy" and mix % 3 == 0:
        options.update(PEREVODNOY_MIXES[mix % 2])
    return Rules.preset(preset, teams=teams, **options)
