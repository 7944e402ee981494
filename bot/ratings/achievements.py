"""Achievements: the catalogue and the rules that give them, pure functions, no I/O.

An achievement is earned once per player, from his own counted games (those that moved a
rating: :func:`bot.ratings.model.not_counted` says which), in the order the ratings take
them. Computer players earn nothing. The store gives them in each game's finishing
transaction and rebuilds them from the stored history (``python -m bot.rerate
--achievements``); both call :func:`earn` on the same facts, game by game, so they give
the same set.

What a game says of each seat comes from two places:

- its result, as the store keeps it (durak, draw, who went out first, the table's size,
  teams, the computers at it, whether it was a quick game);
- its **feats** (:data:`KNOWN` and the bits after it), read from the action log by
  replaying it with the engine (``bot.service.feats``), kept with the seat's line of the
  game (``game_players.feats``). A game whose log could not be replayed has no feats
  (0): nothing that needs them is given for it.

The tournament won (:data:`TOURNAMENT`) comes from the tournaments, not from one game:
:func:`bot.store` ``award_tournament`` gives it; a rebuild keeps it as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

__all__ = [
    "BY_CODE",
    "CATALOGUE",
    "FEATS",
    "GAME_CODES",
    "KNOWN",
    "NO_TAKE",
    "NO_TRUMP",
    "POGONY_GIVEN",
    "SIX_BEATEN",
    "TOOK_FIVE",
    "TOURNAMENT",
    "TRANSFER_THREE",
    "Achievement",
    "Line",
    "Progress",
    "earn",
]

KNOWN: Final = 1
"""The seat's feats were read from the log (else none is known)."""
NO_TAKE: Final = 2
"""He never picked up the table's cards."""
TOOK_FIVE: Final = 4
"""He picked up the table's cards five times or more."""
SIX_BEATEN: Final = 8
"""As the defender he beat off a bout of six attacking cards, every one covered."""
TRANSFER_THREE: Final = 16
"""He made the third transfer of one bout (perevodnoy: three transfers in a row)."""
POGONY_GIVEN: Final = 32
"""The game ended with pogony and he put a six into that last bout."""
NO_TRUMP: Final = 64
"""He played no trump (and no joker) the whole game."""
FEATS: Final = (KNOWN, NO_TAKE, TOOK_FIVE, SIX_BEATEN, TRANSFER_THREE, POGONY_GIVEN, NO_TRUMP)

TOURNAMENT: Final = "tournament"


@dataclass(frozen=True, slots=True)
class Achievement:
    """One achievement: its code (stored), its emoji; its name and description are the
    catalog's ``ach.<code>.name`` and ``ach.<code>.desc``."""

    code: str
    emoji: str


CATALOGUE: Final[tuple[Achievement, ...]] = (
    Achievement("first_win", "🎉"),
    Achievement("first_out", "🥇"),
    Achievement("clean_sheet", "🧤"),
    Achievement("six_beaten", "🛡"),
    Achievement("transfer_three", "🔁"),
    Achievement("pogony", "🎖"),
    Achievement("no_trump", "🌿"),
    Achievement("escape", "🏃"),
    Achievement("calm_10", "😎"),
    Achievement("streak_3", "🔥"),
    Achievement("six_first", "👑"),
    Achievement("team_win", "🤝"),
    Achievement("hard_win", "🤖"),
    Achievement("quick_win", "⚡"),
    Achievement("draw", "⚖️"),
    Achievement("first_durak", "🤡"),
    Achievement("games_10", "🎲"),
    Achievement("games_50", "🃏"),
    Achievement("games_100", "💯"),
    Achievement(TOURNAMENT, "🏆"),
)
"""Every achievement, in the order /me lists them."""
BY_CODE: Final = {a.code: a for a in CATALOGUE}
GAME_CODES: Final = frozenset(a.code for a in CATALOGUE if a.code != TOURNAMENT)
"""The achievements a game gives (a rebuild forgets and gives them again)."""

CALM_GAMES: Final = 10
STREAK: Final = 3
ESCAPES: Final = 5
"""Takes in one game behind :data:`TOOK_FIVE` (``bot.service.feats`` counts them)."""
MILESTONES: Final = ((10, "games_10"), (50, "games_50"), (100, "games_100"))


@dataclass(frozen=True, slots=True)
class Line:
    """One counted game as one human player had it."""

    players: int
    durak: bool
    """He was the durak, or on the losing team."""
    draw: bool
    first: bool
    """He went out first (the first seat of the finishing order)."""
    team: bool
    """A team game."""
    beat_hard: bool
    """A hard computer player was the durak (or on the losing team)."""
    quick: bool
    """A quick game: a private table no invitation opened."""
    feats: int = 0

    @property
    def won(self) -> bool:
        """Not the durak, and not a draw."""
        return not self.durak and not self.draw


@dataclass(slots=True)
class Progress:
    """What a player's earlier counted games left behind: how many, and his current runs."""

    games: int = 0
    calm: int = 0
    """Counted games in a row without being the durak."""
    firsts: int = 0
    """Counted games in a row he went out first."""


def _known(line: Line, bit: int) -> bool:
    return bool(line.feats & KNOWN) and bool(line.feats & bit)


def _given(line: Line, progress: Progress) -> Iterable[str]:
    """Every achievement this game, after the earlier ones, satisfies."""
    if line.won:
        yield "first_win"
    if line.first and line.players >= 3:
        yield "first_out"
    if line.won and _known(line, NO_TAKE):
        yield "clean_sheet"
    if _known(line, SIX_BEATEN):
        yield "six_beaten"
    if _known(line, TRANSFER_THREE):
        yield "transfer_three"
    if _known(line, POGONY_GIVEN):
        yield "pogony"
    if line.first and _known(line, NO_TRUMP):
        yield "no_trump"
    if line.won and _known(line, TOOK_FIVE):
        yield "escape"
    if progress.calm >= CALM_GAMES:
        yield "calm_10"
    if progress.firsts >= STREAK:
        yield "streak_3"
    if line.first and line.players == 6:
        yield "six_first"
    if line.won and line.team:
        yield "team_win"
    if line.won and line.beat_hard:
        yield "hard_win"
    if line.won and line.quick:
        yield "quick_win"
    if line.draw:
        yield "draw"
    if line.durak:
        yield "first_durak"
    for games, code in MILESTONES:
        if progress.games >= games:
            yield code


def earn(progress: Progress, line: Line, have: Iterable[str] = ()) -> list[str]:
    """Count one more counted game into ``progress`` (changed in place) and give back the
    achievements it earns that are not in ``have``, in the catalogue's order."""
    progress.games += 1
    progress.calm = 0 if line.durak else progress.calm + 1
    progress.firsts = progress.firsts + 1 if line.first else 0
    owned = set(have)
    found = set(_given(line, progress)) - owned
    return [a.code for a in CATALOGUE if a.code in found]
