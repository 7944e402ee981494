"""Every preset × player count × team setting, plus option mixes, for playouts."""

from __future__ import annotations

from engine import Rules
from engine.rules import MODIFIERS, PRESETS, TEAM_PLAYERS


def _valid(preset: str, teams: str, players: int, **options: object) -> bool:
    try:
        Rules.preset(preset, teams=teams, **options).check_players(players)
    except ValueError:
        return False
    return True


CONFIGS: list[tuple[str, int, str]] = [
    (preset, players, teams)
    for preset in sorted(PRESETS)
    for teams, counts in TEAM_PLAYERS.items()
    for players in counts
    if _valid(preset, teams, players)
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
    if preset == "prostoy5":
        options.pop("hand_size", None)  # always five cards
    return Rules.preset(preset, teams=teams, **options)


# Every modifier (and the 54-card deck) with every base game; the combinations of several
# modifiers that change the same things in different ways.
MODIFIER_SETS: list[tuple[tuple[str, ...], int]] = [
    *[((m,), 36) for m in MODIFIERS if m != "full"],
    (("full",), 52),
    (("full",), 54),
    (("full", "lizard"), 54),
    (("japanese", "wild_sixes", "poker"), 36),
    (("changing_trump", "fallen_ace"), 36),
    (("railway", "wild_sixes"), 36),
    (("albanian", "lizard", "spades_by_spades"), 36),
    (("full", "no_trump", "wild_sixes"), 54),
]

MODIFIER_CONFIGS: list[tuple[str, tuple[str, ...], int, int, str]] = [
    (preset, mods, deck, players, teams)
    for preset in sorted(PRESETS)
    for mods, deck in MODIFIER_SETS
    for teams, counts in TEAM_PLAYERS.items()
    for players in counts
    if _valid(preset, teams, players, modifiers=mods, deck_size=deck)
]


def modifier_rules(preset: str, mods: tuple[str, ...], deck: int, teams: str, mix: int) -> Rules:
    """The rules of one modifier playout configuration, with a flow option mixed in."""
    options = dict(OPTION_MIXES[mix % len(OPTION_MIXES)])
    options.pop("hand_size", None)
    if preset == "perevodnoy" and mix % 3 == 0 and "no_trump" not in mods:
        options.update(PEREVODNOY_MIXES[mix % 2])
    return Rules.preset(preset, teams=teams, modifiers=mods, deck_size=deck, **options)
